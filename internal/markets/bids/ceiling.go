package bids

import (
	"fmt"
	"sort"
	"time"

	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// Breach is one 15-minute period and direction in which a request would
// exceed the prequalified capacity.
type Breach struct {
	PeriodStart time.Time `json:"period_start"`
	Direction   Product   `json:"direction"`
	CommittedMW float64   `json:"committed_mw"`
	RequestedMW float64   `json:"requested_mw"`
	CeilingMW   float64   `json:"ceiling_mw"`
	OvershootMW float64   `json:"overshoot_mw"`
}

// ceilingTolerance absorbs float rounding in sums of MW figures.
const ceilingTolerance = 1e-9

type periodKey struct {
	start   int64
	product Product
}

// CheckCeiling returns every period and direction where the power of
// requested plus the committed power of existing exceeds ceiling. Only
// existing bids of market count, minus those whose ids are in excluded
// (bids a REPLACE deletes, the bid being updated). ceiling gives the
// prequalified capacity per product; 0 rejects every bid.
func CheckCeiling(market Market, ceiling func(Product) float64, existing, requested []Bid, excluded map[string]bool) []Breach {
	if len(requested) == 0 {
		return nil
	}
	want := map[periodKey]float64{}
	span := requested[0].Interval()
	for _, b := range requested {
		span = Hull(span, b.Interval())
		forEachPeriod(b.Interval(), func(start int64) { want[periodKey{start, b.Product}] += b.OfferedMW })
	}
	have := map[periodKey]float64{}
	for _, b := range existing {
		if b.Market != market || excluded[b.ID] || !span.Overlaps(b.Interval()) {
			continue
		}
		mw := b.CommittedMW()
		if mw == 0 {
			continue
		}
		forEachPeriod(b.Interval(), func(start int64) {
			if k := (periodKey{start, b.Product}); hasKey(want, k) {
				have[k] += mw
			}
		})
	}
	var out []Breach
	for k, req := range want {
		limit := ceiling(k.product)
		if total := have[k] + req; total > limit+ceilingTolerance {
			out = append(out, Breach{
				PeriodStart: time.UnixMicro(k.start).UTC(), Direction: k.product,
				CommittedMW: have[k], RequestedMW: req, CeilingMW: limit, OvershootMW: total - limit,
			})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].PeriodStart.Equal(out[j].PeriodStart) {
			return out[i].PeriodStart.Before(out[j].PeriodStart)
		}
		return out[i].Direction < out[j].Direction
	})
	return out
}

// forEachPeriod calls f with the start (Unix microseconds) of every
// 15-minute period of iv.
func forEachPeriod(iv calendar.Interval, f func(start int64)) {
	step := calendar.PeriodLength.Microseconds()
	for t, end := iv.Start.UnixMicro(), iv.End.UnixMicro(); t < end; t += step {
		f(t)
	}
}

// CeilingError is the 409 of breaches, with the periods extension.
func CeilingError(code errs.Code, marketName string, breaches []Breach) error {
	first := breaches[0]
	e := errs.Conflictf(code,
		"the request exceeds the prequalified %s capacity in %d period(s); first at %s (%s): %g MW committed + %g MW requested > %g MW; nothing was stored",
		marketName, len(breaches), first.PeriodStart.Format(time.RFC3339), first.Direction,
		first.CommittedMW, first.RequestedMW, first.CeilingMW)
	e.Extensions = map[string]any{"periods": breaches}
	return e
}

// String is a one-line summary, for logs and tests.
func (b Breach) String() string {
	return fmt.Sprintf("%s %s %g+%g>%g", b.PeriodStart.Format(time.RFC3339), b.Direction, b.CommittedMW, b.RequestedMW, b.CeilingMW)
}

func hasKey(m map[periodKey]float64, k periodKey) bool {
	_, ok := m[k]
	return ok
}
