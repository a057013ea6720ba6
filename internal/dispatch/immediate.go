package dispatch

import (
	"fmt"
	"math"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
)

const (
	// DefaultMinImmediateWindow is the shortest immediate dispatch when
	// Config.MinImmediateWindow is zero (document 1, Limits).
	DefaultMinImmediateWindow = 10 * time.Second
	// StartTolerance is how far start_time may lie from now (document 2:
	// "within 1 s of now").
	StartTolerance = time.Second
	// History is how far back dispatch reads reach (document 1, Limits:
	// immediate dispatch history 30 days; the same bound is applied to
	// scheduled dispatch reads).
	History = 30 * 24 * time.Hour
)

// ImmediateDraft is an immediate dispatch as submitted.
type ImmediateDraft struct {
	Start      *time.Time // nil means now
	End        time.Time
	SetPowerMW float64
}

// PlanImmediate validates d for asset a at now and returns the dispatch to
// store with its warnings. A start up to StartTolerance ahead of now (clock
// skew) is taken as now, so a stored dispatch never starts in the future.
func PlanImmediate(d ImmediateDraft, a assets.Asset, now time.Time, minWindow time.Duration) (Immediate, []string, error) {
	now = now.UTC().Truncate(time.Microsecond)
	start := now
	if d.Start != nil {
		s := d.Start.UTC().Truncate(time.Microsecond)
		if s.Before(now.Add(-StartTolerance)) || s.After(now.Add(StartTolerance)) {
			return Immediate{}, nil, errs.Invalidf("body.start_time", d.Start.UTC(), "must be within 1 s of now (%s): an immediate dispatch is neither scheduled nor backdated", now.Format(time.RFC3339Nano))
		}
		if s.Before(now) {
			start = s
		}
	}
	end := d.End.UTC().Truncate(time.Microsecond)
	if !end.After(now) {
		return Immediate{}, nil, errs.Invalidf("body.end_time", d.End.UTC(), "must be in the future")
	}
	if math.IsNaN(d.SetPowerMW) || math.IsInf(d.SetPowerMW, 0) {
		return Immediate{}, nil, errs.Invalidf("body.set_power_mw", nil, "must be a finite number")
	}
	if end.Sub(start) < minWindow {
		return Immediate{}, nil, errs.E(errs.Malformed, CodeWindowTooShort,
			"end_time minus start_time is %s; the minimum is %s", end.Sub(start), minWindow)
	}
	var warnings []string
	if c := a.UsablePowerCapacityMW; c != nil {
		p := math.Abs(d.SetPowerMW)
		switch {
		case p > 2**c:
			return Immediate{}, nil, errs.Invalidf("body.set_power_mw", d.SetPowerMW, "magnitude above twice the usable power capacity (%g MW)", *c)
		case p > *c && a.StrictValidation:
			return Immediate{}, nil, errs.Conflictf(CodeStrictValidation,
				"|set_power_mw| %g exceeds the usable power capacity %g MW and the asset has strict_validation", p, *c)
		case p > *c:
			warnings = append(warnings, fmt.Sprintf("set_power_mw %g exceeds the usable power capacity of %g MW", d.SetPowerMW, *c))
		}
	}
	return Immediate{OrganizationID: a.OrganizationID, AssetID: a.ID, Start: start, End: end, SetPowerMW: d.SetPowerMW, CreatedAt: now}, warnings, nil
}

// Replacement is how a new immediate dispatch starting at start treats an
// existing one of the asset: one that ends after start is cut at start, or
// removed when it does not start before start (a backdated replacement;
// cut then ends at its own start, as a disable at that instant reports
// it); others are kept.
func Replacement(old Immediate, start time.Time) (cut Immediate, remove bool) {
	if !old.End.After(start) {
		return old, false
	}
	if !old.Start.Before(start) {
		old.End = old.Start
		return old, true
	}
	old.End = start
	return old, false
}

// ImmediateSort is the immediate-dispatch list's sort key.
type ImmediateSort string

// The sort keys and directions of the list.
const (
	ByStart ImmediateSort = "start_time"
	ByEnd   ImmediateSort = "end_time"
)

// Window is the half-open overlap window [From, To) of document 1, rule 5;
// a zero bound is unbounded.
type Window struct{ From, To time.Time }

// HistoryWindow applies the 30-day history bound to a list filter: an
// omitted start means that far back, an older one is 422, and an empty or
// inverted window is 422.
func HistoryWindow(w Window, now time.Time) (Window, error) {
	oldest := now.Add(-History)
	if w.From.IsZero() {
		w.From = oldest
	} else if w.From.Before(oldest) {
		return w, errs.Invalidf("query.start_time", w.From, "reaches back at most 30 days (to %s)", oldest.Format(time.RFC3339))
	}
	if !w.To.IsZero() && !w.To.After(w.From) {
		return w, errs.Invalidf("query.end_time", w.To, "must be after start_time")
	}
	return w, nil
}
