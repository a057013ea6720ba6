// Package fcr is the FCR (frequency containment reserve) market: symmetric
// capacity bids on the six daily tender blocks, placed through the shared
// bid engine (package bids) with FCR's calendar, price bounds and
// prequalified ceiling, plus the valid-interval listing. HTTP is in
// fcrhttp.
package fcr

import (
	"context"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// DefaultMaxPrice is the FCR market maximum capacity price (document 1,
// Limits).
var DefaultMaxPrice = bids.EUR(15000)

// Config holds the configurable FCR settings.
type Config struct {
	// MaxPrice is the market maximum capacity price in EUR/MW; zero means
	// DefaultMaxPrice.
	MaxPrice bids.Price
}

// Rules are FCR's rules for the bid engine.
func Rules(cfg Config) bids.Rules {
	maxPrice := cfg.MaxPrice
	if maxPrice == 0 {
		maxPrice = DefaultMaxPrice
	}
	return bids.Rules{
		Market:        bids.FCR,
		Name:          "FCR",
		Products:      []bids.Product{bids.Sym},
		Enabled:       func(a assets.Asset) bool { return a.FCREnabled },
		Window:        func(iv calendar.Interval) calendar.Window { return calendar.FCRWindow(calendar.DayOf(iv.Start)) },
		Tendered:      true,
		CapacityPrice: &bids.PriceBounds{Min: 0, Max: maxPrice},
		CeilingCode:   CodePrequalifiedCapacityExceeded,
		Ceiling:       func(a assets.Asset, _ bids.Product) float64 { return a.FCRPrequalifiedMW },
	}
}

// Service is the FCR market.
type Service struct {
	*bids.Engine
	assets bids.AssetSource
	clk    clock.Clock
}

// NewService returns the FCR market on the asset registry and bid store;
// opts adjust the engine to its environment (bids.AllowNotLive).
func NewService(a bids.AssetSource, store bids.Store, clk clock.Clock, cfg Config, opts ...bids.Option) *Service {
	return &Service{Engine: bids.NewEngine(Rules(cfg), a, store, clk, opts...), assets: a, clk: clk}
}

// TenderInterval and IntervalQuery are the engine's, named here for callers.
type (
	TenderInterval = bids.TenderInterval
	IntervalQuery  = bids.IntervalQuery
)

// ValidIntervals lists FCR tender intervals for a visible asset.
func (s *Service) ValidIntervals(ctx context.Context, v auth.Visibility, assetID string, q IntervalQuery) ([]TenderInterval, error) {
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	return bids.TenderIntervals(q, calendar.FCRWindow, s.clk.Now().UTC())
}

// Result is one bid's auction result. FCR is pay-as-cleared: an award
// earns the settlement price of its block.
type Result struct {
	bids.Bid
	// Payment is the capacity payment in EUR: awarded MW x the settlement
	// price (EUR/MW for the block), for a SUCCESSFUL bid; nil otherwise.
	Payment *bids.Price
}

// Results returns the results of the asset's bids overlapping
// [start, end) (either bound optional).
func (s *Service) Results(ctx context.Context, v auth.Visibility, assetID string, start, end *time.Time) ([]Result, error) {
	list, err := s.List(ctx, v, assetID, start, end, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(list))
	for i, b := range list {
		out[i] = Result{Bid: b, Payment: Payment(b)}
	}
	return out, nil
}

// Payment is what a SUCCESSFUL FCR bid earns: awarded MW x the settlement
// price of its block (a price per MW and block, whatever the block's
// hours). It is nil for any other bid.
func Payment(b bids.Bid) *bids.Price {
	if b.Status != bids.Successful || b.SettlementPrice == nil {
		return nil
	}
	awarded := b.OfferedMW
	if b.AwardedMW != nil {
		awarded = *b.AwardedMW
	}
	p := bids.Payment(*b.SettlementPrice, awarded, 1)
	return &p
}
