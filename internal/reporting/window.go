package reporting

import (
	"fmt"
	"time"

	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

const (
	DefaultWindow = 24 * time.Hour      // start_time defaults to this long before end_time
	MaxWindow     = 90 * 24 * time.Hour // the longest window a report spans
	DefaultLimit  = 100
	MaxLimit      = 1000
)

// Window is a report's [Start, End); zero values take the defaults: End
// the platform clock's now, Start 24 hours before End.
type Window struct {
	Start, End time.Time
}

// Resolve applies the defaults and checks the window against max (at
// most MaxWindow); errors are 422 at the query parameter at fault.
func (w Window) Resolve(now time.Time, max time.Duration) (Window, error) {
	if w.End.IsZero() {
		w.End = now
	}
	if w.Start.IsZero() {
		w.Start = w.End.Add(-DefaultWindow)
	}
	var v errs.Validation
	switch {
	case !w.End.After(w.Start):
		v.Add("query.end_time", "must be after start_time", w.End)
	case w.End.Sub(w.Start) > max:
		v.Add("query.end_time", fmt.Sprintf("the window spans at most %d days", int(max/(24*time.Hour))), w.End)
	}
	return w, v.Err()
}

// Page is limit/offset paging.
type Page struct {
	Limit, Offset int
}

// Resolve applies the default limit and checks the bounds.
func (p Page) Resolve() (Page, error) {
	if p.Limit == 0 {
		p.Limit = DefaultLimit
	}
	var v errs.Validation
	if p.Limit < 1 || p.Limit > MaxLimit {
		v.Add("query.limit", fmt.Sprintf("must be 1 to %d", MaxLimit), p.Limit)
	}
	if p.Offset < 0 {
		v.Add("query.offset", "must not be negative", p.Offset)
	}
	return p, v.Err()
}

// Granularity is the length of a performance period.
type Granularity string

const (
	FifteenMinutes Granularity = "fifteen_minutes"
	Hourly         Granularity = "hourly"
	Daily          Granularity = "daily"
)

// Granularities in the order of their length, for enum documentation.
var Granularities = []Granularity{FifteenMinutes, Hourly, Daily}

// ParseGranularity accepts the three documented values.
func ParseGranularity(s string) (Granularity, error) {
	switch g := Granularity(s); g {
	case FifteenMinutes, Hourly, Daily:
		return g, nil
	}
	return "", fmt.Errorf("granularity must be fifteen_minutes, hourly or daily")
}

// PeriodStart is the start of the period of g containing t: the UTC
// quarter-hour, the Berlin hour (on the fall-back day 02:00 CEST and
// 02:00 CET are two hours), or 00:00 Berlin of t's delivery day (23 and 25
// hours long on the clock-change days).
func (g Granularity) PeriodStart(t time.Time) time.Time {
	switch g {
	case Hourly:
		// Berlin's offsets are whole hours, so its hours are UTC's.
		return t.UTC().Truncate(time.Hour)
	case Daily:
		return calendar.DayOf(t).Local(0, 0)
	default:
		return t.UTC().Truncate(calendar.PeriodLength)
	}
}

// Periods are the starts of the periods of g overlapping [w.Start, w.End),
// in order; the first may start before w.Start.
func (g Granularity) Periods(w Window) []time.Time {
	var out []time.Time
	for s := g.PeriodStart(w.Start); s.Before(w.End); s = g.next(s) {
		out = append(out, s)
	}
	return out
}

// PeriodEnd is the end of the period of g starting at start.
func (g Granularity) PeriodEnd(start time.Time) time.Time { return g.next(start) }

func (g Granularity) next(s time.Time) time.Time {
	switch g {
	case Hourly:
		return s.Add(time.Hour)
	case Daily:
		return calendar.DayOf(s).AddDays(1).Local(0, 0)
	default:
		return s.Add(calendar.PeriodLength)
	}
}
