package replay

import (
	"fmt"
	"time"

	"atcp/internal/markets/calendar"
)

// The replayed days: the demonstration's bidding day and delivery day.
var (
	ReplayedBiddingDay  = calendar.Day{Year: 2026, Month: time.February, Day: 1}
	ReplayedDeliveryDay = calendar.Day{Year: 2026, Month: time.February, Day: 2}
)

// SourceDay is the replayed day whose published results clear delivery
// day d. The two replayed days have every series and clear with their own
// numbers: 2026-02-02 is the replayed delivery day and 2026-02-01 the
// bidding day, which is itself a delivery day for quarter-hours the demo
// clock passes through. Every other day is cleared with 2026-02-02.
func SourceDay(d calendar.Day) calendar.Day {
	if d == ReplayedBiddingDay {
		return ReplayedBiddingDay
	}
	return ReplayedDeliveryDay
}

// SourceBlock maps a tender block of delivery day d onto the replayed
// block: block i of d (its position in d.TenderBlocks()) uses block i of
// the source day. On the spring-forward day the 3-hour first block uses
// the replayed 00-04 result, and on the fall-back day the 5-hour one does.
func SourceBlock(d calendar.Day, block int) (calendar.Day, int) { return SourceDay(d), block }

// BlockOf returns the position of iv among the tender blocks of its
// delivery day, or an error when iv is not exactly one of them.
func BlockOf(iv calendar.Interval) (calendar.Day, int, error) {
	day := calendar.DayOf(iv.Start)
	for i, b := range day.TenderBlocks() {
		if b.Start.Equal(iv.Start) && b.End.Equal(iv.End) {
			return day, i, nil
		}
	}
	return day, 0, fmt.Errorf("interval %s-%s is not a tender block of %s", iv.Start.Format(time.RFC3339), iv.End.Format(time.RFC3339), day)
}

// SourceQuarterHour maps a 15-minute delivery period (by its UTC start)
// onto the replayed quarter-hour with the same local wall-clock time:
// the period starting at local hh:mm on day D replays hh:mm of
// SourceDay(D). This is explicit on the clock-change days: in spring the
// skipped 02:00-03:00 has no period, so the replayed 02:00-03:00 is not
// used; in autumn both the CEST and the CET 02:00-03:00 replay the
// replayed 02:00-03:00, which is therefore used twice.
func SourceQuarterHour(periodStart time.Time) (QuarterHour, error) {
	if !calendar.AlignedToPeriod(periodStart) {
		return QuarterHour{}, fmt.Errorf("%s is not the start of a 15-minute period", periodStart.Format(time.RFC3339Nano))
	}
	l := periodStart.In(calendar.Berlin)
	return QuarterHour{Day: SourceDay(calendar.DayOf(periodStart)), Index: l.Hour()*4 + l.Minute()/15}, nil
}
