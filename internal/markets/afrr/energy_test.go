package afrr_test

import (
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

func TestEnergyRules(t *testing.T) {
	r := afrr.EnergyRules()
	a := assets.NewAsset("a", "acme", "a", "Kiel", assets.Standalone)
	a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW = 0, 10
	if r.Enabled(a) {
		t.Error("enabled without afrr_enabled")
	}
	a.AFRREnabled = true
	if !r.Enabled(a) || r.Ceiling(a, bids.Pos) != 0 || r.Ceiling(a, bids.Neg) != 10 {
		t.Errorf("ceilings pos %v neg %v", r.Ceiling(a, bids.Pos), r.Ceiling(a, bids.Neg))
	}
	if r.Market != bids.AFRREnergy || !r.HasProduct(bids.Pos) || !r.HasProduct(bids.Neg) || r.HasProduct(bids.Sym) || r.Tendered {
		t.Errorf("rules %+v", r)
	}
	if r.CapacityPrice != nil || r.EnergyPrice.Min != bids.EUR(-15000) || r.EnergyPrice.Max != bids.EUR(15000) {
		t.Errorf("prices %+v %+v", r.CapacityPrice, r.EnergyPrice)
	}
	if r.CeilingCode != "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED" {
		t.Errorf("ceiling code %q", r.CeilingCode)
	}
	for _, tc := range []struct{ period, opens, closes string }{
		// Opens D-1 10:00 local (CET), closes 25 minutes before the period.
		{"2026-02-02T08:00:00Z", "2026-02-01T09:00:00Z", "2026-02-02T07:35:00Z"},
		// The first period of a day starts the evening before in UTC.
		{"2026-02-01T23:00:00Z", "2026-02-01T09:00:00Z", "2026-02-01T22:35:00Z"},
		// Summer: CEST.
		{"2026-07-01T10:00:00Z", "2026-06-30T08:00:00Z", "2026-07-01T09:35:00Z"},
	} {
		start := at(tc.period)
		w := r.Window(calendar.Interval{Start: start, End: start.Add(calendar.PeriodLength)})
		if !w.Opens.Equal(at(tc.opens)) || !w.Closes.Equal(at(tc.closes)) || !w.Recommended.Equal(w.Closes) {
			t.Errorf("%s: window %+v", tc.period, w)
		}
	}
}

func TestSettleEnergy(t *testing.T) {
	q := calendar.Interval{Start: at("2026-02-02T08:00:00Z"), End: at("2026-02-02T08:15:00Z")}
	for _, tc := range []struct {
		name      string
		activated *float64
		price     *bids.Price
		cleared   bool
		mwh       float64
		amount    bids.Price
	}{
		{"not cleared", nil, nil, false, 0, 0},
		{"activated at a positive price", new(4.0), new(bids.Price(10050)), true, 1, 10050},
		{"activated at a negative price: the provider pays", new(3.333), new(bids.Price(-1234)), true, 0.83325, -1028},
		{"rounded half away from zero", new(2.0), new(bids.Price(1)), true, 0.5, 1},
		{"not activated", nil, new(bids.Price(5000)), true, 0, 0},
		{"zero activation", new(0.0), new(bids.Price(5000)), true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bids.Bid{Market: bids.AFRREnergy, Start: q.Start, End: q.End, AwardedMW: tc.activated, SettlementPrice: tc.price}
			st, ok := afrr.SettleEnergy(b)
			if ok != tc.cleared || math.Abs(st.ActivatedMWh-tc.mwh) > 1e-12 || st.Amount != tc.amount || (ok && st.Price != *tc.price) {
				t.Fatalf("got %+v %v, want %v MWh %v cents", st, ok, tc.mwh, tc.amount)
			}
		})
	}
}

func energyBid(product bids.Product, start string, mw float64, status bids.Status) bids.Bid {
	s := at(start)
	return bids.Bid{Market: bids.AFRREnergy, Product: product, Start: s, End: s.Add(calendar.PeriodLength), OfferedMW: mw, Status: status}
}

func TestAwardObligation(t *testing.T) {
	const q = "2026-02-02T08:00:00Z"
	priced := func(price string, maxMW *float64) afrr.Offer {
		return afrr.Offer{QuarterHour: at(q), Product: afrr.Neg, Price: new(dec(price)), PriceSource: afrr.FromDefault, MaxCapacityMW: maxMW, CapacitySource: afrr.FromDefault}
	}
	override := priced("-3", new(2.0))
	override.PriceSource = afrr.FromOverride
	for _, tc := range []struct {
		name      string
		awarded   float64
		energy    []bids.Bid
		backup    afrr.Offer
		covered   float64
		offer     float64
		price     string // empty: nothing offered
		source    afrr.OfferSource
		shortfall float64
	}{
		{"no award: nothing", 0, nil, priced("10", nil), 0, 0, "", afrr.FromNothing, 0},
		{"NaN award: nothing", math.NaN(), nil, priced("10", nil), 0, 0, "", afrr.FromNothing, 0},
		{"fully covered", 5, []bids.Bid{energyBid(bids.Neg, q, 5, bids.Submitted)}, priced("10", nil), 5, 0, "", afrr.FromNothing, 0},
		{"over-covered", 5, []bids.Bid{energyBid(bids.Neg, q, 3, bids.Submitted), energyBid(bids.Neg, q, 4, bids.Successful)}, priced("10", nil), 7, 0, "", afrr.FromNothing, 0},
		{"covered by cleared bids", 6, []bids.Bid{energyBid(bids.Neg, q, 2, bids.Rejected), energyBid(bids.Neg, q, 2, bids.Fallback), energyBid(bids.Neg, q, 2, bids.Successful)},
			priced("10", nil), 6, 0, "", afrr.FromNothing, 0},
		{"no energy bids: all at the default", 5, nil, priced("10", nil), 0, 5, "10", afrr.FromDefault, 0},
		{"partly covered: the rest", 5, []bids.Bid{energyBid(bids.Neg, q, 2, bids.Submitted)}, priced("10", nil), 2, 3, "10", afrr.FromDefault, 0},
		{"capped by max_capacity_mw", 5, nil, priced("10", new(3.0)), 0, 3, "10", afrr.FromDefault, 2},
		{"cap above the need", 5, nil, priced("10", new(8.0)), 0, 5, "10", afrr.FromDefault, 0},
		{"override price and cap", 5, []bids.Bid{energyBid(bids.Neg, q, 1, bids.Submitted)}, override, 1, 2, "-3", afrr.FromOverride, 2},
		{"cap 0: unavailable", 5, nil, priced("10", new(0.0)), 0, 0, "", afrr.FromNothing, 5},
		{"no backup price: nothing offered", 5, nil, afrr.Offer{QuarterHour: at(q), Product: afrr.Neg, PriceSource: afrr.FromNothing}, 0, 0, "", afrr.FromNothing, 5},
		{"pending, failed and cancelled bids do not cover", 5, []bids.Bid{
			energyBid(bids.Neg, q, 5, bids.Pending), energyBid(bids.Neg, q, 5, bids.Failed), energyBid(bids.Neg, q, 5, bids.Cancelled)},
			priced("10", nil), 0, 5, "10", afrr.FromDefault, 0},
		{"other direction, period or market ignored", 5, []bids.Bid{
			energyBid(bids.Pos, q, 5, bids.Submitted), energyBid(bids.Neg, "2026-02-02T08:15:00Z", 5, bids.Submitted),
			{Market: bids.AFRRCapacity, Product: bids.Neg, Start: at("2026-02-02T07:00:00Z"), End: at("2026-02-02T11:00:00Z"), OfferedMW: 5, Status: bids.Successful}},
			priced("10", nil), 0, 5, "10", afrr.FromDefault, 0},
		{"float sums count as covered", 0.3, []bids.Bid{energyBid(bids.Neg, q, 0.1, bids.Submitted), energyBid(bids.Neg, q, 0.2, bids.Submitted)},
			priced("10", nil), 0.30000000000000004, 0, "", afrr.FromNothing, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := afrr.AwardObligation(at(q), afrr.Neg, tc.awarded, tc.energy, tc.backup)
			price := ""
			if got.Price != nil {
				price = got.Price.String()
			}
			if !near(got.CoveredMW, tc.covered) || !near(got.OfferMW, tc.offer) || price != tc.price || got.PriceSource != tc.source ||
				!near(got.ShortfallMW, tc.shortfall) || !got.QuarterHour.Equal(at(q)) || got.Product != afrr.Neg {
				t.Fatalf("got %+v (price %q), want covered %v offer %v at %q (%s), shortfall %v", got, price, tc.covered, tc.offer, tc.price, tc.source, tc.shortfall)
			}
		})
	}
	// The obligation never aliases the backup offer's price.
	b := priced("10", nil)
	got := afrr.AwardObligation(at(q), afrr.Neg, 5, nil, b)
	*got.Price = decimal.NewFromInt(99)
	if !b.Price.Equal(decimal.NewFromInt(10)) {
		t.Fatal("obligation aliases the backup price")
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// FuzzAwardObligation checks the invariants of the obligation for any
// award, coverage and cap: nothing negative, the holder's offers plus what
// is offered on its behalf never exceed the award when it was uncovered,
// and what is neither offered nor covered is the shortfall.
func FuzzAwardObligation(f *testing.F) {
	f.Add(5.0, 2.0, 3.0, true, true)
	f.Add(5.0, 7.0, 0.0, true, false)
	f.Add(0.5, 0.0, 0.0, false, true)
	f.Add(-1.0, 1.0, -2.0, true, true)
	f.Fuzz(func(t *testing.T, awarded, covered, capMW float64, hasPrice, hasCap bool) {
		if math.IsInf(awarded, 0) || math.IsInf(covered, 0) || math.IsNaN(covered) || math.IsInf(capMW, 0) || math.IsNaN(capMW) ||
			math.Abs(awarded) > 1e6 || math.Abs(covered) > 1e6 || math.Abs(capMW) > 1e6 || covered < 0 {
			return // outside what a store can hold
		}
		q := at("2026-02-02T08:00:00Z")
		backup := afrr.Offer{QuarterHour: q, Product: afrr.Pos}
		if hasPrice {
			backup.Price = new(decimal.NewFromInt(10))
		}
		if hasCap {
			backup.MaxCapacityMW = &capMW
		}
		energy := []bids.Bid{{Market: bids.AFRREnergy, Product: bids.Pos, Start: q, End: q.Add(15 * time.Minute), OfferedMW: covered, Status: bids.Submitted}}
		got := afrr.AwardObligation(q, afrr.Pos, awarded, energy, backup)
		if got.OfferMW < 0 || got.ShortfallMW < 0 || got.UncoveredMW < 0 {
			t.Fatalf("negative figure %+v", got)
		}
		if got.UncoveredMW > 0 && got.CoveredMW+got.OfferMW > awarded+1e-6 {
			t.Fatalf("over-offered %+v", got)
		}
		if !near(got.OfferMW+got.ShortfallMW, got.UncoveredMW) {
			t.Fatalf("offer + shortfall != uncovered: %+v", got)
		}
		if (got.OfferMW > 0) != (got.Price != nil) {
			t.Fatalf("price without offer or offer without price: %+v", got)
		}
		if hasCap && got.OfferMW > math.Max(capMW, 0) {
			t.Fatalf("offer above the cap: %+v", got)
		}
	})
}

// FuzzSettleEnergy checks the settlement of any activation and price: the
// amount is the activated energy times the price to within half a cent,
// and nothing is activated without a positive awarded power.
func FuzzSettleEnergy(f *testing.F) {
	f.Add(3.333, int64(-1234))
	f.Add(0.0, int64(1500000))
	f.Add(10000.0, int64(-1500000))
	f.Fuzz(func(t *testing.T, mw float64, cents int64) {
		if math.IsNaN(mw) || math.IsInf(mw, 0) || math.Abs(mw) > 1e5 || cents < -1500000 || cents > 1500000 {
			return // outside what a store can hold
		}
		q := at("2026-02-02T08:00:00Z")
		price := bids.Price(cents)
		st, ok := afrr.SettleEnergy(bids.Bid{Start: q, End: q.Add(calendar.PeriodLength), AwardedMW: &mw, SettlementPrice: &price})
		if !ok || st.Price != price {
			t.Fatalf("not settled: %+v", st)
		}
		if mw <= 0 {
			if st.ActivatedMWh != 0 || st.Amount != 0 {
				t.Fatalf("settled without activation: %+v", st)
			}
			return
		}
		if !near(st.ActivatedMWh, mw/4) || math.Abs(float64(st.Amount)-mw/4*float64(cents)) > 0.5+1e-6 {
			t.Fatalf("%v MW at %v cents: %+v", mw, cents, st)
		}
	})
}
