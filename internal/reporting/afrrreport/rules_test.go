package afrrreport

import (
	"testing"
	"time"

	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestClassify(t *testing.T) {
	cases := []struct {
		name                   string
		planned, set, accepted float64
		want                   Outcome
	}{
		{"delivered exactly", -5, -5, -5, Delivered},
		{"within 5 %", -5, -5, -4.8, Delivered},
		{"beyond what was sent", 3, 3, 3.2, Delivered},
		{"within 0.01 MW of a small setpoint", 0.1, 0.1, 0.091, Delivered},
		{"partial", -5, -5, -3, Partial},
		{"just under 95 %", 10, 10, 9.4, Partial},
		{"nothing", -5, -5, 0, NotDelivered},
		{"under 5 %", 5, 5, 0.2, NotDelivered},
		{"against the direction", 5, 5, -1, NotDelivered},
		{"skipped", -5, 0, 0, Skipped},
		{"limited and delivered", -5, -3, -3, Delivered},
		{"nothing asked", 0, 0, 0, Delivered},
	}
	for _, c := range cases {
		if got := Classify(c.planned, c.set, c.accepted); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEventMagnitudes(t *testing.T) {
	for _, c := range []struct {
		dir                   bids.Product
		set, accepted, ws, wa float64
	}{
		{bids.Neg, -4, -3, 4, 3}, {bids.Pos, 2, 2.5, 2, 2.5}, {bids.Pos, 2, -1, 2, 0}, {bids.Neg, 0, 0, 0, 0},
	} {
		s, a := Event{Direction: c.dir, SetMW: c.set, AcceptedMW: c.accepted}.Magnitudes()
		if s != c.ws || a != c.wa {
			t.Errorf("%+v: %v %v", c, s, a)
		}
	}
}

// slots are totals of one event per quarter-hour from start for n
// quarter-hours: 4 MW set, 3 MW accepted, every fourth one filtered.
func slots(start string, n int) []SlotTotal {
	var out []SlotTotal
	for i := range n {
		t := SlotTotal{Slot: utc(start).Add(time.Duration(i) * 15 * time.Minute), Direction: bids.Neg, Count: 1, Dispatched: 1, SetMW: 4, AcceptedMW: 3}
		if i%4 == 0 {
			t.Filtered = 1
		}
		out = append(out, t)
	}
	return out
}

// TestPeriods: performance periods are Berlin's hours and days, also on
// the clock-change days; every period of the window appears, zero-valued
// without events.
func TestPeriods(t *testing.T) {
	cases := []struct {
		name       string
		totals     []SlotTotal
		g          reporting.Granularity
		start, end string
		periods    int
		first      int // dispatch_count of the first period
		last       int
	}{
		// 2026-03-29 Berlin: 92 quarter-hours from 2026-03-28T23:00Z.
		{"spring-forward day, daily", slots("2026-03-28T23:00:00Z", 92), reporting.Daily, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 1, 92, 92},
		{"spring-forward day, hourly", slots("2026-03-28T23:00:00Z", 92), reporting.Hourly, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 23, 4, 4},
		{"spring-forward day, quarter-hours", slots("2026-03-28T23:00:00Z", 92), reporting.FifteenMinutes, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 92, 1, 1},
		// 2026-10-25 Berlin: 100 quarter-hours from 2026-10-24T22:00Z.
		{"fall-back day, daily", slots("2026-10-24T22:00:00Z", 100), reporting.Daily, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 1, 100, 100},
		{"fall-back day, hourly", slots("2026-10-24T22:00:00Z", 100), reporting.Hourly, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 25, 4, 4},
		{"fall-back day and the next, daily", slots("2026-10-24T22:00:00Z", 100+96), reporting.Daily, "2026-10-24T22:00:00Z", "2026-10-26T23:00:00Z", 2, 100, 96},
		{"a day without events", nil, reporting.Daily, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 1, 0, 0},
		{"events before the first period are not counted", slots("2026-02-01T22:00:00Z", 8), reporting.Hourly, "2026-02-01T23:00:00Z", "2026-02-02T01:00:00Z", 2, 4, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Periods(c.totals, c.g, reporting.Window{Start: utc(c.start), End: utc(c.end)})
			if len(got) != c.periods || got[0].DispatchCount != c.first || got[len(got)-1].DispatchCount != c.last {
				t.Fatalf("%d periods, first %+v, last %+v", len(got), got[0], got[len(got)-1])
			}
			filtered, want := 0, 0
			for _, s := range c.totals {
				if !s.Slot.Before(got[0].Start) {
					want += s.Filtered
				}
			}
			for _, p := range got {
				filtered += p.FilteredCount
				if p.Granularity != c.g {
					t.Fatalf("granularity %q", p.Granularity)
				}
				if p.DispatchCount == 0 {
					if p.FillRatePct != nil || p.TotalSetMW != 0 {
						t.Fatalf("an empty period: %+v", p)
					}
					continue
				}
				if p.FillRatePct == nil || *p.FillRatePct != 75 || p.TotalSetMW != 4*float64(p.DispatchCount) {
					t.Fatalf("period %+v (fill rate %v)", p, p.FillRatePct)
				}
			}
			if filtered != want {
				t.Fatalf("%d filtered, want %d", filtered, want)
			}
		})
	}
	// The fall-back day's two 02:00 hours are two periods.
	got := Periods(slots("2026-10-25T00:00:00Z", 8), reporting.Hourly, reporting.Window{Start: utc("2026-10-25T00:00:00Z"), End: utc("2026-10-25T02:00:00Z")})
	if len(got) != 2 || !got[1].Start.Equal(utc("2026-10-25T01:00:00Z")) || got[0].DispatchCount != 4 || got[1].DispatchCount != 4 {
		t.Fatalf("02:00 CEST and 02:00 CET: %+v", got)
	}
}
