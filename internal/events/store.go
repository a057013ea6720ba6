package events

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Status is where an event's delivery stands.
type Status string

// The delivery statuses: pending until every part of the delivery has
// succeeded (delivered) or the event can never be delivered (dead: a
// permanent refusal, no sender for its channel, or the attempts ran out).
const (
	StatusPending   Status = "pending"
	StatusDelivered Status = "delivered"
	StatusDead      Status = "dead"
)

// Delivery is a stored event with its delivery state. Instants other
// than the event's CreatedAt are on the machine's clock.
type Delivery struct {
	Event
	Status   Status
	Attempts int
	// NextAttemptAt is when the event is due (again); while a deliverer
	// holds it, when its claim lapses.
	NextAttemptAt time.Time
	LastError     string
	// SentAt is when the channel's sender took it (email, chat); nil
	// before, and always for the bus channel.
	SentAt *time.Time
	// PublishedAt is when the event bus took it; nil before or without a
	// bus.
	PublishedAt *time.Time
	// FinishedAt is when it became delivered or dead.
	FinishedAt *time.Time
}

// Outcome is the result of one attempt at a claimed delivery.
type Outcome struct {
	OrganizationID string
	EventID        uuid.UUID
	// Claim is the claim the attempt was made under: an outcome of a
	// claim that lapsed and was taken by another deliverer is ignored.
	Claim uuid.UUID
	// Sent and Published report the parts that succeeded in this attempt.
	Sent, Published bool
	Status          Status
	// NextAttemptAt is when a pending event is due again.
	NextAttemptAt time.Time
	Error         string
	At            time.Time
	// ClearBody empties the event's body and mail parts: its channel took
	// it and ClearsBodyOnSend(type).
	ClearBody bool
}

// Store is the outbox. Every instant passed in is on the machine's clock.
type Store interface {
	// Enqueue stores events, all or none, each pending and due at due.
	Enqueue(ctx context.Context, events []Event, due time.Time) error
	// Claim takes up to limit pending events due at now, those due
	// longest first, in no particular order, for the deliverer of claim: they are not due again for
	// anyone before now+hold, unless settled or released earlier. Two
	// deliverers claiming at once never get the same event (PostgreSQL:
	// FOR UPDATE SKIP LOCKED; SQLite: one writer).
	Claim(ctx context.Context, claim uuid.UUID, now time.Time, limit int, hold time.Duration) ([]Delivery, error)
	// Settle records the outcome of one attempt (counting it) and ends
	// the claim on the event; false when the claim was no longer held.
	Settle(ctx context.Context, o Outcome) (bool, error)
	// Release makes the events of claim not yet settled due at now again,
	// without counting an attempt: a deliverer stopping in the middle.
	Release(ctx context.Context, claim uuid.UUID, now time.Time) error
	// Delivery reads one event's delivery state; errs.NotFound when the
	// organisation has no such event.
	Delivery(ctx context.Context, organizationID string, id uuid.UUID) (Delivery, error)
}
