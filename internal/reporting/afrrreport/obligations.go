package afrrreport

import (
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/reporting"
	"atcp/internal/settlement"
)

// ObligationStatus is where a quarter-hour of a capacity award stands
// against document 1, rule 8 (offer the awarded power as energy in every
// quarter-hour, deliver what is activated).
type ObligationStatus string

const (
	// Open: the energy bids of the quarter-hour may still be placed (its
	// gate, 25 minutes before, has not passed).
	Open ObligationStatus = "open"
	// OfferShortfall: less energy reached the market than awarded.
	OfferShortfall ObligationStatus = "offer_shortfall"
	// Pending: offered in full; the quarter-hour or its energy outcome is
	// not over yet.
	Pending ObligationStatus = "pending"
	// DeliveryShortfall: offered in full, but the battery delivered less
	// than was activated (beyond the delivery tolerance).
	DeliveryShortfall ObligationStatus = "delivery_shortfall"
	// Fulfilled: offered in full and delivered what was activated.
	Fulfilled ObligationStatus = "fulfilled"
)

// ObligationStatuses for enum documentation.
var ObligationStatuses = []ObligationStatus{Open, OfferShortfall, Pending, DeliveryShortfall, Fulfilled}

// energyGate is how long before its quarter-hour an energy bid closes.
const energyGate = 25 * time.Minute

// Obligation is one quarter-hour and direction of an asset's aFRR
// capacity award.
type Obligation struct {
	Slot      time.Time
	Direction bids.Product
	AwardedMW float64
	// CapacityPrice is the awards' own price per MW and hour (EUR/MW/h,
	// MW-weighted across awards), four decimals.
	CapacityPrice decimal.Decimal
	OfferedMW     float64 // energy bids of the quarter-hour that reached the market
	ShortfallMW   float64 // settlement.OfferShortfall
	ActivatedMW   float64 // what the SUCCESSFUL energy bids were activated for
	// MarginalPrice is the quarter-hour's marginal price of the direction
	// (EUR/MWh) from its cleared energy bids; nil before clearing.
	MarginalPrice *decimal.Decimal
	// DeliveredMW is the battery's delivery in the direction (the dispatch
	// event's accepted power as a magnitude); nil without an event.
	DeliveredMW *float64
	Status      ObligationStatus
}

// Obligations are the rows of the asset's SUCCESSFUL aFRR capacity awards
// (capacity, other statuses ignored) for every quarter-hour overlapping w,
// pos before neg within a quarter-hour: its energy bids (energy, any
// status), the delivery (totals of its battery's dispatch events) and
// the status at now.
func Obligations(capacity, energy []bids.Bid, totals []SlotTotal, w reporting.Window, now time.Time) []Obligation {
	type key struct {
		slot time.Time
		dir  bids.Product
	}
	type award struct {
		mw       decimal.Decimal
		priceMWh decimal.Decimal // sum of MW x EUR/MW/h
	}
	awards := map[key]*award{}
	for _, b := range capacity {
		if b.Market != bids.AFRRCapacity || b.Status != bids.Successful {
			continue
		}
		mw := decimal.NewFromFloat(b.OfferedMW)
		if b.AwardedMW != nil {
			mw = decimal.NewFromFloat(*b.AwardedMW)
		}
		perHour := decimal.Zero
		if b.CapacityPrice != nil {
			perHour = decimal.New(int64(*b.CapacityPrice), -2) // aFRR capacity prices are EUR/MW/h (docs/markets.md)
		}
		first := w.Start.Truncate(calendar.PeriodLength)
		if b.Start.After(first) {
			first = b.Start
		}
		for s := first; s.Before(b.End) && s.Before(w.End); s = s.Add(calendar.PeriodLength) {
			k := key{s, b.Product}
			a := awards[k]
			if a == nil {
				a = &award{}
				awards[k] = a
			}
			a.mw = a.mw.Add(mw)
			a.priceMWh = a.priceMWh.Add(mw.Mul(perHour))
		}
	}
	byKey := map[key][]bids.Bid{}
	for _, b := range energy {
		if b.Market == bids.AFRREnergy {
			k := key{b.Start, b.Product}
			byKey[k] = append(byKey[k], b)
		}
	}
	delivered := map[key]float64{}
	for _, t := range totals {
		delivered[key{t.Slot, t.Direction}] += t.AcceptedMW
	}
	var out []Obligation
	for s := w.Start.Truncate(calendar.PeriodLength); s.Before(w.End); s = s.Add(calendar.PeriodLength) {
		for _, dir := range []bids.Product{bids.Pos, bids.Neg} {
			k := key{s, dir}
			a := awards[k]
			if a == nil {
				continue
			}
			o := Obligation{Slot: s, Direction: dir, AwardedMW: mwOf(a.mw)}
			if a.mw.IsPositive() {
				o.CapacityPrice = a.priceMWh.DivRound(a.mw, 4)
			}
			short := settlement.OfferShortfall(s, dir, a.mw, byKey[k])
			o.ShortfallMW = mwOf(short)
			offered := decimal.Zero
			outcomeIn := true
			for _, b := range byKey[k] {
				switch b.Status {
				case bids.Pending, bids.Submitted:
					outcomeIn = false
				case bids.Successful:
					if b.AwardedMW != nil {
						o.ActivatedMW += *b.AwardedMW
					}
				}
				if reachedMarket(b.Status) {
					offered = offered.Add(decimal.NewFromFloat(b.OfferedMW))
				}
				if b.SettlementPrice != nil && (b.Status == bids.Successful || b.Status == bids.Rejected) && o.MarginalPrice == nil {
					p := decimal.New(int64(*b.SettlementPrice), -2)
					o.MarginalPrice = &p
				}
			}
			o.OfferedMW, o.ActivatedMW = mwOf(offered), round(o.ActivatedMW, 3)
			if d, ok := delivered[k]; ok {
				d = round(d, 3)
				o.DeliveredMW = &d
			}
			o.Status = obligationStatus(o, outcomeIn, now)
			out = append(out, o)
		}
	}
	return out
}

// reachedMarket is settlement.OfferShortfall's definition of an energy
// bid offered to the market.
func reachedMarket(s bids.Status) bool {
	return s == bids.Submitted || s == bids.Successful || s == bids.Rejected || s == bids.Fallback
}

func mwOf(d decimal.Decimal) float64 { return round(d.InexactFloat64(), 6) }

// obligationStatus: open before the energy gate; an offer shortfall
// after it; pending until the quarter-hour has ended and its energy
// outcome is in; then a delivery shortfall when less than the activated
// power was delivered (beyond the tolerance of Classify), else fulfilled.
func obligationStatus(o Obligation, outcomeIn bool, now time.Time) ObligationStatus {
	switch {
	case now.Before(o.Slot.Add(-energyGate)):
		return Open
	case o.ShortfallMW > 0:
		return OfferShortfall
	case !outcomeIn || now.Before(o.Slot.Add(calendar.PeriodLength)):
		return Pending
	case o.ActivatedMW > 0:
		delivered := 0.0
		if o.DeliveredMW != nil {
			delivered = *o.DeliveredMW
		}
		if Classify(o.ActivatedMW, o.ActivatedMW, delivered) != Delivered {
			return DeliveryShortfall
		}
	}
	return Fulfilled
}
