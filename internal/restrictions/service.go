package restrictions

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// Assets resolves an asset for a caller; *assets.Service implements it,
// so virtual asset ids resolve once segmentation does.
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// Service runs the restriction rules against a Store.
type Service struct {
	store  Store
	assets Assets
	clock  clock.Clock
}

// NewService returns a Service.
func NewService(store Store, as Assets, clk clock.Clock) *Service {
	return &Service{store: store, assets: as, clock: clk}
}

// Order is a list's sort direction.
type Order string

// The sort directions.
const (
	Asc  Order = "asc"
	Desc Order = "desc"
)

func capacity(a assets.Asset) Capacity {
	return Capacity{PowerMW: a.UsablePowerCapacityMW, EnergyMWh: a.UsableEnergyCapacityMWh}
}

func checkWindow(w Window) error {
	if !w.From.IsZero() && !w.To.IsZero() && !w.To.After(w.From) {
		return errs.Invalidf("query.end_time", w.To, "must be after start_time")
	}
	return nil
}

// List returns the intervals of kind of a visible asset overlapping w,
// ordered by start_time in order.
func (s *Service) List(ctx context.Context, v auth.Visibility, assetID string, kind Kind, w Window, order Order) ([]Interval, error) {
	if err := checkWindow(w); err != nil {
		return nil, err
	}
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	list, err := s.store.Intervals(ctx, v, assetID, kind, w)
	if err != nil {
		return nil, err
	}
	if order == Desc {
		slices.Reverse(list)
	}
	return list, nil
}

// Active returns the interval of kind in force now (at most one, as
// intervals of one kind never overlap).
func (s *Service) Active(ctx context.Context, v auth.Visibility, assetID string, kind Kind) ([]Interval, error) {
	now := s.clock.Now()
	return s.List(ctx, v, assetID, kind, Window{From: now, To: now.Add(time.Microsecond)}, Asc)
}

// Create validates d against the asset and stores it.
func (s *Service) Create(ctx context.Context, v auth.Visibility, assetID string, kind Kind, d Draft) (Interval, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return Interval{}, err
	}
	return s.create(ctx, a, kind, d)
}

func (s *Service) create(ctx context.Context, a assets.Asset, kind Kind, d Draft) (Interval, error) {
	now := s.clock.Now()
	iv, err := Build(kind, d, capacity(a), now)
	if err != nil {
		return Interval{}, err
	}
	iv.OrganizationID, iv.AssetID, iv.CreatedAt = a.OrganizationID, a.ID, now
	c, err := s.store.MutateIntervals(ctx, a.OrganizationID, a.ID, kind, func(existing []Interval) (Change, error) {
		return PlanCreate(existing, iv)
	})
	return c.Interval, err
}

// Shorten applies a PATCH to the interval starting exactly at start.
func (s *Service) Shorten(ctx context.Context, v auth.Visibility, assetID string, kind Kind, start time.Time, sh Shortening) (Interval, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return Interval{}, err
	}
	now := s.clock.Now()
	c, err := s.store.MutateIntervals(ctx, a.OrganizationID, a.ID, kind, func(existing []Interval) (Change, error) {
		return PlanShorten(existing, start, sh, now)
	})
	return c.Interval, err
}

// Delete removes the future interval starting exactly at start.
func (s *Service) Delete(ctx context.Context, v auth.Visibility, assetID string, kind Kind, start time.Time) error {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	_, err = s.store.MutateIntervals(ctx, a.OrganizationID, a.ID, kind, func(existing []Interval) (Change, error) {
		return PlanDelete(existing, start, now)
	})
	return err
}

// FullyRestricted reports whether the asset is fully restricted at t: an
// active unavailability, or an active power limit admitting no power in
// either direction, or an active energy limit with an empty window. The
// state endpoint reports asset_status 0 and dispatch clamps to zero then.
// It is internal: the asset is not checked against a caller.
func (s *Service) FullyRestricted(ctx context.Context, assetID string, t time.Time) (bool, error) {
	list, err := s.store.Intervals(ctx, auth.Visibility{All: true}, assetID, "", Window{From: t, To: t.Add(time.Microsecond)})
	if err != nil {
		return false, err
	}
	return FullyRestrictedBy(list, t), nil
}

// CurtailmentSort is the curtailment list's sort key.
type CurtailmentSort string

// The curtailment sort keys.
const (
	ByStart CurtailmentSort = "start_time"
	ByEnd   CurtailmentSort = "end_time"
)

// Curtailments lists the asset's curtailments overlapping w. The start
// filter reaches back CurtailmentHistory; an omitted one means that far.
// Sorting by end_time puts ongoing curtailments last (they end latest).
func (s *Service) Curtailments(ctx context.Context, v auth.Visibility, assetID string, w Window, by CurtailmentSort, order Order) ([]Curtailment, error) {
	now := s.clock.Now()
	oldest := now.Add(-CurtailmentHistory)
	if w.From.IsZero() {
		w.From = oldest
	} else if w.From.Before(oldest) {
		return nil, errs.Invalidf("query.start_time", w.From, "reaches back at most 30 days (to %s)", oldest.Format(time.RFC3339))
	}
	if err := checkWindow(w); err != nil {
		return nil, err
	}
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	list, err := s.store.Curtailments(ctx, v, assetID, w)
	if err != nil {
		return nil, err
	}
	if by == ByEnd {
		slices.SortStableFunc(list, func(a, b Curtailment) int { return compareEnd(a.End, b.End) })
	}
	if order == Desc {
		slices.Reverse(list)
	}
	return list, nil
}

func compareEnd(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(*b)
}

// OpenCurtailment records the start of a DSO curtailment of the asset at
// at, the second the signal arrived (the control loop may process seconds
// after the fact when it catches up). 409 curtailment_ongoing when one is
// already open.
func (s *Service) OpenCurtailment(ctx context.Context, assetID string, at time.Time, maxMW, minMW float64) (Curtailment, error) {
	a, err := s.assets.Get(ctx, auth.Visibility{All: true}, assetID)
	if err != nil {
		return Curtailment{}, err
	}
	c := Curtailment{ID: uuid.NewString(), OrganizationID: a.OrganizationID, AssetID: a.ID, Start: at.UTC(),
		MaxCurtailment: maxMW, MinCurtailment: minMW}
	return c, s.store.OpenCurtailment(ctx, c, AllowCurtailment)
}

// CloseCurtailment ends the asset's ongoing curtailment at at; errs.NotFound
// when none is ongoing.
func (s *Service) CloseCurtailment(ctx context.Context, assetID string, at time.Time) (Curtailment, error) {
	return s.store.CloseCurtailment(ctx, assetID, at.UTC())
}

// RequestDraft is a submitted restriction request.
type RequestDraft struct {
	Kind   string // empty means power_limit
	Action string // empty means create
	Draft
}

// Submit validates a request like a direct write (so that a request that
// could never be approved is refused at once) and stores it pending.
func (s *Service) Submit(ctx context.Context, p auth.Principal, assetID string, rd RequestDraft) (Request, error) {
	kind := Kind(rd.Kind)
	if kind == "" {
		kind = PowerLimit
	}
	if !kind.Valid() {
		return Request{}, errs.Invalidf("body.kind", rd.Kind, "must be one of power_limit, energy_limit, unavailability")
	}
	if rd.Action != "" && rd.Action != ActionCreate {
		return Request{}, errs.Invalidf("body.action", rd.Action, "only create is supported")
	}
	if kind == Unavailability && (rd.Upper != nil || rd.Lower != nil) {
		return Request{}, errs.Invalidf("body.upper_limit_mw", nil, "an unavailability request carries no limits")
	}
	a, err := s.assets.Get(ctx, p.Visibility(), assetID)
	if err != nil {
		return Request{}, err
	}
	now := s.clock.Now()
	iv, err := Build(kind, rd.Draft, capacity(a), now)
	if err != nil {
		return Request{}, err
	}
	existing, err := s.store.Intervals(ctx, auth.Visibility{All: true}, a.ID, kind, Window{})
	if err != nil {
		return Request{}, err
	}
	if _, err := PlanCreate(existing, iv); err != nil {
		return Request{}, err
	}
	r := Request{
		ID: uuid.NewString(), OrganizationID: a.OrganizationID, AssetID: a.ID, Kind: kind, Action: ActionCreate,
		Status: Pending, Start: iv.Start, End: iv.End, Upper: rd.Upper, Lower: rd.Lower, Reason: iv.Reason,
		ReasonDescription: iv.ReasonDescription, RequestedBy: p.Subject, RequestedAt: now,
	}
	return r, s.store.CreateRequest(ctx, r)
}

// Requests lists the visible requests matching f and, when status is set,
// in that status (expiry applied), newest first.
func (s *Service) Requests(ctx context.Context, v auth.Visibility, f RequestFilter, status Status) ([]Request, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	list, err := s.store.Requests(ctx, v, f)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	out := list[:0]
	for _, r := range list {
		if r = r.AsOf(now); status == "" || r.Status == status {
			out = append(out, r)
		}
	}
	return out, nil
}

// Request returns a visible request with expiry applied.
func (s *Service) Request(ctx context.Context, v auth.Visibility, id string) (Request, error) {
	if uuid.Validate(id) != nil {
		return Request{}, errs.NotFoundf("restriction request %q not found", id)
	}
	r, err := s.store.Request(ctx, v, id)
	return r.AsOf(s.clock.Now()), err
}

// Approve re-validates the request against the asset's live data and
// intervals and, when it passes, creates the interval and marks the
// request approved in one step; otherwise the request stays pending and
// the error says why.
func (s *Service) Approve(ctx context.Context, p auth.Principal, id string, note *string) (Request, error) {
	return s.decide(ctx, p, id, Decision{To: Approved, By: p.Subject, Note: note, Admin: p.IsPlatformAdmin()})
}

// Reject moves a pending request to rejected.
func (s *Service) Reject(ctx context.Context, p auth.Principal, id string, note *string) (Request, error) {
	return s.decide(ctx, p, id, Decision{To: Rejected, By: p.Subject, Note: note, Admin: p.IsPlatformAdmin()})
}

// Cancel moves a pending request to cancelled; only its requester or a
// platform administrator may.
func (s *Service) Cancel(ctx context.Context, p auth.Principal, id string, note *string) (Request, error) {
	return s.decide(ctx, p, id, Decision{To: Cancelled, By: p.Subject, Note: note, Admin: p.IsPlatformAdmin()})
}

func (s *Service) decide(ctx context.Context, p auth.Principal, id string, d Decision) (Request, error) {
	if uuid.Validate(id) != nil {
		return Request{}, errs.NotFoundf("restriction request %q not found", id)
	}
	if err := d.Validate(); err != nil {
		return Request{}, err
	}
	v := p.Visibility()
	// The asset is read before the transaction: its capacities are the
	// live data the approval is validated against.
	r, err := s.store.Request(ctx, v, id)
	if err != nil {
		return Request{}, err
	}
	a, err := s.assets.Get(ctx, v, r.AssetID)
	if err != nil {
		return Request{}, err
	}
	now := s.clock.Now()
	return s.store.DecideRequest(ctx, v, id, func(r Request, existing []Interval) (Request, *Change, error) {
		decided, err := Decide(r, d, now)
		if err != nil || d.To != Approved {
			return decided, nil, err
		}
		iv, err := Build(r.Kind, r.Draft(now), capacity(a), now)
		if err != nil {
			return r, nil, approvalFailed(err)
		}
		iv.OrganizationID, iv.AssetID, iv.CreatedAt = r.OrganizationID, r.AssetID, now
		c, err := PlanCreate(existing, iv)
		if err != nil {
			return r, nil, err
		}
		return decided, &c, nil
	})
}

// approvalFailed says that a validation failure comes from re-validating
// the request against live data, keeping the field details.
func approvalFailed(err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		c := *e
		c.Code, c.Message = CodeApprovalValidationFailed, "the request no longer passes validation against the asset's live data"
		return &c
	}
	return err
}
