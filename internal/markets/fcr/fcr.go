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
	"atcp/internal/errs"
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
		CeilingCode:   "FCR_PREQUALIFIED_CAPACITY_EXCEEDED",
		Ceiling:       func(a assets.Asset, _ bids.Product) float64 { return a.FCRPrequalifiedMW },
	}
}

// Service is the FCR market.
type Service struct {
	*bids.Engine
	assets bids.AssetSource
	clk    clock.Clock
}

// NewService returns the FCR market on the asset registry and bid store.
func NewService(a bids.AssetSource, store bids.Store, clk clock.Clock, cfg Config) *Service {
	return &Service{Engine: bids.NewEngine(Rules(cfg), a, store, clk), assets: a, clk: clk}
}

// TenderInterval is a tender interval with its bidding window.
type TenderInterval struct {
	calendar.Interval
	DeliveryDay calendar.Day
	Window      calendar.Window
	Open        bool // bids may be placed now
}

// maxIntervalSpan bounds a valid-interval query by time range.
const maxIntervalSpan = 31 * 24 * time.Hour

// IntervalQuery selects tender intervals: one delivery day, the blocks
// overlapping a window, or (neither) every block whose bidding is open now.
type IntervalQuery struct {
	Day        *calendar.Day
	Start, End *time.Time
}

// ValidIntervals lists FCR tender intervals for a visible asset.
func (s *Service) ValidIntervals(ctx context.Context, v auth.Visibility, assetID string, q IntervalQuery) ([]TenderInterval, error) {
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	now := s.clk.Now().UTC()
	var days []calendar.Day
	var window *calendar.Interval
	switch {
	case q.Day != nil && (q.Start != nil || q.End != nil):
		return nil, errs.Invalidf("query.delivery_day", q.Day.String(), "give either delivery_day or start_time and end_time, not both")
	case q.Day != nil:
		days = []calendar.Day{*q.Day}
	case q.Start != nil || q.End != nil:
		if q.Start == nil || q.End == nil {
			return nil, errs.Invalidf("query.start_time", nil, "start_time and end_time go together")
		}
		iv := calendar.Interval{Start: q.Start.UTC(), End: q.End.UTC()}
		if !iv.End.After(iv.Start) {
			return nil, errs.Invalidf("query.end_time", iv.End.Format(time.RFC3339), "must be after start_time")
		}
		if iv.Duration() > maxIntervalSpan {
			return nil, errs.Invalidf("query.end_time", iv.End.Format(time.RFC3339), "the window spans at most 31 days")
		}
		days, window = bids.DaysTouched(iv), &iv
	default:
		today := calendar.DayOf(now)
		for d := today; !d.AddDays(-8).Span().Start.After(today.Span().Start); d = d.AddDays(1) {
			if calendar.FCRWindow(d).Open(now) {
				days = append(days, d)
			}
		}
	}
	out := []TenderInterval{}
	for _, d := range days {
		w := calendar.FCRWindow(d)
		for _, b := range d.TenderBlocks() {
			if window != nil && !window.Overlaps(b) {
				continue
			}
			out = append(out, TenderInterval{Interval: b, DeliveryDay: d, Window: w, Open: w.Open(now)})
		}
	}
	return out, nil
}
