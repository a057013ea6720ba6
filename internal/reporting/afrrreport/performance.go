package afrrreport

import (
	"math"
	"time"

	"atcp/internal/reporting"
)

// Period is one aFRR performance period (document 1).
type Period struct {
	Start       time.Time
	Granularity reporting.Granularity
	// DispatchCount counts the events, DispatchedCount those the asset was
	// sent power in, FilteredCount those the dispatcher skipped or limited.
	DispatchCount, DispatchedCount, FilteredCount int
	// TotalSetMW and TotalAcceptedMW sum the events' set and accepted
	// power as magnitudes in their direction (MW, quarter-hour means).
	TotalSetMW, TotalAcceptedMW float64
	// FillRatePct is TotalAcceptedMW / TotalSetMW x 100, rounded to two
	// decimals; nil when nothing was set.
	FillRatePct *float64
}

// Periods folds the totals (per quarter-hour, or per hour unless g is
// FifteenMinutes) into the periods of g overlapping w, every
// one of them, zero-valued when it holds no event (a steady axis; a period
// without events has a null fill rate). Hours and days are Berlin's.
func Periods(totals []SlotTotal, g reporting.Granularity, w reporting.Window) []Period {
	starts := g.Periods(w)
	out := make([]Period, len(starts))
	ends := make([]time.Time, len(starts))
	for i, s := range starts {
		out[i], ends[i] = Period{Start: s, Granularity: g}, g.PeriodEnd(s)
	}
	// totals are in order of their quarter-hour: one pass.
	i := 0
	for _, t := range totals {
		for i < len(out) && !t.Slot.Before(ends[i]) {
			i++
		}
		if i == len(out) {
			break
		}
		if t.Slot.Before(out[i].Start) {
			continue
		}
		p := &out[i]
		p.DispatchCount += t.Count
		p.DispatchedCount += t.Dispatched
		p.FilteredCount += t.Filtered
		p.TotalSetMW += t.SetMW
		p.TotalAcceptedMW += t.AcceptedMW
	}
	for i := range out {
		p := &out[i]
		p.TotalSetMW, p.TotalAcceptedMW = round(p.TotalSetMW, 3), round(p.TotalAcceptedMW, 3)
		if p.TotalSetMW > 0 {
			r := round(p.TotalAcceptedMW/p.TotalSetMW*100, 2)
			p.FillRatePct = &r
		}
	}
	return out
}

func round(x float64, decimals int) float64 {
	f := math.Pow10(decimals)
	return math.Round(x*f) / f
}
