package replay

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"atcp/internal/markets/calendar"
)

func block(d string, i int) calendar.Interval { return day(d).TenderBlocks()[i] }

func TestClearFCR(t *testing.T) {
	d := mustLoad(t)
	cases := []struct {
		name    string
		bid     CapacityBid
		status  Status
		awarded float64
		price   float64 // settlement price
		revenue float64
		clear   float64
		srcDay  string
		source  PriceSource
		note    string
	}{
		// 2026-02-02 04-08 settled at 65.20 EUR/MW in Germany.
		{"below", CapacityBid{ID: "a", Interval: block("2026-02-02", 1), PowerMW: 3, Price: 10}, Successful, 3, 65.2, 195.6, 65.2, "2026-02-02",
			Published, "cleared with the published German FCR settlement price of 2026-02-02 04:00-08:00"},
		{"equal", CapacityBid{ID: "b", Interval: block("2026-02-02", 1), PowerMW: 2, Price: 65.2}, Successful, 2, 65.2, 130.4, 65.2, "2026-02-02", Published, "04:00-08:00"},
		{"above", CapacityBid{ID: "c", Interval: block("2026-02-02", 1), PowerMW: 2, Price: 65.21}, Rejected, 0, 0, 0, 65.2, "2026-02-02", Published, "04:00-08:00"},
		{"zero price", CapacityBid{ID: "d", Interval: block("2026-02-02", 0), PowerMW: 1, Price: 0}, Successful, 1, 42.9, 42.9, 42.9, "2026-02-02", Published, "00:00-04:00"},
		// The bidding day has its own result: DE decoupled at 19 (cross-border 45.42).
		{"bidding day", CapacityBid{ID: "e", Interval: block("2026-02-01", 0), PowerMW: 1, Price: 20}, Rejected, 0, 0, 0, 19, "2026-02-01",
			Published, "published German FCR settlement price of 2026-02-01 00:00-04:00"},
		// Every other day is cleared with the replayed day's prices.
		{"other day", CapacityBid{ID: "f", Interval: block("2026-05-12", 5), PowerMW: 4, Price: 48}, Successful, 4, 48, 192, 48, "2026-02-02",
			Replayed, "no published results for 2026-05-12 here: cleared with the published German FCR settlement price of 2026-02-02 20:00-24:00, the replayed day"},
		// The 3-hour spring block and 5-hour autumn block replay the 00-04 price per block.
		{"spring block", CapacityBid{ID: "g", Interval: block("2026-03-29", 0), PowerMW: 1, Price: 42.9}, Successful, 1, 42.9, 42.9, 42.9, "2026-02-02",
			Replayed, "2026-03-29 here: cleared with the published German FCR settlement price of 2026-02-02 00:00-04:00"},
		{"autumn block", CapacityBid{ID: "h", Interval: block("2026-10-25", 0), PowerMW: 1, Price: 42.91}, Rejected, 0, 0, 0, 42.9, "2026-02-02",
			Replayed, "2026-10-25 here: cleared with the published German FCR settlement price of 2026-02-02 00:00-04:00"},
	}
	bids := make([]CapacityBid, len(cases))
	for i, c := range cases {
		bids[i] = c.bid
	}
	out, err := d.ClearFCR(bids)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		o := out[i]
		if o.BidID != c.bid.ID || o.Status != c.status || o.AwardedMW != c.awarded || o.SettlementPrice != c.price ||
			o.RevenueEUR != c.revenue || o.ClearingPrice != c.clear || o.PriceSource != c.source || o.SourceDay.String() != c.srcDay ||
			!strings.Contains(o.Note, c.note) {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
}

func TestClearCapacityRejectsInvalidBids(t *testing.T) {
	d := mustLoad(t)
	good := CapacityBid{ID: "x", Interval: block("2026-02-02", 0), PowerMW: 1, Price: 1, Direction: Neg}
	for name, mutate := range map[string]func(*CapacityBid){
		"no id":          func(b *CapacityBid) { b.ID = "" },
		"zero power":     func(b *CapacityBid) { b.PowerMW = 0 },
		"NaN power":      func(b *CapacityBid) { b.PowerMW = math.NaN() },
		"negative price": func(b *CapacityBid) { b.Price = -1 },
		"infinite price": func(b *CapacityBid) { b.Price = math.Inf(1) },
		"not a block":    func(b *CapacityBid) { b.Interval.End = b.Interval.End.Add(-calendar.PeriodLength) },
	} {
		b := good
		mutate(&b)
		if _, err := d.ClearFCR([]CapacityBid{good, b}); err == nil {
			t.Errorf("FCR: %s accepted", name)
		}
		if _, err := d.ClearAFRRCapacity([]CapacityBid{good, b}); err == nil {
			t.Errorf("aFRR: %s accepted", name)
		}
	}
	b := good
	b.Direction = "up"
	if _, err := d.ClearAFRRCapacity([]CapacityBid{b}); err == nil {
		t.Error("aFRR: bad direction accepted")
	}
}

func TestClearAFRRCapacity(t *testing.T) {
	d := mustLoad(t)
	// 2026-02-02: POS_08_12 marginal 30.81, NEG_20_24 marginal 2.67,
	// NEG_00_04 marginal 3.32.
	type want struct {
		status  Status
		awarded float64
		price   float64
		revenue float64
	}
	cases := []struct {
		name   string
		bid    CapacityBid
		want   want
		source PriceSource
		note   string
	}{
		{"below: own price x MW x 4 h", CapacityBid{ID: "a", Interval: block("2026-02-02", 2), Direction: Pos, PowerMW: 10, Price: 12.5}, want{Successful, 10, 12.5, 500},
			Published, "cleared with the published German aFRR marginal price (pos) of 2026-02-02 08:00-12:00"},
		{"above", CapacityBid{ID: "b", Interval: block("2026-02-02", 2), Direction: Pos, PowerMW: 10, Price: 30.82}, want{Rejected, 0, 0, 0}, Published, "(pos)"},
		{"direction matters", CapacityBid{ID: "c", Interval: block("2026-02-02", 2), Direction: Neg, PowerMW: 10, Price: 12.5}, want{Rejected, 0, 0, 0}, Published, "(neg)"},
		// Alone at the margin with 4 MW <= 5 MW modelled: fully awarded,
		// by the model.
		{"margin, fits", CapacityBid{ID: "d", Interval: block("2026-02-02", 5), Direction: Neg, PowerMW: 4, Price: 2.67}, want{Successful, 4, 2.67, 42.72},
			Modelled, "2026-02-02 20:00-24:00; priced at the marginal price: pro-rata share 1 of a modelled 5 MW margin"},
		// Spring: 3-hour block at the 00-04 marginal 3.32: 2 MW x 3.32 x 3 h.
		{"spring 3 h", CapacityBid{ID: "e", Interval: block("2026-03-29", 0), Direction: Neg, PowerMW: 2, Price: 3}, want{Successful, 2, 3, 18},
			Replayed, "no published results for 2026-03-29 here: cleared with the published German aFRR marginal price (neg) of 2026-02-02 00:00-04:00, the replayed day"},
		// Autumn: 5 hours.
		{"autumn 5 h", CapacityBid{ID: "f", Interval: block("2026-10-25", 0), Direction: Neg, PowerMW: 2, Price: 3}, want{Successful, 2, 3, 30}, Replayed, "2026-10-25"},
	}
	bids := make([]CapacityBid, len(cases))
	for i, c := range cases {
		bids[i] = c.bid
	}
	out, err := d.ClearAFRRCapacity(bids)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		o := out[i]
		got := want{o.Status, o.AwardedMW, o.SettlementPrice, o.RevenueEUR}
		if got != c.want || o.PriceSource != c.source || o.BidID != c.bid.ID || !strings.Contains(o.Note, c.note) {
			t.Errorf("%s: %+v, want %+v %s %q", c.name, o, c.want, c.source, c.note)
		}
	}
}

func TestAFRRCapacityProRataAtTheMargin(t *testing.T) {
	d := mustLoad(t)
	iv := block("2026-02-02", 2) // POS marginal 30.81
	other := block("2026-02-03", 2)
	bids := []CapacityBid{
		{ID: "m1", Interval: iv, Direction: Pos, PowerMW: 10, Price: 30.81},
		{ID: "m2", Interval: iv, Direction: Pos, PowerMW: 5, Price: 30.81},
		{ID: "m3", Interval: iv, Direction: Pos, PowerMW: 5, Price: 30.81},
		{ID: "below", Interval: iv, Direction: Pos, PowerMW: 100, Price: 1},
		// Another delivery day is another auction: its own margin.
		{ID: "other-day", Interval: other, Direction: Pos, PowerMW: 5, Price: 30.81},
		{ID: "tiny", Interval: block("2026-02-04", 2), Direction: Pos, PowerMW: 1e6, Price: 30.81},
		{ID: "tiny2", Interval: block("2026-02-04", 2), Direction: Pos, PowerMW: 1e-4, Price: 30.81},
	}
	run := func() []CapacityOutcome {
		out, err := d.ClearAFRRCapacity(bids)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := run()
	// 20 MW at the margin share 5 MW: a quarter each.
	for i, want := range []float64{2.5, 1.25, 1.25, 100, 5} {
		if out[i].AwardedMW != want || out[i].Status != Successful {
			t.Errorf("%s awarded %v (%s), want %v", out[i].BidID, out[i].AwardedMW, out[i].Status, want)
		}
	}
	if out[0].RevenueEUR != 2.5*30.81*4 || !strings.Contains(out[0].Note, "pro-rata share 0.25") || out[0].PriceSource != Modelled {
		t.Errorf("margin revenue, note or source: %+v", out[0])
	}
	// Below the margin the award is the published price's; another
	// delivery day's margin is modelled all the same.
	if out[3].PriceSource != Published || out[4].PriceSource != Modelled || !strings.Contains(out[4].Note, "no published results for 2026-02-03") {
		t.Errorf("sources: %+v %+v", out[3], out[4])
	}
	// A share rounding to under 1 kW is no award.
	if out[6].Status != Rejected || out[6].AwardedMW != 0 || out[5].AwardedMW > 5 {
		t.Errorf("tiny shares: %+v %+v", out[5], out[6])
	}
	// Deterministic whatever the order.
	bids[0], bids[2] = bids[2], bids[0]
	again := run()
	if again[2].AwardedMW != 2.5 || again[0].AwardedMW != 1.25 {
		t.Errorf("order changed the awards: %+v", again)
	}
	total := 0.0
	for _, o := range out[:3] {
		total += o.AwardedMW
	}
	if total > MarginVolumeMW {
		t.Errorf("awarded %v MW at the margin, more than the modelled %v", total, MarginVolumeMW)
	}
}

func TestActivationModel(t *testing.T) {
	d := mustLoad(t)
	feb2 := ReplayedDeliveryDay
	type point struct{ dev, mw float64 }
	var pos, neg []point
	for _, p := range feb2.Periods() {
		c, err := d.ClearQuarterHour(p.Start)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := d.Frequency(c.Source)
		rebap, _ := d.Rebap(c.Source)
		if !c.Cleared || c.ActivationShare < 0 || c.ActivationShare > 1 {
			t.Fatalf("%s: %+v", c.Source, c)
		}
		switch {
		case f.MeanHz < NominalHz:
			if c.Direction != Pos || c.MarginalPrice != rebap {
				t.Errorf("%s below 50 Hz: %+v", c.Source, c)
			}
			pos = append(pos, point{NominalHz - f.MeanHz, c.SystemActivatedMW})
		case f.MeanHz > NominalHz:
			if c.Direction != Neg || c.MarginalPrice != -rebap {
				t.Errorf("%s above 50 Hz: %+v", c.Source, c)
			}
			neg = append(neg, point{f.MeanHz - NominalHz, c.SystemActivatedMW})
		}
	}
	// Larger deviation, more activation; the extremes are the calibration's.
	for dir, pts := range map[Direction][]point{Pos: pos, Neg: neg} {
		maxMW := 0.0
		for _, a := range pts {
			for _, b := range pts {
				if a.dev > b.dev && a.mw < b.mw {
					t.Fatalf("%s: deviation %v activates %v MW, less than %v MW at %v", dir, a.dev, a.mw, b.mw, b.dev)
				}
			}
			maxMW = max(maxMW, a.mw)
		}
		cal := d.calibration[dir]
		if maxMW != cal[len(cal)-1] {
			t.Errorf("%s: largest modelled activation %v, want the 2024 maximum %v", dir, maxMW, cal[len(cal)-1])
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		t.Fatalf("replayed day activates one direction only: %d pos, %d neg", len(pos), len(neg))
	}
}

func TestQuantile(t *testing.T) {
	s := []float64{0, 10, 20, 40}
	for q, want := range map[float64]float64{0: 0, 1: 40, 0.5: 15, 1.0 / 3: 10, 0.9: 34} {
		if got := quantile(s, q); math.Abs(got-want) > 1e-9 {
			t.Errorf("quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("empty distribution")
	}
}

func TestClearAFRREnergy(t *testing.T) {
	d := mustLoad(t)
	// Find one quarter-hour of each direction on the replayed day.
	var posP, negP calendar.Interval
	var posC, negC QuarterHourClearing
	for _, p := range ReplayedDeliveryDay.Periods() {
		c, _ := d.ClearQuarterHour(p.Start)
		if c.Direction == Pos && c.ActivationShare > posC.ActivationShare {
			posP, posC = p, c
		}
		if c.Direction == Neg && c.ActivationShare > negC.ActivationShare {
			negP, negC = p, c
		}
	}
	if posC.ActivationShare == 0 || negC.ActivationShare == 0 {
		t.Fatal("no activated quarter-hour found")
	}
	cases := []struct {
		name   string
		bid    EnergyBid
		status Status
		note   string
	}{
		{"pos within marginal", EnergyBid{ID: "p1", Period: posP, Direction: Pos, PowerMW: 10, Price: posC.MarginalPrice}, Successful,
			"modelled from the replayed quarter-hour " + posC.Source.String() + " (local time): activated for a modelled share"},
		{"pos below marginal", EnergyBid{ID: "p2", Period: posP, Direction: Pos, PowerMW: 10, Price: posC.MarginalPrice - 100}, Successful, "paid the marginal price"},
		{"pos beyond marginal", EnergyBid{ID: "p3", Period: posP, Direction: Pos, PowerMW: 10, Price: posC.MarginalPrice + 0.01}, Rejected, "beyond"},
		{"neg in a pos quarter-hour", EnergyBid{ID: "p4", Period: posP, Direction: Neg, PowerMW: 10, Price: -15000}, Rejected, "other direction"},
		// neg: platform convention, provider receives the price; the TSO
		// calls the lowest first, so price <= marginal (= -reBAP).
		{"neg provider pays", EnergyBid{ID: "n1", Period: negP, Direction: Neg, PowerMW: 10, Price: negC.MarginalPrice - 50}, Successful, ""},
		{"neg too expensive", EnergyBid{ID: "n2", Period: negP, Direction: Neg, PowerMW: 10, Price: negC.MarginalPrice + 50}, Rejected, "beyond"},
	}
	bids := make([]EnergyBid, len(cases))
	for i, c := range cases {
		bids[i] = c.bid
	}
	out, err := d.ClearAFRREnergy(bids)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		o := out[i]
		if o.Status != c.status || o.PriceSource != Modelled || o.BidID != c.bid.ID || !strings.Contains(o.Note, c.note) {
			t.Errorf("%s: %+v", c.name, o)
			continue
		}
		clearing := posC
		if c.bid.Period == negP {
			clearing = negC
		}
		if o.Status == Successful {
			wantMW := math.Floor(c.bid.PowerMW*clearing.ActivationShare*1000) / 1000
			if o.ActivatedMW != wantMW || o.ActivatedMWh != wantMW/4 || o.SettlementPrice != clearing.MarginalPrice ||
				o.RevenueEUR != cents(wantMW/4*clearing.MarginalPrice) {
				t.Errorf("%s settlement: %+v (share %v)", c.name, o, clearing.ActivationShare)
			}
		} else if o.ActivatedMW != 0 || o.RevenueEUR != 0 {
			t.Errorf("%s: not activated but %+v", c.name, o)
		}
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
	bid := EnergyBid{ID: "x", Period: period, Direction: Pos, PowerMW: 5, Price: -15000}
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
		if o.Status != Fallback || o.SettlementPrice != da || o.ActivatedMW != 0 || o.PriceSource != Modelled {
			t.Errorf("%s: %+v", name, o)
		}
	}
	// Exactly 50 Hz clears, activating nothing.
	d, _ = LoadFS(m)
	f := d.frequency[src]
	f.MeanHz = NominalHz
	d.frequency[src] = f
	d.modelActivations()
	out, _ := d.ClearAFRREnergy([]EnergyBid{bid})
	if out[0].Status != Rejected || out[0].ActivatedMW != 0 {
		t.Errorf("50 Hz: %+v", out[0])
	}
}

func TestClearAFRREnergyRejectsInvalidBids(t *testing.T) {
	d := mustLoad(t)
	p := ReplayedDeliveryDay.Periods()[0]
	good := EnergyBid{ID: "x", Period: p, Direction: Pos, PowerMW: 1, Price: 1}
	for name, mutate := range map[string]func(*EnergyBid){
		"no id":       func(b *EnergyBid) { b.ID = "" },
		"direction":   func(b *EnergyBid) { b.Direction = "" },
		"power":       func(b *EnergyBid) { b.PowerMW = -1 },
		"NaN price":   func(b *EnergyBid) { b.Price = math.NaN() },
		"long period": func(b *EnergyBid) { b.Period.End = b.Period.End.Add(calendar.PeriodLength) },
		"unaligned": func(b *EnergyBid) {
			b.Period.Start, b.Period.End = b.Period.Start.Add(time.Minute), b.Period.End.Add(time.Minute)
		},
	} {
		b := good
		mutate(&b)
		if _, err := d.ClearAFRREnergy([]EnergyBid{good, b}); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// BenchmarkClearDeliveryDay clears one delivery day for 1,000 assets:
// each bids the six FCR blocks, twelve aFRR capacity blocks and an energy
// bid per quarter-hour and direction (192).
func BenchmarkClearDeliveryDay(b *testing.B) {
	d := mustLoad(b)
	delivery := day("2026-02-03")
	var fcr, afrr []CapacityBid
	var energy []EnergyBid
	for a := range 1000 {
		for i, blk := range delivery.TenderBlocks() {
			fcr = append(fcr, CapacityBid{ID: fmt.Sprintf("f%d-%d", a, i), Interval: blk, PowerMW: 1 + float64(a%10), Price: float64(a % 70)})
			for _, dir := range []Direction{Pos, Neg} {
				afrr = append(afrr, CapacityBid{ID: fmt.Sprintf("a%d-%d-%s", a, i, dir), Interval: blk, Direction: dir, PowerMW: 1 + float64(a%10), Price: float64(a%40) / 4})
			}
		}
		for i, p := range delivery.Periods() {
			for _, dir := range []Direction{Pos, Neg} {
				energy = append(energy, EnergyBid{ID: fmt.Sprintf("e%d-%d-%s", a, i, dir), Period: p, Direction: dir, PowerMW: 10, Price: float64(a%300) - 150})
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.ClearFCR(fcr); err != nil {
			b.Fatal(err)
		}
		if _, err := d.ClearAFRRCapacity(afrr); err != nil {
			b.Fatal(err)
		}
		if _, err := d.ClearAFRREnergy(energy); err != nil {
			b.Fatal(err)
		}
	}
}
