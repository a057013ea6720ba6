package settlement

import (
	"testing"
	"time"

	"atcp/internal/markets/calendar"
)

func TestStatusAt(t *testing.T) {
	month, tenDays, sixHours, monthAndNine := FinalLag{Months: 1}, FinalLag{Days: 10}, FinalLag{Hours: 6}, FinalLag{Months: 1, Days: 9}
	for _, c := range []struct {
		name      string
		lag       FinalLag
		block     string
		published string // PublishedAt
		final     string // FinalAt
	}{
		// 2026-02-02 10:15 CET: published 2026-02-03 00:00 CET, final
		// 2026-03-03 00:00 CET.
		{"winter day", month, "2026-02-02T09:15:00Z", "2026-02-02T23:00:00Z", "2026-03-02T23:00:00Z"},
		// The last quarter-hour of 2026-02-28 (23:45 CET): final 1 April
		// 00:00, now CEST.
		{"end of month", month, "2026-02-28T22:45:00Z", "2026-02-28T23:00:00Z", "2026-03-31T22:00:00Z"},
		// 2026-03-01 00:00 CET is March's although it is February in UTC.
		{"first of the month in UTC the day before", month, "2026-02-28T23:00:00Z", "2026-03-01T23:00:00Z", "2026-04-01T22:00:00Z"},
		// Published on 30 and 31 January: a month later is the last day of
		// February, the same as for the 29th, and 1 February's is 1 March.
		{"published on the 30th, February is shorter", month, "2026-01-29T12:00:00Z", "2026-01-29T23:00:00Z", "2026-02-27T23:00:00Z"},
		{"published on the 31st", month, "2026-01-30T12:00:00Z", "2026-01-30T23:00:00Z", "2026-02-27T23:00:00Z"},
		{"published on 1 February", month, "2026-01-31T12:00:00Z", "2026-01-31T23:00:00Z", "2026-02-28T23:00:00Z"},
		// Spring forward: the 23-hour day 2026-03-29 ends at 22:00 UTC.
		{"spring forward, first quarter-hour", month, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", "2026-04-29T22:00:00Z"},
		{"spring forward, last quarter-hour", month, "2026-03-29T21:45:00Z", "2026-03-29T22:00:00Z", "2026-04-29T22:00:00Z"},
		{"final across spring forward", month, "2026-02-27T12:00:00Z", "2026-02-27T23:00:00Z", "2026-03-27T23:00:00Z"},
		// 28 February is published on 1 March, final on 1 April: no day becomes
		// final on 29 March (there is no 29 February), but 10 days can.
		{"1M from 1 March", month, "2026-02-27T23:00:00Z", "2026-02-28T23:00:00Z", "2026-03-31T22:00:00Z"},
		{"final on the spring-forward day", tenDays, "2026-03-18T12:00:00Z", "2026-03-18T23:00:00Z", "2026-03-28T23:00:00Z"},
		// Fall back: the 25-hour day 2026-10-25, both 02:00 hours.
		{"fall back, first 02:00", month, "2026-10-25T00:00:00Z", "2026-10-25T23:00:00Z", "2026-11-25T23:00:00Z"},
		{"fall back, second 02:00", month, "2026-10-25T01:00:00Z", "2026-10-25T23:00:00Z", "2026-11-25T23:00:00Z"},
		{"fall back, last quarter-hour", month, "2026-10-25T22:45:00Z", "2026-10-25T23:00:00Z", "2026-11-25T23:00:00Z"},
		// December settles in January of the next year.
		{"december", month, "2026-12-31T22:45:00Z", "2026-12-31T23:00:00Z", "2027-01-31T23:00:00Z"},
		// Ten calendar days across spring forward are 239 hours.
		{"10d across spring forward", tenDays, "2026-03-19T12:00:00Z", "2026-03-19T23:00:00Z", "2026-03-29T22:00:00Z"},
		{"10d across fall back", tenDays, "2026-10-20T12:00:00Z", "2026-10-20T22:00:00Z", "2026-10-30T23:00:00Z"},
		// Hours are elapsed: 6 hours after the fall-back day's midnight is
		// 05:00 CET.
		{"6h from the fall-back day", sixHours, "2026-10-24T12:00:00Z", "2026-10-24T22:00:00Z", "2026-10-25T04:00:00Z"},
		{"6h after the fall-back day", sixHours, "2026-10-25T12:00:00Z", "2026-10-25T23:00:00Z", "2026-10-26T05:00:00Z"},
		{"6h from the spring-forward day", sixHours, "2026-03-28T12:00:00Z", "2026-03-28T23:00:00Z", "2026-03-29T05:00:00Z"},
		// The former rule's date for February: the 12th of March.
		{"1M9d", monthAndNine, "2026-02-02T09:15:00Z", "2026-02-02T23:00:00Z", "2026-03-11T23:00:00Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewRule(c.lag)
			b, pub, fin := utc(c.block), utc(c.published), utc(c.final)
			if got := PublishedAt(b); !got.Equal(pub) {
				t.Fatalf("published %s, want %s", got, pub)
			}
			if got := r.FinalAt(b); !got.Equal(fin) {
				t.Fatalf("final %s, want %s", got, fin)
			}
			for _, at := range []struct {
				now    time.Time
				status Status
				ok     bool
			}{
				{b, "", false},
				{pub.Add(-time.Microsecond), "", false},
				{pub, Preliminary, true},
				{fin.Add(-time.Microsecond), Preliminary, true},
				{fin, Final, true},
				{fin.AddDate(1, 0, 0), Final, true},
			} {
				s, ok := r.StatusAt(b, at.now)
				if s != at.status || ok != at.ok {
					t.Fatalf("at %s: %q %v, want %q %v", at.now, s, ok, at.status, at.ok)
				}
				// Published agrees with StatusAt.
				for _, st := range []Status{Preliminary, Final} {
					if in := r.Published(st, at.now).Contains(b); in != (ok && s == st) {
						t.Fatalf("at %s: Published(%s) contains the block: %v", at.now, st, in)
					}
				}
			}
		})
	}
}

// TestPublishedAgreesWithStatusAt: for every lag shape, every hour of a
// year and the quarter-hours of the days around it, Published holds a
// block exactly when StatusAt gives it that status; the sets never
// overlap.
func TestPublishedAgreesWithStatusAt(t *testing.T) {
	lags := []FinalLag{DefaultFinalLag, {Days: 10}, {Hours: 6}, {Months: 1, Days: 9}, {Hours: 1}, {Months: 2, Days: 3, Hours: 5}}
	for _, lag := range lags {
		r := NewRule(lag)
		for now := utc("2026-01-01T00:00:00Z"); now.Before(utc("2027-01-15T00:00:00Z")); now = now.Add(7 * time.Hour) {
			fin, pre := r.Published(Final, now), r.Published(Preliminary, now)
			if !fin.End.Equal(pre.Start) || pre.End.Before(pre.Start) {
				t.Fatalf("%s at %s: final %v, preliminary %v", lag, now, fin, pre)
			}
			for _, d := range []int{-80, -40, -33, -32, -31, -30, -29, -12, -11, -10, -9, -2, -1, 0, 1} {
				day := calendar.DayOf(now).AddDays(d)
				for _, b := range []time.Time{day.Local(0, 0), day.AddDays(1).Local(0, 0).Add(-calendar.PeriodLength)} {
					s, ok := r.StatusAt(b, now)
					if fin.Contains(b) != (ok && s == Final) || pre.Contains(b) != (ok && s == Preliminary) {
						t.Fatalf("%s at %s: block %s is %q %v; final %v, preliminary %v", lag, now, b, s, ok, fin, pre)
					}
				}
			}
		}
	}
}

func TestPublished(t *testing.T) {
	r := NewRule(DefaultFinalLag)
	for _, c := range []struct {
		now              string
		firstOpen, today string
	}{
		// 2026-03-02 23:59 CET: 2 February (final 3 March) is not final yet.
		{"2026-03-02T22:59:00Z", "2026-02-01T23:00:00Z", "2026-03-01T23:00:00Z"},
		// 2026-03-03 00:00 CET: it is.
		{"2026-03-02T23:00:00Z", "2026-02-02T23:00:00Z", "2026-03-02T23:00:00Z"},
		// On the spring-forward day: today began at 23:00 UTC the day before;
		// 27 February became final on 28 March, 28 February is on 1 April.
		{"2026-03-29T12:00:00Z", "2026-02-27T23:00:00Z", "2026-03-28T23:00:00Z"},
		// On the fall-back day: today began at 22:00 UTC (CEST).
		{"2026-10-25T12:00:00Z", "2026-09-24T22:00:00Z", "2026-10-24T22:00:00Z"},
		// On 28 February, the deliveries of 27 January to 30 January (published
		// 28 to 31 January) became final at 00:00; 31 January's is 1 March.
		{"2026-02-28T12:00:00Z", "2026-01-30T23:00:00Z", "2026-02-27T23:00:00Z"},
	} {
		now := utc(c.now)
		fin, pre := r.Published(Final, now), r.Published(Preliminary, now)
		if !fin.Start.IsZero() || !fin.End.Equal(utc(c.firstOpen)) || !pre.Start.Equal(utc(c.firstOpen)) || !pre.End.Equal(utc(c.today)) {
			t.Errorf("at %s: final %v, preliminary %v", c.now, fin, pre)
		}
	}
	if got := r.Published("SETTLED", utc("2026-03-10T00:00:00Z")); got.Duration() != 0 {
		t.Errorf("unknown status: %v", got)
	}
}

func TestParseFinalLag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want FinalLag
		ok   bool
	}{
		{"1M", FinalLag{Months: 1}, true}, {"10d", FinalLag{Days: 10}, true}, {"6h", FinalLag{Hours: 6}, true},
		{"1M9d", FinalLag{Months: 1, Days: 9}, true}, {"2M3d4h", FinalLag{Months: 2, Days: 3, Hours: 4}, true},
		{" 12M ", FinalLag{Months: 12}, true}, {"366d", FinalLag{Days: 366}, true}, {"8784h", FinalLag{Hours: 8784}, true},
		{"", FinalLag{}, false}, {"0h", FinalLag{}, false}, {"0M0d", FinalLag{}, false}, {"13M", FinalLag{}, false},
		{"367d", FinalLag{}, false}, {"8785h", FinalLag{}, false}, {"1m", FinalLag{}, false}, {"10D", FinalLag{}, false},
		{"9d1M", FinalLag{}, false}, {"1M1M", FinalLag{}, false}, {"-1d", FinalLag{}, false}, {"1.5d", FinalLag{}, false},
		{"30m", FinalLag{}, false}, {"1month", FinalLag{}, false}, {"99999999999999999999d", FinalLag{}, false},
	} {
		got, err := ParseFinalLag(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: %+v, %v", c.in, got, err)
		}
		if c.ok {
			if back, err := ParseFinalLag(got.String()); err != nil || back != got {
				t.Errorf("%q: String %q does not parse back", c.in, got.String())
			}
		}
	}
}

func TestParseStatus(t *testing.T) {
	for in, want := range map[string]Status{"FINAL": Final, "final": Final, "Preliminary": Preliminary, "pReLiMiNaRy": Preliminary, "": "", "settled": ""} {
		if got, ok := ParseStatus(in); got != want || ok != (want != "") {
			t.Errorf("%q: %q %v", in, got, ok)
		}
	}
}
