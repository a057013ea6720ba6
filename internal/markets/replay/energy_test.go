package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/calendar"
)

func eur(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// bothActivated is the first quarter-hour of the replayed delivery day
// with a modelled activation of at least minMW in both directions.
func bothActivated(t *testing.T, d *Dataset, minMW float64) QuarterHourClearing {
	t.Helper()
	for _, p := range ReplayedDeliveryDay.Periods() {
		c, err := d.ClearQuarterHour(p.Start)
		if err != nil {
			t.Fatal(err)
		}
		if c.Pos.ActivatedMW >= minMW && c.Neg.ActivatedMW >= minMW {
			return c
		}
	}
	t.Fatal("no quarter-hour activates both directions")
	return QuarterHourClearing{}
}

func TestClearAFRREnergy(t *testing.T) {
	d := mustLoad(t)
	c := bothActivated(t, d, 100)
	pos, neg := c.Pos, c.Neg
	posP, negP := pos.MarginalPrice, neg.MarginalPrice
	bid := func(id string, dir Direction, mw float64, price decimal.Decimal) EnergyBid {
		return EnergyBid{ID: id, Period: c.Period, Direction: dir, PowerMW: mw, Price: price}
	}
	// neg: 4 MW of the platform at the price floor come first, then n2 5
	// EUR below the marginal price gets what the rest of the market
	// leaves (about 10 MW at its ladder's slope) after them.
	n2Room := int64(math.Floor((neg.ActivatedMW-neg.Ladder.VolumeBelow(negP.Sub(eur("5")).InexactFloat64()))*1000+1e-6)) - 4000
	if n2Room <= 0 || n2Room >= 10000 {
		t.Fatalf("test set-up: room %d kW at 5 EUR below the neg marginal price", n2Room)
	}
	cases := []struct {
		bid    EnergyBid
		status Status
		kw     int64
		note   string
	}{
		{bid("p1", Pos, 5, posP.Sub(eur("10"))), Successful, 5000, "activated 5 of 5 MW in the merit order; German pos activation "},
		{bid("p2", Pos, 5, posP), Rejected, 0, "not activated: cheaper bids of the rest of the German market and of the platform covered the modelled activation"},
		{bid("p3", Pos, 5, posP.Add(eur("0.01"))), Rejected, 0, "not activated: priced beyond the marginal price"},
		{bid("n1", Neg, 4, eur("-15000")), Successful, 4000, "activated 4 of 4 MW in the merit order"},
		{bid("n2", Neg, 10, negP.Sub(eur("5"))), Successful, n2Room, "at the margin of the merit order"},
		{bid("n3", Neg, 10, negP.Add(eur("100"))), Rejected, 0, "beyond the marginal price"},
	}
	bids := make([]EnergyBid, len(cases))
	for i, k := range cases {
		bids[i] = k.bid
	}
	out, err := d.ClearAFRREnergy(bids)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "modelled from the replayed quarter-hour " + c.Source.String() + " (local time): "
	for i, k := range cases {
		o := out[i]
		m := c.Market(k.bid.Direction)
		if o.BidID != k.bid.ID || o.Status != k.status || o.PriceSource != Modelled || o.Source != c.Source ||
			!strings.HasPrefix(o.Note, prefix) || !strings.Contains(o.Note, k.note) || o.ActivatedMW != float64(k.kw)/1000 {
			t.Errorf("%s: %+v, want %s %d kW %q", k.bid.ID, o, k.status, k.kw, k.note)
			continue
		}
		if !o.SettlementPrice.Equal(m.MarginalPrice) {
			t.Errorf("%s: settled at %s, not the marginal price %s", k.bid.ID, o.SettlementPrice, m.MarginalPrice)
		}
		// Pay-as-cleared: every activated MWh at the marginal price.
		mwh := decimal.New(k.kw, -3).Mul(eur("0.25"))
		if o.ActivatedMWh != mwh.InexactFloat64() || !o.RevenueEUR.Equal(mwh.Mul(m.MarginalPrice).Round(2)) {
			t.Errorf("%s: %v MWh, %s EUR", k.bid.ID, o.ActivatedMWh, o.RevenueEUR)
		}
		if o.Status == Successful && !strings.Contains(o.Note, fmt.Sprintf("marginal price %s EUR/MWh modelled from reBAP; paid the marginal price", m.MarginalPrice)) {
			t.Errorf("%s: note %q", k.bid.ID, o.Note)
		}
	}
}

// TestActivationOnTheRealLadder: a delivery period of the bidding day
// before 09:30 has the real bid ladder; its rest-of-market volume decides.
func TestActivationOnTheRealLadder(t *testing.T) {
	d := mustLoad(t)
	period := ReplayedBiddingDay.Periods()[28] // 07:00 local
	c, err := d.ClearQuarterHour(period.Start)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Neg
	o, _ := d.EnergyOverview(c.Source, Neg)
	if m.Basis != BidLadder || m.ActivatedMW <= 0 {
		t.Fatalf("07:00 neg: %+v", m)
	}
	price := decimal.NewFromFloat(o.MinEUR).Add(eur("10"))
	wantKW := int64(math.Floor((m.ActivatedMW-OverviewLadder(o).VolumeBelow(price.InexactFloat64()))*1000 + 1e-6))
	out, err := c.Activate([]EnergyBid{{ID: "n", Period: period, Direction: Neg, PowerMW: 500, Price: price}})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Status != Successful || out[0].ActivatedMW != float64(wantKW)/1000 || wantKW >= 500000 ||
		!strings.Contains(out[0].Note, "modelled from the real German bid ladder of the quarter-hour") {
		t.Fatalf("%+v, want %d kW", out[0], wantKW)
	}
}

// TestClearAFRREnergyDeterministic: the outcomes do not depend on the
// order of the bids, and clearing many periods at once gives each bid
// what clearing its period alone gives.
func TestClearAFRREnergyDeterministic(t *testing.T) {
	d := mustLoad(t)
	r := rand.New(rand.NewPCG(3, 5))
	periods := day("2026-02-05").Periods()[24:32]
	var bids []EnergyBid
	for i := range 400 {
		dir := Pos
		if i%2 == 1 {
			dir = Neg
		}
		bids = append(bids, EnergyBid{ID: fmt.Sprint("b", i), Period: periods[r.IntN(len(periods))], Direction: dir,
			PowerMW: float64(1 + r.IntN(20)), Price: decimal.New(int64(r.IntN(40000)-10000), -2)})
	}
	out, err := d.ClearAFRREnergy(bids)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]EnergyOutcome{}
	activated := 0
	for _, o := range out {
		byID[o.BidID] = o
		if o.Status == Successful {
			activated++
		}
	}
	if activated == 0 || activated == len(bids) {
		t.Fatalf("%d of %d bids activated: the test needs both", activated, len(bids))
	}
	shuffled := append([]EnergyBid(nil), bids...)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	again, err := d.ClearAFRREnergy(shuffled)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range again {
		if w := byID[o.BidID]; o.Status != w.Status || o.ActivatedMW != w.ActivatedMW || !o.RevenueEUR.Equal(w.RevenueEUR) || o.Note != w.Note {
			t.Fatalf("%s: %+v, then %+v", o.BidID, w, o)
		}
	}
	for _, p := range periods {
		c, _ := d.ClearQuarterHour(p.Start)
		var own []EnergyBid
		for _, b := range bids {
			if b.Period == p {
				own = append(own, b)
			}
		}
		alone, err := c.Activate(own)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range alone {
			if w := byID[o.BidID]; o.ActivatedMW != w.ActivatedMW || o.Note != w.Note {
				t.Fatalf("%s alone %+v, with the others %+v", o.BidID, o, w)
			}
		}
	}
	// A period given in another location is the same period.
	berlin := bids[0]
	berlin.Period = calendar.Interval{Start: berlin.Period.Start.In(calendar.Berlin), End: berlin.Period.End.In(calendar.Berlin)}
	mixed, err := d.ClearAFRREnergy(append([]EnergyBid{berlin}, bids[1:]...))
	if err != nil || mixed[0].ActivatedMW != out[0].ActivatedMW || mixed[0].Note != out[0].Note {
		t.Fatalf("location changed the outcome: %+v, %v", mixed[0], err)
	}
}

func TestEnergyFallback(t *testing.T) {
	m := dataFS(t)
	d, err := LoadFS(m)
	if err != nil {
		t.Fatal(err)
	}
	period := ReplayedDeliveryDay.Periods()[40] // 10:00 local
	src, _ := SourceQuarterHour(period.Start)
	da, _ := d.DayAhead(src)
	bid := EnergyBid{ID: "x", Period: period, Direction: Pos, PowerMW: 5, Price: eur("-15000")}
	for name, breakIt := range map[string]func(){
		"no frequency":   func() { delete(d.frequency, src) },
		"no reBAP":       func() { delete(d.rebap, src) },
		"sparse samples": func() { f := d.frequency[src]; f.Samples = MinSamples - 1; d.frequency[src] = f },
	} {
		d, _ = LoadFS(m)
		breakIt()
		out, err := d.ClearAFRREnergy([]EnergyBid{bid})
		if err != nil {
			t.Fatal(err)
		}
		o := out[0]
		if o.Status != Fallback || o.SettlementPrice.InexactFloat64() != da || o.ActivatedMW != 0 || !o.RevenueEUR.IsZero() || o.PriceSource != Modelled {
			t.Errorf("%s: %+v", name, o)
		}
	}
	// A frequency within both deadbands clears, activating nothing.
	d, _ = LoadFS(m)
	d.frequency[src] = Frequency{MeanHz: NominalHz, MinHz: NominalHz - 0.01, MaxHz: NominalHz + 0.01, StdHz: 0.005, Samples: 900}
	out, _ := d.ClearAFRREnergy([]EnergyBid{bid})
	if o := out[0]; o.Status != Rejected || o.ActivatedMW != 0 || !o.SettlementPrice.IsZero() || !strings.Contains(o.Note, "no pos activation modelled") {
		t.Errorf("quiet frequency: %+v", o)
	}
}

func TestClearAFRREnergyRejectsInvalidBids(t *testing.T) {
	d := mustLoad(t)
	p := ReplayedDeliveryDay.Periods()[0]
	good := EnergyBid{ID: "x", Period: p, Direction: Pos, PowerMW: 1, Price: eur("1")}
	for name, mutate := range map[string]func(*EnergyBid){
		"no id":          func(b *EnergyBid) { b.ID = "" },
		"direction":      func(b *EnergyBid) { b.Direction = "" },
		"power":          func(b *EnergyBid) { b.PowerMW = -1 },
		"NaN power":      func(b *EnergyBid) { b.PowerMW = math.NaN() },
		"part of a cent": func(b *EnergyBid) { b.Price = eur("1.005") },
		"above 15000":    func(b *EnergyBid) { b.Price = eur("15000.01") },
		"below -15000":   func(b *EnergyBid) { b.Price = eur("-15000.01") },
		"long period":    func(b *EnergyBid) { b.Period.End = b.Period.End.Add(calendar.PeriodLength) },
		"unaligned": func(b *EnergyBid) {
			b.Period.Start, b.Period.End = b.Period.Start.Add(time.Minute), b.Period.End.Add(time.Minute)
		},
	} {
		b := good
		mutate(&b)
		if _, err := d.ClearAFRREnergy([]EnergyBid{good, b}); err == nil {
			t.Errorf("%s accepted", name)
		}
		c, _ := d.ClearQuarterHour(p.Start)
		if _, err := c.Activate([]EnergyBid{good, b}); err == nil {
			t.Errorf("%s activated", name)
		}
	}
	// The price limits themselves are valid.
	for _, price := range []string{"15000", "-15000", "12.50"} {
		b := good
		b.Price = eur(price)
		if _, err := d.ClearAFRREnergy([]EnergyBid{b}); err != nil {
			t.Errorf("price %s: %v", price, err)
		}
	}
	c, _ := d.ClearQuarterHour(p.Start)
	other := good
	other.Period = ReplayedDeliveryDay.Periods()[1]
	if _, err := c.Activate([]EnergyBid{other}); err == nil {
		t.Error("a bid of another period activated")
	}
}
