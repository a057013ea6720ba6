package settlement

import (
	"testing"
	"time"
)

func TestStatusAt(t *testing.T) {
	for _, c := range []struct {
		name, block string
		published   string // PublishedAt
		final       string // FinalAt
	}{
		// 2026-02-02 10:15 CET: published 2026-02-03 00:00 CET, final
		// 2026-03-10 00:00 CET.
		{"winter day", "2026-02-02T09:15:00Z", "2026-02-02T23:00:00Z", "2026-03-09T23:00:00Z"},
		// The last quarter-hour of 2026-02-28 (23:45 CET).
		{"end of month", "2026-02-28T22:45:00Z", "2026-02-28T23:00:00Z", "2026-03-09T23:00:00Z"},
		// 2026-03-01 00:00 CET belongs to March although it is February in UTC.
		{"first of the month in UTC the day before", "2026-02-28T23:00:00Z", "2026-03-01T23:00:00Z", "2026-04-09T22:00:00Z"},
		// Spring forward: the 23-hour day 2026-03-29 ends at 22:00 UTC.
		{"spring forward, first quarter-hour", "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", "2026-04-09T22:00:00Z"},
		{"spring forward, last quarter-hour", "2026-03-29T21:45:00Z", "2026-03-29T22:00:00Z", "2026-04-09T22:00:00Z"},
		// Fall back: the 25-hour day 2026-10-25, both 02:00 hours.
		{"fall back, first 02:00", "2026-10-25T00:00:00Z", "2026-10-25T23:00:00Z", "2026-11-09T23:00:00Z"},
		{"fall back, second 02:00", "2026-10-25T01:00:00Z", "2026-10-25T23:00:00Z", "2026-11-09T23:00:00Z"},
		{"fall back, last quarter-hour", "2026-10-25T22:45:00Z", "2026-10-25T23:00:00Z", "2026-11-09T23:00:00Z"},
		// December settles in January of the next year.
		{"december", "2026-12-31T22:45:00Z", "2026-12-31T23:00:00Z", "2027-01-09T23:00:00Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, pub, fin := utc(c.block), utc(c.published), utc(c.final)
			if got := PublishedAt(b); !got.Equal(pub) {
				t.Fatalf("published %s, want %s", got, pub)
			}
			if got := FinalAt(b); !got.Equal(fin) {
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
				s, ok := StatusAt(b, at.now)
				if s != at.status || ok != at.ok {
					t.Fatalf("at %s: %q %v, want %q %v", at.now, s, ok, at.status, at.ok)
				}
				// Published agrees with StatusAt.
				for _, st := range []Status{Preliminary, Final} {
					if in := Published(st, at.now).Contains(b); in != (ok && s == st) {
						t.Fatalf("at %s: Published(%s) contains the block: %v", at.now, st, in)
					}
				}
			}
		})
	}
}

func TestPublished(t *testing.T) {
	for _, c := range []struct {
		now              string
		firstOpen, today string
	}{
		// 2026-03-09 23:59 CET: February is not final yet.
		{"2026-03-09T22:59:00Z", "2026-01-31T23:00:00Z", "2026-03-08T23:00:00Z"},
		// 2026-03-10 00:00 CET: February is.
		{"2026-03-09T23:00:00Z", "2026-02-28T23:00:00Z", "2026-03-09T23:00:00Z"},
		// On the spring-forward day: today began at 23:00 UTC the day before.
		{"2026-03-29T12:00:00Z", "2026-02-28T23:00:00Z", "2026-03-28T23:00:00Z"},
		// On the fall-back day: today began at 22:00 UTC (CEST).
		{"2026-10-25T12:00:00Z", "2026-09-30T22:00:00Z", "2026-10-24T22:00:00Z"},
		// In January, December of the year before settles on the 10th.
		{"2027-01-05T12:00:00Z", "2026-11-30T23:00:00Z", "2027-01-04T23:00:00Z"},
	} {
		now := utc(c.now)
		fin, pre := Published(Final, now), Published(Preliminary, now)
		if !fin.Start.IsZero() || !fin.End.Equal(utc(c.firstOpen)) || !pre.Start.Equal(utc(c.firstOpen)) || !pre.End.Equal(utc(c.today)) {
			t.Errorf("at %s: final %v, preliminary %v", c.now, fin, pre)
		}
	}
	if got := Published("SETTLED", utc("2026-03-10T00:00:00Z")); got.Duration() != 0 {
		t.Errorf("unknown status: %v", got)
	}
}
