package events

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"atcp/internal/clock"
	"atcp/internal/errs"
)

// Outbox accepts events for delivery.
type Outbox struct {
	store    Store
	platform clock.Clock
	real     clock.Clock
}

// NewOutbox returns the outbox on store. platform stamps events that come
// without CreatedAt (when they happened, next to the platform's other
// records); real is the machine's clock the delivery timing runs on.
func NewOutbox(store Store, platform, real clock.Clock) *Outbox {
	return &Outbox{store: store, platform: platform, real: real}
}

// Enqueue validates events and stores them in one transaction, all or
// none, due at once. It assigns a UUIDv7 to an event without ID and the
// platform time to one without CreatedAt. A repeated idempotency key is
// stored again: deduplication is the receiver's (docs/events.md).
func (o *Outbox) Enqueue(ctx context.Context, list []Event) error {
	if len(list) == 0 {
		return nil
	}
	var v errs.Validation
	out := make([]Event, len(list))
	seen := make(map[uuid.UUID]bool, len(list))
	now := o.platform.Now()
	for i, e := range list {
		if e.ID == uuid.Nil {
			id, err := uuid.NewV7()
			if err != nil {
				return fmt.Errorf("events: new id: %w", err)
			}
			e.ID = id
		}
		if e.CreatedAt.IsZero() {
			e.CreatedAt = now
		}
		prefix := fmt.Sprintf("events[%d].", i)
		if seen[e.ID] {
			v.Add(prefix+"id", "is repeated in the batch", e.ID.String())
		}
		seen[e.ID] = true
		e.validate(prefix, &v)
		out[i] = e
	}
	if err := v.Err(); err != nil {
		return err
	}
	return o.store.Enqueue(ctx, out, o.real.Now())
}
