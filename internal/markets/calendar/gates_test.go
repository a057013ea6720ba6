package calendar

import (
	"testing"
	"time"
)

func TestBiddingWindows(t *testing.T) {
	tests := []struct {
		name                string
		window              func(Day) Window
		day                 string
		opens, recom, close string
	}{
		// Winter: CET = UTC+1.
		{"fcr winter", FCRWindow, "2026-02-02", "2026-01-26T10:00:00Z", "2026-02-01T06:30:00Z", "2026-02-01T07:00:00Z"},
		{"afrr winter", AFRRCapacityWindow, "2026-02-02", "2026-01-26T09:00:00Z", "2026-02-01T07:30:00Z", "2026-02-01T08:00:00Z"},
		// Summer: CEST = UTC+2.
		{"fcr summer", FCRWindow, "2026-07-15", "2026-07-08T09:00:00Z", "2026-07-14T05:30:00Z", "2026-07-14T06:00:00Z"},
		// D-1 is the spring-forward day: the gate is already CEST, D-7 was CET.
		{"fcr after spring forward", FCRWindow, "2026-03-30", "2026-03-23T10:00:00Z", "2026-03-29T05:30:00Z", "2026-03-29T06:00:00Z"},
		// Delivery on the spring-forward day: D-1 is still CET.
		{"afrr spring-forward day", AFRRCapacityWindow, "2026-03-29", "2026-03-22T09:00:00Z", "2026-03-28T07:30:00Z", "2026-03-28T08:00:00Z"},
		// D-1 is the fall-back day: the gate is CET again, D-7 was CEST.
		{"afrr after fall back", AFRRCapacityWindow, "2026-10-26", "2026-10-19T08:00:00Z", "2026-10-25T07:30:00Z", "2026-10-25T08:00:00Z"},
		{"fcr fall-back day", FCRWindow, "2026-10-25", "2026-10-18T09:00:00Z", "2026-10-24T05:30:00Z", "2026-10-24T06:00:00Z"},
	}
	for _, tc := range tests {
		d, _ := ParseDay(tc.day)
		w := tc.window(d)
		if !w.Opens.Equal(utc(tc.opens)) || !w.Recommended.Equal(utc(tc.recom)) || !w.Closes.Equal(utc(tc.close)) {
			t.Errorf("%s: %v / %v / %v", tc.name, w.Opens, w.Recommended, w.Closes)
		}
	}
}

func TestWindowOpenIsHalfOpen(t *testing.T) {
	w := FCRWindow(Day{2026, 2, 2})
	cases := []struct {
		at         time.Time
		open, late bool
	}{
		{w.Opens.Add(-time.Second), false, false},
		{w.Opens, true, false},
		{w.Recommended.Add(-time.Second), true, false},
		{w.Recommended, true, true},
		{w.Closes.Add(-time.Microsecond), true, true},
		{w.Closes, false, false},
	}
	for _, c := range cases {
		if w.Open(c.at) != c.open || w.Late(c.at) != c.late {
			t.Errorf("at %v: open %v late %v", c.at, w.Open(c.at), w.Late(c.at))
		}
	}
}

func TestEnergyAndBackupGates(t *testing.T) {
	p := Interval{utc("2026-02-02T10:00:00Z"), utc("2026-02-02T10:15:00Z")}
	w := AFRREnergyWindow(p)
	if !w.Closes.Equal(utc("2026-02-02T09:35:00Z")) || !w.Opens.Equal(utc("2026-02-01T09:00:00Z")) {
		t.Errorf("energy window %+v", w)
	}
	// The first period of a day belongs to that day: it opens on D-1 too.
	first := Interval{utc("2026-02-01T23:00:00Z"), utc("2026-02-01T23:15:00Z")}
	if w := AFRREnergyWindow(first); !w.Opens.Equal(utc("2026-02-01T09:00:00Z")) || !w.Closes.Equal(utc("2026-02-01T22:35:00Z")) {
		t.Errorf("first period window %+v", w)
	}
	if g := BackupMarketGate(p.Start); !g.Equal(utc("2026-02-02T09:59:50Z")) {
		t.Errorf("backup gate %v", g)
	}
}
