package alarms

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"atcp/internal/assets"
	"atcp/internal/telemetry"
)

// Input is everything the rules judge one asset by at one instant.
type Input struct {
	Asset *assets.Asset
	// Latest is the asset's latest stored measurements; nil when it never
	// reported.
	Latest *telemetry.Measurements
	// Age is how old Latest is (now minus its timestamp); StaleAfter the
	// age beyond which it no longer tells the asset's present state
	// (assetstate's bound: 5 s of real time on the platform's timeline).
	// StaleAfter 0 is never stale.
	Age        time.Duration
	StaleAfter time.Duration
	// PowerLimit is the power limit active now, nil when none.
	PowerLimit *Bounds
	// Unavailable: a full unavailability or a full restriction is active
	// now; the asset must not move.
	Unavailable bool
	// ImmediateDispatch: an immediate dispatch (an unrestricted override)
	// is active now.
	ImmediateDispatch bool
}

// Bounds are signed power bounds (MW): Upper the most discharge, Lower
// the most charge (negative).
type Bounds struct{ Upper, Lower float64 }

// Stale reports whether the latest measurements are too old to tell the
// asset's present state.
func (in *Input) Stale() bool {
	return in.Latest != nil && in.StaleAfter > 0 && in.Age > in.StaleAfter
}

// fresh reports whether the latest measurements tell the present state.
func (in *Input) fresh() bool { return in.Latest != nil && !in.Stale() }

func deref(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

// num prints x with at most three decimals.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64)
}

func seconds(d time.Duration) string { return num(d.Seconds()) }

// measuredFact says when the measurements were taken.
func measuredFact(in *Input) string {
	return fmt.Sprintf("measurements of %s, %s s old", in.Latest.Timestamp.UTC().Format(time.RFC3339), seconds(in.Age))
}

// TELEMETRY-001

func telemetryCond(in *Input) Outcome {
	switch {
	case in.Latest == nil:
		return Unknown
	case in.Stale():
		return Holds
	}
	return Clear
}

func telemetryFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"the asset has never reported"}
	}
	return []string{
		fmt.Sprintf("latest measurements at %s, %s s old", in.Latest.Timestamp.UTC().Format(time.RFC3339), seconds(in.Age)),
		fmt.Sprintf("staleness bound %s s", seconds(in.StaleAfter)),
	}
}

// COMMS-001

// noSignal: an LTE signal at or below -110 dBm, or 0 (no modem reading).
func noSignal(dBm float64) bool { return dBm <= -110 || dBm == 0 }

func linksDown(m *telemetry.Measurements) bool {
	return m.LANConnectedDevice1 == 0 && m.LANConnectedDevice2 == 0 && noSignal(m.LTESignalDevice1) && noSignal(m.LTESignalDevice2)
}

func commsCond(in *Input) Outcome {
	if !in.fresh() {
		return Unknown
	}
	m := in.Latest
	if (m.AssetStatus == 0 && !in.Unavailable) || linksDown(m) {
		return Holds
	}
	return Clear
}

func commsFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	m := in.Latest
	status := fmt.Sprintf("asset_status %s", num(m.AssetStatus))
	if in.Unavailable {
		status += " (a platform restriction is active)"
	}
	return []string{status,
		fmt.Sprintf("lan_connected_device_1 %s, lan_connected_device_2 %s", num(m.LANConnectedDevice1), num(m.LANConnectedDevice2)),
		fmt.Sprintf("lte_signal_device_1 %s dBm, lte_signal_device_2 %s dBm", num(m.LTESignalDevice1), num(m.LTESignalDevice2)),
		measuredFact(in)}
}

// GRID-001

func gridCond(in *Input) Outcome {
	switch {
	case !in.fresh():
		return Unknown
	case in.Latest.GridSwitchStatus == 0:
		return Holds
	}
	return Clear
}

func gridFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	state := "connected"
	if in.Latest.GridSwitchStatus == 0 {
		state = "open"
	}
	return []string{fmt.Sprintf("grid_switch_status %s (%s)", num(in.Latest.GridSwitchStatus), state), measuredFact(in)}
}

// SOC-001

// socEstimate derives the stored energy from the available energies: low
// is exact while the energy is at most soc_max, high while it is at least
// soc_min, so that an energy below the window shows in low and one above
// it in high. ok is false for a window that is no window.
func socEstimate(in *Input) (low, high, tol float64, ok bool) {
	m := in.Latest
	if m.SoCMin > m.SoCMax || math.IsNaN(m.SoCMin) || math.IsNaN(m.SoCMax) {
		return 0, 0, 0, false
	}
	etaC, etaD := deref(in.Asset.ChargeEfficiency, 1), deref(in.Asset.DischargeEfficiency, 1)
	high = m.SoCMin + m.AvailableDischargeEnergy/etaD
	low = m.SoCMax - m.AvailableChargeEnergy*etaC
	tol = math.Max(0.01, 0.005*deref(in.Asset.UsableEnergyCapacityMWh, 0))
	return low, high, tol, true
}

func socCond(in *Input) Outcome {
	if !in.fresh() {
		return Unknown
	}
	low, high, tol, ok := socEstimate(in)
	switch {
	case !ok:
		return Unknown
	case low < in.Latest.SoCMin-tol || high > in.Latest.SoCMax+tol:
		return Holds
	}
	return Clear
}

func socFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	m := in.Latest
	facts := []string{fmt.Sprintf("window soc_min %s MWh, soc_max %s MWh", num(m.SoCMin), num(m.SoCMax)),
		fmt.Sprintf("available_discharge_energy %s MWh, available_charge_energy %s MWh",
			num(m.AvailableDischargeEnergy), num(m.AvailableChargeEnergy))}
	if low, high, _, ok := socEstimate(in); ok {
		soc := low
		if high > m.SoCMax {
			soc = high
		}
		facts = append(facts, fmt.Sprintf("derived stored energy %s MWh", num(soc)))
	}
	return append(facts, measuredFact(in))
}

// DISPATCH-001

// dispatchExpected is the power the battery should dispatch: the setpoint
// within the available power and any active power limit; ok is false when
// the platform does not steer the battery now.
func dispatchExpected(in *Input) (expected, tol float64, ok bool) {
	m := in.Latest
	if !in.Asset.BESSControl() || m.AssetStatus == 0 || in.Unavailable || m.IsDispatchOn == 0 {
		return 0, 0, false
	}
	expected = math.Max(-m.AvailablePowerCharge, math.Min(m.AvailablePowerDischarge, m.DispatchSetpoint))
	if in.PowerLimit != nil && !in.ImmediateDispatch {
		expected = math.Max(in.PowerLimit.Lower, math.Min(in.PowerLimit.Upper, expected))
	}
	tol = math.Max(0.5, 0.05*deref(in.Asset.UsablePowerCapacityMW, 0))
	return expected, tol, true
}

func dispatchCond(in *Input) Outcome {
	if !in.fresh() {
		return Unknown
	}
	expected, tol, ok := dispatchExpected(in)
	if ok && math.Abs(in.Latest.DispatchPowerActual-expected) > tol {
		return Holds
	}
	return Clear
}

func dispatchFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	m := in.Latest
	expected, tol, ok := dispatchExpected(in)
	if !ok {
		return []string{"the platform does not steer the battery now", measuredFact(in)}
	}
	return []string{
		fmt.Sprintf("dispatch_setpoint %s MW, achievable %s MW", num(m.DispatchSetpoint), num(expected)),
		fmt.Sprintf("dispatch_power_actual %s MW, deviation %s MW (tolerance %s MW)", num(m.DispatchPowerActual),
			num(math.Abs(m.DispatchPowerActual-expected)), num(tol)),
		measuredFact(in)}
}

// AFRR-001

const (
	afrrMinActivationMW = 0.5
	afrrMinFillRate     = 0.9
)

func afrrCond(in *Input) Outcome {
	if !in.fresh() {
		return Unknown
	}
	m := in.Latest
	switch {
	case m.IsAFRROn == 0:
		return Clear
	case math.Abs(m.AFRRSetpoint) < afrrMinActivationMW:
		return Unknown
	case m.AFRRPowerActual/m.AFRRSetpoint < afrrMinFillRate:
		return Holds
	}
	return Clear
}

func afrrFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	m := in.Latest
	facts := []string{fmt.Sprintf("afrr_setpoint %s MW, afrr_power_actual %s MW", num(m.AFRRSetpoint), num(m.AFRRPowerActual))}
	if m.AFRRSetpoint != 0 {
		facts = append(facts, fmt.Sprintf("fill rate %s %% (minimum %s %%)", num(100*m.AFRRPowerActual/m.AFRRSetpoint), num(100*afrrMinFillRate)))
	}
	return append(facts, measuredFact(in))
}

// FCR-001

const (
	nominalHz        = 50.0
	fcrFullHz        = 0.2  // deviation of full activation
	fcrJudgedHz      = 0.05 // smallest deviation judged
	fcrMinResponse   = 0.5  // share of the called response that must be delivered
	plausibleHzLower = 45.0
	plausibleHzUpper = 55.0
)

// fcrCalled is the response (MW, signed) the frequency calls for.
func fcrCalled(m *telemetry.Measurements) float64 {
	return m.FCRUpperLimit * math.Max(-1, math.Min(1, (nominalHz-m.Frequency)/fcrFullHz))
}

func fcrCond(in *Input) Outcome {
	if !in.fresh() {
		return Unknown
	}
	m := in.Latest
	switch {
	case m.IsFCROn == 0 || m.FCRUpperLimit <= 0:
		return Clear
	case m.Frequency < plausibleHzLower || m.Frequency > plausibleHzUpper || math.Abs(m.Frequency-nominalHz) < fcrJudgedHz:
		return Unknown
	}
	called := fcrCalled(m)
	if m.FCRPowerActual*math.Copysign(1, called) < fcrMinResponse*math.Abs(called) {
		return Holds
	}
	return Clear
}

func fcrFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	m := in.Latest
	return []string{
		fmt.Sprintf("frequency %s Hz, reserved %s MW", num(m.Frequency), num(m.FCRUpperLimit)),
		fmt.Sprintf("called response %s MW, fcr_power_actual %s MW", num(fcrCalled(m)), num(m.FCRPowerActual)),
		measuredFact(in)}
}

// LIMIT-001

// limitBounds are the bounds the battery's power must keep to now; ok is
// false when none binds it.
func limitBounds(in *Input) (b Bounds, tol float64, ok bool) {
	tol = math.Max(0.1, 0.01*deref(in.Asset.UsablePowerCapacityMW, 0))
	switch {
	case in.ImmediateDispatch:
		return Bounds{}, tol, false
	case in.Unavailable:
		return Bounds{}, tol, true
	case in.PowerLimit != nil:
		return *in.PowerLimit, tol, true
	}
	return Bounds{}, tol, false
}

func limitCond(in *Input) Outcome {
	if !in.fresh() {
		return Unknown
	}
	b, tol, ok := limitBounds(in)
	p := in.Latest.BatteryPowerActualAC
	if ok && (p > b.Upper+tol || p < b.Lower-tol) {
		return Holds
	}
	return Clear
}

func limitFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	b, tol, ok := limitBounds(in)
	p := in.Latest.BatteryPowerActualAC
	var limit string
	switch {
	case !ok && in.ImmediateDispatch:
		limit = "an immediate dispatch overrides the limits"
	case !ok:
		limit = "no power limit active"
	case in.Unavailable:
		limit = "unavailable: limit 0 MW"
	default:
		limit = fmt.Sprintf("power limit [%s, %s] MW (tolerance %s MW)", num(b.Lower), num(b.Upper), num(tol))
	}
	return []string{fmt.Sprintf("battery_power_actual_ac %s MW", num(p)), limit, measuredFact(in)}
}

// PLAUS-001

// implausible lists what no battery can measure; with explain false it
// stops at the first finding and builds no text.
func implausible(in *Input, explain bool) (found bool, facts []string) {
	m := in.Latest
	add := func(format string, args ...any) bool {
		found = true
		if explain {
			facts = append(facts, fmt.Sprintf(format, args...))
		}
		return !explain
	}
	for _, name := range m.NonFinite(nil) {
		if add("%s is not a finite number", name) {
			return
		}
	}
	power, energy := deref(in.Asset.UsablePowerCapacityMW, 0), deref(in.Asset.UsableEnergyCapacityMWh, 0)
	const eps = 1e-6
	if power > 0 && math.Abs(m.BatteryPowerActualAC) > 1.1*power+eps {
		if add("battery_power_actual_ac %s MW beyond 110 %% of the usable power capacity %s MW", num(m.BatteryPowerActualAC), num(power)) {
			return
		}
	}
	if m.SoCMin > m.SoCMax+eps || m.SoCMin < -eps {
		if add("soc_min %s MWh, soc_max %s MWh", num(m.SoCMin), num(m.SoCMax)) {
			return
		}
	}
	if energy > 0 && m.SoCMax > 1.05*energy+eps {
		if add("soc_max %s MWh beyond 105 %% of the usable energy capacity %s MWh", num(m.SoCMax), num(energy)) {
			return
		}
	}
	if m.AvailableDischargeEnergy < -eps || m.AvailableChargeEnergy < -eps {
		if add("available_discharge_energy %s MWh, available_charge_energy %s MWh", num(m.AvailableDischargeEnergy), num(m.AvailableChargeEnergy)) {
			return
		}
	}
	if m.Frequency < plausibleHzLower || m.Frequency > plausibleHzUpper {
		if add("frequency %s Hz outside 45-55 Hz", num(m.Frequency)) {
			return
		}
	}
	if m.GridSwitchStatus != 0 && m.GridSwitchStatus != 1 {
		add("grid_switch_status %s is neither 0 nor 1", num(m.GridSwitchStatus))
	}
	return found, facts
}

func plausCond(in *Input) Outcome {
	if !in.fresh() {
		return Unknown
	}
	if found, _ := implausible(in, false); found {
		return Holds
	}
	return Clear
}

func plausFacts(in *Input) []string {
	if in.Latest == nil {
		return []string{"no measurements"}
	}
	_, facts := implausible(in, true)
	if len(facts) == 0 {
		facts = []string{"every measurement is plausible"}
	}
	return append(facts, measuredFact(in))
}
