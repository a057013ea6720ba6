package alarms

import (
	"time"
)

// CatalogVersion versions the rule catalogue (document 1, Versioning rule
// 4): it changes whenever a rule is added, removed or changes its
// condition, severity or timing.
const CatalogVersion = "2026.11.1"

// Outcome is what an evaluation tells about a rule's condition now.
type Outcome int8

// The outcomes. Unknown is "cannot be told" (no fresh measurements, no
// activation to judge delivery by): it moves neither the sustain nor the
// clear timing, so an alarm neither opens nor resolves on missing data.
const (
	Unknown Outcome = iota
	Clear
	Holds
)

func (o Outcome) String() string {
	switch o {
	case Clear:
		return "clear"
	case Holds:
		return "holds"
	}
	return "unknown"
}

// Rule is an entry of the catalogue: what it watches, how urgent it is,
// how long its condition must hold to open an alarm (Sustain) and stay
// clear to resolve it (ClearAfter), and whether an opened alarm pages
// (opens an incident on a production-critical asset).
type Rule struct {
	ID                string
	Name              string
	AlarmType         string
	Severity          Severity
	Description       string
	ClearingCondition string
	Sustain           time.Duration
	ClearAfter        time.Duration
	Pages             bool

	cond  func(*Input) Outcome
	facts func(*Input) []string
}

// Evaluate says whether the rule's condition holds for in now.
func (r *Rule) Evaluate(in *Input) Outcome { return r.cond(in) }

// Facts are the numbers behind the evaluation of in, as short sentences:
// the evidence of an event. They are built only when an event is
// recorded, not on every evaluation.
func (r *Rule) Facts(in *Input) []string { return r.facts(in) }

// The rule ids.
const (
	RuleTelemetry = "TELEMETRY-001"
	RuleComms     = "COMMS-001"
	RuleGrid      = "GRID-001"
	RuleSoC       = "SOC-001"
	RuleDispatch  = "DISPATCH-001"
	RuleAFRR      = "AFRR-001"
	RuleFCR       = "FCR-001"
	RuleLimit     = "LIMIT-001"
	RulePlaus     = "PLAUS-001"
)

var catalog = []*Rule{
	{
		ID: RuleTelemetry, Name: "Stale telemetry", AlarmType: "communication", Severity: Major,
		Description: "The asset's latest measurements are older than the staleness bound (5 s of real time, the bound " +
			"after which its state reports asset_status 0): the asset or its gateway stopped reporting. An asset that " +
			"never reported is not judged.",
		ClearingCondition: "Measurements newer than the staleness bound arrive again.",
		Sustain:           10 * time.Second, ClearAfter: 10 * time.Second, Pages: true,
		cond: telemetryCond, facts: telemetryFacts,
	},
	{
		ID: RuleComms, Name: "Communications lost", AlarmType: "communication", Severity: Major,
		Description: "The asset reports itself unreachable for control: asset_status 0 while no platform restriction " +
			"(unavailability, full power or energy limit) explains it, or neither LAN link up and no LTE signal " +
			"(at most -110 dBm, or 0) on either device.",
		ClearingCondition: "asset_status is not 0 (or a platform restriction explains it) and a LAN link or an LTE signal is back.",
		Sustain:           30 * time.Second, ClearAfter: 30 * time.Second, Pages: true,
		cond: commsCond, facts: commsFacts,
	},
	{
		ID: RuleGrid, Name: "Grid switch open", AlarmType: "grid", Severity: Critical,
		Description:       "grid_switch_status reports 0: the asset is disconnected from the grid and cannot deliver.",
		ClearingCondition: "grid_switch_status reports 1 (connected).",
		Sustain:           5 * time.Second, ClearAfter: 30 * time.Second, Pages: true,
		cond: gridCond, facts: gridFacts,
	},
	{
		ID: RuleSoC, Name: "State of charge outside its window", AlarmType: "energy", Severity: Warning,
		Description: "The stored energy, derived from the available discharge and charge energy and the asset's " +
			"efficiencies, lies outside the allowable window [soc_min, soc_max] by more than 0.5 % of the usable " +
			"energy capacity (at least 0.01 MWh).",
		ClearingCondition: "The derived stored energy is back within [soc_min, soc_max] (with the same tolerance).",
		Sustain:           60 * time.Second, ClearAfter: 60 * time.Second, Pages: false,
		cond: socCond, facts: socFacts,
	},
	{
		ID: RuleDispatch, Name: "Setpoint not followed", AlarmType: "control", Severity: Major,
		Description: "The platform steers the battery (battery control enabled, dispatch on, asset available) but " +
			"dispatch_power_actual differs from dispatch_setpoint, bounded by the available charge and discharge " +
			"power and any active power limit, by more than 5 % of the usable power capacity (at least 0.5 MW).",
		ClearingCondition: "The dispatched power is within the tolerance of the setpoint, or the platform no longer steers the battery.",
		Sustain:           30 * time.Second, ClearAfter: 15 * time.Second, Pages: true,
		cond: dispatchCond, facts: dispatchFacts,
	},
	{
		ID: RuleAFRR, Name: "aFRR under-delivery", AlarmType: "market", Severity: Major,
		Description: "While aFRR is on and the TSO activates at least 0.5 MW, the fill rate afrr_power_actual / " +
			"afrr_setpoint is below 90 %. Without an activation the delivery cannot be judged (the alarm neither " +
			"opens nor resolves).",
		ClearingCondition: "The fill rate of an activation of at least 0.5 MW is 90 % or more, or aFRR is off.",
		Sustain:           60 * time.Second, ClearAfter: 30 * time.Second, Pages: true,
		cond: afrrCond, facts: afrrFacts,
	},
	{
		ID: RuleFCR, Name: "FCR response missing", AlarmType: "market", Severity: Major,
		Description: "While FCR is on and the frequency deviates 50 mHz or more from 50 Hz, fcr_power_actual delivers " +
			"less than half of the response the frequency calls for (the reserved power times the deviation over " +
			"200 mHz, capped at the reserved power). Small deviations cannot be judged.",
		ClearingCondition: "At a deviation of 50 mHz or more, at least half of the called response is delivered; or FCR is off.",
		Sustain:           30 * time.Second, ClearAfter: 30 * time.Second, Pages: true,
		cond: fcrCond, facts: fcrFacts,
	},
	{
		ID: RuleLimit, Name: "Power-limit breach", AlarmType: "limit", Severity: Critical,
		Description: "battery_power_actual_ac lies outside the active power limit [lower_limit_mw, upper_limit_mw] " +
			"(during an active unavailability: outside 0 MW) by more than 1 % of the usable power capacity (at " +
			"least 0.1 MW). An immediate dispatch overrides limits and is not judged.",
		ClearingCondition: "The battery's power is within the limit again, or no limit is active.",
		Sustain:           10 * time.Second, ClearAfter: 30 * time.Second, Pages: true,
		cond: limitCond, facts: limitFacts,
	},
	{
		ID: RulePlaus, Name: "Physically implausible measurement", AlarmType: "data_quality", Severity: Warning,
		Description: "A measurement no battery can produce: a value that is not a finite number, battery power beyond " +
			"110 % of the usable power capacity, a soc_min above soc_max or below 0, a soc_max above 105 % of the usable " +
			"energy capacity, a negative available energy, a frequency outside 45-55 Hz, a grid switch status " +
			"other than 0 or 1.",
		ClearingCondition: "Every measurement is plausible again.",
		Sustain:           10 * time.Second, ClearAfter: 60 * time.Second, Pages: false,
		cond: plausCond, facts: plausFacts,
	},
}

var byID = func() map[string]*Rule {
	m := make(map[string]*Rule, len(catalog))
	for _, r := range catalog {
		m[r.ID] = r
	}
	return m
}()

// Rules returns the catalogue in its fixed order.
func Rules() []*Rule { return catalog }

// RuleByID returns the rule of the catalogue with id.
func RuleByID(id string) (*Rule, bool) {
	r, ok := byID[id]
	return r, ok
}
