package afrrreport

import (
	"context"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
)

// AssetReader resolves a visible asset (assets.Service).
type AssetReader interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// BidReader lists an asset's bids (bids.Store).
type BidReader interface {
	List(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, f bids.Filter) ([]bids.Bid, error)
}

// Service answers the three aFRR reports. A virtual asset's dispatches
// and performance are its battery's (the loop steers batteries, as its
// pool covers are its battery's); its obligations are its own awards and
// energy bids, delivered by its battery.
type Service struct {
	store  Store
	assets AssetReader
	bids   BidReader
	clock  clock.Clock
}

// NewService returns the report service.
func NewService(store Store, a AssetReader, b BidReader, c clock.Clock) *Service {
	return &Service{store: store, assets: a, bids: b, clock: c}
}

// resolve checks the window and page (422) and the asset (404).
func (s *Service) resolve(ctx context.Context, p *auth.Principal, assetID string, w reporting.Window, pg *reporting.Page) (assets.Asset, reporting.Window, error) {
	w, err := w.Resolve(s.clock.Now(), reporting.MaxWindow)
	if err != nil {
		return assets.Asset{}, w, err
	}
	if pg != nil {
		if *pg, err = pg.Resolve(); err != nil {
			return assets.Asset{}, w, err
		}
	}
	a, err := s.assets.Get(ctx, p.Visibility(), assetID)
	return a, w, err
}

// Dispatches is one page of the events of the asset's battery whose
// quarter-hour overlaps w, and their total.
func (s *Service) Dispatches(ctx context.Context, p *auth.Principal, assetID string, w reporting.Window, pg reporting.Page) ([]Event, int, reporting.Page, error) {
	a, w, err := s.resolve(ctx, p, assetID, w, &pg)
	if err != nil {
		return nil, 0, pg, err
	}
	events, total, err := s.store.List(ctx, p.Visibility(), a.PhysicalID(), w, pg)
	return events, total, pg, err
}

// Performance is the asset's battery's performance per period of g.
func (s *Service) Performance(ctx context.Context, p *auth.Principal, assetID string, w reporting.Window, g reporting.Granularity) ([]Period, error) {
	a, w, err := s.resolve(ctx, p, assetID, w, nil)
	if err != nil {
		return nil, err
	}
	per := PerHour
	if g == reporting.FifteenMinutes {
		per = PerQuarterHour
	}
	totals, err := s.store.Totals(ctx, p.Visibility(), a.PhysicalID(), w, per)
	if err != nil {
		return nil, err
	}
	return Periods(totals, g, w), nil
}

// Obligations is one page of the asset's capacity-award quarter-hours in
// w, and their total.
func (s *Service) Obligations(ctx context.Context, p *auth.Principal, assetID string, w reporting.Window, pg reporting.Page) ([]Obligation, int, reporting.Page, error) {
	a, w, err := s.resolve(ctx, p, assetID, w, &pg)
	if err != nil {
		return nil, 0, pg, err
	}
	v := p.Visibility()
	f := bids.Filter{Start: &w.Start, End: &w.End}
	capacity, err := s.bids.List(ctx, v, a.ID, bids.AFRRCapacity, f)
	if err != nil {
		return nil, 0, pg, err
	}
	if len(capacity) == 0 {
		return []Obligation{}, 0, pg, nil
	}
	energy, err := s.bids.List(ctx, v, a.ID, bids.AFRREnergy, f)
	if err != nil {
		return nil, 0, pg, err
	}
	totals, err := s.store.Totals(ctx, v, a.PhysicalID(), w, PerQuarterHour)
	if err != nil {
		return nil, 0, pg, err
	}
	rows := Obligations(capacity, energy, totals, w, s.clock.Now())
	total := len(rows)
	from := min(pg.Offset, total)
	return rows[from:min(from+pg.Limit, total)], total, pg, nil
}
