package settlement

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"atcp/internal/markets/calendar"
)

// Status is the settlement status of a block (document 1, rule 9).
type Status string

// The statuses; the two sets are disjoint (document 3, GET /v1/settlements).
const (
	Preliminary Status = "PRELIMINARY"
	Final       Status = "FINAL"
)

// ParseStatus accepts PRELIMINARY and FINAL in any case (document 1's
// settlement status filter is case-insensitive).
func ParseStatus(s string) (Status, bool) {
	switch st := Status(strings.ToUpper(s)); st {
	case Preliminary, Final:
		return st, true
	}
	return "", false
}

// FinalLag is how long after publication a block becomes FINAL: the TSOs'
// settlement, which document 1 puts at "up to a month". Months and days
// are Europe/Berlin calendar months and days (a day of the clock change
// is 23 or 25 hours), added in that order; hours are elapsed hours. A
// month added to the 29th to 31st ends on the last day of a shorter month
// (31 January + 1M is 28 February), so that a later delivery day never
// becomes final before an earlier one.
type FinalLag struct {
	Months, Days, Hours int
}

// DefaultFinalLag is one month: a block delivered on 2 February is
// published on 3 February 00:00 and FINAL on 3 March 00:00 (Berlin).
var DefaultFinalLag = FinalLag{Months: 1}

// The bounds of each part of a lag: a year, so that a typo cannot hold
// figures back for decades.
const (
	maxLagMonths = 12
	maxLagDays   = 366
	maxLagHours  = 366 * 24
)

var lagPattern = regexp.MustCompile(`^(?:(\d+)M)?(?:(\d+)d)?(?:(\d+)h)?$`)

// ParseFinalLag reads a lag such as 1M, 10d, 6h or 1M9d: whole months (M),
// days (d) and hours (h), each at most once and in that order, together
// positive, each part at most a year (12M, 366d, 8784h).
func ParseFinalLag(s string) (FinalLag, error) {
	m := lagPattern.FindStringSubmatch(strings.TrimSpace(s))
	bad := fmt.Errorf("%q must be whole months, days and hours such as 1M, 10d, 6h or 1M9d (M, d, h in that order), "+
		"together more than zero, each at most %dM, %dd or %dh", s, maxLagMonths, maxLagDays, maxLagHours)
	if m == nil || m[0] == "" {
		return FinalLag{}, bad
	}
	var parts [3]int
	for i, p := range m[1:] {
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return FinalLag{}, bad
		}
		parts[i] = n
	}
	l := FinalLag{Months: parts[0], Days: parts[1], Hours: parts[2]}
	if l.Months > maxLagMonths || l.Days > maxLagDays || l.Hours > maxLagHours || l == (FinalLag{}) {
		return FinalLag{}, bad
	}
	return l, nil
}

// String is the lag in ParseFinalLag's form.
func (l FinalLag) String() string {
	var b strings.Builder
	for _, p := range []struct {
		n    int
		unit string
	}{{l.Months, "M"}, {l.Days, "d"}, {l.Hours, "h"}} {
		if p.n != 0 {
			fmt.Fprintf(&b, "%d%s", p.n, p.unit)
		}
	}
	if b.Len() == 0 {
		return "0h"
	}
	return b.String()
}

// after is the instant the lag ends when it starts at 00:00 Berlin of
// day d.
func (l FinalLag) after(d calendar.Day) time.Time {
	if l.Months != 0 {
		first := time.Date(d.Year, d.Month+time.Month(l.Months), 1, 12, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		d = calendar.Day{Year: first.Year(), Month: first.Month(), Day: min(d.Day, last)}
	}
	return d.AddDays(l.Days).Local(0, 0).Add(time.Duration(l.Hours) * time.Hour)
}

// Rule decides a block's status from the platform clock: published
// (PRELIMINARY) from 00:00 Berlin of the day after its delivery day,
// FINAL from Lag later. The zero Rule has no lag: use NewRule.
type Rule struct {
	Lag FinalLag
}

// NewRule returns the status rule with lag; the zero lag (a
// configuration built without config.Parse) is DefaultFinalLag.
func NewRule(lag FinalLag) Rule {
	if lag == (FinalLag{}) {
		lag = DefaultFinalLag
	}
	return Rule{Lag: lag}
}

// PublishedAt is when a block's figures are published as PRELIMINARY: the
// start (00:00 Europe/Berlin) of the day after its delivery day (document
// 1, rule 9: one day after delivery).
func PublishedAt(blockStart time.Time) time.Time {
	return calendar.DayOf(blockStart).AddDays(1).Local(0, 0)
}

// FinalAt is when a block becomes FINAL: Lag after PublishedAt. It depends
// on the delivery day only and never decreases from one day to the next.
func (r Rule) FinalAt(blockStart time.Time) time.Time {
	return r.Lag.after(calendar.DayOf(blockStart).AddDays(1))
}

// StatusAt is the status of the block starting at blockStart at instant
// now; false while it is not published yet (before PublishedAt), when it
// belongs to neither set.
func (r Rule) StatusAt(blockStart, now time.Time) (Status, bool) {
	switch {
	case !now.Before(r.FinalAt(blockStart)):
		return Final, true
	case !now.Before(PublishedAt(blockStart)):
		return Preliminary, true
	}
	return "", false
}

// Published is the span of block starts that have status at now: FINAL
// blocks start before the first delivery day not yet final (Start is the
// zero time), PRELIMINARY blocks from there until the start of today
// (Europe/Berlin); an unknown status has none (an empty span). A read of
// one status intersects its window with this span.
func (r Rule) Published(status Status, now time.Time) calendar.Interval {
	today := calendar.DayOf(now)
	// FinalAt never decreases over the days and today's lies after now
	// (it is at least tomorrow's midnight), so walk back to the first day
	// that is not final: as many steps as the lag has days.
	open := today
	for {
		prev := open.AddDays(-1)
		if !r.FinalAt(prev.Local(0, 0)).After(now) {
			break
		}
		open = prev
	}
	switch status {
	case Final:
		return calendar.Interval{End: open.Local(0, 0)}
	case Preliminary:
		return calendar.Interval{Start: open.Local(0, 0), End: today.Local(0, 0)}
	}
	return calendar.Interval{}
}
