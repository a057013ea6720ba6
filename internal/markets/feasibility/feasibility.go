package feasibility

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// FCRReserveHours is FCR's 15-minute criterion: a battery holding FCR
// keeps the energy to deliver its full FCR power for a quarter of an hour
// in each direction.
const FCRReserveHours = 0.25

// periodHours is the length of a 15-minute period in hours.
const periodHours = 0.25

// tolerance absorbs float rounding in sums of MW and MWh figures.
const tolerance = 1e-9

// Asset is what the rules judge an asset's commitments against.
type Asset struct {
	// PowerMW is the usable power capacity; nil: the power rule is not
	// judged.
	PowerMW *float64
	// EnergyMWh is the usable energy capacity (stored energy); nil: the
	// energy rule is not judged.
	EnergyMWh *float64
	// Efficiencies in (0, 1]: charging stores ChargeEfficiency of the AC
	// energy, discharging delivers DischargeEfficiency of the stored
	// energy (the simulator's and the alarms' convention).
	ChargeEfficiency, DischargeEfficiency float64
}

// AssetOf takes the figures of a registered asset; an efficiency that is
// not recorded is 1.
func AssetOf(a assets.Asset) Asset {
	eff := func(p *float64) float64 {
		if p == nil || *p <= 0 || *p > 1 {
			return 1
		}
		return *p
	}
	return Asset{PowerMW: a.UsablePowerCapacityMW, EnergyMWh: a.UsableEnergyCapacityMWh,
		ChargeEfficiency: eff(a.ChargeEfficiency), DischargeEfficiency: eff(a.DischargeEfficiency)}
}

// Judged reports whether any rule applies: an asset with neither usable
// power nor usable energy recorded is not judged.
func (a Asset) Judged() bool { return a.PowerMW != nil || a.EnergyMWh != nil }

// Direction is the side of the battery a figure concerns.
type Direction string

// The directions: discharge is positive aFRR and export, charge negative
// aFRR and import; both is the energy rule, which holds the two sides
// together.
const (
	Discharge Direction = "discharge"
	Charge    Direction = "charge"
	Both      Direction = "both"
)

// Rule names the rule a violation breaks.
type Rule string

// The rules.
const (
	Power  Rule = "power"
	Energy Rule = "energy"
)

// Period is what an asset is committed to in one 15-minute period. MW
// figures of commitments are magnitudes; the schedule's are signed.
type Period struct {
	Start time.Time // UTC quarter-hour
	FCRMW float64
	// aFRR capacity and energy, per direction.
	AFRRCapacityPosMW, AFRRCapacityNegMW float64
	AFRREnergyPosMW, AFRREnergyNegMW     float64
	// ScheduleMaxMW is the most discharge (>= 0) and ScheduleMinMW the
	// most charge (<= 0) the scheduled wholesale power asks for at any
	// instant of the period.
	ScheduleMaxMW, ScheduleMinMW float64
}

// AFRRMW is the aFRR power that can be activated on side d: the larger of
// the capacity commitment and the energy bids, since energy bids first
// cover the capacity obligation (the award holder offers its awarded
// power as energy) and only beyond it add power of their own.
func (p Period) AFRRMW(d Direction) float64 {
	if d == Charge {
		return max(p.AFRRCapacityNegMW, p.AFRREnergyNegMW)
	}
	return max(p.AFRRCapacityPosMW, p.AFRREnergyPosMW)
}

// ScheduleMW is the scheduled wholesale power on side d, a magnitude.
func (p Period) ScheduleMW(d Direction) float64 {
	if d == Charge {
		return max(-p.ScheduleMinMW, 0)
	}
	return max(p.ScheduleMaxMW, 0)
}

// Book holds an asset's commitments per 15-minute period.
type Book struct {
	periods map[int64]*Period
}

// NewBook returns an empty book.
func NewBook() *Book { return &Book{periods: map[int64]*Period{}} }

func (b *Book) at(start time.Time) *Period {
	k := start.UnixMicro()
	p := b.periods[k]
	if p == nil {
		p = &Period{Start: start.UTC()}
		b.periods[k] = p
	}
	return p
}

// over calls f on every period that iv overlaps.
func (b *Book) over(iv calendar.Interval, f func(*Period)) {
	for t := iv.Start.UTC().Truncate(calendar.PeriodLength); t.Before(iv.End); t = t.Add(calendar.PeriodLength) {
		f(b.at(t))
	}
}

// AddFCR commits mw of FCR over iv.
func (b *Book) AddFCR(iv calendar.Interval, mw float64) {
	b.over(iv, func(p *Period) { p.FCRMW += mw })
}

// AddAFRRCapacity commits mw of aFRR capacity on side d over iv.
func (b *Book) AddAFRRCapacity(iv calendar.Interval, d Direction, mw float64) {
	b.over(iv, func(p *Period) {
		if d == Charge {
			p.AFRRCapacityNegMW += mw
		} else {
			p.AFRRCapacityPosMW += mw
		}
	})
}

// AddAFRREnergy commits mw of aFRR energy bids on side d over iv.
func (b *Book) AddAFRREnergy(iv calendar.Interval, d Direction, mw float64) {
	b.over(iv, func(p *Period) {
		if d == Charge {
			p.AFRREnergyNegMW += mw
		} else {
			p.AFRREnergyPosMW += mw
		}
	})
}

// SetPoint is one scheduled wholesale target: from At on, MW (signed,
// positive = discharge) until the next set point or the next UTC
// quarter-hour, where the schedule resets to 0 MW unless a set point sits
// exactly there (document 2).
type SetPoint struct {
	At time.Time
	MW float64
}

// AddSchedule records the extremes of the scheduled power in every
// period points fall in. points must hold every set point of those
// periods (a target carried over a quarter-hour is stored again at its
// start, so each period has its own). The reset to 0 MW before a
// period's first set point is counted too, which changes nothing on
// either side: a side's figure is never below 0.
func (b *Book) AddSchedule(points []SetPoint) {
	for _, sp := range points {
		p := b.at(sp.At.UTC().Truncate(calendar.PeriodLength))
		p.ScheduleMaxMW = max(p.ScheduleMaxMW, sp.MW)
		p.ScheduleMinMW = min(p.ScheduleMinMW, sp.MW)
	}
}

// Periods are the periods of the book that overlap window, by start.
func (b *Book) Periods(window calendar.Interval) []Period {
	var out []Period
	for _, p := range b.periods {
		if (calendar.Interval{Start: p.Start, End: p.Start.Add(calendar.PeriodLength)}).Overlaps(window) {
			out = append(out, *p)
		}
	}
	slices.SortFunc(out, func(x, y Period) int { return x.Start.Compare(y.Start) })
	return out
}

// Blocks is window widened to the tender blocks it overlaps: the span
// whose commitments the energy rule of window's blocks reads.
func Blocks(window calendar.Interval) calendar.Interval {
	blocks := blocksOverlapping(window)
	if len(blocks) == 0 {
		return window
	}
	return calendar.Interval{Start: blocks[0].Start, End: blocks[len(blocks)-1].End}
}

// blocksOverlapping are the tender blocks that share an instant with
// window, in time order.
func blocksOverlapping(window calendar.Interval) []calendar.Interval {
	if !window.End.After(window.Start) {
		return nil
	}
	var out []calendar.Interval
	last := calendar.DayOf(window.End.Add(-time.Nanosecond))
	for d := calendar.DayOf(window.Start); ; d = d.AddDays(1) {
		for _, blk := range d.TenderBlocks() {
			if blk.Overlaps(window) {
				out = append(out, blk)
			}
		}
		if d == last {
			return out
		}
	}
}

// blockOf is the tender block containing t.
func blockOf(t time.Time) calendar.Interval {
	for _, blk := range calendar.DayOf(t).TenderBlocks() {
		if blk.Contains(t) {
			return blk
		}
	}
	panic("feasibility: no tender block contains " + t.String())
}

// Violation is one period (power rule) or tender block (energy rule) in
// which the asset's commitments do not fit. Merge joins consecutive
// periods of one block with equal figures into one violation.
type Violation struct {
	Rule      Rule      `json:"rule" enum:"power,energy" doc:"power: a 15-minute period's commitments on one side exceed the usable power; energy: a tender block's reserves exceed the usable energy."`
	Direction Direction `json:"direction" enum:"discharge,charge,both" doc:"The side: discharge (FCR, positive aFRR, export) or charge (FCR, negative aFRR, import) for power; both for energy, whose two sides share the usable energy."`
	Start     time.Time `json:"start_time" doc:"Start of the periods concerned (power) or of the block (energy)."`
	End       time.Time `json:"end_time" doc:"End (exclusive) of the periods concerned or of the block."`
	// The tender block the periods lie in.
	BlockStart time.Time `json:"block_start" doc:"Start of the tender block (Europe/Berlin 00-04, ..., 20-24; 3 or 5 hours on the clock-change days)."`
	BlockEnd   time.Time `json:"block_end" doc:"End of the tender block."`
	// FCRMW is the FCR commitment (the block's largest for energy).
	FCRMW float64 `json:"fcr_mw" doc:"Committed FCR power, MW (symmetric)."`
	// Power rule: the side's aFRR power and scheduled power.
	AFRRMW     *float64 `json:"afrr_mw,omitempty" doc:"Power rule: aFRR power of the side, MW (the larger of capacity and energy commitments)."`
	ScheduleMW *float64 `json:"schedule_mw,omitempty" doc:"Power rule: the most scheduled wholesale power on the side in the period, MW."`
	// Energy rule: the stored energy each reserve needs.
	FCRReserveMWh *float64 `json:"fcr_reserve_mwh,omitempty" doc:"Energy rule: FCR x 0.25 h in both directions, MWh of stored energy."`
	AFRRPosMWh    *float64 `json:"afrr_pos_mwh,omitempty" doc:"Energy rule: full positive aFRR activation over the block, MWh of stored energy."`
	AFRRNegMWh    *float64 `json:"afrr_neg_mwh,omitempty" doc:"Energy rule: full negative aFRR activation over the block, MWh of room to charge."`
	// Committed is the sum of the figures above, Limit the usable power
	// or energy, Overshoot their difference; Unit says which.
	Committed float64 `json:"committed" doc:"Power: FCR + aFRR + schedule of the side, MW. Energy: the sum of the three reserves, MWh."`
	Limit     float64 `json:"limit" doc:"The asset's usable_power_capacity_mw (power) or usable_energy_capacity_mwh (energy)."`
	Overshoot float64 `json:"overshoot" doc:"committed - limit."`
	Unit      string  `json:"unit" enum:"MW,MWh" doc:"Unit of committed, limit and overshoot."`
}

// Check judges the commitments of book in the periods and tender blocks
// that overlap window: one violation per period and side for the power
// rule, one per block for the energy rule, in time order (power before
// energy at the same start). book must hold every period of those blocks
// (Blocks(window)) for the energy rule to see them all.
func Check(a Asset, book *Book, window calendar.Interval) []Violation {
	var out []Violation
	if a.PowerMW != nil {
		limit := *a.PowerMW
		for _, p := range book.Periods(window) {
			blk := blockOf(p.Start)
			for _, d := range []Direction{Discharge, Charge} {
				afrr, sched := p.AFRRMW(d), p.ScheduleMW(d)
				total := p.FCRMW + afrr + sched
				if total > limit+tolerance {
					out = append(out, Violation{Rule: Power, Direction: d, Start: p.Start, End: p.Start.Add(calendar.PeriodLength),
						BlockStart: blk.Start, BlockEnd: blk.End, FCRMW: p.FCRMW, AFRRMW: ref(afrr), ScheduleMW: ref(sched),
						Committed: round(total), Limit: limit, Overshoot: round(total - limit), Unit: "MW"})
				}
			}
		}
	}
	if a.EnergyMWh != nil {
		limit := *a.EnergyMWh
		for _, blk := range blocksOverlapping(window) {
			var fcr, pos, neg float64
			for _, p := range book.Periods(blk) {
				fcr = max(fcr, p.FCRMW)
				pos += p.AFRRMW(Discharge) * periodHours / a.DischargeEfficiency
				neg += p.AFRRMW(Charge) * periodHours * a.ChargeEfficiency
			}
			reserve := fcr * FCRReserveHours * (1/a.DischargeEfficiency + a.ChargeEfficiency)
			total := reserve + pos + neg
			if total > limit+tolerance {
				out = append(out, Violation{Rule: Energy, Direction: Both, Start: blk.Start, End: blk.End,
					BlockStart: blk.Start, BlockEnd: blk.End, FCRMW: fcr,
					FCRReserveMWh: ref(round(reserve)), AFRRPosMWh: ref(round(pos)), AFRRNegMWh: ref(round(neg)),
					Committed: round(total), Limit: limit, Overshoot: round(total - limit), Unit: "MWh"})
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Violation) int {
		if c := x.Start.Compare(y.Start); c != 0 {
			return c
		}
		if x.Rule != y.Rule {
			if x.Rule == Power {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}

func ref(f float64) *float64 { return &f }

// round keeps sums of figures free of float noise (12 decimals).
func round(f float64) float64 { return math.Round(f*1e12) / 1e12 }

type key struct {
	rule  Rule
	dir   Direction
	start int64
}

// Worse returns the violations of after (Check's, unmerged) that before
// does not have, or has with a smaller overshoot: what a change creates
// or worsens. A change that leaves a violation as it was, or eases it, is
// not refused for it.
func Worse(before, after []Violation) []Violation {
	was := map[key]float64{}
	for _, v := range before {
		was[key{v.Rule, v.Direction, v.Start.UnixMicro()}] = v.Overshoot
	}
	var out []Violation
	for _, v := range after {
		if o, ok := was[key{v.Rule, v.Direction, v.Start.UnixMicro()}]; !ok || v.Overshoot > o+tolerance {
			out = append(out, v)
		}
	}
	return out
}

// Merge joins power violations of consecutive periods of one block, side
// and equal figures into one (a 4-hour block with the same commitments
// throughout is one violation, not sixteen). vs are in Check's order.
func Merge(vs []Violation) []Violation {
	out := make([]Violation, 0, len(vs))
	open := map[key]int{} // side of the power rule -> index in out of its last violation
	for _, v := range vs {
		k := key{rule: v.Rule, dir: v.Direction}
		if i, ok := open[k]; ok && v.Rule == Power && sameFigures(out[i], v) && out[i].End.Equal(v.Start) && out[i].BlockStart.Equal(v.BlockStart) {
			out[i].End = v.End
			continue
		}
		open[k] = len(out)
		out = append(out, v)
	}
	return out
}

func sameFigures(x, y Violation) bool {
	return x.FCRMW == y.FCRMW && deref(x.AFRRMW) == deref(y.AFRRMW) && deref(x.ScheduleMW) == deref(y.ScheduleMW) &&
		x.Committed == y.Committed && x.Limit == y.Limit
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// num formats a figure for a message: at most 3 decimals, no trailing
// zeros.
func num(f float64) string { return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64) }

// String is the violation as one sentence (a warning).
func (v Violation) String() string {
	span := v.Start.Format(time.RFC3339) + "/" + v.End.Format(time.RFC3339)
	if v.Rule == Energy {
		return fmt.Sprintf("tender block %s: the reserves need %s MWh of stored energy (FCR %s MW x 0.25 h both ways %s MWh"+
			" + full positive aFRR activation over the block %s MWh + full negative aFRR activation %s MWh),"+
			" above the usable energy capacity of %s MWh by %s MWh",
			span, num(v.Committed), num(v.FCRMW), num(deref(v.FCRReserveMWh)), num(deref(v.AFRRPosMWh)), num(deref(v.AFRRNegMWh)),
			num(v.Limit), num(v.Overshoot))
	}
	return fmt.Sprintf("%s: the %s side commits %s MW (FCR %s + aFRR %s + schedule %s), above the usable power capacity of %s MW by %s MW",
		span, v.Direction, num(v.Committed), num(v.FCRMW), num(deref(v.AFRRMW)), num(deref(v.ScheduleMW)), num(v.Limit), num(v.Overshoot))
}

// Warnings are the violations, merged, as warnings.
func Warnings(vs []Violation) []string {
	merged := Merge(vs)
	out := make([]string, len(merged))
	for i, v := range merged {
		out[i] = v.String()
	}
	return out
}

// Error is the 409 of the violations a change would create or worsen
// (Worse's), merged into the violations extension; the code is
// CodeExceedPower when any breaks the power rule, else CodeExceedEnergy.
func Error(vs []Violation) error {
	merged := Merge(vs)
	code := CodeExceedEnergy
	for _, v := range merged {
		if v.Rule == Power {
			code = CodeExceedPower
			break
		}
	}
	e := errs.Conflictf(code, "the asset's commitments across markets would not fit its usable power and energy in %d case(s) (strict_validation); first: %s; nothing was stored",
		len(merged), merged[0])
	e.Extensions = map[string]any{"violations": merged}
	return e
}
