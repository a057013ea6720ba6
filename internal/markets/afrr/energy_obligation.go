package afrr

import (
	"math"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// Obligation is what a SUCCESSFUL aFRR capacity award requires for one
// asset, direction and quarter-hour once the energy bids have closed
// (document 1, rule 8: the holder offers the awarded volume as energy, at
// the full awarded power, in every 15-minute period of the block).
type Obligation struct {
	QuarterHour time.Time
	Product     Product
	AwardedMW   float64 // the capacity awarded for the quarter-hour
	CoveredMW   float64 // what the holder's own energy bids offered
	UncoveredMW float64 // AwardedMW - CoveredMW, never negative
	// OfferMW is what must be offered on the holder's behalf: the
	// uncovered power, capped by the backup market's max_capacity_mw;
	// 0 when covered, when the cap is 0 (unavailable) or when the backup
	// market has no price.
	OfferMW float64
	// Price is the backup market's effective price (EUR/MWh) for OfferMW;
	// nil when nothing is offered.
	Price       *decimal.Decimal
	PriceSource OfferSource
	// ShortfallMW is the part of the award that stays unoffered: the
	// holder's breach, to be reported.
	ShortfallMW float64
}

// offeredToMarket reports whether an energy bid in status s reached the
// market for its quarter-hour: SUBMITTED, or cleared from there
// (SUCCESSFUL, REJECTED = offered but not activated, FALLBACK). A PENDING
// bid has not reached it (it may still fail) and FAILED or CANCELLED bids
// never will.
func offeredToMarket(s bids.Status) bool {
	return s == bids.Submitted || s == bids.Successful || s == bids.Rejected || s == bids.Fallback
}

// mwTolerance absorbs float rounding in sums of MW figures.
const mwTolerance = 1e-9

// AwardObligation decides, for one asset, direction product and the
// quarter-hour starting at quarterHour, what must be offered on the
// holder's behalf when its energy bids do not cover the capacity awarded
// (awardedMW, the sum of its SUCCESSFUL capacity awards covering the
// quarter-hour). energy are the holder's aFRR energy bids (others are
// ignored: other markets, products, periods); only those that reached the
// market count, so call it once the forwarder has settled the
// quarter-hour's PENDING bids (at its closure). backup is the asset's
// EffectiveBackupOffer for the same direction and quarter-hour: the
// uncovered power is offered at its price, capped by its max capacity.
func AwardObligation(quarterHour time.Time, product Product, awardedMW float64, energy []bids.Bid, backup Offer) Obligation {
	ob := Obligation{QuarterHour: quarterHour, Product: product, PriceSource: FromNothing}
	if math.IsNaN(awardedMW) || awardedMW <= 0 {
		return ob
	}
	ob.AwardedMW = awardedMW
	period := calendar.Interval{Start: quarterHour, End: quarterHour.Add(calendar.PeriodLength)}
	for _, b := range energy {
		if b.Market != bids.AFRREnergy || b.Product != bids.Product(product) || !offeredToMarket(b.Status) || !b.Interval().Covers(period) {
			continue
		}
		ob.CoveredMW += b.OfferedMW
	}
	if ob.CoveredMW+mwTolerance >= awardedMW {
		return ob
	}
	ob.UncoveredMW = awardedMW - ob.CoveredMW
	ob.ShortfallMW = ob.UncoveredMW
	if backup.Price == nil {
		return ob
	}
	offer := ob.UncoveredMW
	if backup.MaxCapacityMW != nil {
		offer = min(offer, max(*backup.MaxCapacityMW, 0))
	}
	if offer <= 0 {
		return ob
	}
	price := *backup.Price
	ob.OfferMW, ob.Price, ob.PriceSource = offer, &price, backup.PriceSource
	ob.ShortfallMW = ob.UncoveredMW - offer
	return ob
}
