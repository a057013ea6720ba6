package bids

import (
	"fmt"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// Rules are what a market contributes to the engine.
type Rules struct {
	Market   Market
	Name     string    // for messages: "FCR", "aFRR capacity"
	Products []Product // accepted products; the first is the default
	// Enabled tells whether the asset takes part in the market.
	Enabled func(assets.Asset) bool
	// Window is the bidding window of a bid's interval.
	Window func(iv calendar.Interval) calendar.Window
	// Tendered, when set, requires intervals to be tender intervals
	// (capacity markets); otherwise any aligned interval of whole periods
	// is accepted (energy).
	Tendered      bool
	CapacityPrice *PriceBounds // nil: the market has no capacity price
	EnergyPrice   *PriceBounds // nil: the market has no energy price
	// CeilingCode is the 409 code of a prequalified-capacity breach.
	CeilingCode errs.Code
	// Ceiling is the prequalified capacity of the asset for a product.
	Ceiling func(a assets.Asset, p Product) float64
}

// HasProduct reports whether the market accepts p.
func (r Rules) HasProduct(p Product) bool {
	for _, q := range r.Products {
		if q == p {
			return true
		}
	}
	return false
}

// DaysTouched are the delivery days iv has at least one instant in; the
// day of Start alone when iv is empty or reversed.
func DaysTouched(iv calendar.Interval) []calendar.Day {
	first := calendar.DayOf(iv.Start)
	days := []calendar.Day{first}
	if !iv.End.After(iv.Start) {
		return days
	}
	last := calendar.DayOf(iv.End.Add(-time.Nanosecond))
	for d := first.AddDays(1); !last.Span().End.Before(d.Span().End); d = d.AddDays(1) {
		days = append(days, d)
	}
	return days
}

// maxSuggestedSpan bounds the days whose blocks a 422 suggests: an
// interval longer than this gets the blocks of its first and last day.
const maxSuggestedSpan = 48 * time.Hour

// TenderBlocksTouched are the tender intervals of the delivery days iv
// touches: the suggestions of a 422 for an interval that is not one.
func TenderBlocksTouched(iv calendar.Interval) []calendar.Interval {
	days := []calendar.Day{calendar.DayOf(iv.Start)}
	switch {
	case iv.Duration() <= maxSuggestedSpan:
		days = DaysTouched(iv)
	case calendar.DayOf(iv.End.Add(-time.Nanosecond)) != days[0]:
		days = append(days, calendar.DayOf(iv.End.Add(-time.Nanosecond)))
	}
	var out []calendar.Interval
	for _, d := range days {
		out = append(out, d.TenderBlocks()...)
	}
	return out
}

// IsTenderBlock reports whether iv is exactly one tender interval.
func IsTenderBlock(iv calendar.Interval) bool {
	for _, b := range calendar.DayOf(iv.Start).TenderBlocks() {
		if b.Start.Equal(iv.Start) && b.End.Equal(iv.End) {
			return true
		}
	}
	return false
}

// intervalProblem says what is wrong with iv for the market, or "" when
// it is acceptable. tender reports that the fault is not matching a tender
// interval (suggestions apply).
func (r Rules) intervalProblem(iv calendar.Interval) (msg string, tender bool) {
	switch {
	case !iv.End.After(iv.Start):
		return "end_time must be after start_time", false
	case !calendar.AlignedToPeriod(iv.Start) || !calendar.AlignedToPeriod(iv.End):
		return "start_time and end_time must be on UTC quarter-hours", false
	case r.Tendered && !IsTenderBlock(iv):
		return "the interval is not a tender interval of the market calendar; see valid_intervals", true
	case !r.Tendered && iv.Duration() > 24*time.Hour:
		return "an energy bid covers at most one day of periods", false
	}
	return "", false
}

// GateError is the 409 of a bid placed, changed or deleted outside its
// bidding window, or "" with ok when the window is open. late reports a
// time past the recommended deadline.
func (r Rules) GateError(iv calendar.Interval, now time.Time) (warning string, err error) {
	w := r.Window(iv)
	switch {
	case now.Before(w.Opens):
		return "", errs.Conflictf(CodeBiddingNotOpen, "%s bidding for %s opens at %s",
			r.Name, describe(iv), w.Opens.Format(time.RFC3339))
	case !now.Before(w.Closes):
		return "", errs.Conflictf(CodeGateClosed, "the %s gate for %s closed at %s",
			r.Name, describe(iv), w.Closes.Format(time.RFC3339))
	case w.Late(now):
		return fmt.Sprintf("%s is past the recommended deadline %s; it is accepted but may not reach the market before the gate at %s",
			describe(iv), w.Recommended.Format(time.RFC3339), w.Closes.Format(time.RFC3339)), nil
	}
	return "", nil
}

func describe(iv calendar.Interval) string {
	return fmt.Sprintf("the interval %s/%s", iv.Start.Format(time.RFC3339), iv.End.Format(time.RFC3339))
}
