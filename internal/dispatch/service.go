package dispatch

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/feasibility"
)

// Config tunes the service; zero values take the defaults.
type Config struct {
	MinImmediateWindow time.Duration // default DefaultMinImmediateWindow
	// Commitments reads the asset's market commitments for the
	// feasibility warnings of a schedule; nil: no such warnings.
	Commitments Commitments
}

// Commitments reads an asset's committed bids of every market (FCR, aFRR
// capacity and energy) per 15-minute period over a window
// (bids.CommitmentReader).
type Commitments interface {
	Commitments(ctx context.Context, v auth.Visibility, assetID string, window calendar.Interval) (*feasibility.Book, error)
}

// ImmediateEventKind names an internal immediate-dispatch event.
type ImmediateEventKind string

// The internal events of document 1, Events rule 4.
const (
	// Enable: a dispatch was stored and is in force from its start.
	Enable ImmediateEventKind = "enable"
	// Reset: a dispatch was closed (disabled or replaced); the asset
	// returns to its scheduled wholesale power. A dispatch reaching its
	// end_time publishes nothing: the control loop observes the end.
	Reset ImmediateEventKind = "reset"
)

// ImmediateEvent is published to in-process subscribers after the change
// is committed; Dispatch carries start_time and end_time as stored.
type ImmediateEvent struct {
	Kind     ImmediateEventKind
	Dispatch Immediate
}

// Order is a list's sort direction.
type Order string

// The sort directions.
const (
	Asc  Order = "asc"
	Desc Order = "desc"
)

// Service applies the dispatch rules to a Store. It implements Plan.
type Service struct {
	store  Store
	assets *assets.Service
	clock  clock.Clock
	cfg    Config

	mu   sync.RWMutex
	subs []func(ImmediateEvent)
}

var _ Plan = (*Service)(nil)

// NewService returns a Service.
func NewService(store Store, as *assets.Service, clk clock.Clock, cfg Config) *Service {
	if cfg.MinImmediateWindow == 0 {
		cfg.MinImmediateWindow = DefaultMinImmediateWindow
	}
	return &Service{store: store, assets: as, clock: clk, cfg: cfg}
}

// OnImmediate subscribes f to the internal immediate-dispatch events. f
// runs synchronously after the commit, on the requesting goroutine, so it
// must not block.
func (s *Service) OnImmediate(f func(ImmediateEvent)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, f)
}

func (s *Service) publish(events ...ImmediateEvent) {
	s.mu.RLock()
	subs := slices.Clone(s.subs)
	s.mu.RUnlock()
	for _, e := range events {
		for _, f := range subs {
			f(e)
		}
	}
}

// asset resolves a visible physical asset. Virtual asset ids are 409
// virtual_asset on every dispatch endpoint: dispatch steers the physical
// battery, which its segments share.
func (s *Service) asset(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return assets.Asset{}, err
	}
	if a.IsVirtual() {
		return assets.Asset{}, errs.Conflictf(assets.CodeVirtualAsset,
			"asset %q is a virtual asset of %q: steer the physical asset", assetID, *a.ParentAssetID)
	}
	return a, nil
}

// visible checks the asset a read is about: any asset the caller sees,
// virtual ones included. A virtual asset has no dispatch of its own (writes
// are 409 virtual_asset), so its reads are empty; document 2 gives reads
// no 409.
func (s *Service) visible(ctx context.Context, v auth.Visibility, assetID string) error {
	_, err := s.assets.Get(ctx, v, assetID)
	return err
}

func controllable(a assets.Asset) error {
	if !a.BESSControl() {
		return errs.Conflictf(CodeControlDisabled,
			"battery control of asset %q is off (bess_control_enabled, or control_enabled when that is unset)", a.ID)
	}
	return nil
}

// Immediates lists the asset's immediate dispatches overlapping w within
// the last 30 days, sorted by by in order (ongoing ones end latest).
func (s *Service) Immediates(ctx context.Context, v auth.Visibility, assetID string, w Window, by ImmediateSort, order Order) ([]Immediate, error) {
	w, err := HistoryWindow(w, s.clock.Now())
	if err != nil {
		return nil, err
	}
	if err := s.visible(ctx, v, assetID); err != nil {
		return nil, err
	}
	list, err := s.store.Immediates(ctx, v, assetID, w)
	if err != nil {
		return nil, err
	}
	if by == ByEnd {
		slices.SortStableFunc(list, func(a, b Immediate) int { return a.End.Compare(b.End) })
	}
	if order == Desc {
		slices.Reverse(list)
	}
	return list, nil
}

// StartImmediate validates and stores an immediate dispatch, replacing the
// one in force, and publishes reset (for each replaced) and enable.
func (s *Service) StartImmediate(ctx context.Context, v auth.Visibility, assetID string, d ImmediateDraft) (Immediate, []string, error) {
	a, err := s.asset(ctx, v, assetID)
	if err != nil {
		return Immediate{}, nil, err
	}
	if err := controllable(a); err != nil {
		return Immediate{}, nil, err
	}
	im, warnings, err := PlanImmediate(d, a, s.clock.Now(), s.cfg.MinImmediateWindow)
	if err != nil {
		return Immediate{}, nil, err
	}
	im.ID = uuid.NewString()
	replaced, err := s.store.StartImmediate(ctx, im)
	if err != nil {
		return Immediate{}, nil, err
	}
	events := make([]ImmediateEvent, 0, len(replaced)+1)
	for _, old := range replaced {
		cut, _ := Replacement(old, im.Start)
		events = append(events, ImmediateEvent{Kind: Reset, Dispatch: cut})
	}
	s.publish(append(events, ImmediateEvent{Kind: Enable, Dispatch: im})...)
	return im, warnings, nil
}

// DisableImmediate ends the asset's dispatch in force now and publishes
// reset; 404 when none is in force. It works whether or not battery
// control is on: ending an override is the safe direction, and a dispatch
// left in force would take the battery again the moment control returns.
func (s *Service) DisableImmediate(ctx context.Context, v auth.Visibility, assetID string) (Immediate, error) {
	a, err := s.asset(ctx, v, assetID)
	if err != nil {
		return Immediate{}, err
	}
	im, err := s.store.EndImmediate(ctx, a.ID, s.clock.Now().UTC().Truncate(time.Microsecond))
	if err != nil {
		return Immediate{}, err
	}
	s.publish(ImmediateEvent{Kind: Reset, Dispatch: im})
	return im, nil
}

// overrideWarnings names the immediate dispatches overlapping [from, to):
// schedule targets under them are rejected when executed.
func (s *Service) overrideWarnings(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) ([]string, error) {
	list, err := s.store.Immediates(ctx, v, assetID, Window{From: from, To: to})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, im := range list {
		out = append(out, fmt.Sprintf("an immediate dispatch overrides the schedule from %s to %s: targets in force then are rejected",
			im.Start.Format(time.RFC3339), im.End.Format(time.RFC3339)))
	}
	return out, nil
}

// ScheduledEvents returns the events of a read window (see
// ScheduleWindow) with warnings about immediate dispatches overriding it.
func (s *Service) ScheduledEvents(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) ([]Event, []string, error) {
	w, err := ScheduleWindow(from, to, s.clock.Now())
	if err != nil {
		return nil, nil, err
	}
	if err := s.visible(ctx, v, assetID); err != nil {
		return nil, nil, err
	}
	list, err := s.store.Events(ctx, v, assetID, w.From, w.To)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := s.overrideWarnings(ctx, v, assetID, w.From, w.To)
	return list, warnings, err
}

// Scheduled returns the events of a visible asset with from <= set_time <
// to, ordered by set_time (for planned state; no window rules, and an
// asset the caller cannot see has none).
func (s *Service) Scheduled(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) ([]Event, error) {
	return s.store.Events(ctx, v, assetID, from, to)
}

// PutSchedule validates targets and replaces the blocks they cover in one
// step. requestID and p.Subject are recorded on the events for the
// schedule dispatch report.
func (s *Service) PutSchedule(ctx context.Context, p auth.Principal, assetID, requestID string, targets []Target) (Schedule, error) {
	v := p.Visibility()
	a, err := s.asset(ctx, v, assetID)
	if err != nil {
		return Schedule{}, err
	}
	sch, err := PlanSchedule(targets, a, s.clock.Now())
	if err != nil {
		return Schedule{}, err
	}
	for i := range sch.Events {
		sch.Events[i].RequestID, sch.Events[i].SourceID = requestID, p.Subject
	}
	// Read before the write: a request that answers with an error has
	// stored nothing.
	more, err := s.overrideWarnings(ctx, v, a.ID, sch.From, sch.To)
	if err != nil {
		return Schedule{}, err
	}
	unfit, err := s.feasibilityWarnings(ctx, v, a, sch)
	if err != nil {
		return Schedule{}, err
	}
	more = append(more, unfit...)
	if err := s.store.ReplaceEvents(ctx, a.ID, sch.From, sch.To, sch.Events); err != nil {
		return Schedule{}, err
	}
	if !a.BESSControl() {
		sch.Warnings = append(sch.Warnings, "battery control of the asset is off: targets fail unless it is enabled before they are due")
	}
	sch.Warnings = append(sch.Warnings, more...)
	return sch, nil
}

// feasibilityWarnings are the 15-minute periods of the replaced blocks
// where the new schedule does not fit beside the asset's market
// commitments: FCR + aFRR + scheduled power of a side above the usable
// power capacity (the power rule of package feasibility; the energy rule
// concerns reserves only). They are warnings, strict_validation or not:
// targets inside the sanity bound are always accepted (document 2), and
// the headroom rule clips them at execution, which the schedule dispatch
// report shows as clipped.
func (s *Service) feasibilityWarnings(ctx context.Context, v auth.Visibility, a assets.Asset, sch Schedule) ([]string, error) {
	fa := feasibility.AssetOf(a)
	if s.cfg.Commitments == nil || fa.PowerMW == nil {
		return nil, nil
	}
	fa.EnergyMWh = nil
	window := calendar.Interval{Start: sch.From, End: sch.To}
	book, err := s.cfg.Commitments.Commitments(ctx, v, a.ID, window)
	if err != nil {
		return nil, err
	}
	points := make([]feasibility.SetPoint, len(sch.Events))
	for i, e := range sch.Events {
		points[i] = feasibility.SetPoint{At: e.SetTime, MW: e.SetPowerMW()}
	}
	book.AddSchedule(points)
	var unfit []feasibility.Violation
	for _, x := range feasibility.Check(fa, book, window) {
		if *x.ScheduleMW > 0 {
			unfit = append(unfit, x)
		}
	}
	out := feasibility.Warnings(unfit)
	for i := range out {
		out[i] = "the schedule does not fit beside the asset's market commitments in " + out[i] +
			"; targets there are clipped to the headroom when executed"
	}
	return out, nil
}

// Anticipated returns the scheduled power at now + after (whole seconds)
// and the set_time of the event it comes from (PowerAt): document 2's "most
// recent event with set_time at or before the target", the block start
// when the block has no event by then.
func (s *Service) Anticipated(ctx context.Context, v auth.Visibility, assetID string, after time.Duration) (time.Time, float64, error) {
	if after < 0 || after > MaxAnticipation {
		return time.Time{}, 0, errs.Invalidf("query.seconds_into_the_future", int64(after/time.Second), "must be between 0 and 86400")
	}
	if err := s.visible(ctx, v, assetID); err != nil {
		return time.Time{}, 0, err
	}
	at := s.clock.Now().UTC().Truncate(time.Second).Add(after.Truncate(time.Second))
	list, err := s.store.Events(ctx, v, assetID, BlockOf(at), at.Add(time.Second))
	if err != nil {
		return time.Time{}, 0, err
	}
	setTime, mw := PowerAt(list, at)
	return setTime, mw, nil
}

// Report returns the schedule dispatch report entries of [from, to).
func (s *Service) Report(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) ([]Outcome, error) {
	w, err := ReportWindow(from, to)
	if err != nil {
		return nil, err
	}
	if err := s.visible(ctx, v, assetID); err != nil {
		return nil, err
	}
	return s.store.Outcomes(ctx, v, assetID, w.From, w.To)
}

// ActiveImmediate implements Plan.
func (s *Service) ActiveImmediate(ctx context.Context, at time.Time) ([]Immediate, error) {
	return s.store.ActiveImmediate(ctx, at)
}

// EventsBetween implements Plan.
func (s *Service) EventsBetween(ctx context.Context, from, to time.Time) ([]Event, error) {
	return s.store.EventsBetween(ctx, from, to)
}

// CurrentEvents implements Plan.
func (s *Service) CurrentEvents(ctx context.Context, at time.Time) ([]Event, error) {
	return s.store.CurrentEvents(ctx, at)
}

// RecordOutcomes implements Plan.
func (s *Service) RecordOutcomes(ctx context.Context, outcomes []Outcome) error {
	return s.store.RecordOutcomes(ctx, outcomes)
}

// Prune deletes the dispatch records no read can reach any more (older
// than History at now); a worker job calls it.
func (s *Service) Prune(ctx context.Context, now time.Time) (int, error) {
	return s.store.Prune(ctx, now.Add(-History))
}
