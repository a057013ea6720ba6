package assetstate

import (
	"math"

	"atcp/internal/segmentation"
	"atcp/internal/telemetry"
)

// scaling is how a virtual asset's value of a measurement is derived from
// the physical asset's value.
type scaling int

const (
	// unchanged: codes, 0/1 flags, frequency, percentages, irradiance,
	// connectivity and the cycle count (a ratio of throughput to
	// capacity, both scaled alike) pass through.
	unchanged scaling = iota
	// byPower: a power (MW) allocated by the design's mode, each segment
	// entitled to its share of the usable power capacity.
	byPower
	// byEnergy: an energy (MWh) allocated by the design's mode, each
	// segment entitled to its share of the usable energy capacity.
	byEnergy
	// byShare: the segment's share of the value, whatever the mode: the
	// reservation limits and the SoC window are bounds rather than flows,
	// and the throughput counters are the battery's history, which no
	// priority applies to.
	byShare
)

// scalings classifies every measurement that is not unchanged, by its
// canonical name (deprecated aliases follow the measurement they carry).
var scalings = map[string]scaling{
	"fcr_upper_limit":  byShare,
	"fcr_lower_limit":  byShare,
	"afrr_upper_limit": byShare,
	"afrr_lower_limit": byShare,

	"fcr_power_actual":      byPower,
	"afrr_power_actual":     byPower,
	"dispatch_power_actual": byPower,

	"fcr_power_setpoint":  byPower,
	"afrr_setpoint":       byPower,
	"dispatch_setpoint":   byPower,
	"dispatch15_setpoint": byPower,
	"poc_setpoint":        byPower,
	"pv_power_setpoint":   byPower,

	"available_power_charge":    byPower,
	"available_power_discharge": byPower,

	"soc_min": byShare,
	"soc_max": byShare,

	"available_discharge_energy": byEnergy,
	"available_charge_energy":    byEnergy,

	"poc_power_actual_ac":     byPower,
	"battery_power_actual_ac": byPower,
	"battery_power_actual_dc": byPower,

	"redispatch_amount": byPower,
	"self_consumption":  byPower,

	"discharge_throughput": byShare,
	"charge_throughput":    byShare,

	"pv_power_dc_actual":           byPower,
	"pv_inverter_self_consumption": byPower,
}

// pvPoints are the measurements only pv_active assets have.
var pvPoints = map[string]bool{
	"pv_export_curtailment_dso":    true,
	"pv_irradiance":                true,
	"pv_power_dc_actual":           true,
	"pv_inverter_self_consumption": true,
	"pv_switch_status":             true,
}

// canonical returns the measurement a name (canonical or deprecated
// alias) carries.
func canonical(name string) string {
	if c, ok := telemetry.Aliases[name]; ok {
		return c
	}
	return name
}

// isPV reports whether name (canonical or alias) is a PV measurement.
func isPV(name string) bool { return pvPoints[canonical(name)] }

// Split turns the physical asset's values into one segment's: the virtual
// asset's part under the parent's active design.
type Split struct {
	Design    segmentation.Segmentation
	Index     int     // the segment's position in Design.Segments
	PowerMW   float64 // the physical asset's usable power capacity, 0 when not recorded
	EnergyMWh float64 // the physical asset's usable energy capacity, 0 when not recorded
}

// Value is the segment's part of the physical value v of measurement name
// (canonical or alias). The parts of all segments of a design add up to v
// for every measurement that is not passed through unchanged. NaN stays
// NaN.
func (s Split) Value(name string, v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	switch scalings[canonical(name)] {
	case byPower:
		return s.Design.Disaggregate(v, s.PowerMW)[s.Index]
	case byEnergy:
		return s.Design.Disaggregate(v, s.EnergyMWh)[s.Index]
	case byShare:
		return v * s.Design.Segments[s.Index].Share
	}
	return v
}
