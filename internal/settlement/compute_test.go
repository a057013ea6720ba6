package settlement

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func ptr[T any](v T) *T { return &v }

func cent(s string) bids.Price {
	p, err := bids.ParsePrice(s)
	if err != nil {
		panic(err)
	}
	return p
}

// fcrAward is a SUCCESSFUL FCR bid of mw at settlement price (EUR/MW per block).
func fcrAward(asset string, start, end string, mw float64, price string) bids.Bid {
	return bids.Bid{ID: "fcr-" + asset + "-" + start, OrganizationID: "acme", AssetID: asset, Market: bids.FCR, Product: bids.Sym,
		Start: utc(start), End: utc(end), CapacityPrice: ptr(cent("1")), OfferedMW: mw, AwardedMW: &mw,
		Status: bids.Successful, SettlementPrice: ptr(cent(price))}
}

// capacityAward is a SUCCESSFUL aFRR capacity bid of mw at its own price (EUR/MW/h).
func capacityAward(asset string, p bids.Product, start, end string, mw float64, price string) bids.Bid {
	return bids.Bid{ID: "cap-" + asset + "-" + string(p) + "-" + start, OrganizationID: "acme", AssetID: asset, Market: bids.AFRRCapacity,
		Product: p, Start: utc(start), End: utc(end), CapacityPrice: ptr(cent(price)), EnergyPrice: ptr(cent("0")),
		OfferedMW: mw, AwardedMW: &mw, Status: bids.Successful, SettlementPrice: ptr(cent(price))}
}

// energyBid is an aFRR energy bid of the quarter-hour at q; activated and
// marginal are set for SUCCESSFUL (and the price for FALLBACK).
func energyBid(asset, id string, p bids.Product, q string, status bids.Status, offered, activated float64, marginal string) bids.Bid {
	b := bids.Bid{ID: id, OrganizationID: "acme", AssetID: asset, Market: bids.AFRREnergy, Product: p,
		Start: utc(q), End: utc(q).Add(calendar.PeriodLength), EnergyPrice: ptr(cent("0")), OfferedMW: offered, Status: status}
	if status == bids.Successful || status == bids.Rejected || status == bids.Fallback {
		b.AwardedMW, b.SettlementPrice = &activated, ptr(cent(marginal))
	}
	return b
}

// step is a cover step of the quarter-hour at q; coverer "" is uncovered.
func step(q, product, failing, coverer string, mw, obligation float64, from, to, price string) CoverStep {
	s := CoverStep{OrganizationID: "acme", QuarterHour: utc(q), Product: product, FailingAssetID: failing, CoveringAssetID: coverer,
		MW: mw, ObligationMW: obligation, From: utc(from), To: utc(to)}
	if price != "" {
		s.BackupPrice = ptr(decimal.RequireFromString(price))
	}
	return s
}

// fig is a figure as revenue/fee/penalty strings.
type fig [3]string

func figString(f Figure) fig {
	return fig{f.Revenue.StringFixed(2), f.BackupFee.StringFixed(2), f.Penalty.StringFixed(2)}
}

func blocksString(blocks []Block) map[string]map[ProductKey]fig {
	out := map[string]map[ProductKey]fig{}
	for _, b := range blocks {
		m := map[ProductKey]fig{}
		for k, f := range b.Products {
			m[k] = figString(f)
		}
		out[b.AssetID] = m
	}
	return out
}

// The cases are hand-computed from the replayed days' published prices
// (internal/markets/replay/data): FCR German settlement prices of
// 2026-02-02 (00-04 42.90, 04-08 65.20 EUR/MW per block), aFRR German
// marginal capacity prices of 2026-02-02 (NEG_04_08 2.65, POS_08_12 30.81
// EUR/MW/h) and reBAP (2026-02-02 04:15 local 123.05, 10:15 local 129.89
// EUR/MWh), the modelled energy marginal price (pos: reBAP, neg: -reBAP).
func TestCompute(t *testing.T) {
	cases := []struct {
		name  string
		q     string
		bids  []bids.Bid
		steps []CoverStep
		want  map[string]map[ProductKey]fig
	}{{
		// 3 MW x 65.20 = 195.60 EUR for the 16 quarter-hours of 04-08
		// local: the first gets round(12.225) = 12.23. 1 MW covered by fc
		// for 6 minutes at 30 EUR/MW/h: 1 x 0.1 h x 30 = 3.00; 1 MW
		// uncovered for 9 minutes (0.6 of the quarter-hour) withholds
		// 0.6 / 3 of the 12.23 paid: 2.446, so 2.45.
		name: "FCR partly covered, first quarter-hour of 04-08",
		q:    "2026-02-02T03:00:00Z",
		bids: []bids.Bid{fcrAward("f", "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 3, "65.20")},
		steps: []CoverStep{
			step("2026-02-02T03:00:00Z", StepFCR, "f", "fc", 1, 3, "2026-02-02T03:00:00Z", "2026-02-02T03:06:00Z", "30"),
			step("2026-02-02T03:00:00Z", StepFCR, "f", "", 1, 3, "2026-02-02T03:06:00Z", "2026-02-02T03:15:00Z", ""),
		},
		want: map[string]map[ProductKey]fig{
			"f":  {FCR: {"12.23", "3.00", "2.45"}},
			"fc": {FCRBackup: {"3.00", "0.00", "0.00"}},
		},
	}, {
		// The second quarter-hour: round(24.45) - round(12.225) = 12.22.
		name: "FCR second quarter-hour: cumulative rounding",
		q:    "2026-02-02T03:15:00Z",
		bids: []bids.Bid{fcrAward("f", "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 3, "65.20")},
		want: map[string]map[ProductKey]fig{"f": {FCR: {"12.22", "0.00", "0.00"}}},
	}, {
		// Spring forward: 00-04 local is 3 hours (12 quarter-hours),
		// replaying 42.90. 1 MW: 42.90 / 12 = 3.575, the first 3.58.
		name: "FCR 3-hour block of 2026-03-29, first quarter-hour",
		q:    "2026-03-28T23:00:00Z",
		bids: []bids.Bid{fcrAward("s", "2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z", 1, "42.90")},
		want: map[string]map[ProductKey]fig{"s": {FCR: {"3.58", "0.00", "0.00"}}},
	}, {
		// The last: 42.90 - round(39.325) = 3.57.
		name: "FCR 3-hour block of 2026-03-29, last quarter-hour",
		q:    "2026-03-29T01:45:00Z",
		bids: []bids.Bid{fcrAward("s", "2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z", 1, "42.90")},
		want: map[string]map[ProductKey]fig{"s": {FCR: {"3.57", "0.00", "0.00"}}},
	}, {
		// Fall back: 00-04 local is 5 hours (20 quarter-hours); the 13th
		// is 02:00 CET, the repeated hour. 2 MW x 42.90 / 20 = 4.29. 1 MW
		// uncovered all quarter-hour withholds half: 2.145, so 2.15 (half
		// away from zero); 1 MW
		// covered 5 minutes at 12.34 EUR/MW/h: 12.34 / 12 = 1.028.., 1.03.
		name: "FCR 5-hour block of 2026-10-25 in the repeated hour",
		q:    "2026-10-25T01:00:00Z",
		bids: []bids.Bid{fcrAward("v", "2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z", 2, "42.90")},
		steps: []CoverStep{
			step("2026-10-25T01:00:00Z", StepFCR, "v", "", 1, 2, "2026-10-25T01:00:00Z", "2026-10-25T01:15:00Z", ""),
			step("2026-10-25T01:00:00Z", StepFCR, "v", "w", 1, 2, "2026-10-25T01:00:00Z", "2026-10-25T01:05:00Z", "12.34"),
		},
		want: map[string]map[ProductKey]fig{
			"v": {FCR: {"4.29", "1.03", "2.15"}},
			"w": {FCRBackup: {"1.03", "0.00", "0.00"}},
		},
	}, {
		// Neg aFRR at 04:15 local (the second quarter-hour of 04-08): 10
		// MW at its own 2.65 EUR/MW/h = 106.00 for the block, 6.625 a
		// quarter-hour: round(13.25) - round(6.625) = 6.62. Activated
		// 3.1 MW: A = 0.775 MWh at -123.05. 2 MW of the 10 MW obligation
		// uncovered all quarter-hour (share 0.2): revenue 0.62 x -123.05
		// = -76.291, penalty 0.155 x 123.05 = 19.07275; the capacity
		// penalty withholds 2 of the 10 MW of the 6.62 paid: 1.324, so
		// 1.32. c1 covers 4 MW for 5 minutes
		// at 50: 0.775 x 0.4 x 1/3 x 50 = 5.1666..; c2 4 MW for 10
		// minutes at 80: 0.775 x 0.4 x 2/3 x 80 = 16.5333..; fee 21.70.
		name: "aFRR neg partly covered by two coverers at different prices",
		q:    "2026-02-02T03:15:00Z",
		bids: []bids.Bid{
			capacityAward("h", bids.Neg, "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 10, "2.65"),
			energyBid("h", "e1", bids.Neg, "2026-02-02T03:15:00Z", bids.Successful, 10, 3.1, "-123.05"),
		},
		steps: []CoverStep{
			step("2026-02-02T03:15:00Z", StepNeg, "h", "c1", 4, 10, "2026-02-02T03:15:00Z", "2026-02-02T03:20:00Z", "50"),
			step("2026-02-02T03:15:00Z", StepNeg, "h", "c2", 4, 10, "2026-02-02T03:20:00Z", "2026-02-02T03:30:00Z", "80"),
			step("2026-02-02T03:15:00Z", StepNeg, "h", "", 2, 10, "2026-02-02T03:15:00Z", "2026-02-02T03:30:00Z", ""),
		},
		want: map[string]map[ProductKey]fig{
			"h": {
				AFRRCNeg4h: {"6.62", "0.00", "1.32"},
				AFRRENeg:   {"-76.29", "21.70", "19.07"},
			},
			"c1": {AFRRENegBackup: {"5.17", "0.00", "0.00"}},
			"c2": {AFRRENegBackup: {"16.53", "0.00", "0.00"}},
		},
	}, {
		// Pos aFRR at 10:15 local, the 10th quarter-hour of 08-12: 5 MW
		// at 30.81 EUR/MW/h, 38.5125 a quarter-hour: round(385.125) -
		// round(346.6125) = 385.13 - 346.61 = 38.52. Offered as energy: 2
		// MW (the FAILED 1 MW and the PENDING 1 MW never reached the
		// market), so 3 MW shortfall withholds 3/5 of the 38.52 paid:
		// 23.112, so 23.11.
		// Activated 0.62 MW: 0.155 MWh x 129.89 = 20.13295, 20.13.
		name: "aFRR pos with an offer shortfall",
		q:    "2026-02-02T09:15:00Z",
		bids: []bids.Bid{
			capacityAward("p", bids.Pos, "2026-02-02T07:00:00Z", "2026-02-02T11:00:00Z", 5, "30.81"),
			energyBid("p", "e2", bids.Pos, "2026-02-02T09:15:00Z", bids.Successful, 2, 0.62, "129.89"),
			energyBid("p", "e3", bids.Pos, "2026-02-02T09:15:00Z", bids.Failed, 1, 0, ""),
			energyBid("p", "e4", bids.Pos, "2026-02-02T09:15:00Z", bids.Cancelled, 1, 0, ""),
		},
		want: map[string]map[ProductKey]fig{"p": {
			AFRRCPos4h: {"38.52", "0.00", "23.11"},
			AFRREPos:   {"20.13", "0.00", "0.00"},
		}},
	}, {
		// FALLBACK: the quarter-hour did not clear, nothing is activated,
		// but the bid reached the market: no shortfall. REJECTED alone
		// still shows the product (zero).
		name: "FALLBACK and REJECTED energy",
		q:    "2026-02-02T03:15:00Z",
		bids: []bids.Bid{
			capacityAward("fb", bids.Neg, "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 5, "2.65"),
			energyBid("fb", "e5", bids.Neg, "2026-02-02T03:15:00Z", bids.Fallback, 5, 0, "95.10"),
			energyBid("r", "e6", bids.Pos, "2026-02-02T03:15:00Z", bids.Rejected, 3, 0, "123.05"),
		},
		want: map[string]map[ProductKey]fig{
			// 5 x 2.65 x 4 = 53.00: round(6.625) - round(3.3125) = 3.32.
			"fb": {AFRRCNeg4h: {"3.32", "0.00", "0.00"}, AFRRENeg: {"0.00", "0.00", "0.00"}},
			"r":  {AFRREPos: {"0.00", "0.00", "0.00"}},
		},
	}, {
		// No energy offered (2 MW shortfall) and 2 MW uncovered: the
		// withheld MW stop at the 2 MW awarded: all the quarter-hour pays,
		// 2 x 30.81 x 0.25 = 15.405 (k=1: 15.41). The energy
		// product shows the failing obligation with nothing activated.
		name: "withheld capacity stops at the award",
		q:    "2026-02-02T07:00:00Z",
		bids: []bids.Bid{capacityAward("x", bids.Pos, "2026-02-02T07:00:00Z", "2026-02-02T11:00:00Z", 2, "30.81")},
		steps: []CoverStep{
			step("2026-02-02T07:00:00Z", StepPos, "x", "", 2, 2, "2026-02-02T07:00:00Z", "2026-02-02T07:15:00Z", ""),
		},
		want: map[string]map[ProductKey]fig{"x": {
			AFRRCPos4h: {"15.41", "0.00", "15.41"},
			AFRREPos:   {"0.00", "0.00", "0.00"},
		}},
	}, {
		// Bids of other quarter-hours, FCR not SUCCESSFUL, and energy
		// without outcome yet: nobody took part.
		name: "nothing to settle",
		q:    "2026-02-02T03:15:00Z",
		bids: []bids.Bid{
			fcrAward("f", "2026-02-02T07:00:00Z", "2026-02-02T11:00:00Z", 3, "51.53"),
			func() bids.Bid {
				b := fcrAward("g", "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 3, "65.20")
				b.Status = bids.Rejected
				return b
			}(),
			energyBid("e", "e7", bids.Neg, "2026-02-02T03:15:00Z", bids.Submitted, 3, 0, ""),
			energyBid("e", "e8", bids.Neg, "2026-02-02T03:30:00Z", bids.Successful, 3, 1, "100"),
		},
		want: map[string]map[ProductKey]fig{},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Compute(utc(c.q), c.bids, c.steps)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := fmt.Sprint(blocksString(got)), fmt.Sprint(c.want); g != w {
				t.Fatalf("figures\n got %s\nwant %s", g, w)
			}
			for i, b := range got {
				if !b.Start.Equal(utc(c.q)) || b.OrganizationID != "acme" || (i > 0 && got[i-1].AssetID >= b.AssetID) {
					t.Fatalf("block %d: %+v", i, b)
				}
			}
		})
	}
}

// TestCapacityRevenueAddsUpToTheBlock: the quarter-hours of a block add
// up to the block's capacity payment (the results endpoints' figure), on
// 4-hour blocks and the 3- and 5-hour blocks of the clock-change days.
func TestCapacityRevenueAddsUpToTheBlock(t *testing.T) {
	for _, c := range []struct {
		name  string
		award bids.Bid
		want  string
	}{
		{"FCR 04-08 of 2026-02-02", fcrAward("a", "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 3, "65.20"), "195.60"},
		{"FCR 3-hour block", fcrAward("a", "2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z", 7, "42.90"), "300.30"},
		{"FCR 5-hour block", fcrAward("a", "2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z", 1.5, "42.90"), "64.35"},
		// 5 MW x 30.81 EUR/MW/h x 4 h.
		{"aFRR pos 08-12", capacityAward("a", bids.Pos, "2026-02-02T07:00:00Z", "2026-02-02T11:00:00Z", 5, "30.81"), "616.20"},
		// 3 x 2.87 x 3 h and 3 x 2.87 x 5 h.
		{"aFRR 3-hour block", capacityAward("a", bids.Pos, "2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z", 3, "2.87"), "25.83"},
		{"aFRR 5-hour block", capacityAward("a", bids.Neg, "2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z", 3, "3.32"), "49.80"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum, n := decimal.Zero, 0
			for _, p := range calendar.Split(c.award.Interval(), calendar.PeriodLength) {
				got, err := Compute(p.Start, []bids.Bid{c.award}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range got[0].Products {
					sum = sum.Add(f.Revenue)
				}
				n++
			}
			if sum.StringFixed(2) != c.want || n != int(c.award.End.Sub(c.award.Start)/calendar.PeriodLength) {
				t.Fatalf("%d quarter-hours add up to %s, want %s", n, sum.StringFixed(2), c.want)
			}
		})
	}
}

func TestComputeRefusesContradictions(t *testing.T) {
	q := "2026-02-02T03:15:00Z"
	good := step(q, StepNeg, "h", "c", 2, 10, "2026-02-02T03:15:00Z", "2026-02-02T03:20:00Z", "50")
	with := func(f func(*CoverStep)) []CoverStep {
		s := good
		f(&s)
		return []CoverStep{s}
	}
	noPrice := energyBid("h", "e", bids.Neg, q, bids.Successful, 10, 3, "1")
	noPrice.SettlementPrice = nil
	otherOrg := energyBid("c", "e9", bids.Neg, q, bids.Rejected, 1, 0, "1")
	otherOrg.OrganizationID = "beta"
	for _, c := range []struct {
		name  string
		q     time.Time
		bids  []bids.Bid
		steps []CoverStep
		want  string
	}{
		{"not a quarter-hour", utc(q).Add(time.Minute), nil, nil, "not a quarter-hour"},
		{"unknown product", utc(q), nil, with(func(s *CoverStep) { s.Product = "sym" }), "unknown product"},
		{"no failing asset", utc(q), nil, with(func(s *CoverStep) { s.FailingAssetID = "" }), "no organisation"},
		{"other quarter-hour", utc(q), nil, with(func(s *CoverStep) { s.QuarterHour = utc(q).Add(calendar.PeriodLength) }), "inside the quarter-hour"},
		{"starts before", utc(q), nil, with(func(s *CoverStep) { s.From = utc(q).Add(-time.Second) }), "inside the quarter-hour"},
		{"ends after", utc(q), nil, with(func(s *CoverStep) { s.To = utc(q).Add(16 * time.Minute) }), "inside the quarter-hour"},
		{"empty span", utc(q), nil, with(func(s *CoverStep) { s.To = s.From }), "inside the quarter-hour"},
		{"no power", utc(q), nil, with(func(s *CoverStep) { s.MW = 0 }), "MW of an obligation"},
		{"no obligation", utc(q), nil, with(func(s *CoverStep) { s.ObligationMW = 0 }), "MW of an obligation"},
		{"more than the obligation", utc(q), nil, with(func(s *CoverStep) { s.MW = 11 }), "MW of an obligation"},
		{"covers itself", utc(q), nil, with(func(s *CoverStep) { s.CoveringAssetID = "h" }), "covers itself"},
		{"covered without price", utc(q), nil, with(func(s *CoverStep) { s.BackupPrice = nil }), "backup price"},
		{"uncovered with price", utc(q), nil, with(func(s *CoverStep) { s.CoveringAssetID = "" }), "backup price"},
		{"two obligations", utc(q), nil, append(with(func(*CoverStep) {}), with(func(s *CoverStep) { s.ObligationMW = 9 })...), "another step says"},
		{"steps beyond the obligation", utc(q), nil, []CoverStep{
			step(q, StepNeg, "h", "", 6, 10, "2026-02-02T03:15:00Z", "2026-02-02T03:30:00Z", ""),
			step(q, StepNeg, "h", "c", 5, 10, "2026-02-02T03:15:00Z", "2026-02-02T03:30:00Z", "1"),
		}, "exceed"},
		{"SUCCESSFUL energy without price", utc(q), []bids.Bid{noPrice}, nil, "without activated power or marginal price"},
		{"award without price", utc(q), []bids.Bid{func() bids.Bid {
			b := fcrAward("f", "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 3, "65.20")
			b.SettlementPrice = nil
			return b
		}()}, nil, "without a price"},
		{"asset in two organisations", utc(q), []bids.Bid{otherOrg}, with(func(*CoverStep) {}), "organisations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compute(c.q, c.bids, c.steps)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	// The good step alone is fine.
	if _, err := Compute(utc(q), nil, with(func(*CoverStep) {})); err != nil {
		t.Fatal(err)
	}
}

func TestRoundCents(t *testing.T) {
	for _, c := range []struct {
		num, den int64
		want     string
	}{
		{5, 1000, "0.01"}, {-5, 1000, "-0.01"}, {4999, 1000000, "0.00"}, {-4999, 1000000, "0.00"},
		{1, 3, "0.33"}, {-2, 3, "-0.67"}, {2445, 1000, "2.45"}, {-2445, 1000, "-2.45"}, {0, 1, "0.00"},
		{123456789, 100, "1234567.89"}, {1, 200, "0.01"}, {-1, 200, "-0.01"},
	} {
		if got := cents(big.NewRat(c.num, c.den)).StringFixed(2); got != c.want {
			t.Errorf("%d/%d: %s, want %s", c.num, c.den, got, c.want)
		}
	}
}

func TestOfferShortfall(t *testing.T) {
	q := "2026-02-02T03:15:00Z"
	energy := []bids.Bid{
		energyBid("a", "1", bids.Neg, q, bids.Submitted, 1, 0, ""),
		energyBid("a", "2", bids.Neg, q, bids.Successful, 1.5, 1, "1"),
		energyBid("a", "3", bids.Neg, q, bids.Rejected, 1, 0, "1"),
		energyBid("a", "4", bids.Neg, q, bids.Fallback, 0.5, 0, "1"),
		energyBid("a", "5", bids.Neg, q, bids.Pending, 9, 0, ""),
		energyBid("a", "6", bids.Neg, q, bids.Failed, 9, 0, ""),
		energyBid("a", "7", bids.Neg, q, bids.Cancelled, 9, 0, ""),
		energyBid("a", "8", bids.Pos, q, bids.Submitted, 9, 0, ""),
		energyBid("a", "9", bids.Neg, "2026-02-02T03:30:00Z", bids.Submitted, 9, 0, ""),
	}
	for _, c := range []struct{ awarded, want string }{
		{"10", "6"}, {"4", "0"}, {"3", "0"}, {"4.1", "0.1"}, {"0", "0"},
	} {
		got := OfferShortfall(utc(q), bids.Neg, decimal.RequireFromString(c.awarded), energy)
		if !got.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("awarded %s: shortfall %s, want %s", c.awarded, got, c.want)
		}
	}
}

func TestReady(t *testing.T) {
	q := "2026-02-02T03:15:00Z"
	award := capacityAward("a", bids.Neg, "2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z", 1, "1")
	for _, c := range []struct {
		status bids.Status
		want   bool
	}{
		{bids.Pending, false}, {bids.Submitted, false}, {bids.Successful, true}, {bids.Rejected, true},
		{bids.Fallback, true}, {bids.Failed, true}, {bids.Cancelled, true},
	} {
		in := []bids.Bid{award, energyBid("a", "1", bids.Neg, q, bids.Successful, 1, 1, "1"), energyBid("a", "2", bids.Neg, q, c.status, 1, 0, "1")}
		if got := Ready(utc(q), in); got != c.want {
			t.Errorf("%s: ready %v", c.status, got)
		}
	}
	// A SUBMITTED bid of another quarter-hour does not hold this one.
	if !Ready(utc(q), []bids.Bid{energyBid("a", "1", bids.Neg, "2026-02-02T03:30:00Z", bids.Submitted, 1, 0, "")}) {
		t.Error("another quarter-hour's bid held it")
	}
}

func TestChanges(t *testing.T) {
	q := utc("2026-02-02T03:15:00Z")
	f := func(rev string) Figure { return Figure{Revenue: decimal.RequireFromString(rev)} }
	block := func(asset string, products map[ProductKey]Figure) Block {
		return Block{OrganizationID: "acme", AssetID: asset, Start: q, Products: products}
	}
	stored := []Block{
		block("same", map[ProductKey]Figure{FCR: f("1.50")}),
		block("changed", map[ProductKey]Figure{FCR: f("1.50")}),
		block("more", map[ProductKey]Figure{FCR: f("1.50")}),
		block("fewer", map[ProductKey]Figure{FCR: f("1.50"), FCRBackup: f("2")}),
		block("gone", map[ProductKey]Figure{FCR: f("1.50")}),
	}
	computed := []Block{
		block("same", map[ProductKey]Figure{FCR: f("1.5")}), // 1.5 = 1.50
		block("changed", map[ProductKey]Figure{FCR: f("1.51")}),
		block("more", map[ProductKey]Figure{FCR: f("1.50"), AFRREPos: {}}),
		block("fewer", map[ProductKey]Figure{FCR: f("1.50")}),
		block("new", map[ProductKey]Figure{FCR: f("0")}),
	}
	write, drop, err := Changes(q, stored, computed)
	if err != nil {
		t.Fatal(err)
	}
	var w, d []string
	for _, b := range write {
		w = append(w, b.AssetID)
	}
	for _, b := range drop {
		d = append(d, b.AssetID)
	}
	if fmt.Sprint(w) != "[changed more fewer new]" || fmt.Sprint(d) != "[gone]" {
		t.Fatalf("write %v drop %v", w, d)
	}
	moved := block("same", map[ProductKey]Figure{FCR: f("1.5")})
	moved.OrganizationID = "beta"
	if write, _, _ := Changes(q, stored[:1], []Block{moved}); len(write) != 1 {
		t.Fatal("a block of another organisation was taken as unchanged")
	}
	if _, _, err := Changes(q.Add(calendar.PeriodLength), nil, computed[:1]); err == nil {
		t.Fatal("a block of another quarter-hour was taken")
	}
	if _, _, err := Changes(q, nil, []Block{computed[0], computed[0]}); err == nil {
		t.Fatal("two blocks of one asset were taken")
	}
}

func TestProductKeys(t *testing.T) {
	var keys, backup []string
	for _, k := range ProductKeys {
		keys = append(keys, string(k))
		if k.Backup() {
			backup = append(backup, string(k))
		}
	}
	if fmt.Sprint(keys) != "[fcr fcr_backup afrrc_pos_4h afrrc_neg_4h afrrc_pos_15min afrrc_neg_15min afrre_pos afrre_pos_backup afrre_neg afrre_neg_backup]" ||
		fmt.Sprint(backup) != "[fcr_backup afrre_pos_backup afrre_neg_backup]" {
		t.Fatalf("keys %v, backup %v", keys, backup)
	}
}
