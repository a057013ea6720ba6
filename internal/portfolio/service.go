package portfolio

import (
	"context"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// Reads of the cover steps.
const (
	DefaultWindow = 24 * time.Hour      // start_time defaults to this long before end_time
	MaxWindow     = 31 * 24 * time.Hour // the longest window one read spans
	DefaultLimit  = 100
	MaxLimit      = 1000
)

// AssetReader resolves a visible asset (assets.Service).
type AssetReader interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// Service reads the cover steps for the API.
type Service struct {
	store  Store
	assets AssetReader
	clock  clock.Clock
}

// NewService returns the service over the step store.
func NewService(store Store, a AssetReader, c clock.Clock) *Service {
	return &Service{store: store, assets: a, clock: c}
}

// Window is a read's [Start, End) and page size; zero values take the
// defaults (the last 24 hours, 100 steps).
type Window struct {
	Start, End time.Time
	Limit      int
}

// resolve applies the defaults and checks the window (422 at the query
// parameter at fault).
func (w Window) resolve(now time.Time) (Window, error) {
	if w.End.IsZero() {
		w.End = now
	}
	if w.Start.IsZero() {
		w.Start = w.End.Add(-DefaultWindow)
	}
	if w.Limit == 0 {
		w.Limit = DefaultLimit
	}
	var v errs.Validation
	switch {
	case !w.End.After(w.Start):
		v.Add("query.end_time", "must be after start_time", w.End)
	case w.End.Sub(w.Start) > MaxWindow:
		v.Add("query.end_time", "the window spans at most 31 days", w.End)
	}
	if w.Limit < 1 || w.Limit > MaxLimit {
		v.Add("query.limit", "must be 1 to 1000", w.Limit)
	}
	return w, v.Err()
}

// AssetCovers returns the steps in which the asset failed or covered
// overlapping the window; a virtual asset reads its battery's. 404 when
// the asset is not visible.
func (s *Service) AssetCovers(ctx context.Context, p *auth.Principal, assetID string, w Window) ([]Step, error) {
	w, err := w.resolve(s.clock.Now())
	if err != nil {
		return nil, err
	}
	a, err := s.assets.Get(ctx, p.Visibility(), assetID)
	if err != nil {
		return nil, err
	}
	return s.store.List(ctx, p.Visibility(), Filter{OrganizationID: a.OrganizationID, AssetID: a.PhysicalID(),
		Start: w.Start, End: w.End, Limit: w.Limit})
}

// PoolCovers returns the steps of the organisation's pool overlapping the
// window; the caller resolved the pool (pools.Service: 404 when not
// visible).
func (s *Service) PoolCovers(ctx context.Context, p *auth.Principal, org, poolID string, w Window) ([]Step, error) {
	w, err := w.resolve(s.clock.Now())
	if err != nil {
		return nil, err
	}
	return s.store.List(ctx, p.Visibility(), Filter{OrganizationID: org, PoolID: poolID, Start: w.Start, End: w.End, Limit: w.Limit})
}
