package afrr

import (
	"context"
	"fmt"
	"math"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// Energy price bounds in EUR/MWh (document 1, Limits): negative means the
// provider pays.
var (
	MinEnergyPrice = bids.EUR(-15000)
	MaxEnergyPrice = bids.EUR(15000)
)

// EnergyRules are the aFRR energy market's rules for the bid engine: pos
// and neg bids of one 15-minute delivery period each (EnergyService
// enforces the single period), each closing 25 minutes before its period,
// with an energy price and no capacity price, checked against the
// directional prequalified capacity counting only energy bids.
func EnergyRules() bids.Rules {
	return bids.Rules{
		Market:      bids.AFRREnergy,
		Name:        "aFRR energy",
		Products:    []bids.Product{bids.Pos, bids.Neg},
		Enabled:     func(a assets.Asset) bool { return a.AFRREnabled },
		Window:      calendar.AFRREnergyWindow,
		EnergyPrice: &bids.PriceBounds{Min: MinEnergyPrice, Max: MaxEnergyPrice},
		CeilingCode: CodePrequalifiedCapacityExceeded,
		Ceiling:     func(a assets.Asset, p bids.Product) float64 { return PrequalifiedMW(a, Product(p)) },
	}
}

// EnergyService is the aFRR energy market: the bid engine with EnergyRules,
// narrowed to one delivery period per bid and to changes of PENDING bids,
// plus the valid quarter-hours.
type EnergyService struct {
	*bids.Engine
	assets bids.AssetSource
	clk    clock.Clock
}

// NewEnergyService returns the aFRR energy market on the asset registry and
// bid store; opts adjust the engine to its environment (bids.AllowNotLive).
func NewEnergyService(a bids.AssetSource, store bids.Store, clk clock.Clock, opts ...bids.Option) *EnergyService {
	return &EnergyService{Engine: bids.NewEngine(EnergyRules(), a, store, clk, opts...), assets: a, clk: clk}
}

// onePeriod reports at location in v an interval that is a valid run of
// quarter-hours but not exactly one: the engine accepts runs, the energy
// market takes one bid per delivery period. Malformed intervals are left
// for the engine to report.
func onePeriod(v *errs.Validation, location string, start, end time.Time) {
	iv := calendar.Interval{Start: start.UTC(), End: end.UTC()}
	if iv.End.After(iv.Start) && calendar.AlignedToPeriod(iv.Start) && calendar.AlignedToPeriod(iv.End) && iv.Duration() != calendar.PeriodLength {
		v.Add(location, "an aFRR energy bid covers exactly one 15-minute delivery period: end_time must be start_time + 15 minutes (send one bid per quarter-hour)",
			iv.End.Format(time.RFC3339))
	}
}

// Submit places energy bids (see bids.Engine.Submit); every bid covers
// exactly one delivery period.
func (s *EnergyService) Submit(ctx context.Context, v auth.Visibility, assetID string, sub bids.Submission) (bids.SubmitResult, error) {
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return bids.SubmitResult{}, err
	}
	var val errs.Validation
	for i, b := range sub.Bids {
		onePeriod(&val, fmt.Sprintf("body.bids[%d].end_time", i), b.Start, b.End)
	}
	if err := val.Err(); err != nil {
		return bids.SubmitResult{}, err
	}
	return s.Engine.Submit(ctx, v, assetID, sub)
}

// Update changes a PENDING energy bid in place (see bids.Engine.Update).
// An energy bid has no late edit: it closes 25 minutes before delivery and
// is forwarded at that gate, so a bid in any other status is 409
// bid_not_pending.
func (s *EnergyService) Update(ctx context.Context, v auth.Visibility, assetID, bidID string, c bids.Change) (bids.Bid, []string, error) {
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return bids.Bid{}, nil, err
	}
	cur, err := s.Get(ctx, v, assetID, bidID)
	if err != nil {
		return bids.Bid{}, nil, err
	}
	if cur.Status != bids.Pending {
		return bids.Bid{}, nil, errs.Conflictf(bids.CodeBidNotPending, "bid %s is %s; only PENDING aFRR energy bids can change (there is no late edit of an energy bid)", cur.ID, cur.Status)
	}
	var val errs.Validation
	onePeriod(&val, "body.end_time", c.Start, c.End)
	if err := val.Err(); err != nil {
		return bids.Bid{}, nil, err
	}
	return s.Engine.Update(ctx, v, assetID, bidID, c)
}

// ValidIntervals lists the delivery periods of day, or (day nil) every
// period whose energy bidding is open now, for a visible asset; each with
// its energy bidding window (the shape of a capacity tender interval).
func (s *EnergyService) ValidIntervals(ctx context.Context, v auth.Visibility, assetID string, day *calendar.Day) ([]bids.TenderInterval, error) {
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	now := s.clk.Now().UTC()
	days := []calendar.Day{}
	if day != nil {
		days = append(days, *day)
	} else {
		// A window opens at D-1 10:00 at the earliest, so only today's and
		// tomorrow's periods can be open.
		today := calendar.DayOf(now)
		days = append(days, today, today.AddDays(1))
	}
	out := []bids.TenderInterval{}
	for _, d := range days {
		for _, p := range d.Periods() {
			w := calendar.AFRREnergyWindow(p)
			if day == nil && !w.Open(now) {
				continue
			}
			out = append(out, bids.TenderInterval{Interval: p, DeliveryDay: d, Window: w, Open: w.Open(now)})
		}
	}
	return out, nil
}

// EnergySettlement is what an energy bid earned once its period cleared.
type EnergySettlement struct {
	// ActivatedMWh is the energy activated: the average activated power
	// (the bid's awarded power) over the quarter-hour.
	ActivatedMWh float64
	// Price is the marginal price of the quarter-hour and direction, or
	// the TSO substitute price of a period that fell back.
	Price bids.Price
	// Amount is ActivatedMWh x Price in EUR cents, rounded half away from
	// zero; negative when the provider pays.
	Amount bids.Price
}

// SettleEnergy returns the settlement of an energy bid, or false while its
// period has not cleared (no settlement price recorded yet). Activated
// energy is paid at the marginal price, not at the bid price (document 1,
// rule 8).
func SettleEnergy(b bids.Bid) (EnergySettlement, bool) {
	if b.SettlementPrice == nil {
		return EnergySettlement{}, false
	}
	st := EnergySettlement{Price: *b.SettlementPrice}
	if b.AwardedMW != nil && *b.AwardedMW > 0 {
		st.ActivatedMWh = *b.AwardedMW * b.Interval().Duration().Hours()
		st.Amount = bids.Price(math.Round(st.ActivatedMWh * float64(st.Price)))
	}
	return st, true
}
