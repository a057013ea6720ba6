package afrr_test

import (
	"math"
	"strings"
	"testing"
	"time"

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

func TestOfferShortfall(t *testing.T) {
	const q = "2026-02-02T08:00:00Z"
	generated := energyBid(bids.Neg, q, 4, bids.Submitted)
	generated.Source = bids.SourceCapacityBid
	for _, tc := range []struct {
		name      string
		awarded   float64
		energy    []bids.Bid
		shortfall float64
	}{
		{"no award: nothing", 0, nil, 0},
		{"NaN award: nothing", math.NaN(), nil, 0},
		{"negative award: nothing", -3, nil, 0},
		{"no energy bids: all of it", 5, nil, 5},
		{"fully offered", 5, []bids.Bid{energyBid(bids.Neg, q, 5, bids.Submitted)}, 0},
		{"over-offered: never negative", 5, []bids.Bid{energyBid(bids.Neg, q, 3, bids.Submitted), energyBid(bids.Neg, q, 4, bids.Successful)}, 0},
		{"partly offered: the rest", 5, []bids.Bid{energyBid(bids.Neg, q, 2, bids.Submitted)}, 3},
		{"cleared bids were offered", 7, []bids.Bid{energyBid(bids.Neg, q, 2, bids.Rejected), energyBid(bids.Neg, q, 2, bids.Fallback), energyBid(bids.Neg, q, 2, bids.Successful)}, 1},
		{"the award's own energy bids count", 6, []bids.Bid{generated, energyBid(bids.Neg, q, 2, bids.Submitted)}, 0},
		{"pending, failed and cancelled bids never reached the market", 5, []bids.Bid{
			energyBid(bids.Neg, q, 5, bids.Pending), energyBid(bids.Neg, q, 5, bids.Failed), energyBid(bids.Neg, q, 5, bids.Cancelled)}, 5},
		{"other direction, period or market ignored", 5, []bids.Bid{
			energyBid(bids.Pos, q, 5, bids.Submitted), energyBid(bids.Neg, "2026-02-02T08:15:00Z", 5, bids.Submitted),
			{Market: bids.AFRRCapacity, Product: bids.Neg, Start: at("2026-02-02T07:00:00Z"), End: at("2026-02-02T11:00:00Z"), OfferedMW: 5, Status: bids.Successful}}, 5},
		{"float sums count as offered", 0.3, []bids.Bid{energyBid(bids.Neg, q, 0.1, bids.Submitted), energyBid(bids.Neg, q, 0.2, bids.Submitted)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := afrr.OfferShortfall(at(q), afrr.Neg, tc.awarded, tc.energy); !near(got, tc.shortfall) {
				t.Fatalf("shortfall %v, want %v", got, tc.shortfall)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// award is a SUCCESSFUL aFRR capacity bid of asset "a" (organisation
// "acme") won for awarded MW at an energy price of 45.50 EUR/MWh.
func award(id string, product bids.Product, start, end string, awarded float64) bids.Bid {
	price := bids.Price(4550)
	return bids.Bid{ID: id, OrganizationID: "acme", AssetID: "a", Market: bids.AFRRCapacity, Product: product,
		Start: at(start), End: at(end), EnergyPrice: &price, OfferedMW: 10, AwardedMW: &awarded, Status: bids.Successful}
}

func TestAwardEnergyBids(t *testing.T) {
	now := at("2026-02-01T08:15:00Z")
	const q1, q2 = "2026-02-01T23:00:00Z", "2026-02-01T23:15:00Z"
	ownBid := func(product bids.Product, start string, mw float64, status bids.Status) bids.Bid {
		b := energyBid(product, start, mw, status)
		b.Source = bids.SourceAPI
		return b
	}
	keyed := func(b bids.Bid, key string) bids.Bid {
		b.IdempotencyKey = &key
		return b
	}
	generated := keyed(energyBid(bids.Neg, q2, 6, bids.Pending), "capacity-bid:c1")
	generated.Source = bids.SourceCapacityBid
	for _, tc := range []struct {
		name   string
		awards []bids.Bid
		energy []bids.Bid
		// want: the number of bids, and the MW of those at q1 and q2 per
		// award id (absent: none there).
		count int
		want  map[string][2]float64
	}{
		{"a 4-hour block: 16 quarter-hours at the award", []bids.Bid{award("c1", bids.Neg, "2026-02-01T23:00:00Z", "2026-02-02T03:00:00Z", 6)}, nil,
			16, map[string][2]float64{"c1": {6, 6}}},
		// 2026-03-29: 00:00-04:00 local is 3 hours (23:00Z-02:00Z).
		{"spring forward: a 3-hour block, 12 quarter-hours", []bids.Bid{award("c1", bids.Neg, "2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z", 6)}, nil,
			12, nil},
		// 2026-10-25: 00:00-04:00 local is 5 hours (22:00Z-03:00Z).
		{"fall back: a 5-hour block, 20 quarter-hours", []bids.Bid{award("c1", bids.Pos, "2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z", 6)}, nil,
			20, nil},
		{"the holder's own bids are respected", []bids.Bid{award("c1", bids.Neg, q1, "2026-02-02T00:00:00Z", 6)},
			[]bids.Bid{ownBid(bids.Neg, q1, 2, bids.Pending), ownBid(bids.Neg, q1, 1, bids.Submitted), ownBid(bids.Neg, q2, 9, bids.Pending)},
			3, map[string][2]float64{"c1": {3, 0}}},
		{"released, other direction and other market bids do not count", []bids.Bid{award("c1", bids.Neg, q1, "2026-02-02T00:00:00Z", 6)},
			[]bids.Bid{ownBid(bids.Neg, q1, 5, bids.Rejected), ownBid(bids.Neg, q1, 5, bids.Failed), ownBid(bids.Neg, q1, 5, bids.Cancelled),
				ownBid(bids.Pos, q1, 5, bids.Pending), {Market: bids.AFRRCapacity, Product: bids.Neg, Start: at(q1), End: at(q2), OfferedMW: 5, Status: bids.Pending}},
			4, map[string][2]float64{"c1": {6, 6}}},
		{"a bid without a source is the holder's", []bids.Bid{award("c1", bids.Neg, q1, "2026-02-02T00:00:00Z", 6)},
			[]bids.Bid{energyBid(bids.Neg, q1, 2, bids.Pending)}, 4, map[string][2]float64{"c1": {4, 6}}},
		{"another award's bids are not the holder's", []bids.Bid{award("c2", bids.Neg, q1, "2026-02-02T00:00:00Z", 6)},
			[]bids.Bid{keyed(generated, "capacity-bid:c9")}, 4, map[string][2]float64{"c2": {6, 6}}},
		{"own power is counted once across awards, in their order", []bids.Bid{
			award("c1", bids.Neg, q1, "2026-02-02T00:00:00Z", 4), award("c2", bids.Neg, q1, "2026-02-02T00:00:00Z", 3)},
			[]bids.Bid{ownBid(bids.Neg, q1, 5, bids.Pending)}, 7, map[string][2]float64{"c1": {0, 4}, "c2": {2, 3}}},
		{"a quarter-hour created before is left", []bids.Bid{award("c1", bids.Neg, q1, "2026-02-02T00:00:00Z", 6)},
			[]bids.Bid{generated}, 3, map[string][2]float64{"c1": {6, 0}}},
		{"the holder's bid with the award's key is left too", []bids.Bid{award("c1", bids.Neg, q1, "2026-02-02T00:00:00Z", 6)},
			[]bids.Bid{keyed(ownBid(bids.Neg, q1, 1, bids.Pending), "capacity-bid:c1")}, 3, map[string][2]float64{"c1": {0, 6}}},
		{"a partial award to the kW", []bids.Bid{award("c1", bids.Neg, q1, q2, 2.345)}, []bids.Bid{ownBid(bids.Neg, q1, 2, bids.Pending)},
			1, map[string][2]float64{"c1": {0.345, 0}}},
		{"no award, no price or not a capacity bid: nothing", []bids.Bid{
			award("c1", bids.Neg, q1, q2, 0),
			func() bids.Bid { b := award("c2", bids.Neg, q1, q2, 5); b.EnergyPrice = nil; return b }(),
			func() bids.Bid { b := award("c3", bids.Neg, q1, q2, 5); b.Market = bids.FCR; return b }(),
			func() bids.Bid { b := award("c4", bids.Neg, q1, q2, 5); b.AwardedMW = new(math.NaN()); return b }()},
			nil, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := afrr.AwardEnergyBids(tc.awards, tc.energy, now)
			if len(got) != tc.count {
				t.Fatalf("%d bids, want %d: %+v", len(got), tc.count, got)
			}
			byAward := map[string]bids.Bid{}
			for _, a := range tc.awards {
				byAward[afrr.AwardKey(a.ID)] = a
			}
			at1 := map[string][2]float64{}
			seen := map[string]bool{}
			for _, b := range got {
				a := byAward[*b.IdempotencyKey]
				if b.Market != bids.AFRREnergy || b.Product != a.Product || b.Status != bids.Pending || b.Source != bids.SourceCapacityBid ||
					b.AssetID != "a" || b.OrganizationID != "acme" || b.EnergyPrice == nil || *b.EnergyPrice != 4550 ||
					b.End.Sub(b.Start) != calendar.PeriodLength || b.Start.Before(a.Start) || b.End.After(a.End) ||
					!b.CreatedAt.Equal(now) || !b.UpdatedAt.Equal(now) || b.ID == "" || seen[b.ID] || b.OfferedMW <= 0 || b.OfferedMW > *a.AwardedMW {
					t.Fatalf("bid %+v of award %+v", b, a)
				}
				seen[b.ID] = true
				id := strings.TrimPrefix(*b.IdempotencyKey, "capacity-bid:")
				v := at1[id]
				switch b.Start.Format(time.RFC3339) {
				case q1:
					v[0] = b.OfferedMW
				case q2:
					v[1] = b.OfferedMW
				}
				at1[id] = v
			}
			for id, w := range tc.want {
				if g := at1[id]; !near(g[0], w[0]) || !near(g[1], w[1]) {
					t.Errorf("award %s: %v MW at %s and %s, want %v", id, g, q1, q2, w)
				}
			}
			for _, b := range tc.energy {
				if b.Source == bids.SourceCapacityBid {
					continue
				}
				for _, g := range got {
					if *g.IdempotencyKey == derefKey(b) && g.Start.Equal(b.Start) && g.Product == b.Product {
						t.Fatalf("a second bid in the scope of %+v", b)
					}
				}
			}
		})
	}
	// The new bids never alias the award's price.
	a := award("c1", bids.Neg, q1, q2, 5)
	got := afrr.AwardEnergyBids([]bids.Bid{a}, nil, now)
	*got[0].EnergyPrice = 1
	if *a.EnergyPrice != 4550 {
		t.Fatal("the energy bid aliases the award's price")
	}
}

func derefKey(b bids.Bid) string {
	if b.IdempotencyKey == nil {
		return ""
	}
	return *b.IdempotencyKey
}

// FuzzAwardEnergyBids checks, for any award and holder's bids in one
// quarter-hour, that the award's bid is never negative, never above the
// award, and that with it the quarter-hour offers the award (to the kW;
// or the holder's own power when that is more) and nothing beyond.
func FuzzAwardEnergyBids(f *testing.F) {
	f.Add(6.0, 2.0, 1.0)
	f.Add(6.0, 9.0, 0.0)
	f.Add(0.5, 0.0, 0.25)
	f.Add(2.345, 2.0, 0.0)
	f.Fuzz(func(t *testing.T, awarded, own1, own2 float64) {
		for _, v := range []float64{awarded, own1, own2} {
			if math.IsNaN(v) || v < 0 || v > 1e4 {
				return // outside what a store can hold
			}
		}
		const q = "2026-02-02T08:00:00Z"
		a := award("c1", bids.Pos, q, "2026-02-02T08:15:00Z", awarded)
		got := afrr.AwardEnergyBids([]bids.Bid{a}, []bids.Bid{energyBid(bids.Pos, q, own1, bids.Pending), energyBid(bids.Pos, q, own2, bids.Submitted)}, at(q))
		gen := 0.0
		for _, b := range got {
			if b.OfferedMW <= 0 || b.OfferedMW > awarded+1e-6 {
				t.Fatalf("bid of %v MW for an award of %v", b.OfferedMW, awarded)
			}
			gen += b.OfferedMW
		}
		// Less by at most the kW the bid is rounded down to, never more.
		if total, want := own1+own2+gen, math.Max(awarded, own1+own2); total > want+1e-6 || total < want-1e-3 {
			t.Fatalf("award %v, own %v + %v: %v MW offered in all", awarded, own1, own2, total)
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
