package events

import (
	"time"

	"github.com/google/uuid"

	"atcp/internal/detrand"
)

// Schedule is the retry policy of failed deliveries: after the nth failed
// attempt the next one waits Base·2^(n-1), at most Cap, shortened by a
// jitter of up to a quarter (whole milliseconds); after MaxAttempts failed attempts the event
// is dead.
type Schedule struct {
	Base        time.Duration
	Cap         time.Duration
	MaxAttempts int
}

// DefaultSchedule retries after about 15 s, 30 s, 1 min, ... up to 30 min
// between attempts, ten attempts over about an hour and a half: a mail
// server restarting or a chat service's short outage is bridged, while a
// fault notification is not sent hours after the fault it announces.
var DefaultSchedule = Schedule{Base: 15 * time.Second, Cap: 30 * time.Minute, MaxAttempts: 10}

// Next returns how long to wait after the failed attempt number attempts
// (1 for the first) of event id, and false when no attempt is left. The
// jitter is a deterministic draw per event and attempt (detrand): events
// that failed together in one outage spread their retries instead of
// returning together, and every instance and test computes the same wait.
func (s Schedule) Next(id uuid.UUID, attempts int) (time.Duration, bool) {
	if attempts >= s.MaxAttempts {
		return 0, false
	}
	attempts = max(attempts, 1)
	d := s.Cap
	// Doubling Base more than 62 times overflows; the cap is long reached.
	if n := attempts - 1; n < 62 && s.Base<<n > 0 && s.Base<<n < s.Cap {
		d = s.Base << n
	}
	u := detrand.Uniform(detrand.Hash(id.String()), uint64(attempts))
	// Whole milliseconds survive both stores' microsecond instants.
	return (d - time.Duration(float64(d)*u/4)).Truncate(time.Millisecond), true
}
