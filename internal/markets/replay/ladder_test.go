package replay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
)

// meanPrice is the volume-weighted mean price of a piecewise-linear ladder.
func meanPrice(l Ladder) float64 {
	area := 0.0
	for i := 1; i < len(l.MW); i++ {
		area += (l.MW[i] - l.MW[i-1]) * (l.Price[i] + l.Price[i-1]) / 2
	}
	return area / l.MW[len(l.MW)-1]
}

func TestOverviewLadder(t *testing.T) {
	cases := []EnergyOverview{
		{MinEUR: 85.34, AverageEUR: 1221.94, MarginalEUR: 15000, OfferedMW: 2168},  // POS_001
		{MinEUR: -104.96, AverageEUR: 718.61, MarginalEUR: 15000, OfferedMW: 2114}, // NEG_001, platform convention
		{MinEUR: 10, AverageEUR: 10, MarginalEUR: 50, OfferedMW: 100},              // average at the minimum: a step at the end
		{MinEUR: 10, AverageEUR: 50, MarginalEUR: 50, OfferedMW: 100},              // average at the marginal: a step at the start
		{MinEUR: 20, AverageEUR: 20, MarginalEUR: 20, OfferedMW: 100},
	}
	for _, o := range cases {
		l := OverviewLadder(o)
		if l.PriceAt(0) != o.MinEUR || l.PriceAt(10*o.OfferedMW) != o.MarginalEUR || l.PriceAt(o.OfferedMW) > o.MarginalEUR {
			t.Errorf("%+v: ends %v..%v", o, l.PriceAt(0), l.PriceAt(10*o.OfferedMW))
		}
		if got := meanPrice(l); math.Abs(got-o.AverageEUR) > 1e-9*math.Max(1, math.Abs(o.AverageEUR)) {
			t.Errorf("%+v: mean price %v, want the average", o, got)
		}
		prev := math.Inf(-1)
		for x := 0.0; x <= o.OfferedMW; x += o.OfferedMW / 50 {
			p := l.PriceAt(x)
			if p < prev {
				t.Fatalf("%+v: price falls at %v MW", o, x)
			}
			prev = p
			// VolumeBelow inverts PriceAt where the ladder rises.
			if v := l.VolumeBelow(p); v > x+1e-6 {
				t.Fatalf("%+v: %v MW cheaper than %v, the price at %v MW", o, v, p, x)
			}
		}
		if l.VolumeBelow(o.MinEUR) != 0 || l.VolumeBelow(o.MarginalEUR+1) != o.OfferedMW {
			t.Errorf("%+v: volume below the first bid %v, above the last %v", o, l.VolumeBelow(o.MinEUR), l.VolumeBelow(o.MarginalEUR+1))
		}
	}
	// A rising segment: linear between its ends.
	l := Ladder{MW: []float64{0, 100}, Price: []float64{0, 50}}
	if l.PriceAt(40) != 20 || l.VolumeBelow(20) != 40 {
		t.Errorf("linear ladder: %v %v", l.PriceAt(40), l.VolumeBelow(20))
	}
	// A step: the lower price covers it; a price inside the step has the
	// volume before it below.
	step := Ladder{MW: []float64{0, 100, 100, 200}, Price: []float64{10, 10, 30, 30}}
	if step.PriceAt(100) != 10 || step.PriceAt(100.5) != 30 || step.VolumeBelow(20) != 100 || step.VolumeBelow(10) != 0 {
		t.Errorf("step ladder: %v %v %v", step.PriceAt(100), step.PriceAt(100.5), step.VolumeBelow(20))
	}
}

// TestMarginalPriceWithinRealBids: wherever the real overview exists, the
// modelled marginal price lies between its MIN and MARGINAL bids (the
// platform's convention), whatever the volume: every overview
// quarter-hour and direction, at the modelled volume and across volumes.
func TestMarginalPriceWithinRealBids(t *testing.T) {
	d := mustLoad(t)
	if len(d.overview) != 76 {
		t.Fatalf("%d overview rows, want 76", len(d.overview))
	}
	checked := 0
	for _, p := range ReplayedBiddingDay.Periods() {
		c, err := d.ClearQuarterHour(p.Start)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []DirectionMarket{c.Pos, c.Neg} {
			o, ok := d.EnergyOverview(c.Source, m.Direction)
			if !ok {
				if m.Basis != FromRebap {
					t.Errorf("%s %s: no overview, basis %q", c.Source, m.Direction, m.Basis)
				}
				continue
			}
			checked++
			if m.Basis != BidLadder {
				t.Errorf("%s %s: basis %q", c.Source, m.Direction, m.Basis)
			}
			lo, hi := decimal.NewFromFloat(o.MinEUR), decimal.NewFromFloat(o.MarginalEUR)
			for _, mw := range []float64{m.ActivatedMW, 0, 0.001, 1, 50, 100, 250, 500, 1000, o.OfferedMW / 2, o.OfferedMW - 1, o.OfferedMW, 10 * o.OfferedMW} {
				got := modelMarket(m.Direction, mw, &o, 1e6, Ladder{}).MarginalPrice
				if got.LessThan(lo) || got.GreaterThan(hi) {
					t.Errorf("%s %s at %v MW: marginal price %s outside the real bids %s..%s", c.Source, m.Direction, mw, got, lo, hi)
				}
			}
			if !m.MarginalPrice.Equal(modelMarket(m.Direction, m.ActivatedMW, &o, 0, Ladder{}).MarginalPrice) {
				t.Errorf("%s %s: clearing's price %s is not the model's", c.Source, m.Direction, m.MarginalPrice)
			}
		}
	}
	if checked != 76 {
		t.Fatalf("checked %d overview quarter-hours and directions, want 76", checked)
	}
}

// TestMarginalPriceFromRebap: without an overview the marginal price is
// reBAP (pos) or minus reBAP (neg), and the rest of the market's ladder
// is the reference ladder moved to pass through it at the modelled volume.
func TestMarginalPriceFromRebap(t *testing.T) {
	d := mustLoad(t)
	for _, p := range ReplayedDeliveryDay.Periods() {
		c, err := d.ClearQuarterHour(p.Start)
		if err != nil {
			t.Fatal(err)
		}
		rebap, _ := d.Rebap(c.Source)
		for _, m := range []DirectionMarket{c.Pos, c.Neg} {
			want := rebap
			if m.Direction == Neg {
				want = -rebap
			}
			ref := d.reference[m.Direction]
			if m.Basis != FromRebap || m.MarginalPrice.InexactFloat64() != want ||
				math.Abs(m.Ladder.PriceAt(m.ActivatedMW)-want) > 1e-9 ||
				math.Abs(m.Ladder.PriceAt(1000)-m.Ladder.PriceAt(0)-(ref.PriceAt(1000)-ref.PriceAt(0))) > 1e-9 {
				t.Fatalf("%s %s (reBAP %v): %+v", c.Source, m.Direction, rebap, m)
			}
		}
	}
	// The reference ladders are the mean overview rows.
	if pos := d.reference[Pos]; math.Abs(pos.PriceAt(0)-103.18) > 0.01 || math.Abs(meanPrice(pos)-1209.74) > 0.01 {
		t.Errorf("pos reference %+v", pos)
	}
	if neg := d.reference[Neg]; math.Abs(neg.PriceAt(0)+108.02) > 0.01 || neg.PriceAt(1e6) != 15000 {
		t.Errorf("neg reference %+v", neg)
	}
}

func TestMeritOrder(t *testing.T) {
	// The rest of the market: 0 MW at 0 EUR rising to 100 MW at 100 EUR
	// (1 MW per EUR); 50 MW activated, so the marginal price is 50 EUR.
	rest := Ladder{MW: []float64{0, 100}, Price: []float64{0, 100}}
	cases := []struct {
		name   string
		prices []int64 // cents
		powers []int64 // kW
		want   []int64
	}{
		{"cheaper than the whole rest: fully activated", []int64{-100}, []int64{5000}, []int64{5000}},
		{"45 EUR: 45 MW of the rest ahead, 5 MW left", []int64{4500}, []int64{8000}, []int64{5000}},
		{"at the marginal price: the rest covers it", []int64{5000}, []int64{8000}, []int64{0}},
		{"beyond the marginal price", []int64{5001}, []int64{8000}, []int64{0}},
		{"platform bids queue: the cheaper first", []int64{4000, 4500, 4400}, []int64{6000, 6000, 6000}, []int64{6000, 0, 0}},
		{"the one at the margin partially", []int64{4000, 4200}, []int64{3000, 6000}, []int64{3000, 5000}},
		{"one price: pro rata to power, rounded down", []int64{4700, 4700, 4700}, []int64{1000, 2000, 4000}, []int64{428, 857, 1714}},
		{"nothing left for the dearer", []int64{0, 100}, []int64{60000, 1000}, []int64{50000, 0}},
	}
	for _, c := range cases {
		got := meritOrder(c.prices, c.powers, rest, 50, 5000)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// The marginal price bounds activation even where the ladder would
	// leave room: 40 EUR at the marginal price is in merit, 40.01 is not.
	if got := meritOrder([]int64{4000, 4001}, []int64{1000, 1000}, rest, 50, 4000); !slices.Equal(got, []int64{1000, 0}) {
		t.Errorf("marginal below the ladder's price: %v", got)
	}
}

// TestMeritOrderProperties: on random sets of bids, cheaper bids get at
// least the share of power dearer ones get, bids beyond the marginal price
// nothing, the platform never more than the volume, and the result does
// not depend on the order of the bids.
func TestMeritOrderProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	rest := Ladder{MW: []float64{0, 800, 1000}, Price: []float64{-100, 300, 15000}}
	for range 200 {
		n := 1 + r.IntN(40)
		prices, powers := make([]int64, n), make([]int64, n)
		for i := range n {
			prices[i] = int64(r.IntN(60000) - 20000)
			powers[i] = int64(1 + r.IntN(20000))
		}
		volume := r.Float64() * 600
		marginal := int64(math.Round(rest.PriceAt(volume) * 100))
		got := meritOrder(prices, powers, rest, volume, marginal)
		var total int64
		for i := range n {
			total += got[i]
			if got[i] < 0 || got[i] > powers[i] || (prices[i] > marginal && got[i] != 0) {
				t.Fatalf("bid %d (price %d, power %d, marginal %d): %d", i, prices[i], powers[i], marginal, got[i])
			}
			for j := range n {
				// share i >= share j when i is cheaper (cross-multiplied,
				// with 1 kW of rounding).
				if prices[i] < prices[j] && got[i]*powers[j] < got[j]*powers[i]-powers[j] {
					t.Fatalf("cheaper bid %d (%d/%d) activated less than %d (%d/%d)", i, got[i], powers[i], j, got[j], powers[j])
				}
			}
		}
		if float64(total) > volume*1000+1e-6 {
			t.Fatalf("activated %d kW of a %v MW activation", total, volume)
		}
		perm := r.Perm(n)
		p2, w2 := make([]int64, n), make([]int64, n)
		for k, i := range perm {
			p2[k], w2[k] = prices[i], powers[i]
		}
		again := meritOrder(p2, w2, rest, volume, marginal)
		for k, i := range perm {
			if again[k] != got[i] {
				t.Fatal("the result depends on the order of the bids")
			}
		}
	}
}
