// Package calendar is the German balancing-market calendar: delivery days
// in Europe/Berlin, their six 4-hour tender blocks and 15-minute delivery
// periods (both correct on the clock-change days), and the opening,
// recommended-deadline and enforced-gate instants of each market. It is
// plain Go over time.Time, with no HTTP and no SQL.
package calendar

import (
	"fmt"
	"time"
)

// Berlin is the market time zone: tender blocks and gates are German local
// time (CET in winter, CEST in summer).
var Berlin = mustLoad("Europe/Berlin")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(fmt.Sprintf("time zone %s: %v (build with the tzdata in the Go distribution)", name, err))
	}
	return loc
}

// PeriodLength is the length of a delivery period (document 1, rule 4).
const PeriodLength = 15 * time.Minute

// Interval is a half-open span of time [Start, End) in UTC.
type Interval struct {
	Start time.Time `json:"start_time"`
	End   time.Time `json:"end_time"`
}

// Duration is End - Start.
func (i Interval) Duration() time.Duration { return i.End.Sub(i.Start) }

// Contains reports whether t lies in [Start, End).
func (i Interval) Contains(t time.Time) bool { return !t.Before(i.Start) && t.Before(i.End) }

// Covers reports whether o lies fully inside i.
func (i Interval) Covers(o Interval) bool { return !o.Start.Before(i.Start) && !o.End.After(i.End) }

// Overlaps reports whether the half-open intervals share an instant.
func (i Interval) Overlaps(o Interval) bool { return i.Start.Before(o.End) && o.Start.Before(i.End) }

// Day is a delivery day: a calendar day in Europe/Berlin.
type Day struct {
	Year  int
	Month time.Month
	Day   int
}

// DayOf returns the delivery day containing instant t.
func DayOf(t time.Time) Day {
	l := t.In(Berlin)
	return Day{l.Year(), l.Month(), l.Day()}
}

// ParseDay parses YYYY-MM-DD.
func ParseDay(s string) (Day, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Day{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
	}
	return Day{t.Year(), t.Month(), t.Day()}, nil
}

func (d Day) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// AddDays returns the day n days later (earlier for negative n).
func (d Day) AddDays(n int) Day {
	t := time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC)
	return Day{t.Year(), t.Month(), t.Day()}
}

// Local returns the instant of the local wall-clock time h:m on day d.
// For a time that does not exist (the skipped hour in spring) Go moves it
// forward, and for a time that exists twice it takes the first; the
// calendar only asks for whole hours outside 02:00-03:00.
func (d Day) Local(hour, minute int) time.Time {
	return time.Date(d.Year, d.Month, d.Day, hour, minute, 0, 0, Berlin).UTC()
}

// Span is the day from local midnight to the next local midnight: 24
// hours, or 23 and 25 on the clock-change days.
func (d Day) Span() Interval { return Interval{d.Local(0, 0), d.AddDays(1).Local(0, 0)} }

// Periods are the day's 15-minute delivery periods: 96, or 92 on the last
// Sunday of March and 100 on the last Sunday of October.
func (d Day) Periods() []Interval { return Split(d.Span(), PeriodLength) }

// TenderBlocks are the day's six capacity tender intervals, 00-04, 04-08,
// ..., 20-24 local time. On the spring-forward day the first block lasts 3
// hours and on the fall-back day 5 hours.
func (d Day) TenderBlocks() []Interval {
	blocks := make([]Interval, 6)
	for i := range blocks {
		start := d.Local(4*i, 0)
		end := d.Local(4*(i+1), 0)
		if i == 5 {
			end = d.AddDays(1).Local(0, 0)
		}
		blocks[i] = Interval{start, end}
	}
	return blocks
}

// Split cuts iv into consecutive pieces of length step.
func Split(iv Interval, step time.Duration) []Interval {
	var out []Interval
	for t := iv.Start; t.Before(iv.End); t = t.Add(step) {
		out = append(out, Interval{t, t.Add(step)})
	}
	return out
}

// IsClockChangeDay reports whether the day is 23 or 25 hours long.
func (d Day) IsClockChangeDay() bool { return d.Span().Duration() != 24*time.Hour }

// AlignedToPeriod reports whether t sits on a UTC quarter-hour.
func AlignedToPeriod(t time.Time) bool {
	return t.Equal(t.Truncate(PeriodLength)) && t.Nanosecond() == 0
}
