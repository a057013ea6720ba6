package telemetry

import (
	"math"
	"time"
	"unsafe"
)

// point is one measurement of document 1 with where it lives in
// Measurements. Deprecated aliases are not points of their own: they are
// served from the field they alias (see Aliases).
type point struct {
	name string
	// off is the field's offset in Measurements: a float64, or a *float64
	// for PV. An accessor function per point made every call that passed
	// a snapshot to it move the snapshot to the heap (a function value's
	// argument escapes), 380 MB in 30 s at 10,000 assets between the
	// control loop and the alarm engine (docs/performance.md).
	off uintptr
	// pv marks the PV measurements, present only for pv_active assets.
	pv bool
}

// get returns where p's value lives in m, nil for an absent PV value.
func (p point) get(m *Measurements) *float64 {
	at := unsafe.Add(unsafe.Pointer(m), p.off)
	if p.pv {
		return *(**float64)(at)
	}
	return (*float64)(at)
}

var points = []point{
	{name: "asset_status", off: unsafe.Offsetof(Measurements{}.AssetStatus)},
	{name: "operational_status", off: unsafe.Offsetof(Measurements{}.OperationalStatus)},
	{name: "fcr_upper_limit", off: unsafe.Offsetof(Measurements{}.FCRUpperLimit)},
	{name: "fcr_lower_limit", off: unsafe.Offsetof(Measurements{}.FCRLowerLimit)},
	{name: "afrr_upper_limit", off: unsafe.Offsetof(Measurements{}.AFRRUpperLimit)},
	{name: "afrr_lower_limit", off: unsafe.Offsetof(Measurements{}.AFRRLowerLimit)},
	{name: "fcr_power_actual", off: unsafe.Offsetof(Measurements{}.FCRPowerActual)},
	{name: "afrr_power_actual", off: unsafe.Offsetof(Measurements{}.AFRRPowerActual)},
	{name: "dispatch_power_actual", off: unsafe.Offsetof(Measurements{}.DispatchPowerActual)},
	{name: "fcr_power_setpoint", off: unsafe.Offsetof(Measurements{}.FCRPowerSetpoint)},
	{name: "afrr_setpoint", off: unsafe.Offsetof(Measurements{}.AFRRSetpoint)},
	{name: "dispatch_setpoint", off: unsafe.Offsetof(Measurements{}.DispatchSetpoint)},
	{name: "dispatch15_setpoint", off: unsafe.Offsetof(Measurements{}.Dispatch15Setpoint)},
	{name: "poc_setpoint", off: unsafe.Offsetof(Measurements{}.PoCSetpoint)},
	{name: "pv_power_setpoint", off: unsafe.Offsetof(Measurements{}.PVPowerSetpoint)},
	{name: "control_mode", off: unsafe.Offsetof(Measurements{}.ControlMode)},
	{name: "available_power_charge", off: unsafe.Offsetof(Measurements{}.AvailablePowerCharge)},
	{name: "available_power_discharge", off: unsafe.Offsetof(Measurements{}.AvailablePowerDischarge)},
	{name: "soc_min", off: unsafe.Offsetof(Measurements{}.SoCMin)},
	{name: "soc_max", off: unsafe.Offsetof(Measurements{}.SoCMax)},
	{name: "available_discharge_energy", off: unsafe.Offsetof(Measurements{}.AvailableDischargeEnergy)},
	{name: "available_charge_energy", off: unsafe.Offsetof(Measurements{}.AvailableChargeEnergy)},
	{name: "poc_power_actual_ac", off: unsafe.Offsetof(Measurements{}.PoCPowerActualAC)},
	{name: "battery_power_actual_ac", off: unsafe.Offsetof(Measurements{}.BatteryPowerActualAC)},
	{name: "battery_power_actual_dc", off: unsafe.Offsetof(Measurements{}.BatteryPowerActualDC)},
	{name: "grid_switch_status", off: unsafe.Offsetof(Measurements{}.GridSwitchStatus)},
	{name: "redispatch_active", off: unsafe.Offsetof(Measurements{}.RedispatchActive)},
	{name: "redispatch_amount", off: unsafe.Offsetof(Measurements{}.RedispatchAmount)},
	{name: "self_consumption", off: unsafe.Offsetof(Measurements{}.SelfConsumption)},
	{name: "frequency", off: unsafe.Offsetof(Measurements{}.Frequency)},
	{name: "is_fcr_on", off: unsafe.Offsetof(Measurements{}.IsFCROn)},
	{name: "is_afrr_on", off: unsafe.Offsetof(Measurements{}.IsAFRROn)},
	{name: "is_dispatch_on", off: unsafe.Offsetof(Measurements{}.IsDispatchOn)},
	{name: "export_curtailment_dso", off: unsafe.Offsetof(Measurements{}.ExportCurtailmentDSO)},
	{name: "import_curtailment_dso", off: unsafe.Offsetof(Measurements{}.ImportCurtailmentDSO)},
	{name: "actual_battery_cycles", off: unsafe.Offsetof(Measurements{}.ActualBatteryCycles)},
	{name: "discharge_throughput", off: unsafe.Offsetof(Measurements{}.DischargeThroughput)},
	{name: "charge_throughput", off: unsafe.Offsetof(Measurements{}.ChargeThroughput)},
	{name: "pv_export_curtailment_dso", pv: true, off: unsafe.Offsetof(Measurements{}.PVExportCurtailmentDSO)},
	{name: "pv_irradiance", pv: true, off: unsafe.Offsetof(Measurements{}.PVIrradiance)},
	{name: "pv_power_dc_actual", pv: true, off: unsafe.Offsetof(Measurements{}.PVPowerDCActual)},
	{name: "pv_inverter_self_consumption", pv: true, off: unsafe.Offsetof(Measurements{}.PVInverterSelfConsumption)},
	{name: "pv_switch_status", pv: true, off: unsafe.Offsetof(Measurements{}.PVSwitchStatus)},
	{name: "lte_signal_device_1", off: unsafe.Offsetof(Measurements{}.LTESignalDevice1)},
	{name: "lte_signal_device_2", off: unsafe.Offsetof(Measurements{}.LTESignalDevice2)},
	{name: "lan_connected_device_1", off: unsafe.Offsetof(Measurements{}.LANConnectedDevice1)},
	{name: "lan_connected_device_2", off: unsafe.Offsetof(Measurements{}.LANConnectedDevice2)},
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
func (m *Measurements) Values(dst []float64) []float64 {
	for _, p := range points {
		v := p.get(m)
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
			pv := x // allocated here only, not for every point
			*(**float64)(unsafe.Add(unsafe.Pointer(&m), p.off)) = &pv
			continue
		}
		*p.get(&m) = x
	}
	m.AvailableSoCDischarge = m.AvailableDischargeEnergy
	m.AvailableSoCCharge = m.AvailableChargeEnergy
	return m
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
