package restrictions

import (
	"fmt"
	"math"
	"time"

	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// Kind is the kind of a restriction interval (and of a restriction request).
type Kind string

// The three interval kinds.
const (
	PowerLimit     Kind = "power_limit"
	EnergyLimit    Kind = "energy_limit"
	Unavailability Kind = "unavailability"
)

// Valid reports whether k is one of the three kinds.
func (k Kind) Valid() bool { return k == PowerLimit || k == EnergyLimit || k == Unavailability }

// Reason is why a restriction exists.
type Reason string

// The reasons of document 1's enumeration.
const (
	Maintenance Reason = "maintenance"
	Fault       Reason = "fault"
	GridEvent   Reason = "grid_event"
	Commercial  Reason = "commercial"
	Other       Reason = "other"
)

// Valid reports whether r is one of the enumerated reasons.
func (r Reason) Valid() bool {
	switch r {
	case Maintenance, Fault, GridEvent, Commercial, Other:
		return true
	}
	return false
}

const (
	// ShorteningLead is how far ahead a scheduled shortening (PATCH
	// new_end_time) must lie, so that the market and dispatch side can
	// react before the restriction changes; end_now bypasses it.
	ShorteningLead = 5 * time.Minute
	// PastStartTolerance admits a start_time slightly in the past (clock
	// skew and transit time between an operator and the server).
	PastStartTolerance = time.Minute
	// MaxDescription bounds reason_description.
	MaxDescription = 2000
)

// Interval is a power limit, an energy limit or an unavailability of one
// asset over [Start, End); a nil End is open-ended. An interval is
// identified by its asset, kind and exact Start: intervals of one kind
// never overlap. Upper and Lower are MW for power limits, MWh for energy
// limits and nil for unavailability.
type Interval struct {
	Kind              Kind
	OrganizationID    string
	AssetID           string
	Start             time.Time
	End               *time.Time
	Upper, Lower      *float64
	Reason            Reason
	ReasonDescription *string
	CreatedAt         time.Time
}

// Overlaps reports whether the interval and the half-open window [from,
// to) share an instant; a zero from or to leaves that side unbounded.
// This is document 1, rule 5: an item ending exactly at from or starting
// exactly at to is excluded, an open-ended item is included.
func (iv Interval) Overlaps(from, to time.Time) bool {
	return Overlap(iv.Start, iv.End, from, to)
}

// Overlap is rule 5 for any item [start, end) with an optional end.
func Overlap(start time.Time, end *time.Time, from, to time.Time) bool {
	if !from.IsZero() && end != nil && !end.After(from) {
		return false
	}
	return to.IsZero() || start.Before(to)
}

// ActiveAt reports whether t lies in [Start, End).
func (iv Interval) ActiveAt(t time.Time) bool {
	return !iv.Start.After(t) && (iv.End == nil || iv.End.After(t))
}

// Ended reports whether the interval has ended by now.
func (iv Interval) Ended(now time.Time) bool { return iv.End != nil && !iv.End.After(now) }

// Full reports whether the interval, while active, leaves the asset
// nothing: any unavailability, a power limit admitting no power in either
// direction, or an energy limit with an empty window.
func (iv Interval) Full() bool {
	switch iv.Kind {
	case Unavailability:
		return true
	case PowerLimit:
		return iv.Upper != nil && iv.Lower != nil && *iv.Upper <= 0 && *iv.Lower >= 0
	case EnergyLimit:
		return iv.Upper != nil && iv.Lower != nil && *iv.Lower >= *iv.Upper
	}
	return false
}

// Draft is a new interval as submitted, bounds still optional.
type Draft struct {
	Start             time.Time
	End               *time.Time
	Upper, Lower      *float64
	Reason            string
	ReasonDescription *string
}

// Capacity is what the bounds of a limit are checked against: the asset's
// usable power (MW) or energy (MWh) capacity, nil when not recorded.
type Capacity struct {
	PowerMW   *float64
	EnergyMWh *float64
}

// Build validates d as an interval of kind for an asset with capacity at
// now and fills omitted bounds with the defaults. prefix names the body
// fields ("body."); unit is the field suffix (_mw or _mwh). Every problem
// is reported at once as a 422.
func Build(kind Kind, d Draft, c Capacity, now time.Time) (Interval, error) {
	var v errs.Validation
	iv := Interval{Kind: kind, Start: d.Start.UTC(), Reason: Reason(d.Reason), ReasonDescription: d.ReasonDescription}
	if d.End != nil {
		e := d.End.UTC()
		iv.End = &e
	}
	if !iv.Reason.Valid() {
		v.Add("body.reason", "must be one of maintenance, fault, grid_event, commercial, other", d.Reason)
	}
	if d.ReasonDescription != nil && len(*d.ReasonDescription) > MaxDescription {
		v.Add("body.reason_description", fmt.Sprintf("at most %d bytes", MaxDescription), len(*d.ReasonDescription))
	} else if d.ReasonDescription != nil {
		textrule.CheckText(&v, "body.reason_description", *d.ReasonDescription)
	}
	if d.Start.IsZero() {
		v.Add("body.start_time", "is required", nil)
	} else if iv.Start.Before(now.Add(-PastStartTolerance)) {
		v.Add("body.start_time", "must not lie in the past", iv.Start)
	}
	if iv.End != nil && !iv.End.After(iv.Start) {
		v.Add("body.end_time", "must be after start_time", *iv.End)
	}
	switch kind {
	case PowerLimit:
		iv.Upper, iv.Lower = bounds(&v, "_mw", d.Upper, d.Lower, c.PowerMW, true)
	case EnergyLimit:
		iv.Upper, iv.Lower = bounds(&v, "_mwh", d.Upper, d.Lower, c.EnergyMWh, false)
	}
	if err := v.Err(); err != nil {
		return Interval{}, err
	}
	return iv, nil
}

// bounds applies the defaults and checks the bounds of a limit: power
// defaults to [-capacity, capacity], energy to [0, capacity].
func bounds(v *errs.Validation, unit string, upper, lower, capacity *float64, symmetric bool) (*float64, *float64) {
	upperLoc, lowerLoc := "body.upper_limit"+unit, "body.lower_limit"+unit
	if upper == nil && lower == nil {
		v.Add(upperLoc, "at least one of upper_limit"+unit+" and lower_limit"+unit+" is required", nil)
		return nil, nil
	}
	ok := true
	for _, b := range []struct {
		loc string
		val *float64
	}{{upperLoc, upper}, {lowerLoc, lower}} {
		if b.val == nil {
			if capacity == nil {
				v.Add(b.loc, "required: the asset has no recorded usable capacity to default to", nil)
				ok = false
			}
			continue
		}
		x := *b.val
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			v.Add(b.loc, "must be a finite number", nil)
			ok = false
		case capacity != nil && (x > *capacity || x < floor(*capacity, symmetric)):
			v.Add(b.loc, fmt.Sprintf("must lie within [%g, %g], the asset's usable capacity", floor(*capacity, symmetric), *capacity), x)
			ok = false
		case !symmetric && x < 0:
			v.Add(b.loc, "must not be negative", x)
			ok = false
		}
	}
	if !ok {
		return nil, nil
	}
	u, l := upper, lower
	if u == nil {
		c := *capacity
		u = &c
	}
	if l == nil {
		f := floor(*capacity, symmetric)
		l = &f
	}
	if *l > *u {
		v.Add(lowerLoc, "must not exceed the upper limit", *l)
		return nil, nil
	}
	return u, l
}

func floor(capacity float64, symmetric bool) float64 {
	if symmetric {
		return -capacity
	}
	return 0
}

// Op is what a planned change does to the stored intervals of one kind.
type Op int

// The change operations.
const (
	OpNone   Op = iota // nothing to write (a retried end_now)
	OpInsert           // insert Interval
	OpSetEnd           // set the end of the interval starting at Interval.Start to Interval.End
	OpDelete           // delete the interval starting at Interval.Start
)

// Change is one planned write; Interval is the interval after it.
type Change struct {
	Op       Op
	Interval Interval
}

// PlanCreate refuses iv when it overlaps an existing interval of its kind
// (409 overlapping_interval naming that interval): an operator shortens
// or deletes the existing interval first, so that which limit applies at
// an instant is never ambiguous.
func PlanCreate(existing []Interval, iv Interval) (Change, error) {
	for _, o := range existing {
		if o.Kind == iv.Kind && overlapsInterval(o, iv) {
			return Change{}, overlapping(o)
		}
	}
	return Change{Op: OpInsert, Interval: iv}, nil
}

func overlapsInterval(a, b Interval) bool {
	end := time.Time{}
	if b.End != nil {
		end = *b.End
	}
	return a.Overlaps(b.Start, end)
}

func overlapping(o Interval) error {
	end := "open-ended"
	if o.End != nil {
		end = "until " + o.End.Format(time.RFC3339)
	}
	e := errs.Conflictf(CodeOverlappingInterval, "overlaps the %s starting %s (%s); shorten or delete it first",
		o.Kind, o.Start.Format(time.RFC3339), end)
	e.Extensions = map[string]any{"overlapping_start_time": o.Start}
	return e
}

// Shortening is the body of a PATCH: exactly one of NewEnd and EndNow.
type Shortening struct {
	NewEnd *time.Time
	EndNow bool
}

// find returns the interval starting exactly at start.
func find(existing []Interval, start time.Time) (Interval, error) {
	for _, iv := range existing {
		if iv.Start.Equal(start) {
			return iv, nil
		}
	}
	return Interval{}, errs.NotFoundf("no interval starts at %s", start.UTC().Format(time.RFC3339Nano))
}

// PlanShorten plans a PATCH of the interval starting exactly at start.
// end_now ends a started interval at now and, on an interval that has
// already ended, changes nothing (safe to retry). new_end_time schedules
// an earlier end at least ShorteningLead ahead; it never extends.
func PlanShorten(existing []Interval, start time.Time, s Shortening, now time.Time) (Change, error) {
	if (s.NewEnd != nil) == s.EndNow {
		return Change{}, errs.E(errs.Malformed, CodeBadShortening, "send exactly one of new_end_time and end_now=true")
	}
	iv, err := find(existing, start)
	if err != nil {
		return Change{}, err
	}
	if s.EndNow {
		switch {
		case iv.Ended(now):
			return Change{Op: OpNone, Interval: iv}, nil
		case iv.Start.After(now):
			return Change{}, errs.Conflictf(CodeIntervalNotStarted, "the interval has not started; delete it instead")
		}
		end := now
		iv.End = &end
		return Change{Op: OpSetEnd, Interval: iv}, nil
	}
	if iv.Ended(now) {
		return Change{}, errs.Conflictf(CodeIntervalEnded, "the interval ended at %s", iv.End.Format(time.RFC3339))
	}
	end := s.NewEnd.UTC()
	switch {
	case end.Before(now.Add(ShorteningLead)):
		return Change{}, errs.Invalidf("body.new_end_time", end, "must be at least %s after now; use end_now to end at once", ShorteningLead)
	case !end.After(iv.Start):
		return Change{}, errs.Invalidf("body.new_end_time", end, "must be after the interval's start_time")
	case iv.End != nil && !end.Before(*iv.End):
		return Change{}, errs.Invalidf("body.new_end_time", end, "must be before the current end_time %s: an interval can only be shortened", iv.End.Format(time.RFC3339))
	}
	iv.End = &end
	return Change{Op: OpSetEnd, Interval: iv}, nil
}

// PlanDelete plans the DELETE of the future interval starting exactly at
// start; one that has started is 409 interval_started (shorten it instead).
func PlanDelete(existing []Interval, start time.Time, now time.Time) (Change, error) {
	iv, err := find(existing, start)
	if err != nil {
		return Change{}, err
	}
	if !iv.Start.After(now) {
		return Change{}, errs.Conflictf(CodeIntervalStarted, "the interval started at %s; end it with PATCH instead", iv.Start.Format(time.RFC3339))
	}
	return Change{Op: OpDelete, Interval: iv}, nil
}

// FullyRestrictedBy reports whether any of the intervals is a full
// restriction active at t.
func FullyRestrictedBy(intervals []Interval, t time.Time) bool {
	for _, iv := range intervals {
		if iv.ActiveAt(t) && iv.Full() {
			return true
		}
	}
	return false
}
