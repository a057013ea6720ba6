package reporting

import (
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestWindowResolve(t *testing.T) {
	now := utc("2026-02-03T10:00:00Z")
	cases := []struct {
		name       string
		in         Window
		start, end string
		ok         bool
	}{
		{"defaults: the last 24 hours", Window{}, "2026-02-02T10:00:00Z", "2026-02-03T10:00:00Z", true},
		{"end only", Window{End: utc("2026-02-02T00:00:00Z")}, "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", true},
		{"start only: up to now", Window{Start: utc("2026-01-01T00:00:00Z")}, "2026-01-01T00:00:00Z", "2026-02-03T10:00:00Z", true},
		{"exactly 90 days", Window{Start: utc("2025-11-05T10:00:00Z")}, "2025-11-05T10:00:00Z", "2026-02-03T10:00:00Z", true},
		{"90 days and a second", Window{Start: utc("2025-11-05T09:59:59Z")}, "", "", false},
		{"empty", Window{Start: now, End: now}, "", "", false},
		{"reversed", Window{Start: now, End: now.Add(-time.Hour)}, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.in.Resolve(now, MaxWindow)
			if (err == nil) != c.ok {
				t.Fatalf("err %v, want ok=%v", err, c.ok)
			}
			if c.ok && (!got.Start.Equal(utc(c.start)) || !got.End.Equal(utc(c.end))) {
				t.Fatalf("got [%s, %s)", got.Start, got.End)
			}
		})
	}
}

func TestPageResolve(t *testing.T) {
	for _, c := range []struct {
		in    Page
		limit int
		ok    bool
	}{
		{Page{}, 100, true}, {Page{Limit: 1000, Offset: 5}, 1000, true},
		{Page{Limit: 1001}, 0, false}, {Page{Limit: -1}, 0, false}, {Page{Offset: -1}, 0, false},
	} {
		got, err := c.in.Resolve()
		if (err == nil) != c.ok || (c.ok && got.Limit != c.limit) {
			t.Fatalf("%+v: %+v %v", c.in, got, err)
		}
	}
}

// TestGranularityPeriods: hours and days are Berlin's, on the clock-change
// days too.
func TestGranularityPeriods(t *testing.T) {
	cases := []struct {
		name        string
		g           Granularity
		start, end  string
		n           int
		first, last string
	}{
		{"quarter-hours of a normal day", FifteenMinutes, "2026-02-01T23:00:00Z", "2026-02-02T23:00:00Z", 96, "2026-02-01T23:00:00Z", "2026-02-02T22:45:00Z"},
		{"quarter-hours of spring-forward", FifteenMinutes, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 92, "2026-03-28T23:00:00Z", "2026-03-29T21:45:00Z"},
		{"quarter-hours of fall-back", FifteenMinutes, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 100, "2026-10-24T22:00:00Z", "2026-10-25T22:45:00Z"},
		{"hours of spring-forward", Hourly, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 23, "2026-03-28T23:00:00Z", "2026-03-29T21:00:00Z"},
		{"hours of fall-back", Hourly, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 25, "2026-10-24T22:00:00Z", "2026-10-25T22:00:00Z"},
		{"days across spring-forward", Daily, "2026-03-28T12:00:00Z", "2026-03-30T12:00:00Z", 3, "2026-03-27T23:00:00Z", "2026-03-29T22:00:00Z"},
		{"days across fall-back", Daily, "2026-10-25T00:00:00Z", "2026-10-26T00:00:00Z", 2, "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z"},
		{"a quarter-hour window inside an hour", Hourly, "2026-02-02T10:15:00Z", "2026-02-02T10:30:00Z", 1, "2026-02-02T10:00:00Z", "2026-02-02T10:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.g.Periods(Window{utc(c.start), utc(c.end)})
			if len(got) != c.n || !got[0].Equal(utc(c.first)) || !got[len(got)-1].Equal(utc(c.last)) {
				t.Fatalf("%d periods %v .. %v", len(got), got[0], got[len(got)-1])
			}
			for i := 1; i < len(got); i++ {
				if !c.g.PeriodEnd(got[i-1]).Equal(got[i]) {
					t.Fatalf("period %d does not start where %d ends", i, i-1)
				}
			}
		})
	}
	if d := Daily.PeriodEnd(utc("2026-10-24T22:00:00Z")).Sub(utc("2026-10-24T22:00:00Z")); d != 25*time.Hour {
		t.Fatalf("the fall-back day lasts %s", d)
	}
	if _, err := ParseGranularity("weekly"); err == nil {
		t.Fatal("weekly accepted")
	}
}
