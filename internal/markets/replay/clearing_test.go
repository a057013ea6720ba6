package replay

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

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
				energy = append(energy, EnergyBid{ID: fmt.Sprintf("e%d-%d-%s", a, i, dir), Period: p, Direction: dir, PowerMW: 10, Price: decimal.New(int64(a%300-150), 0)})
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
