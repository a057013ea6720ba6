package clock

import (
	"testing"
	"time"
)

func TestScaledClock(t *testing.T) {
	real := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	virtual := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	now := real
	c := &Scaled{anchor: Anchor{VirtualStart: virtual, RealStart: real, Speed: 60}, real: func() time.Time { return now }}
	if !c.Now().Equal(virtual) {
		t.Fatalf("at the anchor: %v", c.Now())
	}
	now = real.Add(time.Minute)
	if want := virtual.Add(time.Hour); !c.Now().Equal(want) {
		t.Fatalf("a real minute at 60x: %v, want %v", c.Now(), want)
	}
	if c.RealDuration(time.Hour) != time.Minute {
		t.Fatalf("real duration of an hour at 60x: %v", c.RealDuration(time.Hour))
	}
	now = real.Add(1500 * time.Nanosecond)
	if c.Now().Nanosecond()%1000 != 0 || c.Now().Location() != time.UTC {
		t.Fatalf("not truncated to microseconds in UTC: %v", c.Now())
	}
}

func TestManualClock(t *testing.T) {
	m := NewManual(time.Date(2026, 3, 29, 0, 0, 0, 0, time.FixedZone("CET", 3600)))
	if m.Now().Location() != time.UTC || m.Now().Hour() != 23 {
		t.Fatalf("manual clock %v", m.Now())
	}
	m.Advance(90 * time.Minute)
	if m.Now().Hour() != 0 || m.Now().Minute() != 30 {
		t.Fatalf("after advancing: %v", m.Now())
	}
}

func TestRealClockFollowsTheMachine(t *testing.T) {
	before := time.Now().Add(-time.Microsecond)
	got := Real{}.Now()
	after := time.Now()
	if got.Before(before) || got.After(after) || got.Location() != time.UTC {
		t.Fatalf("Real.Now() = %v, want a UTC instant between %v and %v", got, before, after)
	}
}
