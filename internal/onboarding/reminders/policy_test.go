package reminders

import (
	"testing"
	"time"

	"atcp/internal/markets/calendar"
)

func day(s string) calendar.Day {
	d, err := calendar.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestDue(t *testing.T) {
	def := DefaultPolicy()
	for _, c := range []struct {
		name     string
		p        Policy
		deadline string
		today    string
		kind     Kind
		due      string // "" for none
	}{
		{"far ahead", def, "2026-03-20", "2026-03-01", "", ""},
		{"seven days before", def, "2026-03-20", "2026-03-13", BeforeDeadline, "2026-03-13"},
		{"between the points: the 7-day point still", def, "2026-03-20", "2026-03-16", BeforeDeadline, "2026-03-13"},
		{"one day before", def, "2026-03-20", "2026-03-19", BeforeDeadline, "2026-03-19"},
		{"on the day: the 1-day point", def, "2026-03-20", "2026-03-20", BeforeDeadline, "2026-03-19"},
		{"on the day with 0", Policy{DaysBefore: []int{0}, OverdueEveryDays: 1, Enabled: true}, "2026-03-20", "2026-03-20", BeforeDeadline, "2026-03-20"},
		{"first overdue day", def, "2026-03-20", "2026-03-21", Overdue, "2026-03-21"},
		{"overdue, between", def, "2026-03-20", "2026-03-23", Overdue, "2026-03-21"},
		{"second overdue point", def, "2026-03-20", "2026-03-24", Overdue, "2026-03-24"},
		{"fifth overdue point", def, "2026-03-20", "2026-04-02", Overdue, "2026-04-02"},
		{"past the last overdue point", def, "2026-03-20", "2026-04-05", "", ""},
		{"no overdue reminders", Policy{DaysBefore: []int{1}, OverdueEveryDays: 2, MaxOverdueReminders: 0, Enabled: true}, "2026-03-20", "2026-03-21", "", ""},
		{"disabled", Policy{DaysBefore: []int{7, 1}, OverdueEveryDays: 3, MaxOverdueReminders: 5}, "2026-03-20", "2026-03-19", "", ""},
		// Across the clock changes: calendar days, 23 or 25 hours long.
		{"spring forward: 7 days before", def, "2026-04-04", "2026-03-28", BeforeDeadline, "2026-03-28"},
		{"spring forward: overdue across", def, "2026-03-28", "2026-03-29", Overdue, "2026-03-29"},
		{"spring forward: second overdue", def, "2026-03-28", "2026-04-01", Overdue, "2026-04-01"},
		{"fall back: one day before", def, "2026-10-26", "2026-10-25", BeforeDeadline, "2026-10-25"},
		{"fall back: overdue", def, "2026-10-24", "2026-10-25", Overdue, "2026-10-25"},
		{"across a year", def, "2026-12-31", "2027-01-04", Overdue, "2027-01-04"},
	} {
		kind, due, ok := Due(c.p, day(c.deadline), day(c.today))
		if (c.due == "") == ok || (ok && (kind != c.kind || due.String() != c.due)) {
			t.Errorf("%s: %v %s %v, want %v %s", c.name, kind, due, ok, c.kind, c.due)
		}
	}
}

// The job's day is the Berlin day of its due instant, also at the clock
// changes' midnights.
func TestBerlinDayOfDue(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 3, 28, 22, 59, 0, 0, time.UTC), "2026-03-28"}, // 23:59 CET
		{time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC), "2026-03-29"},  // 00:00 CET, the day of 23 hours
		{time.Date(2026, 3, 29, 21, 59, 0, 0, time.UTC), "2026-03-29"}, // 23:59 CEST
		{time.Date(2026, 3, 29, 22, 0, 0, 0, time.UTC), "2026-03-30"},
		{time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC), "2026-10-25"},  // 00:00 CEST, the day of 25 hours
		{time.Date(2026, 10, 25, 22, 59, 0, 0, time.UTC), "2026-10-25"}, // 23:59 CET
		{time.Date(2026, 10, 25, 23, 0, 0, 0, time.UTC), "2026-10-26"},
	} {
		if got := calendar.DayOf(c.at).String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.at, got, c.want)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, c := range []struct {
		p  Policy
		ok bool
	}{
		{DefaultPolicy(), true},
		{Policy{DaysBefore: []int{}, OverdueEveryDays: 1}, true},
		{Policy{DaysBefore: []int{0, 60}, OverdueEveryDays: 30, MaxOverdueReminders: 20}, true},
		{Policy{DaysBefore: []int{61}, OverdueEveryDays: 1}, false},
		{Policy{DaysBefore: []int{-1}, OverdueEveryDays: 1}, false},
		{Policy{DaysBefore: []int{1, 2, 3, 4, 5, 6}, OverdueEveryDays: 1}, false},
		{Policy{DaysBefore: []int{1, 1}, OverdueEveryDays: 1}, false},
		{Policy{OverdueEveryDays: 0}, false},
		{Policy{OverdueEveryDays: 31}, false},
		{Policy{OverdueEveryDays: 1, MaxOverdueReminders: 21}, false},
	} {
		if err := c.p.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.p, err)
		}
	}
}
