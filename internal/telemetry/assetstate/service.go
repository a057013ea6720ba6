package assetstate

import (
	"context"
	"math"
	"slices"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/dispatch"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/feasibility"
	"atcp/internal/restrictions"
	"atcp/internal/segmentation"
	"atcp/internal/telemetry"
)

// Assets resolves an asset for a caller, virtual ids included
// (*assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// Segmentations returns the design of a visible physical asset
// (*segmentation.Service).
type Segmentations interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (segmentation.Segmentation, error)
}

// Restrictions reads limits, unavailability and curtailment
// (*restrictions.Service).
type Restrictions interface {
	List(ctx context.Context, v auth.Visibility, assetID string, kind restrictions.Kind, w restrictions.Window, order restrictions.Order) ([]restrictions.Interval, error)
	Curtailments(ctx context.Context, v auth.Visibility, assetID string, w restrictions.Window, by restrictions.CurtailmentSort, order restrictions.Order) ([]restrictions.Curtailment, error)
	FullyRestricted(ctx context.Context, assetID string, t time.Time) (bool, error)
}

// Bids lists an asset's bids of one market (bids.Store).
type Bids interface {
	List(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, f bids.Filter) ([]bids.Bid, error)
}

// Schedules returns an asset's scheduled-dispatch events with set_time
// in [from, to), ordered by set_time (the dispatch service).
type Schedules interface {
	Scheduled(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) ([]dispatch.Event, error)
}

// LatestReader returns an asset's latest snapshot, errs.NotFound when it
// never reported (telemetry.Store).
type LatestReader interface {
	Latest(ctx context.Context, assetID string) (telemetry.Snapshot, error)
}

var (
	_ LatestReader  = telemetry.Store(nil)
	_ Assets        = (*assets.Service)(nil)
	_ Segmentations = (*segmentation.Service)(nil)
	_ Restrictions  = (*restrictions.Service)(nil)
	_ Bids          = bids.Store(nil)
	_ Schedules     = (*dispatch.Service)(nil)
)

// Deps are what the service reads from.
type Deps struct {
	Clock         clock.Clock
	Assets        Assets
	Segmentations Segmentations
	Restrictions  Restrictions
	Bids          Bids
	Schedules     Schedules
	Latest        LatestReader
	History       telemetry.HistoryReader
	// StaleAfter is the age (platform time) beyond which the latest
	// snapshot no longer says the asset is available: the state then
	// reports asset_status 0. Zero: never stale.
	StaleAfter time.Duration
}

// Service reads asset state, state history and planned state.
type Service struct{ d Deps }

// NewService returns the service on d; every dependency is required.
func NewService(d Deps) *Service { return &Service{d: d} }

// State is the state response: measurement name to points, one point
// each for the live state.
type State map[string][]telemetry.Point

// pointNames are the stored measurements in their fixed order.
var pointNames = telemetry.PointNames()

// view is how a caller sees an asset's measurements: the physical asset
// whose telemetry it reads and, for a virtual asset, the split.
type view struct {
	asset    assets.Asset
	physical string
	split    *Split
}

// resolve finds a visible asset (404 otherwise) and, for a virtual
// asset, its parent's active design.
func (s *Service) resolve(ctx context.Context, v auth.Visibility, assetID string) (view, error) {
	a, err := s.d.Assets.Get(ctx, v, assetID)
	if err != nil {
		return view{}, err
	}
	w := view{asset: a, physical: a.PhysicalID()}
	if !a.IsVirtual() {
		return w, nil
	}
	parent, err := s.d.Assets.Get(ctx, v, w.physical)
	if err != nil {
		return view{}, err
	}
	design, err := s.d.Segmentations.Get(ctx, v, w.physical)
	if err != nil {
		return view{}, err
	}
	_, segmentID, _ := segmentation.SplitVirtualAssetID(a.ID)
	i := slices.IndexFunc(design.Segments, func(g segmentation.Segment) bool { return g.ID == segmentID })
	if design.Status != segmentation.Active || i < 0 {
		// The design changed since the id resolved: the virtual asset
		// is gone.
		return view{}, errs.NotFoundf("asset %q not found", assetID)
	}
	w.split = &Split{Design: design, Index: i, PowerMW: deref(parent.UsablePowerCapacityMW), EnergyMWh: deref(parent.UsableEnergyCapacityMWh)}
	return w, nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// value is what the caller sees of the physical value x of name.
func (w view) value(name string, x float64) float64 {
	if w.split == nil {
		return x
	}
	return w.split.Value(name, x)
}

// shows reports whether the asset's state has measurement name: PV
// measurements only for pv_active assets.
func (w view) shows(name string) bool { return w.asset.PVActive || !isPV(name) }

// State returns the latest state of a visible asset: every measurement of
// document 1 and the deprecated aliases, each one point stamped with the
// snapshot's instant; PV measurements only for pv_active assets. An asset
// that never reported has an empty state. asset_status is 0 while the
// asset (or, for a virtual asset, its parent) is fully restricted, and
// when its latest snapshot is older than StaleAfter: nobody knows that
// an asset which stopped reporting can still deliver.
func (s *Service) State(ctx context.Context, v auth.Visibility, assetID string) (State, error) {
	w, err := s.resolve(ctx, v, assetID)
	if err != nil {
		return nil, err
	}
	snap, err := s.d.Latest.Latest(ctx, w.physical)
	if errs.Is(err, errs.NotFound) {
		return State{}, nil
	}
	if err != nil {
		return nil, err
	}
	now := s.d.Clock.Now()
	restricted, err := s.fullyRestricted(ctx, w.asset, now)
	if err != nil {
		return nil, err
	}
	ts := snap.Measurements.Timestamp.UTC()
	stale := s.d.StaleAfter > 0 && now.Sub(ts) > s.d.StaleAfter
	values := snap.Measurements.Values(make([]float64, 0, len(pointNames)))
	out := make(State, len(pointNames)+len(telemetry.Aliases))
	for i, name := range pointNames {
		x := values[i]
		// NaN is an absent point; ±Inf, a reading no JSON number can
		// carry, is shown as absent too (history does the same).
		if math.IsNaN(x) || math.IsInf(x, 0) || !w.shows(name) {
			continue
		}
		if name == "asset_status" && (restricted || stale) {
			x = 0
		}
		out[name] = []telemetry.Point{{Timestamp: ts, Value: w.value(name, x)}}
	}
	for alias, name := range telemetry.Aliases {
		if p, ok := out[name]; ok {
			out[alias] = p
		}
	}
	return out, nil
}

// fullyRestricted reports whether a, or the parent of a virtual a, has a
// full restriction active at t.
func (s *Service) fullyRestricted(ctx context.Context, a assets.Asset, t time.Time) (bool, error) {
	full, err := s.d.Restrictions.FullyRestricted(ctx, a.ID, t)
	if err != nil || full || !a.IsVirtual() {
		return full, err
	}
	return s.d.Restrictions.FullyRestricted(ctx, a.PhysicalID(), t)
}

// History returns a visible asset's stored measurements over q's window,
// keyed by the names asked for; a named measurement without data (or a PV
// measurement of an asset that is not pv_active) is an empty list. When
// none is named, every measurement with data appears, aliases included,
// PV ones only for pv_active assets. A virtual asset's history is its
// parent's, disaggregated point by point.
func (s *Service) History(ctx context.Context, v auth.Visibility, assetID string, q HistoryQuery) (State, error) {
	names, err := q.Validate(s.d.Clock.Now())
	if err != nil {
		return nil, err
	}
	w, err := s.resolve(ctx, v, assetID)
	if err != nil {
		return nil, err
	}
	// PV measurements of an asset without PV are not read: they are
	// answered as measurements without data.
	asked := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !w.shows(n) })
	var got map[string][]telemetry.Point
	if len(names) == 0 || len(asked) > 0 {
		maxPoints := 0
		if q.Downsample {
			maxPoints = DownsampledPoints
		}
		if got, err = s.d.History.History(ctx, w.physical, q.Start.UTC(), q.End.UTC(), asked, maxPoints); err != nil {
			return nil, err
		}
	}
	out := make(State, len(got)+len(names))
	for name, points := range got {
		if !w.shows(name) {
			continue
		}
		if w.split != nil {
			scaled := make([]telemetry.Point, len(points))
			for i, p := range points {
				scaled[i] = telemetry.Point{Timestamp: p.Timestamp, Value: w.value(name, p.Value)}
			}
			points = scaled
		}
		out[name] = points
	}
	for _, name := range names {
		if _, ok := out[name]; !ok {
			out[name] = []telemetry.Point{}
		}
	}
	return out, nil
}

// Planned is an asset's planned state over [Start, End): what the
// platform's own records say will happen.
type Planned struct {
	AssetID        string
	OrganizationID string
	Start, End     time.Time
	// Dispatch is the scheduled power as explicit steps (ScheduleSteps).
	Dispatch []SetPoint
	// Accepted bids (SUCCESSFUL, FALLBACK) overlapping the window.
	FCR, AFRRCapacity, AFRREnergy []bids.Bid
	// Intervals overlapping the window, by start. Unavailabilities of a
	// virtual asset include its parent's.
	PowerLimits, EnergyLimits, Unavailabilities []restrictions.Interval
	// Curtailments of the physical asset overlapping the window.
	Curtailments []restrictions.Curtailment
	// Feasibility lists where the asset's commitments across markets (its
	// committed bids and the scheduled power) do not fit its usable power
	// and energy in the window (package feasibility, merged).
	Feasibility []feasibility.Violation
}

// accepted reports whether a bid in status st holds a reservation.
func accepted(st bids.Status) bool { return st == bids.Successful || st == bids.Fallback }

// Planned returns the planned state of a visible asset over [start, end):
// at most PlannedWindow long, starting at most HistoryReach ago.
func (s *Service) Planned(ctx context.Context, v auth.Visibility, assetID string, start, end time.Time) (Planned, error) {
	if err := checkPlannedWindow(start, end, s.d.Clock.Now()); err != nil {
		return Planned{}, err
	}
	start, end = start.UTC(), end.UTC()
	a, err := s.d.Assets.Get(ctx, v, assetID)
	if err != nil {
		return Planned{}, err
	}
	p := Planned{AssetID: a.ID, OrganizationID: a.OrganizationID, Start: start, End: end}
	events, err := s.d.Schedules.Scheduled(ctx, v, a.ID, scheduleFrom(start), end)
	if err != nil {
		return Planned{}, err
	}
	p.Dispatch = ScheduleSteps(events, start, end)

	// Bids are read over the whole tender blocks the window touches: the
	// energy rule of feasibility sums a block's commitments.
	window := calendar.Interval{Start: start, End: end}
	wide := feasibility.Blocks(window)
	f := bids.Filter{EndAfter: wide.Start, Start: &wide.Start, End: &wide.End}
	book := feasibility.NewBook()
	for _, m := range []struct {
		market bids.Market
		into   *[]bids.Bid
	}{{bids.FCR, &p.FCR}, {bids.AFRRCapacity, &p.AFRRCapacity}, {bids.AFRREnergy, &p.AFRREnergy}} {
		list, err := s.d.Bids.List(ctx, v, a.ID, m.market, f)
		if err != nil {
			return Planned{}, err
		}
		bids.Commit(book, list)
		*m.into = slices.DeleteFunc(list, func(b bids.Bid) bool { return !accepted(b.Status) || !b.Interval().Overlaps(window) })
	}
	points := make([]feasibility.SetPoint, len(events))
	for i, e := range events {
		points[i] = feasibility.SetPoint{At: e.SetTime, MW: e.SetPowerMW()}
	}
	book.AddSchedule(points)
	p.Feasibility = feasibility.Merge(feasibility.Check(feasibility.AssetOf(a), book, window))

	w := restrictions.Window{From: start, To: end}
	for _, k := range []struct {
		kind restrictions.Kind
		into *[]restrictions.Interval
	}{{restrictions.PowerLimit, &p.PowerLimits}, {restrictions.EnergyLimit, &p.EnergyLimits}, {restrictions.Unavailability, &p.Unavailabilities}} {
		if *k.into, err = s.d.Restrictions.List(ctx, v, a.ID, k.kind, w, restrictions.Asc); err != nil {
			return Planned{}, err
		}
	}
	if a.IsVirtual() {
		// The battery's unavailability is the segment's too.
		parent, err := s.d.Restrictions.List(ctx, v, a.PhysicalID(), restrictions.Unavailability, w, restrictions.Asc)
		if err != nil {
			return Planned{}, err
		}
		p.Unavailabilities = append(p.Unavailabilities, parent...)
		slices.SortStableFunc(p.Unavailabilities, func(x, y restrictions.Interval) int { return x.Start.Compare(y.Start) })
	}
	// DSO signals reach the physical connection only.
	p.Curtailments, err = s.d.Restrictions.Curtailments(ctx, v, a.PhysicalID(), w, restrictions.ByStart, restrictions.Asc)
	if err != nil {
		return Planned{}, err
	}
	return p, nil
}
