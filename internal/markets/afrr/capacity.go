package afrr

import (
	"context"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// CapacityMaxPrice is the aFRR capacity price ceiling in EUR/MW per hour
// of the block (document 1, Limits).
var CapacityMaxPrice = bids.EUR(15000)

// CapacityEnergyPriceBounds are the bounds of the energy price a capacity
// bid carries, in EUR/MWh; negative means the provider pays.
var CapacityEnergyPriceBounds = bids.PriceBounds{Min: bids.EUR(-15000), Max: bids.EUR(15000)}

// CapacityRules are the aFRR capacity market's rules for the bid engine:
// directional bids (pos, neg) on the daily tender blocks, a capacity and
// an energy price, and a ceiling per direction.
func CapacityRules() bids.Rules {
	return bids.Rules{
		Market:   bids.AFRRCapacity,
		Name:     "aFRR capacity",
		Products: []bids.Product{bids.Pos, bids.Neg},
		Enabled:  func(a assets.Asset) bool { return a.AFRREnabled },
		Window: func(iv calendar.Interval) calendar.Window {
			return calendar.AFRRCapacityWindow(calendar.DayOf(iv.Start))
		},
		Tendered:      true,
		CapacityPrice: &bids.PriceBounds{Min: 0, Max: CapacityMaxPrice},
		EnergyPrice:   &CapacityEnergyPriceBounds,
		CeilingCode:   CodePrequalifiedCapacityExceeded,
		Ceiling:       func(a assets.Asset, p bids.Product) float64 { return PrequalifiedMW(a, Product(p)) },
	}
}

// CapacityService is the aFRR capacity market: the shared bid engine with
// the capacity rules, plus tender intervals and results.
type CapacityService struct {
	*bids.Engine
	assets bids.AssetSource
	clk    clock.Clock
}

// NewCapacityService returns the aFRR capacity market on the asset
// registry and the bid store; opts adjust the engine to its environment
// (bids.AllowNotLive).
func NewCapacityService(a bids.AssetSource, store bids.Store, clk clock.Clock, opts ...bids.Option) *CapacityService {
	return &CapacityService{Engine: bids.NewEngine(CapacityRules(), a, store, clk, opts...), assets: a, clk: clk}
}

// CapacityInterval and CapacityIntervalQuery are the engine's tender
// intervals, named here for callers.
type (
	CapacityInterval      = bids.TenderInterval
	CapacityIntervalQuery = bids.IntervalQuery
)

// ValidIntervals lists aFRR capacity tender intervals for a visible asset.
func (s *CapacityService) ValidIntervals(ctx context.Context, v auth.Visibility, assetID string, q CapacityIntervalQuery) ([]CapacityInterval, error) {
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	return CapacityTenderIntervals(q, s.clk.Now().UTC())
}

// CapacityTenderIntervals answers q at now.
func CapacityTenderIntervals(q CapacityIntervalQuery, now time.Time) ([]CapacityInterval, error) {
	return bids.TenderIntervals(q, calendar.AFRRCapacityWindow, now)
}

// CapacityResult is one bid's auction result. aFRR capacity is
// pay-as-bid: an award earns the bid's own capacity price.
type CapacityResult struct {
	bids.Bid
	// Payment is the capacity payment in EUR: awarded MW x the bid's
	// price x the block's hours, for a SUCCESSFUL bid; nil otherwise.
	Payment *bids.Price
}

// Results returns the results of the asset's bids overlapping
// [start, end) (either bound optional), of product when given.
func (s *CapacityService) Results(ctx context.Context, v auth.Visibility, assetID string, start, end *time.Time, product *bids.Product) ([]CapacityResult, error) {
	list, err := s.List(ctx, v, assetID, start, end, product)
	if err != nil {
		return nil, err
	}
	out := make([]CapacityResult, len(list))
	for i, b := range list {
		out[i] = CapacityResult{Bid: b, Payment: CapacityPayment(b)}
	}
	return out, nil
}

// CapacityPayment is what a SUCCESSFUL capacity bid earns: awarded MW x
// its own price (EUR/MW per hour) x the hours of its block (3 or 5 on
// clock-change days). It is nil for any other bid.
func CapacityPayment(b bids.Bid) *bids.Price {
	if b.Status != bids.Successful || b.CapacityPrice == nil {
		return nil
	}
	awarded := b.OfferedMW
	if b.AwardedMW != nil {
		awarded = *b.AwardedMW
	}
	p := bids.Payment(*b.CapacityPrice, awarded, int64(b.Interval().Duration()/time.Hour))
	return &p
}
