package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"

	"atcp/internal/clock"
	"atcp/internal/worker"
)

// Sender delivers events of one channel (or publishes every event, the
// bus). An error wrapped by Permanent means no later attempt can succeed
// (a recipient refused); any other error is retried.
type Sender interface {
	Send(ctx context.Context, e Event) error
}

// permanentError marks a refusal that retrying cannot change.
type permanentError struct{ err error }

func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() error { return p.err }

// Permanent marks err as final: the event becomes dead at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err was marked by Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// JobName names the delivery job in leases, logs and metrics.
const JobName = "event-delivery"

// Settings named in the last_error of an event no sender can deliver, so
// that an operator reading it knows what to configure.
var channelSettings = map[string]string{
	ChannelEmail: "ATCP_SMTP_URL and ATCP_MAIL_FROM",
	ChannelChat:  "a chat webhook sender",
	ChannelBus:   "ATCP_NATS_URL",
}

// DelivererOptions configure a Deliverer.
type DelivererOptions struct {
	Store Store
	// Clock is the machine's clock: retry waits and claims are real time
	// at any platform clock speed (docs/events.md).
	Clock clock.Clock
	// Senders by channel (email, chat). An event of a channel without a
	// sender is dead at its first attempt.
	Senders map[string]Sender
	// Bus, when set, publishes every event (an event of channel bus only
	// there); nil: no event bus, and an event of channel bus is dead.
	Bus Sender
	// Schedule is the retry policy; zero: DefaultSchedule.
	Schedule Schedule
	// Batch is how many events one claim takes (default 8); MaxPerRun
	// bounds the events one run attempts (default 64), so that a backlog
	// is worked off over several runs instead of blocking shutdown.
	Batch, MaxPerRun int
	// AttemptTimeout bounds one attempt at one event, both its parts
	// (default 30 s).
	AttemptTimeout time.Duration
	Logger         *slog.Logger
}

// Deliverer sends the outbox's due events: the delivery job's work.
type Deliverer struct {
	o DelivererOptions
}

// NewDeliverer checks the options and fills in the defaults.
func NewDeliverer(o DelivererOptions) (*Deliverer, error) {
	if o.Store == nil || o.Clock == nil {
		return nil, errors.New("events: a deliverer needs a store and a clock")
	}
	if o.Schedule == (Schedule{}) {
		o.Schedule = DefaultSchedule
	}
	if o.Batch <= 0 {
		o.Batch = 8
	}
	if o.MaxPerRun <= 0 {
		o.MaxPerRun = 64
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Deliverer{o: o}, nil
}

// Job is the delivery job, run every period of the platform clock (the
// caller converts a real period at the clock's speed) under leaseTTL.
func (d *Deliverer) Job(every, leaseTTL time.Duration) worker.Job {
	return worker.Job{Name: JobName, Every: every, LeaseTTL: leaseTTL, Run: func(ctx context.Context, _ time.Time) error {
		_, err := d.Run(ctx)
		return err
	}}
}

// hold is how long a claim keeps its events from other deliverers: longer
// than attempting a whole batch can take, so that a live deliverer never
// loses an event it is still sending; a dead one's events are due again
// after it.
func (d *Deliverer) hold() time.Duration {
	return time.Duration(d.o.Batch)*d.o.AttemptTimeout + time.Minute
}

// Run attempts the due events, batch by batch, until none is due or
// MaxPerRun were attempted, and returns how many were attempted. When ctx
// ends (shutdown, lease lost) it stops after the attempt in progress and
// gives the events it claimed but did not attempt back.
func (d *Deliverer) Run(ctx context.Context) (int, error) {
	attempted := 0
	for attempted < d.o.MaxPerRun && ctx.Err() == nil {
		claim := uuid.New()
		batch, err := d.o.Store.Claim(ctx, claim, d.o.Clock.Now(), min(d.o.Batch, d.o.MaxPerRun-attempted), d.hold())
		if err != nil {
			if ctx.Err() != nil {
				return attempted, nil // stopped before anything was claimed
			}
			return attempted, err
		}
		sortDeliveries(batch)
		var errList []error
		for _, dl := range batch {
			if ctx.Err() != nil {
				break
			}
			if err := d.attempt(ctx, claim, dl); err != nil {
				errList = append(errList, err)
			}
			attempted++
		}
		if ctx.Err() != nil {
			// What this claim did not settle is due again at once, for
			// this instance after a restart or another one now.
			if err := d.o.Store.Release(context.WithoutCancel(ctx), claim, d.o.Clock.Now()); err != nil {
				errList = append(errList, err)
			}
		}
		if len(errList) > 0 {
			return attempted, errors.Join(errList...)
		}
		if len(batch) < d.o.Batch {
			break
		}
	}
	return attempted, nil
}

// attempt tries the parts of dl's delivery still open, the bus first
// (the audit copy goes out even when a mail server is down), then the
// channel, and settles the outcome. An error is the store's; a sender's
// failure is the event's (its last_error).
func (d *Deliverer) attempt(ctx context.Context, claim uuid.UUID, dl Delivery) error {
	actx, cancel := context.WithTimeout(ctx, d.o.AttemptTimeout)
	defer cancel()
	out := Outcome{OrganizationID: dl.OrganizationID, EventID: dl.ID, Claim: claim}
	var failures []error
	permanent := false
	fail := func(err error) {
		failures = append(failures, err)
		permanent = permanent || IsPermanent(err)
	}

	needBus := dl.PublishedAt == nil && (d.o.Bus != nil || dl.Channel == ChannelBus)
	switch {
	case !needBus:
	case d.o.Bus == nil:
		fail(Permanent(fmt.Errorf("no event bus is configured (%s)", channelSettings[ChannelBus])))
	default:
		if err := d.o.Bus.Send(actx, dl.Event); err != nil {
			fail(fmt.Errorf("bus: %w", err))
		} else {
			out.Published = true
		}
	}
	if dl.Channel != ChannelBus && dl.SentAt == nil {
		if s := d.o.Senders[dl.Channel]; s == nil {
			fail(Permanent(fmt.Errorf("no %s sender is configured (%s)", dl.Channel, channelSettings[dl.Channel])))
		} else if err := s.Send(actx, dl.Event); err != nil {
			fail(fmt.Errorf("%s: %w", dl.Channel, err))
		} else {
			out.Sent = true
		}
	}
	out.ClearBody = out.Sent && ClearsBodyOnSend(dl.Type)
	if ctx.Err() != nil && len(failures) > 0 {
		// Cut off by shutdown, not refused: Run releases the event
		// without counting the attempt, keeping what did succeed.
		if out.Sent || out.Published {
			out.Status, out.NextAttemptAt = StatusPending, d.o.Clock.Now()
			out.Error, out.At = "interrupted by shutdown", d.o.Clock.Now()
			_, err := d.o.Store.Settle(context.WithoutCancel(ctx), out)
			return err
		}
		return nil
	}

	now := d.o.Clock.Now()
	out.At = now
	attempts := dl.Attempts + 1
	log := d.o.Logger.With("event_id", dl.ID, "type", dl.Type, "channel", dl.Channel, "attempt", attempts)
	switch wait, retry := d.o.Schedule.Next(dl.ID, attempts); {
	case len(failures) == 0:
		out.Status = StatusDelivered
		log.Debug("event delivered")
	case permanent || !retry:
		out.Status, out.Error = StatusDead, errors.Join(failures...).Error()
		log.Error("event delivery given up", "error", out.Error)
	default:
		out.Status, out.Error, out.NextAttemptAt = StatusPending, errors.Join(failures...).Error(), now.Add(wait)
		log.Warn("event delivery failed, will retry", "error", out.Error, "retry_at", out.NextAttemptAt)
	}
	if ok, err := d.o.Store.Settle(context.WithoutCancel(ctx), out); err != nil {
		return fmt.Errorf("event %s: %w", dl.ID, err)
	} else if !ok {
		log.Warn("event claim lapsed during the attempt; another deliverer retries it")
	}
	return nil
}

// sortDeliveries orders a claimed batch by creation, so that the events
// of one action go out in the order they happened.
func sortDeliveries(list []Delivery) {
	slices.SortFunc(list, func(a, b Delivery) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return slices.Compare(a.ID[:], b.ID[:])
	})
}
