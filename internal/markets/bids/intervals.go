package bids

import (
	"time"

	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// TenderInterval is one capacity tender interval with its delivery day,
// its bidding window and whether bids may be placed now.
type TenderInterval struct {
	calendar.Interval
	DeliveryDay calendar.Day
	Window      calendar.Window
	Open        bool
}

// IntervalQuery selects tender intervals: one delivery day, the blocks
// overlapping a window, or (neither) every block whose bidding is open now.
type IntervalQuery struct {
	Day        *calendar.Day
	Start, End *time.Time
}

// maxIntervalSpan bounds a valid-interval query by time range.
const maxIntervalSpan = 31 * 24 * time.Hour

// TenderIntervals answers q at now for a capacity market whose bidding
// window of a delivery day is window (calendar.FCRWindow,
// calendar.AFRRCapacityWindow).
func TenderIntervals(q IntervalQuery, window func(calendar.Day) calendar.Window, now time.Time) ([]TenderInterval, error) {
	var days []calendar.Day
	var within *calendar.Interval
	switch {
	case q.Day != nil && (q.Start != nil || q.End != nil):
		return nil, errs.Invalidf("query.delivery_day", q.Day.String(), "give either delivery_day or start_time and end_time, not both")
	case q.Day != nil:
		days = []calendar.Day{*q.Day}
	case q.Start != nil || q.End != nil:
		if q.Start == nil || q.End == nil {
			return nil, errs.Invalidf("query.start_time", nil, "start_time and end_time go together")
		}
		iv := calendar.Interval{Start: q.Start.UTC(), End: q.End.UTC()}
		if !iv.End.After(iv.Start) {
			return nil, errs.Invalidf("query.end_time", iv.End.Format(time.RFC3339), "must be after start_time")
		}
		if iv.Duration() > maxIntervalSpan {
			return nil, errs.Invalidf("query.end_time", iv.End.Format(time.RFC3339), "the window spans at most 31 days")
		}
		days, within = DaysTouched(iv), &iv
	default:
		// Bidding opens at D-7, so only the next eight days can be open.
		today := calendar.DayOf(now)
		for d := today; !d.AddDays(-8).Span().Start.After(today.Span().Start); d = d.AddDays(1) {
			if window(d).Open(now) {
				days = append(days, d)
			}
		}
	}
	out := []TenderInterval{}
	for _, d := range days {
		w := window(d)
		for _, b := range d.TenderBlocks() {
			if within != nil && !within.Overlaps(b) {
				continue
			}
			out = append(out, TenderInterval{Interval: b, DeliveryDay: d, Window: w, Open: w.Open(now)})
		}
	}
	return out, nil
}
