package settlement

import (
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

// FinalDay is the day of the month after the delivery month from whose
// start (Europe/Berlin) the month's blocks are FINAL: the TSOs settle a
// month in the following one, which document 1 puts at up to a month.
const FinalDay = 10

// PublishedAt is when a block's figures are published as PRELIMINARY: the
// start (00:00 Europe/Berlin) of the day after its delivery day (document
// 1, rule 9: one day after delivery).
func PublishedAt(blockStart time.Time) time.Time {
	return calendar.DayOf(blockStart).AddDays(1).Local(0, 0)
}

// FinalAt is when a block becomes FINAL: 00:00 Europe/Berlin on the
// FinalDay-th of the month after its delivery day's month.
func FinalAt(blockStart time.Time) time.Time {
	d := calendar.DayOf(blockStart)
	return time.Date(d.Year, d.Month+1, FinalDay, 0, 0, 0, 0, calendar.Berlin).UTC()
}

// StatusAt is the status of the block starting at blockStart at instant
// now; false while it is not published yet (before PublishedAt), when it
// belongs to neither set.
func StatusAt(blockStart, now time.Time) (Status, bool) {
	switch {
	case !now.Before(FinalAt(blockStart)):
		return Final, true
	case !now.Before(PublishedAt(blockStart)):
		return Preliminary, true
	}
	return "", false
}

// Published is the span of block starts that have status at now: FINAL
// blocks start before the first month not yet final (Start is the zero
// time), PRELIMINARY blocks from there until the start of today (Europe/
// Berlin); an unknown status has none (an empty span). A read of one status
// intersects its window with this span.
func Published(status Status, now time.Time) calendar.Interval {
	today := calendar.DayOf(now)
	// The first month that is not final: this month once its FinalDay-th
	// has begun, otherwise the previous one.
	month := time.Date(today.Year, today.Month, 1, 0, 0, 0, 0, calendar.Berlin)
	if today.Day < FinalDay {
		month = month.AddDate(0, -1, 0)
	}
	firstOpen := month.UTC()
	switch status {
	case Final:
		return calendar.Interval{End: firstOpen}
	case Preliminary:
		return calendar.Interval{Start: firstOpen, End: today.Local(0, 0)}
	}
	return calendar.Interval{}
}
