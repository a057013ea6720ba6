package bids

import (
	"errors"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func iv(a, b string) calendar.Interval { return calendar.Interval{Start: ts(a), End: ts(b)} }

// testRules are FCR-like rules with aFRR-like products, so one set covers
// both kinds of ceiling.
var testRules = Rules{
	Market: FCR, Name: "FCR", Products: []Product{Sym},
	Enabled:       func(a assets.Asset) bool { return a.FCREnabled },
	Window:        func(i calendar.Interval) calendar.Window { return calendar.FCRWindow(calendar.DayOf(i.Start)) },
	Tendered:      true,
	CapacityPrice: &PriceBounds{Min: 0, Max: EUR(15000)},
	CeilingCode:   "FCR_PREQUALIFIED_CAPACITY_EXCEEDED",
	Ceiling:       func(a assets.Asset, _ Product) float64 { return a.FCRPrequalifiedMW },
}

func TestTenderIntervals(t *testing.T) {
	for _, c := range []struct {
		name   string
		iv     calendar.Interval
		tender bool
		days   []string
		blocks int
	}{
		{"winter block", iv("2026-02-01T23:00:00Z", "2026-02-02T03:00:00Z"), true, []string{"2026-02-02"}, 6},
		{"last block of the day", iv("2026-02-02T19:00:00Z", "2026-02-02T23:00:00Z"), true, []string{"2026-02-02"}, 6},
		{"shifted by an hour (UTC blocks)", iv("2026-02-02T00:00:00Z", "2026-02-02T04:00:00Z"), false, []string{"2026-02-02"}, 6},
		{"two blocks", iv("2026-02-01T23:00:00Z", "2026-02-02T07:00:00Z"), false, []string{"2026-02-02"}, 6},
		{"across midnight", iv("2026-02-02T19:00:00Z", "2026-02-03T03:00:00Z"), false, []string{"2026-02-02", "2026-02-03"}, 12},
		{"summer block", iv("2026-07-01T22:00:00Z", "2026-07-02T02:00:00Z"), true, []string{"2026-07-02"}, 6},
		{"spring forward: 3-hour first block", iv("2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z"), true, []string{"2026-03-29"}, 6},
		{"spring forward: a 4-hour first block is not one", iv("2026-03-28T23:00:00Z", "2026-03-29T03:00:00Z"), false, []string{"2026-03-29"}, 6},
		{"spring forward: second block in CEST", iv("2026-03-29T02:00:00Z", "2026-03-29T06:00:00Z"), true, []string{"2026-03-29"}, 6},
		{"fall back: 5-hour first block", iv("2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z"), true, []string{"2026-10-25"}, 6},
		{"fall back: last block in CET", iv("2026-10-25T19:00:00Z", "2026-10-25T23:00:00Z"), true, []string{"2026-10-25"}, 6},
		{"years long: first and last day only", iv("0001-01-01T00:00:00Z", "2026-02-02T03:00:00Z"), false, nil, 12},
		{"reversed", iv("2026-02-02T03:00:00Z", "2026-02-01T23:00:00Z"), false, []string{"2026-02-02"}, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := IsTenderBlock(c.iv); got != c.tender {
				t.Errorf("IsTenderBlock = %v", got)
			}
			if c.days != nil {
				var days []string
				for _, d := range DaysTouched(c.iv) {
					days = append(days, d.String())
				}
				if strings.Join(days, ",") != strings.Join(c.days, ",") {
					t.Errorf("days %v, want %v", days, c.days)
				}
			}
			if got := TenderBlocksTouched(c.iv); len(got) != c.blocks {
				t.Errorf("%d suggestions, want %d", len(got), c.blocks)
			}
		})
	}
}

func TestIntervalProblem(t *testing.T) {
	energy := testRules
	energy.Tendered = false
	for _, c := range []struct {
		name   string
		r      Rules
		iv     calendar.Interval
		want   string
		tender bool
	}{
		{"tender block", testRules, iv("2026-02-01T23:00:00Z", "2026-02-02T03:00:00Z"), "", false},
		{"empty", testRules, iv("2026-02-01T23:00:00Z", "2026-02-01T23:00:00Z"), "end_time must be after", false},
		{"not aligned", testRules, iv("2026-02-01T23:00:01Z", "2026-02-02T03:00:00Z"), "quarter-hours", false},
		{"not a tender block", testRules, iv("2026-02-02T00:00:00Z", "2026-02-02T04:00:00Z"), "not a tender interval", true},
		{"energy: one period", energy, iv("2026-02-02T00:00:00Z", "2026-02-02T00:15:00Z"), "", false},
		{"energy: over a day", energy, iv("2026-02-02T00:00:00Z", "2026-02-03T00:15:00Z"), "at most one day", false},
	} {
		msg, tender := c.r.intervalProblem(c.iv)
		if (c.want == "") != (msg == "") || !strings.Contains(msg, c.want) || tender != c.tender {
			t.Errorf("%s: %q %v", c.name, msg, tender)
		}
	}
}

func TestGates(t *testing.T) {
	for _, c := range []struct {
		name, block, now string
		code             errs.Code
		late             bool
	}{
		// Delivery 2026-02-02 (CET): opens 2026-01-26 11:00 CET, recommended 2026-02-01 07:30, gate 08:00.
		{"before opening", "2026-02-01T23:00:00Z", "2026-01-26T09:59:59Z", "bidding_not_open", false},
		{"at opening", "2026-02-01T23:00:00Z", "2026-01-26T10:00:00Z", "", false},
		{"before recommended", "2026-02-01T23:00:00Z", "2026-02-01T06:29:59Z", "", false},
		{"late", "2026-02-01T23:00:00Z", "2026-02-01T06:30:00Z", "", true},
		{"at the gate", "2026-02-01T23:00:00Z", "2026-02-01T07:00:00Z", "gate_closed", false},
		// Spring forward 2026-03-29: D-1 is in CET, the gate 07:00Z.
		{"spring forward late", "2026-03-28T23:00:00Z", "2026-03-28T06:59:00Z", "", true},
		{"spring forward gate", "2026-03-28T23:00:00Z", "2026-03-28T07:00:00Z", "gate_closed", false},
		// 2026-03-30: D-1 is the clock-change day itself, in CEST: gate 06:00Z.
		{"day after spring forward", "2026-03-29T22:00:00Z", "2026-03-29T06:00:00Z", "gate_closed", false},
		{"day after spring forward open", "2026-03-29T22:00:00Z", "2026-03-29T05:29:00Z", "", false},
		// Fall back 2026-10-25: D-1 in CEST (gate 06:00Z); 2026-10-26: D-1 in CET (gate 07:00Z).
		{"fall back gate", "2026-10-24T22:00:00Z", "2026-10-24T06:00:00Z", "gate_closed", false},
		{"day after fall back still open", "2026-10-25T23:00:00Z", "2026-10-25T06:59:00Z", "", true},
	} {
		b := ts(c.block)
		warn, err := testRules.GateError(calendar.Interval{Start: b, End: b.Add(4 * time.Hour)}, ts(c.now))
		var e *errs.Error
		switch {
		case c.code != "" && (!errors.As(err, &e) || e.Code != c.code || e.Kind != errs.Conflict):
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		case c.code == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case (warn != "") != c.late:
			t.Errorf("%s: warning %q", c.name, warn)
		}
	}
}

func TestCommittedMW(t *testing.T) {
	three := 3.0
	for _, c := range []struct {
		b    Bid
		want float64
	}{
		{Bid{Status: Pending, OfferedMW: 5}, 5},
		{Bid{Status: Submitted, OfferedMW: 5}, 5},
		{Bid{Status: Fallback, OfferedMW: 5}, 5},
		{Bid{Status: Successful, OfferedMW: 5, AwardedMW: &three}, 3},
		{Bid{Status: Successful, OfferedMW: 5}, 5},
		{Bid{Status: Rejected, OfferedMW: 5}, 0},
		{Bid{Status: Failed, OfferedMW: 5}, 0},
		{Bid{Status: Cancelled, OfferedMW: 5}, 0},
		{Bid{Status: Submitted, OfferedMW: 5, LastEdit: &EditAttempt{Status: EditPendingResync, RequestedValues: EditValues{OfferedMW: 8}}}, 8},
		{Bid{Status: Submitted, OfferedMW: 5, LastEdit: &EditAttempt{Status: EditPendingResync, RequestedValues: EditValues{OfferedMW: 2}}}, 5},
		{Bid{Status: Submitted, OfferedMW: 5, LastEdit: &EditAttempt{Status: EditFailedLateEdit, RequestedValues: EditValues{OfferedMW: 8}}}, 5},
	} {
		if got := c.b.CommittedMW(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.b, got, c.want)
		}
	}
}

func bidAt(id string, m Market, p Product, start string, hours int, mw float64, s Status) Bid {
	b := ts(start)
	return Bid{ID: id, Market: m, Product: p, Start: b, End: b.Add(time.Duration(hours) * time.Hour), OfferedMW: mw, Status: s}
}

func TestCheckCeiling(t *testing.T) {
	const day = "2026-02-02T03:00:00Z"
	ceilings := func(sym, pos, neg float64) func(Product) float64 {
		return func(p Product) float64 { return map[Product]float64{Sym: sym, Pos: pos, Neg: neg}[p] }
	}
	for _, c := range []struct {
		name      string
		market    Market
		ceiling   func(Product) float64
		existing  []Bid
		requested []Bid
		excluded  map[string]bool
		breaches  int
		first     string
	}{
		{"fits exactly", FCR, ceilings(10, 0, 0), []Bid{bidAt("a", FCR, Sym, day, 4, 6, Pending)}, []Bid{bidAt("", FCR, Sym, day, 4, 4, Pending)}, nil, 0, ""},
		{"one MW over in every period", FCR, ceilings(10, 0, 0), []Bid{bidAt("a", FCR, Sym, day, 4, 6, Submitted)}, []Bid{bidAt("", FCR, Sym, day, 4, 5, Pending)}, nil, 16, "2026-02-02T03:00:00Z sym 6+5>10"},
		{"partial overlap only breaches the shared periods", FCR, ceilings(10, 0, 0), []Bid{bidAt("a", FCR, Sym, "2026-02-02T05:00:00Z", 4, 6, Pending)}, []Bid{bidAt("", FCR, Sym, day, 4, 5, Pending)}, nil, 8, "2026-02-02T05:00:00Z sym 6+5>10"},
		{"request alone over", FCR, ceilings(10, 0, 0), nil, []Bid{bidAt("", FCR, Sym, day, 4, 6, Pending), bidAt("", FCR, Sym, day, 4, 6, Pending)}, nil, 16, "2026-02-02T03:00:00Z sym 0+12>10"},
		{"zero ceiling rejects every bid", FCR, ceilings(0, 0, 0), nil, []Bid{bidAt("", FCR, Sym, day, 4, 1, Pending)}, nil, 16, "2026-02-02T03:00:00Z sym 0+1>0"},
		{"released bids do not count", FCR, ceilings(10, 0, 0), []Bid{bidAt("a", FCR, Sym, day, 4, 10, Rejected), bidAt("b", FCR, Sym, day, 4, 10, Failed), bidAt("c", FCR, Sym, day, 4, 10, Cancelled)}, []Bid{bidAt("", FCR, Sym, day, 4, 10, Pending)}, nil, 0, ""},
		{"excluded bids do not count", FCR, ceilings(10, 0, 0), []Bid{bidAt("a", FCR, Sym, day, 4, 10, Pending)}, []Bid{bidAt("", FCR, Sym, day, 4, 10, Pending)}, map[string]bool{"a": true}, 0, ""},
		{"other markets do not count", AFRRCapacity, ceilings(0, 10, 10), []Bid{bidAt("a", AFRREnergy, Pos, day, 4, 10, Pending), bidAt("b", FCR, Sym, day, 4, 10, Pending)}, []Bid{bidAt("", AFRRCapacity, Pos, day, 4, 10, Pending)}, nil, 0, ""},
		{"directions are separate", AFRRCapacity, ceilings(0, 10, 5), []Bid{bidAt("a", AFRRCapacity, Pos, day, 4, 10, Pending)}, []Bid{bidAt("", AFRRCapacity, Neg, day, 4, 5, Pending)}, nil, 0, ""},
		{"each direction breaches on its own", AFRRCapacity, ceilings(0, 10, 5), []Bid{bidAt("a", AFRRCapacity, Pos, day, 1, 10, Pending)}, []Bid{bidAt("", AFRRCapacity, Neg, day, 1, 6, Pending), bidAt("", AFRRCapacity, Pos, day, 1, 1, Pending)}, nil, 8, "2026-02-02T03:00:00Z neg 0+6>5"},
		{"partial award counts at the awarded power", FCR, ceilings(10, 0, 0), []Bid{func() Bid { b := bidAt("a", FCR, Sym, day, 4, 10, Successful); w := 4.0; b.AwardedMW = &w; return b }()}, []Bid{bidAt("", FCR, Sym, day, 4, 6, Pending)}, nil, 0, ""},
		{"fractional MW within tolerance", FCR, ceilings(0.3, 0, 0), []Bid{bidAt("a", FCR, Sym, day, 1, 0.1, Pending)}, []Bid{bidAt("", FCR, Sym, day, 1, 0.2, Pending)}, nil, 0, ""},
		{"spring-forward day: the 3-hour block has 12 periods", FCR, ceilings(1, 0, 0), nil, []Bid{bidAt("", FCR, Sym, "2026-03-28T23:00:00Z", 3, 2, Pending)}, nil, 12, "2026-03-28T23:00:00Z sym 0+2>1"},
		{"fall-back day: the 5-hour block has 20 periods", FCR, ceilings(1, 0, 0), nil, []Bid{bidAt("", FCR, Sym, "2026-10-24T22:00:00Z", 5, 2, Pending)}, nil, 20, "2026-10-24T22:00:00Z sym 0+2>1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := CheckCeiling(c.market, c.ceiling, c.existing, c.requested, c.excluded)
			if len(got) != c.breaches {
				t.Fatalf("%d breaches, want %d: %v", len(got), c.breaches, got)
			}
			if c.breaches > 0 {
				if got[0].String() != c.first {
					t.Errorf("first %s, want %s", got[0], c.first)
				}
				if o := got[0].OvershootMW; o != got[0].CommittedMW+got[0].RequestedMW-got[0].CeilingMW {
					t.Errorf("overshoot %v", o)
				}
				err := CeilingError("X", "FCR", got)
				var e *errs.Error
				if !errors.As(err, &e) || e.Kind != errs.Conflict || e.Code != "X" || len(e.Extensions["periods"].([]Breach)) != c.breaches {
					t.Errorf("error %v", err)
				}
			}
		})
	}
}

func withKey(b NewBid, key string) NewBid {
	b.IdempotencyKey = &key
	return b
}

func TestPrepare(t *testing.T) {
	e := &Engine{rules: testRules}
	b1 := NewBid{Start: ts("2026-02-01T23:00:00Z"), End: ts("2026-02-02T03:00:00Z"), OfferedMW: 1, CapacityPrice: PriceInput{Raw: []byte(`"1.5"`)}}
	b2 := b1
	b2.Start, b2.End = ts("2026-02-02T03:00:00Z"), ts("2026-02-02T07:00:00Z")
	key := "k"
	keyed := b1
	keyed.IdempotencyKey = &key
	scope := &ReplaceScope{Start: ts("2026-02-01T23:00:00Z"), End: ts("2026-02-02T03:00:00Z")}
	pos := Pos
	for _, c := range []struct {
		name string
		sub  Submission
		locs string // the error locations, comma-separated
		code errs.Code
		sugg int
	}{
		{"valid", Submission{Bids: []NewBid{b1, b2}}, "", "", 0},
		{"valid keys", Submission{Bids: []NewBid{withKey(b1, "desk-7/2026-02-01 früh"), withKey(b2, strings.Repeat("ü", MaxIdempotencyKeyLength))}}, "", "", 0},
		{"no bids", Submission{}, "body.bids", "validation_failed", 0},
		{"unknown mode", Submission{Bids: []NewBid{b1}, Mode: "MERGE"}, "body.mode", "validation_failed", 0},
		{"replace without scope", Submission{Bids: []NewBid{b1}, Mode: Replace}, "body.replace_scope", "validation_failed", 0},
		{"scope without replace", Submission{Bids: []NewBid{b1}, Scope: scope}, "body.replace_scope", "validation_failed", 0},
		{"bid outside the scope", Submission{Bids: []NewBid{b1, b2}, Mode: Replace, Scope: scope}, "body.bids[1]", "validation_failed", 0},
		{"scope product of another market", Submission{Bids: []NewBid{b1}, Mode: Replace, Scope: &ReplaceScope{Start: scope.Start, End: scope.End, Product: &pos}}, "body.replace_scope.product,body.bids[0].product", "validation_failed", 0},
		{"repeated key", Submission{Bids: []NewBid{keyed, keyed}}, "body.bids[1].idempotency_key", "validation_failed", 0},
		{"key with NUL", Submission{Bids: []NewBid{b1, withKey(b2, "k\x00")}}, "body.bids[1].idempotency_key", "validation_failed", 0},
		{"key of NUL only", Submission{Bids: []NewBid{withKey(b1, "\x00")}}, "body.bids[0].idempotency_key", "validation_failed", 0},
		{"key with escape", Submission{Bids: []NewBid{withKey(b1, "\x1b[0m")}}, "body.bids[0].idempotency_key", "validation_failed", 0},
		{"key with line break", Submission{Bids: []NewBid{withKey(b1, "a\nb")}}, "body.bids[0].idempotency_key", "validation_failed", 0},
		{"key with a C1 control", Submission{Bids: []NewBid{withKey(b1, "a\u0085")}}, "body.bids[0].idempotency_key", "validation_failed", 0},
		{"empty key", Submission{Bids: []NewBid{withKey(b1, "")}}, "body.bids[0].idempotency_key", "validation_failed", 0},
		{"key too long", Submission{Bids: []NewBid{withKey(b1, strings.Repeat("ü", MaxIdempotencyKeyLength+1))}}, "body.bids[0].idempotency_key", "validation_failed", 0},
		{"product of another market", Submission{Bids: []NewBid{func() NewBid { x := b1; x.Product = Pos; return x }()}}, "body.bids[0].product", "validation_failed", 0},
		{"price out of range only", Submission{Bids: []NewBid{func() NewBid { x := b1; x.CapacityPrice = PriceInput{Raw: []byte(`15000.01`)}; return x }()}}, "body.bids[0].capacity_price_eur_per_mw", "PRICE_OUT_OF_RANGE", 0},
		{"price missing", Submission{Bids: []NewBid{func() NewBid { x := b1; x.CapacityPrice = PriceInput{}; return x }()}}, "body.bids[0].capacity_price_eur_per_mw", "validation_failed", 0},
		{"energy price in FCR", Submission{Bids: []NewBid{func() NewBid { x := b1; x.EnergyPrice = PriceInput{Raw: []byte(`1`)}; return x }()}}, "body.bids[0].energy_price_eur_per_mwh", "validation_failed", 0},
		{"fractional power and out-of-range price", Submission{Bids: []NewBid{func() NewBid {
			x := b1
			x.OfferedMW, x.CapacityPrice = 1.5, PriceInput{Raw: []byte(`-1`)}
			return x
		}()}}, "body.bids[0].offered_power_mw,body.bids[0].capacity_price_eur_per_mw", "validation_failed", 0},
		{"not a tender interval", Submission{Bids: []NewBid{func() NewBid { x := b1; x.End = x.End.Add(time.Hour); return x }()}}, "body.bids[0].start_time", "validation_failed", 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := e.prepare(c.sub)
			if c.code == "" {
				if err != nil || len(got) != len(c.sub.Bids) || got[0].Product != Sym || *got[0].CapacityPrice != 150 {
					t.Fatalf("%v %+v", err, got)
				}
				return
			}
			var de *errs.Error
			if !errors.As(err, &de) || de.Code != c.code {
				t.Fatalf("error %v, want %s", err, c.code)
			}
			var locs []string
			for _, f := range de.Fields {
				locs = append(locs, f.Location)
			}
			if strings.Join(locs, ",") != c.locs {
				t.Errorf("locations %v, want %s", locs, c.locs)
			}
			if s, _ := de.Extensions["valid_intervals"].([]calendar.Interval); len(s) != c.sugg {
				t.Errorf("%d suggestions, want %d", len(s), c.sugg)
			}
		})
	}
}
