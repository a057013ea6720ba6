package afrrreport

import (
	"testing"
	"time"

	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
)

func fp(v float64) *float64 { return &v }

func price(eur float64) *bids.Price {
	p := bids.Price(eur * 100)
	return &p
}

// TestObligations: the rows of rule 8 per quarter-hour and direction of a
// capacity award: offered and shortfall as settlement counts them, the
// activation, the marginal price, the delivery and the status.
func TestObligations(t *testing.T) {
	block := utc("2026-02-02T08:00:00Z")
	q := func(i int) time.Time { return block.Add(time.Duration(i) * 15 * time.Minute) }
	capacity := []bids.Bid{
		{Market: bids.AFRRCapacity, Product: bids.Neg, Start: block, End: block.Add(4 * time.Hour), OfferedMW: 10, AwardedMW: fp(8),
			CapacityPrice: price(20), Status: bids.Successful},
		{Market: bids.AFRRCapacity, Product: bids.Neg, Start: block, End: block.Add(4 * time.Hour), OfferedMW: 2, AwardedMW: fp(2),
			CapacityPrice: price(40), Status: bids.Successful},
		{Market: bids.AFRRCapacity, Product: bids.Pos, Start: block, End: block.Add(4 * time.Hour), OfferedMW: 5, Status: bids.Rejected},
	}
	energy := func(i int, mw float64, status bids.Status, activated *float64, marginal *bids.Price) bids.Bid {
		return bids.Bid{Market: bids.AFRREnergy, Product: bids.Neg, Start: q(i), End: q(i + 1), OfferedMW: mw, Status: status,
			AwardedMW: activated, SettlementPrice: marginal}
	}
	energyBids := []bids.Bid{
		energy(0, 10, bids.Successful, fp(6), price(-12.4)), // fulfilled
		energy(1, 6, bids.Rejected, nil, price(-12.4)),      // 4 MW short
		energy(1, 3, bids.Pending, nil, nil),                // never reached the market
		energy(2, 10, bids.Successful, fp(6), price(-3)),    // delivered too little
		energy(3, 10, bids.Submitted, nil, nil),             // outcome pending
		energy(4, 10, bids.Successful, fp(5), price(-1)),    // no dispatch event
	}
	totals := []SlotTotal{
		{Slot: q(0), Direction: bids.Neg, Count: 1, Dispatched: 1, SetMW: 6, AcceptedMW: 5.98},
		{Slot: q(2), Direction: bids.Neg, Count: 1, Dispatched: 1, SetMW: 6, AcceptedMW: 3},
	}
	now := q(5).Add(10 * time.Minute)
	w := reporting.Window{Start: block, End: q(9)}
	got := Obligations(capacity, energyBids, totals, w, now)
	if len(got) != 9 {
		t.Fatalf("%d rows: %+v", len(got), got)
	}
	want := []struct {
		offered, shortfall, activated float64
		marginal                      string
		delivered                     *float64
		status                        ObligationStatus
	}{
		{10, 0, 6, "-12.40", fp(5.98), Fulfilled},
		{6, 4, 0, "-12.40", nil, OfferShortfall},
		{10, 0, 6, "-3.00", fp(3), DeliveryShortfall},
		{10, 0, 0, "", nil, Pending},
		{10, 0, 5, "-1.00", nil, DeliveryShortfall},
		{0, 10, 0, "", nil, OfferShortfall}, // under way, nothing offered
		{0, 10, 0, "", nil, OfferShortfall}, // not begun, its gate (25 minutes before) passed
		{0, 10, 0, "", nil, OfferShortfall},
		{0, 10, 0, "", nil, Open}, // its gate has not
	}
	for i, w := range want {
		o := got[i]
		marginal := ""
		if o.MarginalPrice != nil {
			marginal = o.MarginalPrice.StringFixed(2)
		}
		if !o.Slot.Equal(q(i)) || o.Direction != bids.Neg || o.AwardedMW != 10 || o.CapacityPrice.String() != "24" ||
			o.OfferedMW != w.offered || o.ShortfallMW != w.shortfall || o.ActivatedMW != w.activated || marginal != w.marginal ||
			(o.DeliveredMW == nil) != (w.delivered == nil) || (w.delivered != nil && *o.DeliveredMW != *w.delivered) || o.Status != w.status {
			t.Errorf("row %d: %+v (delivered %v)", i, o, o.DeliveredMW)
		}
	}
	if rows := Obligations(nil, energyBids, totals, w, now); len(rows) != 0 {
		t.Fatalf("without an award: %+v", rows)
	}
}
