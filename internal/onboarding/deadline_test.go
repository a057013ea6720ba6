package onboarding_test

import (
	"testing"
	"time"

	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
)

// TestOverdue: a gate is overdue from 00:00 Europe/Berlin of the day after
// its deadline, the clock-change days included.
func TestOverdue(t *testing.T) {
	day := func(s string) *calendar.Day {
		d, err := calendar.ParseDay(s)
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		deadline string
		from     string // the first overdue instant (UTC)
	}{
		{"2026-02-10", "2026-02-10T23:00:00Z"}, // CET
		{"2026-07-10", "2026-07-10T22:00:00Z"}, // CEST
		{"2026-03-28", "2026-03-28T23:00:00Z"}, // the next day is 23 hours long
		{"2026-03-29", "2026-03-29T22:00:00Z"}, // the short day itself
		{"2026-10-24", "2026-10-24T22:00:00Z"}, // the next day is 25 hours long
		{"2026-10-25", "2026-10-25T23:00:00Z"}, // the long day itself
	} {
		g := onboarding.Gate{Status: onboarding.GateInProgress, Deadline: day(c.deadline)}
		from := utc(c.from)
		if g.Overdue(from.Add(-time.Microsecond)) || !g.Overdue(from) {
			t.Errorf("deadline %s: overdue just before %s %v, at it %v", c.deadline, c.from, g.Overdue(from.Add(-time.Microsecond)), g.Overdue(from))
		}
		for _, done := range []onboarding.GateStatus{onboarding.GatePassed, onboarding.GateWaived} {
			g.Status = done
			if g.Overdue(from.Add(time.Hour)) {
				t.Errorf("%s gate overdue", done)
			}
		}
	}
	if (onboarding.Gate{Status: onboarding.GatePending}).Overdue(time.Now()) {
		t.Error("a gate without deadline is overdue")
	}
}
