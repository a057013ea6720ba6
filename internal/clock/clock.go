// Package clock is the only source of "now" in atcp. Domain code receives a
// Clock and never calls time.Now, so the whole platform can run on a replayed
// market day at any speed and tests can move time by hand.
package clock

import (
	"sync"
	"time"
)

// Clock tells the platform's current instant.
type Clock interface {
	Now() time.Time
}

// Anchor maps real time onto platform time: at real instant RealStart the
// platform clock reads VirtualStart and from then on it advances Speed
// platform seconds per real second. Instances that share one anchor (it is
// persisted in the store) agree on the time.
type Anchor struct {
	VirtualStart time.Time
	RealStart    time.Time
	Speed        float64
}

// Scaled is a clock running from an Anchor.
type Scaled struct {
	anchor Anchor
	real   func() time.Time
}

// NewScaled returns a clock following anchor against the machine's clock.
func NewScaled(anchor Anchor) *Scaled {
	return &Scaled{anchor: anchor, real: time.Now}
}

// Now returns the platform time in UTC, truncated to microseconds so that a
// value read back from either store compares equal to the value written.
func (c *Scaled) Now() time.Time {
	elapsed := c.real().Sub(c.anchor.RealStart)
	if c.anchor.Speed != 1 {
		elapsed = time.Duration(float64(elapsed) * c.anchor.Speed)
	}
	return c.anchor.VirtualStart.Add(elapsed).UTC().Truncate(time.Microsecond)
}

// Anchor returns the anchor the clock runs from.
func (c *Scaled) Anchor() Anchor { return c.anchor }

// RealDuration converts a span of platform time into the real time it takes
// to pass, for timers of background workers.
func (c *Scaled) RealDuration(d time.Duration) time.Duration {
	if c.anchor.Speed <= 0 {
		return d
	}
	return time.Duration(float64(d) / c.anchor.Speed)
}

// Manual is a clock that moves only when told; tests use it.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a manual clock reading t.
func NewManual(t time.Time) *Manual { return &Manual{now: t.UTC().Truncate(time.Microsecond)} }

// Now returns the current manual time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock forward by d.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d).Truncate(time.Microsecond)
	m.mu.Unlock()
}

// Set moves the clock to t.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	m.now = t.UTC().Truncate(time.Microsecond)
	m.mu.Unlock()
}

// Real is the machine's clock. Security time runs on it (token, code and
// link lifetimes, rate limits, lockouts, verification caches), whatever
// speed the platform clock runs at, so that a demo at 600x speed does not
// expire a token in six seconds or lift a lockout early.
type Real struct{}

// Now returns the machine's current instant in UTC, truncated to
// microseconds like the platform clock.
func (Real) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
