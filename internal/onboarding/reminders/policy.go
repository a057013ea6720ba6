package reminders

import (
	"fmt"
	"slices"
	"time"

	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// Policy says when a workflow's gates are reminded of their deadline.
type Policy struct {
	// DaysBefore lists the days before a deadline a reminder is due (0 is
	// the deadline's day), at most 5, each 0–60.
	DaysBefore []int `json:"days_before"`
	// OverdueEveryDays: an overdue gate is reminded from the day after its
	// deadline, then every that many days (1–30) ...
	OverdueEveryDays int `json:"overdue_every_days"`
	// MaxOverdueReminders ... at most that many times (0–20; 0 for none).
	MaxOverdueReminders int  `json:"max_overdue_reminders"`
	Enabled             bool `json:"enabled"`
}

// DefaultPolicy is the policy of a workflow that has not set one.
func DefaultPolicy() Policy {
	return Policy{DaysBefore: []int{7, 1}, OverdueEveryDays: 3, MaxOverdueReminders: 5, Enabled: true}
}

// Validate checks p's bounds; locations are the members' names.
func (p Policy) Validate() error {
	var v errs.Validation
	if len(p.DaysBefore) > 5 {
		v.Add("days_before", "must have at most 5 entries", len(p.DaysBefore))
	}
	for i, d := range p.DaysBefore {
		if d < 0 || d > 60 {
			v.Add(fmt.Sprintf("days_before[%d]", i), "must be 0–60", d)
		}
		if slices.Index(p.DaysBefore, d) != i {
			v.Add(fmt.Sprintf("days_before[%d]", i), "is listed twice", d)
		}
	}
	if p.OverdueEveryDays < 1 || p.OverdueEveryDays > 30 {
		v.Add("overdue_every_days", "must be 1–30", p.OverdueEveryDays)
	}
	if p.MaxOverdueReminders < 0 || p.MaxOverdueReminders > 20 {
		v.Add("max_overdue_reminders", "must be 0–20", p.MaxOverdueReminders)
	}
	return v.Err()
}

// Kind is why a reminder was sent.
type Kind string

// The kinds: a deadline approaching, a deadline passed, a manager's.
const (
	BeforeDeadline Kind = "before_deadline"
	Overdue        Kind = "overdue"
	Manual         Kind = "manual"
)

// daysBetween counts the calendar days from a to b (negative when b is
// earlier); calendar days, so clock changes do not matter.
func daysBetween(a, b calendar.Day) int {
	ta := time.Date(a.Year, time.Month(a.Month), a.Day, 0, 0, 0, 0, time.UTC)
	tb := time.Date(b.Year, time.Month(b.Month), b.Day, 0, 0, 0, 0, time.UTC)
	return int(tb.Sub(ta) / (24 * time.Hour))
}

// Due returns the automatic reminder due on today (a Europe/Berlin day)
// for a gate with deadline, ok false when none is: up to the deadline's
// day the latest of the days_before points not after today (a point
// missed while no instance ran is caught up, an older one is not); from
// the day after, the latest overdue point (the day after the deadline,
// then every overdue_every_days), at most max_overdue_reminders of them.
// Each (kind, due day) is recorded once, so a point is reminded of once.
func Due(p Policy, deadline, today calendar.Day) (Kind, calendar.Day, bool) {
	if !p.Enabled {
		return "", calendar.Day{}, false
	}
	left := daysBetween(today, deadline)
	if left >= 0 {
		best := -1
		for _, d := range p.DaysBefore {
			if d >= left && (best < 0 || d < best) {
				best = d
			}
		}
		if best < 0 {
			return "", calendar.Day{}, false
		}
		return BeforeDeadline, deadline.AddDays(-best), true
	}
	if p.OverdueEveryDays < 1 {
		return "", calendar.Day{}, false
	}
	k := (-left - 1) / p.OverdueEveryDays
	if k >= p.MaxOverdueReminders {
		return "", calendar.Day{}, false
	}
	return Overdue, deadline.AddDays(1 + k*p.OverdueEveryDays), true
}
