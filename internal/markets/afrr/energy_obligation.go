package afrr

import (
	"math"
	"time"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// An aFRR capacity award obliges its holder to offer the awarded power as
// energy in every quarter-hour of the block (document 1, rule 8). As in
// the German market, the energy price of the capacity bid stands as the
// energy bid for the awarded capacity unless the holder offers otherwise
// before the energy gate: the award creates those energy bids
// (AwardEnergyBids), which the holder may replace or delete like any
// PENDING energy bid. What then still does not reach the market is the
// holder's offer shortfall (OfferShortfall), for settlement.

// AwardKey is the idempotency key of the energy bids created from the
// capacity bid with id capacityBidID: "capacity-bid:<id>" (one per
// quarter-hour, so the key repeats across the block: the idempotency
// scope includes the period).
func AwardKey(capacityBidID string) string { return "capacity-bid:" + capacityBidID }

// mwTolerance absorbs float rounding in sums of MW figures.
const mwTolerance = 1e-9

// kW rounds a power down to 1 kW, the resolution of awards, so that float
// noise (2.345 - 2 = 0.34500000000000020) never shows and a bid never
// exceeds what is left of its award.
func kW(mw float64) float64 { return math.Floor(mw*1000+1e-6) / 1000 }

// awardedMW is the power a SUCCESSFUL capacity bid won.
func awardedMW(b bids.Bid) float64 {
	if b.AwardedMW != nil {
		return *b.AwardedMW
	}
	return b.OfferedMW
}

// AwardEnergyBids returns the aFRR energy bids that SUCCESSFUL aFRR
// capacity bids (awards, of one asset) bring with them: for each award and
// each quarter-hour of its block (12 or 20 on the clock-change days), a
// PENDING bid of the award's direction at the capacity bid's energy price
// for the awarded power less what the holder's own energy bids (source
// api, in a committed status) already offer in that quarter-hour and
// direction, never negative, so that nothing exceeds the award. The
// holder's own power is counted once: it covers the awards in the order
// given. energy are the asset's aFRR energy bids overlapping the awards;
// a quarter-hour whose bid an earlier run created (the award's key in
// use there) gets none. New bids get fresh ids and the instant at. A bid
// in awards that is not an aFRR capacity bid with an energy price and a
// positive award brings nothing.
func AwardEnergyBids(awards, energy []bids.Bid, at time.Time) []bids.Bid {
	type slot struct {
		product bids.Product
		start   int64
	}
	own := map[slot]float64{}
	taken := map[slot]map[string]bool{}
	for _, b := range energy {
		if b.Market != bids.AFRREnergy {
			continue
		}
		s := slot{b.Product, b.Start.UnixMicro()}
		if b.IdempotencyKey != nil {
			if taken[s] == nil {
				taken[s] = map[string]bool{}
			}
			taken[s][*b.IdempotencyKey] = true
		}
		if b.Source.OrAPI() == bids.SourceAPI && b.Status.Committed() {
			own[s] += b.OfferedMW
		}
	}
	var out []bids.Bid
	for _, award := range awards {
		awarded := awardedMW(award)
		if award.Market != bids.AFRRCapacity || award.EnergyPrice == nil || !(awarded > 0) {
			continue
		}
		key := AwardKey(award.ID)
		for qh := award.Start; qh.Before(award.End); qh = qh.Add(calendar.PeriodLength) {
			s := slot{award.Product, qh.UnixMicro()}
			if taken[s][key] {
				continue
			}
			covered := min(max(own[s], 0), awarded)
			own[s] -= covered
			mw := kW(awarded - covered)
			if mw <= mwTolerance {
				continue
			}
			price := *award.EnergyPrice
			k := key
			out = append(out, bids.Bid{
				ID: bids.NewID(), OrganizationID: award.OrganizationID, AssetID: award.AssetID, Market: bids.AFRREnergy,
				Product: award.Product, Start: qh, End: qh.Add(calendar.PeriodLength), IdempotencyKey: &k,
				EnergyPrice: &price, OfferedMW: mw, Status: bids.Pending, Source: bids.SourceCapacityBid,
				CreatedAt: at, UpdatedAt: at,
			})
		}
	}
	return out
}

// offeredToMarket reports whether an energy bid in status s reached the
// market for its quarter-hour: SUBMITTED, or cleared from there
// (SUCCESSFUL, REJECTED = offered but not activated, FALLBACK). A PENDING
// bid has not reached it (it may still fail) and FAILED or CANCELLED bids
// never will.
func offeredToMarket(s bids.Status) bool {
	return s == bids.Submitted || s == bids.Successful || s == bids.Rejected || s == bids.Fallback
}

// OfferShortfall is the part of an award that the holder did not offer as
// energy in the quarter-hour starting at quarterHour, direction product:
// awardedMW (the sum of its SUCCESSFUL capacity awards covering the
// quarter-hour) less the offered power of its aFRR energy bids of that
// period and direction that reached the market (whoever created them),
// never negative. Other bids in energy are ignored (other markets,
// products, periods); call it once the period's energy bids have closed.
func OfferShortfall(quarterHour time.Time, product Product, awardedMW float64, energy []bids.Bid) float64 {
	if math.IsNaN(awardedMW) || awardedMW <= 0 {
		return 0
	}
	period := calendar.Interval{Start: quarterHour, End: quarterHour.Add(calendar.PeriodLength)}
	offered := 0.0
	for _, b := range energy {
		if b.Market == bids.AFRREnergy && b.Product == bids.Product(product) && offeredToMarket(b.Status) && b.Interval().Covers(period) {
			offered += b.OfferedMW
		}
	}
	if offered+mwTolerance >= awardedMW {
		return 0
	}
	return awardedMW - offered
}
