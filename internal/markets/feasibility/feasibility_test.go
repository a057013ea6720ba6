package feasibility_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/feasibility"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func iv(a, b string) calendar.Interval { return calendar.Interval{Start: utc(a), End: utc(b)} }

func f(x float64) *float64 { return &x }

// Tender blocks used below: an ordinary 4-hour block (04-08 CET on
// 2026-02-02), the 3-hour first block of the spring-forward day and the
// 5-hour first block of the fall-back day.
var (
	winter = iv("2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z")
	spring = iv("2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z")
	autumn = iv("2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z")
)

// battery is the example: 10 MW, 20 MWh, no losses recorded.
var battery = feasibility.Asset{PowerMW: f(10), EnergyMWh: f(20), ChargeEfficiency: 1, DischargeEfficiency: 1}

// summary is a violation in a comparable line.
func summary(v feasibility.Violation) string {
	return string(v.Rule) + " " + string(v.Direction) + " " + v.Start.Format("01-02T15:04") + "-" + v.End.Format("01-02T15:04") +
		" " + num(v.Committed) + ">" + num(v.Limit) + "+" + num(v.Overshoot)
}

func num(x float64) string { return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64) }

func TestCheck(t *testing.T) {
	type add func(b *feasibility.Book)
	fcr := func(w calendar.Interval, mw float64) add { return func(b *feasibility.Book) { b.AddFCR(w, mw) } }
	capPos := func(w calendar.Interval, mw float64) add {
		return func(b *feasibility.Book) { b.AddAFRRCapacity(w, feasibility.Discharge, mw) }
	}
	capNeg := func(w calendar.Interval, mw float64) add {
		return func(b *feasibility.Book) { b.AddAFRRCapacity(w, feasibility.Charge, mw) }
	}
	enPos := func(w calendar.Interval, mw float64) add {
		return func(b *feasibility.Book) { b.AddAFRREnergy(w, feasibility.Discharge, mw) }
	}
	sched := func(points ...feasibility.SetPoint) add { return func(b *feasibility.Book) { b.AddSchedule(points) } }
	sp := func(at string, mw float64) feasibility.SetPoint { return feasibility.SetPoint{At: utc(at), MW: mw} }

	lossy := feasibility.Asset{PowerMW: f(10), EnergyMWh: f(19), ChargeEfficiency: 0.9, DischargeEfficiency: 0.8}
	for _, tc := range []struct {
		name   string
		asset  feasibility.Asset
		window calendar.Interval
		adds   []add
		want   []string // merged
	}{
		{"the issue: 10 MW FCR and 10 MW negative aFRR on a 10 MW / 20 MWh battery", battery, winter,
			[]add{fcr(winter, 10), capNeg(winter, 10)},
			[]string{
				"power charge 02-02T03:00-02-02T07:00 20>10+10",
				// 10 x 0.25 x 2 + 10 x 4 = 45 MWh.
				"energy both 02-02T03:00-02-02T07:00 45>20+25",
			}},
		{"FCR alone at full power fits: 10 MW, 5 MWh", battery, winter, []add{fcr(winter, 10)}, nil},
		{"10 MW negative aFRR over 4 hours needs 40 MWh of room", battery, winter, []add{capNeg(winter, 10)},
			[]string{"energy both 02-02T03:00-02-02T07:00 40>20+20"}},
		{"FCR and aFRR of the two sides share the power of neither", battery, winter,
			[]add{fcr(winter, 5), capPos(winter, 1), capNeg(winter, 1)}, nil},
		{"spring forward: the 3-hour block needs 3 hours of aFRR", battery, spring,
			[]add{fcr(spring, 5), capNeg(spring, 5), capPos(spring, 2)},
			// 2.5 + 15 + 6 = 23.5 MWh.
			[]string{"energy both 03-28T23:00-03-29T02:00 23.5>20+3.5"}},
		{"spring forward: 5 MW negative over 3 hours fits 20 MWh", battery, spring, []add{capNeg(spring, 5)}, nil},
		{"fall back: 4 MW negative over the 5-hour block is exactly 20 MWh", battery, autumn, []add{capNeg(autumn, 4)}, nil},
		{"fall back: 5 MW negative over the 5-hour block needs 25 MWh", battery, autumn, []add{capNeg(autumn, 5)},
			[]string{"energy both 10-24T22:00-10-25T03:00 25>20+5"}},
		{"efficiencies: stored energy drawn and room filled", lossy, winter,
			// FCR 4 x 0.25 x (1/0.8 + 0.9) = 2.15; pos 2 x 4 / 0.8 = 10; neg 2 x 4 x 0.9 = 7.2.
			[]add{fcr(winter, 4), capPos(winter, 2), capNeg(winter, 2)},
			[]string{"energy both 02-02T03:00-02-02T07:00 19.35>19+0.35"}},
		{"energy bids cover the capacity commitment first", battery, iv("2026-02-02T03:00:00Z", "2026-02-02T03:15:00Z"),
			// Summed, 3 + 4 + 4 MW would exceed 10 MW.
			[]add{fcr(winter, 3), capPos(winter, 4), enPos(iv("2026-02-02T03:00:00Z", "2026-02-02T03:15:00Z"), 4)}, nil},
		{"energy bids beyond the capacity add power and energy", battery, winter,
			[]add{fcr(winter, 3), capPos(winter, 5), enPos(iv("2026-02-02T03:15:00Z", "2026-02-02T03:30:00Z"), 8)},
			// 3 x 0.5 + 5 x 3.75 + 8 x 0.25 = 22.25 MWh.
			[]string{"energy both 02-02T03:00-02-02T07:00 22.25>20+2.25", "power discharge 02-02T03:15-02-02T03:30 11>10+1"}},
		{"the schedule adds its most discharge and its most charge", battery, winter,
			[]add{fcr(winter, 7), sched(sp("2026-02-02T04:00:00Z", 4), sp("2026-02-02T04:05:00Z", -6), sp("2026-02-02T04:15:00Z", 2))},
			[]string{"power discharge 02-02T04:00-02-02T04:15 11>10+1", "power charge 02-02T04:00-02-02T04:15 13>10+3"}},
		{"a schedule inside the headroom fits", battery, winter,
			[]add{fcr(winter, 5), capPos(winter, 2), sched(sp("2026-02-02T04:00:00Z", 3), sp("2026-02-02T04:10:00Z", -5))}, nil},
		{"figures that change inside a block are separate violations", battery, winter,
			[]add{fcr(winter, 10), capPos(winter, 1), sched(sp("2026-02-02T05:00:00Z", 1))},
			[]string{
				"power discharge 02-02T03:00-02-02T05:00 11>10+1",
				"power discharge 02-02T05:00-02-02T05:15 12>10+2",
				"power discharge 02-02T05:15-02-02T07:00 11>10+1",
			}},
		{"only the window is judged; the energy of a block it touches in full", battery,
			iv("2026-02-02T06:30:00Z", "2026-02-02T07:30:00Z"),
			[]add{fcr(winter, 10), capNeg(winter, 10)},
			[]string{"energy both 02-02T03:00-02-02T07:00 45>20+25", "power charge 02-02T06:30-02-02T07:00 20>10+10"}},
		{"no usable power recorded: the power rule is not judged", feasibility.Asset{EnergyMWh: f(20), ChargeEfficiency: 1, DischargeEfficiency: 1},
			winter, []add{fcr(winter, 10), capNeg(winter, 10)}, []string{"energy both 02-02T03:00-02-02T07:00 45>20+25"}},
		{"no usable energy recorded: the energy rule is not judged", feasibility.Asset{PowerMW: f(10), ChargeEfficiency: 1, DischargeEfficiency: 1},
			winter, []add{capNeg(winter, 10)}, nil},
		{"nothing recorded: nothing judged", feasibility.Asset{ChargeEfficiency: 1, DischargeEfficiency: 1},
			winter, []add{fcr(winter, 100), capNeg(winter, 100)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := feasibility.NewBook()
			for _, a := range tc.adds {
				a(b)
			}
			got := feasibility.Merge(feasibility.Check(tc.asset, b, tc.window))
			var lines []string
			for _, v := range got {
				lines = append(lines, summary(v))
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestViolationFigures(t *testing.T) {
	b := feasibility.NewBook()
	b.AddFCR(spring, 10)
	b.AddAFRRCapacity(spring, feasibility.Charge, 10)
	vs := feasibility.Check(battery, b, spring)
	// 12 periods of the 3-hour block on the charge side, and the block
	// after the power violation of its first period (time order, power
	// first).
	if len(vs) != 13 {
		t.Fatalf("%d violations, want 12 periods and 1 block", len(vs))
	}
	p, e := vs[0], vs[1]
	if p.Rule != feasibility.Power || p.Direction != feasibility.Charge || !p.BlockStart.Equal(spring.Start) || !p.BlockEnd.Equal(spring.End) ||
		p.FCRMW != 10 || *p.AFRRMW != 10 || *p.ScheduleMW != 0 || p.Unit != "MW" || p.FCRReserveMWh != nil {
		t.Fatalf("power violation %+v", p)
	}
	if e.Rule != feasibility.Energy || e.Direction != feasibility.Both || *e.FCRReserveMWh != 5 || *e.AFRRPosMWh != 0 ||
		*e.AFRRNegMWh != 30 || e.Committed != 35 || e.Limit != 20 || e.Overshoot != 15 || e.Unit != "MWh" || e.AFRRMW != nil {
		t.Fatalf("energy violation %+v", e)
	}
	w := feasibility.Warnings(vs)
	if len(w) != 2 ||
		w[0] != "2026-03-28T23:00:00Z/2026-03-29T02:00:00Z: the charge side commits 20 MW (FCR 10 + aFRR 10 + schedule 0), above the usable power capacity of 10 MW by 10 MW" ||
		!strings.Contains(w[1], "tender block 2026-03-28T23:00:00Z/2026-03-29T02:00:00Z: the reserves need 35 MWh") {
		t.Fatalf("warnings %q", w)
	}
}

func TestWorse(t *testing.T) {
	check := func(fcr, neg float64) []feasibility.Violation {
		b := feasibility.NewBook()
		b.AddFCR(autumn, fcr)
		b.AddAFRRCapacity(autumn, feasibility.Charge, neg)
		return feasibility.Check(battery, b, autumn)
	}
	for _, tc := range []struct {
		name          string
		before, after []feasibility.Violation
		want          int
	}{
		{"a new violation", check(0, 0), check(10, 10), 21}, // 20 periods and the block
		{"unchanged", check(10, 10), check(10, 10), 0},
		{"eased", check(10, 10), check(10, 5), 0},
		{"worsened", check(10, 5), check(10, 6), 21},
		{"worse in energy only", check(0, 4), check(0, 5), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := feasibility.Worse(tc.before, tc.after); len(got) != tc.want {
				t.Fatalf("%d worse, want %d: %v", len(got), tc.want, got)
			}
		})
	}
}

func TestError(t *testing.T) {
	b := feasibility.NewBook()
	b.AddAFRRCapacity(winter, feasibility.Charge, 10)
	energyOnly := feasibility.Check(battery, b, winter)
	b.AddFCR(winter, 1)
	b.AddAFRRCapacity(winter, feasibility.Discharge, 10)
	both := feasibility.Check(battery, b, winter)
	for _, tc := range []struct {
		vs   []feasibility.Violation
		code errs.Code
		n    int
	}{
		{energyOnly, "COMMITMENTS_EXCEED_ENERGY", 1},
		{both, "COMMITMENTS_EXCEED_POWER", 3},
	} {
		var e *errs.Error
		if err := feasibility.Error(tc.vs); !errors.As(err, &e) || e.Kind != errs.Conflict || e.Code != tc.code {
			t.Fatalf("error %v, want a conflict %s", err, tc.code)
		}
		if got := e.Extensions["violations"].([]feasibility.Violation); len(got) != tc.n {
			t.Fatalf("%d violations in the extension, want %d merged", len(got), tc.n)
		}
	}
}

func TestBlocks(t *testing.T) {
	for _, tc := range []struct {
		window, want calendar.Interval
	}{
		{iv("2026-02-02T04:00:00Z", "2026-02-02T04:15:00Z"), winter},
		{iv("2026-03-29T01:45:00Z", "2026-03-29T02:15:00Z"), iv("2026-03-28T23:00:00Z", "2026-03-29T06:00:00Z")},
		{iv("2026-10-25T02:45:00Z", "2026-10-25T03:00:00Z"), autumn},
		{iv("2026-10-24T21:00:00Z", "2026-10-25T04:00:00Z"), iv("2026-10-24T18:00:00Z", "2026-10-25T07:00:00Z")},
		{winter, winter},
	} {
		if got := feasibility.Blocks(tc.window); got != tc.want {
			t.Errorf("Blocks(%v) = %v, want %v", tc.window, got, tc.want)
		}
	}
}

func TestAssetOf(t *testing.T) {
	a := assets.NewAsset("b", "acme", "b", "Kiel", assets.Standalone)
	if got := feasibility.AssetOf(a); got.Judged() || got.ChargeEfficiency != 1 || got.DischargeEfficiency != 1 {
		t.Fatalf("a bare asset: %+v", got)
	}
	a.UsablePowerCapacityMW, a.ChargeEfficiency, a.DischargeEfficiency = f(10), f(0.95), f(0.9)
	if got := feasibility.AssetOf(a); !got.Judged() || *got.PowerMW != 10 || got.EnergyMWh != nil || got.ChargeEfficiency != 0.95 || got.DischargeEfficiency != 0.9 {
		t.Fatalf("an asset with power and efficiencies: %+v", got)
	}
}
