package telemetry

import (
	"math"
	"time"
)

// point is one measurement of document 1 with where it lives in
// Measurements. Deprecated aliases are not points of their own: they are
// served from the field they alias (see Aliases).
type point struct {
	name string
	get  func(*Measurements) *float64
	// pv marks the PV measurements, present only for pv_active assets.
	pv bool
}

var points = []point{
	{name: "asset_status", get: func(m *Measurements) *float64 { return &m.AssetStatus }},
	{name: "operational_status", get: func(m *Measurements) *float64 { return &m.OperationalStatus }},
	{name: "fcr_upper_limit", get: func(m *Measurements) *float64 { return &m.FCRUpperLimit }},
	{name: "fcr_lower_limit", get: func(m *Measurements) *float64 { return &m.FCRLowerLimit }},
	{name: "afrr_upper_limit", get: func(m *Measurements) *float64 { return &m.AFRRUpperLimit }},
	{name: "afrr_lower_limit", get: func(m *Measurements) *float64 { return &m.AFRRLowerLimit }},
	{name: "fcr_power_actual", get: func(m *Measurements) *float64 { return &m.FCRPowerActual }},
	{name: "afrr_power_actual", get: func(m *Measurements) *float64 { return &m.AFRRPowerActual }},
	{name: "dispatch_power_actual", get: func(m *Measurements) *float64 { return &m.DispatchPowerActual }},
	{name: "fcr_power_setpoint", get: func(m *Measurements) *float64 { return &m.FCRPowerSetpoint }},
	{name: "afrr_setpoint", get: func(m *Measurements) *float64 { return &m.AFRRSetpoint }},
	{name: "dispatch_setpoint", get: func(m *Measurements) *float64 { return &m.DispatchSetpoint }},
	{name: "dispatch15_setpoint", get: func(m *Measurements) *float64 { return &m.Dispatch15Setpoint }},
	{name: "poc_setpoint", get: func(m *Measurements) *float64 { return &m.PoCSetpoint }},
	{name: "pv_power_setpoint", get: func(m *Measurements) *float64 { return &m.PVPowerSetpoint }},
	{name: "control_mode", get: func(m *Measurements) *float64 { return &m.ControlMode }},
	{name: "available_power_charge", get: func(m *Measurements) *float64 { return &m.AvailablePowerCharge }},
	{name: "available_power_discharge", get: func(m *Measurements) *float64 { return &m.AvailablePowerDischarge }},
	{name: "soc_min", get: func(m *Measurements) *float64 { return &m.SoCMin }},
	{name: "soc_max", get: func(m *Measurements) *float64 { return &m.SoCMax }},
	{name: "available_discharge_energy", get: func(m *Measurements) *float64 { return &m.AvailableDischargeEnergy }},
	{name: "available_charge_energy", get: func(m *Measurements) *float64 { return &m.AvailableChargeEnergy }},
	{name: "poc_power_actual_ac", get: func(m *Measurements) *float64 { return &m.PoCPowerActualAC }},
	{name: "battery_power_actual_ac", get: func(m *Measurements) *float64 { return &m.BatteryPowerActualAC }},
	{name: "battery_power_actual_dc", get: func(m *Measurements) *float64 { return &m.BatteryPowerActualDC }},
	{name: "grid_switch_status", get: func(m *Measurements) *float64 { return &m.GridSwitchStatus }},
	{name: "redispatch_active", get: func(m *Measurements) *float64 { return &m.RedispatchActive }},
	{name: "redispatch_amount", get: func(m *Measurements) *float64 { return &m.RedispatchAmount }},
	{name: "self_consumption", get: func(m *Measurements) *float64 { return &m.SelfConsumption }},
	{name: "frequency", get: func(m *Measurements) *float64 { return &m.Frequency }},
	{name: "is_fcr_on", get: func(m *Measurements) *float64 { return &m.IsFCROn }},
	{name: "is_afrr_on", get: func(m *Measurements) *float64 { return &m.IsAFRROn }},
	{name: "is_dispatch_on", get: func(m *Measurements) *float64 { return &m.IsDispatchOn }},
	{name: "export_curtailment_dso", get: func(m *Measurements) *float64 { return &m.ExportCurtailmentDSO }},
	{name: "import_curtailment_dso", get: func(m *Measurements) *float64 { return &m.ImportCurtailmentDSO }},
	{name: "actual_battery_cycles", get: func(m *Measurements) *float64 { return &m.ActualBatteryCycles }},
	{name: "discharge_throughput", get: func(m *Measurements) *float64 { return &m.DischargeThroughput }},
	{name: "charge_throughput", get: func(m *Measurements) *float64 { return &m.ChargeThroughput }},
	{name: "pv_export_curtailment_dso", pv: true, get: func(m *Measurements) *float64 { return m.PVExportCurtailmentDSO }},
	{name: "pv_irradiance", pv: true, get: func(m *Measurements) *float64 { return m.PVIrradiance }},
	{name: "pv_power_dc_actual", pv: true, get: func(m *Measurements) *float64 { return m.PVPowerDCActual }},
	{name: "pv_inverter_self_consumption", pv: true, get: func(m *Measurements) *float64 { return m.PVInverterSelfConsumption }},
	{name: "pv_switch_status", pv: true, get: func(m *Measurements) *float64 { return m.PVSwitchStatus }},
	{name: "lte_signal_device_1", get: func(m *Measurements) *float64 { return &m.LTESignalDevice1 }},
	{name: "lte_signal_device_2", get: func(m *Measurements) *float64 { return &m.LTESignalDevice2 }},
	{name: "lan_connected_device_1", get: func(m *Measurements) *float64 { return &m.LANConnectedDevice1 }},
	{name: "lan_connected_device_2", get: func(m *Measurements) *float64 { return &m.LANConnectedDevice2 }},
}

// Aliases maps each deprecated measurement name to the point it carries
// (document 1, "Versioning" rule 2).
var Aliases = map[string]string{
	"available_soc_discharge": "available_discharge_energy",
	"available_soc_charge":    "available_charge_energy",
}

// PointNames are the stored measurements in their fixed order: the order
// of Values and of the columns of a stored history chunk. Changing it
// changes the stored format.
func PointNames() []string {
	names := make([]string, len(points))
	for i, p := range points {
		names[i] = p.name
	}
	return names
}

// PointIndex returns the position of a measurement name (canonical or
// deprecated alias) in PointNames.
func PointIndex(name string) (int, bool) {
	if canonical, ok := Aliases[name]; ok {
		name = canonical
	}
	i, ok := pointIndex[name]
	return i, ok
}

var pointIndex = func() map[string]int {
	m := make(map[string]int, len(points))
	for i, p := range points {
		m[p.name] = i
	}
	return m
}()

// NonFinite appends to dst the names of m's measurements that are not
// finite numbers (NaN, ±Inf); an absent PV measurement is no value and
// is not listed. It reads m in place: the alarm engine checks every
// asset's snapshot each second.
func (m *Measurements) NonFinite(dst []string) []string {
	for _, p := range points {
		if v := p.get(m); v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			dst = append(dst, p.name)
		}
	}
	return dst
}

// Values appends m's values in PointNames order to dst; an absent PV
// measurement is NaN.
func (m Measurements) Values(dst []float64) []float64 {
	for _, p := range points {
		v := p.get(&m)
		if v == nil {
			dst = append(dst, math.NaN())
			continue
		}
		dst = append(dst, *v)
	}
	return dst
}

// MeasurementsFromValues rebuilds a snapshot from values in PointNames
// order (the inverse of Values); NaN PV values stay absent and the
// deprecated aliases are filled in.
func MeasurementsFromValues(ts time.Time, values []float64) Measurements {
	m := Measurements{Timestamp: ts}
	for i, p := range points {
		if i >= len(values) {
			break
		}
		x := values[i]
		if p.pv {
			if math.IsNaN(x) {
				continue
			}
			setPV(&m, p.name, x)
			continue
		}
		*p.get(&m) = x
	}
	m.AvailableSoCDischarge = m.AvailableDischargeEnergy
	m.AvailableSoCCharge = m.AvailableChargeEnergy
	return m
}

func setPV(m *Measurements, name string, x float64) {
	switch name {
	case "pv_export_curtailment_dso":
		m.PVExportCurtailmentDSO = &x
	case "pv_irradiance":
		m.PVIrradiance = &x
	case "pv_power_dc_actual":
		m.PVPowerDCActual = &x
	case "pv_inverter_self_consumption":
		m.PVInverterSelfConsumption = &x
	case "pv_switch_status":
		m.PVSwitchStatus = &x
	}
}

// ClearNegativeZeros turns every -0 into 0: a negated zero reservation
// is no reading of its own and would print as "-0".
func (m *Measurements) ClearNegativeZeros() {
	for _, p := range points {
		if v := p.get(m); v != nil && *v == 0 {
			*v = 0
		}
	}
	m.AvailableSoCDischarge = m.AvailableDischargeEnergy
	m.AvailableSoCCharge = m.AvailableChargeEnergy
}
