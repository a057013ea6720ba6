package calendar

import (
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestDaySpanAndPeriods(t *testing.T) {
	tests := []struct {
		day      string
		start    string
		hours    int
		periods  int
		isChange bool
	}{
		{"2026-02-02", "2026-02-01T23:00:00Z", 24, 96, false},
		{"2026-07-15", "2026-07-14T22:00:00Z", 24, 96, false},
		{"2026-03-29", "2026-03-28T23:00:00Z", 23, 92, true},  // last Sunday of March
		{"2026-10-25", "2026-10-24T22:00:00Z", 25, 100, true}, // last Sunday of October
		{"2025-03-30", "2025-03-29T23:00:00Z", 23, 92, true},
		{"2025-10-26", "2025-10-25T22:00:00Z", 25, 100, true},
		{"2026-03-28", "2026-03-27T23:00:00Z", 24, 96, false}, // the Saturday before
		{"2026-03-30", "2026-03-29T22:00:00Z", 24, 96, false}, // the Monday after
	}
	for _, tc := range tests {
		d, err := ParseDay(tc.day)
		if err != nil {
			t.Fatal(err)
		}
		span := d.Span()
		if !span.Start.Equal(utc(tc.start)) || span.Duration() != time.Duration(tc.hours)*time.Hour {
			t.Errorf("%s: span %v..%v", tc.day, span.Start, span.End)
		}
		p := d.Periods()
		if len(p) != tc.periods || !p[0].Start.Equal(span.Start) || !p[len(p)-1].End.Equal(span.End) {
			t.Errorf("%s: %d periods, want %d", tc.day, len(p), tc.periods)
		}
		if d.IsClockChangeDay() != tc.isChange {
			t.Errorf("%s: clock change %v", tc.day, !tc.isChange)
		}
	}
}

func TestTenderBlocks(t *testing.T) {
	tests := []struct {
		day    string
		starts []string
		hours  []int
	}{
		{"2026-02-02", []string{"2026-02-01T23:00:00Z", "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z",
			"2026-02-02T11:00:00Z", "2026-02-02T15:00:00Z", "2026-02-02T19:00:00Z"}, []int{4, 4, 4, 4, 4, 4}},
		{"2026-03-29", []string{"2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z", "2026-03-29T06:00:00Z",
			"2026-03-29T10:00:00Z", "2026-03-29T14:00:00Z", "2026-03-29T18:00:00Z"}, []int{3, 4, 4, 4, 4, 4}},
		{"2026-10-25", []string{"2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z", "2026-10-25T07:00:00Z",
			"2026-10-25T11:00:00Z", "2026-10-25T15:00:00Z", "2026-10-25T19:00:00Z"}, []int{5, 4, 4, 4, 4, 4}},
	}
	for _, tc := range tests {
		d, _ := ParseDay(tc.day)
		blocks := d.TenderBlocks()
		for i, b := range blocks {
			if !b.Start.Equal(utc(tc.starts[i])) || b.Duration() != time.Duration(tc.hours[i])*time.Hour {
				t.Errorf("%s block %d: %v..%v", tc.day, i, b.Start, b.End)
			}
			if i > 0 && !blocks[i-1].End.Equal(b.Start) {
				t.Errorf("%s: gap before block %d", tc.day, i)
			}
		}
		if !blocks[5].End.Equal(d.Span().End) {
			t.Errorf("%s: blocks end %v, day ends %v", tc.day, blocks[5].End, d.Span().End)
		}
	}
}

func TestDayOfAndAlignment(t *testing.T) {
	if got := DayOf(utc("2026-02-01T23:30:00Z")); got.String() != "2026-02-02" {
		t.Errorf("23:30Z on 1 Feb is Berlin day %s", got)
	}
	if got := DayOf(utc("2026-07-14T22:00:00Z")); got.String() != "2026-07-15" {
		t.Errorf("22:00Z on 14 Jul is Berlin day %s", got)
	}
	if !AlignedToPeriod(utc("2026-02-02T10:45:00Z")) || AlignedToPeriod(utc("2026-02-02T10:44:00Z")) {
		t.Error("alignment")
	}
	if _, err := ParseDay("2026-02-30"); err == nil {
		t.Error("impossible date accepted")
	}
}
