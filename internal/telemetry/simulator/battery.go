// Package simulator is the battery simulator: an in-memory stand-in for
// real assets. Battery holds the physics of one asset on explicit time
// steps; Simulator keeps many batteries, takes their commands, reports
// their measurements and advances them to the clock's instant on Tick.
// Nothing here reads the machine clock or starts goroutines; the worker
// that calls Tick owns time.
package simulator

import (
	"math"
	"time"

	"atcp/internal/assets"
	"atcp/internal/detrand"
	"atcp/internal/telemetry"
)

// FCRActivationMW is the FCR power a reserve of reservedMW must deliver at
// the grid frequency frequencyHz: the linear droop, full activation at a
// deviation of 200 mHz (discharging below 50 Hz), with no insensitivity
// band. The battery follows it; the FCR reports compare what was
// delivered against it.
func FCRActivationMW(reservedMW, frequencyHz float64) float64 {
	dev := (nominalFrequencyHz - frequencyHz) / fcrFullActivationHz
	return reservedMW * math.Max(-1, math.Min(1, dev))
}

// Physical constants of the model; see docs/telemetry.md.
const (
	nominalFrequencyHz = 50.0
	// fcrFullActivationHz is the frequency deviation at which FCR is fully
	// activated (200 mHz).
	fcrFullActivationHz = 0.2
	// auxiliaryShare is the battery's auxiliary load (HVAC, control) as a
	// share of rated power.
	auxiliaryShare       = 0.001
	pvInverterEfficiency = 0.98
	// pvInverterShare is the PV inverter's own consumption as a share of
	// PV peak power while producing; a tenth of it at night.
	pvInverterShare    = 0.002
	clearSkyIrradiance = 1000.0 // W/m2 at solar noon
	lteBaseDBm         = -75.0
	defaultLongitude   = 10.0 // degrees east, the middle of Germany
	initialSoCShare    = 0.5
)

// Config is the fixed description of one simulated asset.
type Config struct {
	AssetID           string
	EnergyCapacityMWh float64 // usable energy; 0 means the battery cannot store
	PowerCapacityMW   float64 // rated power both ways; 0 means it cannot move
	// Efficiencies in (0, 1]: charging stores ChargeEfficiency of the AC
	// energy, discharging delivers DischargeEfficiency of the stored energy.
	ChargeEfficiency    float64
	DischargeEfficiency float64
	// Ramp rates in MW/s (magnitudes); +Inf is unlimited.
	RampUpMWPerSec   float64
	RampDownMWPerSec float64
	// GridConnectionMW bounds the point of connection; 0 falls back to
	// rated power plus PV peak.
	GridConnectionMW  float64
	GridImportAllowed bool
	PVActive          bool
	PVPeakMW          float64
	LongitudeDeg      float64 // places the PV sun curve on the local day
}

// ConfigFromAsset derives the simulation of a registered asset. Unset
// efficiencies are lossless, unset ramp rates unlimited, unset capacities
// zero (an asset without recorded capacity does not move). PV peak power
// is not a registry field; it is taken as the usable power capacity.
func ConfigFromAsset(a assets.Asset) Config {
	c := Config{
		AssetID:             a.ID,
		ChargeEfficiency:    1,
		DischargeEfficiency: 1,
		RampUpMWPerSec:      math.Inf(1),
		RampDownMWPerSec:    math.Inf(1),
		GridImportAllowed:   a.GridImportPermitted(),
		PVActive:            a.PVActive,
		LongitudeDeg:        defaultLongitude,
	}
	set := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&c.EnergyCapacityMWh, a.UsableEnergyCapacityMWh)
	set(&c.PowerCapacityMW, a.UsablePowerCapacityMW)
	set(&c.ChargeEfficiency, a.ChargeEfficiency)
	set(&c.DischargeEfficiency, a.DischargeEfficiency)
	set(&c.RampUpMWPerSec, a.MaxPosRampRateMWPerSec)
	set(&c.RampDownMWPerSec, a.MinNegRampRateMWPerSec)
	set(&c.GridConnectionMW, a.GridConnectionPowerMW)
	set(&c.LongitudeDeg, a.Longitude)
	if a.PVActive {
		c.PVPeakMW = c.PowerCapacityMW
	}
	return c
}

// GridSignals are the signals the grid operators send straight to the
// asset, bypassing the platform: DSO curtailment percentages (0-100, share
// of the connection that is blocked) and a TSO redispatch amount, which is
// reported but not executed by the model.
type GridSignals struct {
	ExportCurtailmentPct   float64
	ImportCurtailmentPct   float64
	PVExportCurtailmentPct float64
	RedispatchMW           float64
}

// Battery is the state of one simulated asset. It is not safe for
// concurrent use; Simulator serialises access.
type Battery struct {
	cfg       Config
	cmd       telemetry.Command
	grid      GridSignals
	frequency float64
	noiseKey  uint64
	now       time.Time
	faults    Faults
	driftSign float64 // the SoC drift's direction while SoCDrift is on: +1 up, -1 down

	socMWh  float64
	powerMW float64 // battery AC power, positive = discharge
	// Split of powerMW: balancing has priority in the EMS, so ramp lag and
	// clamping show in the dispatch share.
	fcrMW, afrrMW  float64
	fcrSetpointMW  float64
	afrrSetpointMW float64
	availChargeMW  float64
	availDischMW   float64

	chargeMWh, dischargeMWh float64 // AC throughput since commissioning
	irradiance, pvDCMW      float64
	pvCapMW                 float64
}

// NewBattery returns a battery at half charge, idle, at instant now,
// with noise drawn from seed.
func NewBattery(cfg Config, seed uint64, now time.Time) *Battery {
	b := &Battery{
		cfg:       cfg,
		cmd:       telemetry.Command{ControlMode: telemetry.Passive},
		frequency: nominalFrequencyHz,
		noiseKey:  seed ^ detrand.Hash(cfg.AssetID),
		now:       now,
		socMWh:    cfg.EnergyCapacityMWh * initialSoCShare,
	}
	b.updatePV()
	b.updateAvailability()
	return b
}

// SetCommand replaces the command in force; the battery follows it from
// the next step on.
func (b *Battery) SetCommand(cmd telemetry.Command) { b.cmd = cmd }

// SetGridSignals replaces the grid operators' signals.
func (b *Battery) SetGridSignals(g GridSignals) { b.grid = g }

// SetFrequency sets the grid frequency the battery measures (Hz).
func (b *Battery) SetFrequency(hz float64) { b.frequency = hz }

// SoCMWh is the stored energy.
func (b *Battery) SoCMWh() float64 { return b.socMWh }

// PowerMW is the battery AC power, positive = discharge.
func (b *Battery) PowerMW() float64 { return b.powerMW }

// Now is the instant the battery's state describes.
func (b *Battery) Now() time.Time { return b.now }

// limits returns the signed battery power bounds the asset may use now:
// none with its grid switch open, else rated power narrowed by the
// command's power limits and unavailability,
// then by the DSO's curtailment of the point of connection (PV output
// counts against export and covers part of any charging). When the
// command's range and the DSO's range do not overlap, the DSO wins: its
// signal protects the grid and reaches the asset directly.
func (b *Battery) limits() (lower, upper float64) {
	if b.cmd.Unavailable || b.faults.GridSwitchOpen {
		return 0, 0
	}
	rated := b.cfg.PowerCapacityMW
	lower, upper = -rated, rated
	if b.cmd.MaxPowerMW != nil {
		upper = math.Max(-rated, math.Min(upper, *b.cmd.MaxPowerMW))
	}
	if b.cmd.MinPowerMW != nil {
		lower = math.Min(rated, math.Max(lower, *b.cmd.MinPowerMW))
	}
	conn := b.cfg.GridConnectionMW
	if conn <= 0 {
		conn = rated + b.cfg.PVPeakMW
	}
	pv := b.pvACMW()
	importCap := conn * (1 - b.grid.ImportCurtailmentPct/100)
	if !b.cfg.GridImportAllowed {
		importCap = 0
	}
	dsoLower := math.Max(-rated, -(importCap + pv))
	dsoUpper := math.Max(dsoLower, math.Min(rated, conn*(1-b.grid.ExportCurtailmentPct/100)-pv))
	switch {
	case upper < dsoLower:
		return dsoLower, dsoLower
	case lower > dsoUpper:
		return dsoUpper, dsoUpper
	}
	return math.Max(lower, dsoLower), math.Min(upper, dsoUpper)
}

// updateAvailability recomputes the power left for the schedule once the
// reserved balancing capacity is held back.
func (b *Battery) updateAvailability() {
	lower, upper := b.limits()
	b.availDischMW = max(0, upper-b.cmd.FCRReservedMW-b.cmd.AFRRReservedPosMW)
	b.availChargeMW = max(0, -lower-b.cmd.FCRReservedMW-b.cmd.AFRRReservedNegMW)
}

// scheduleTarget is the battery power the control mode asks for.
func (b *Battery) scheduleTarget() float64 {
	switch b.cmd.ControlMode {
	case telemetry.BESSOnly:
		return b.cmd.BESSPowerMW
	case telemetry.BESSAndPoC, telemetry.PoCOnly:
		// The point-of-connection target has priority: the battery makes up
		// the difference to the PV output.
		if b.cmd.PoCPowerMW != nil {
			return *b.cmd.PoCPowerMW - b.pvACMW()
		}
	}
	return 0
}

// Step advances the battery by dt: PV and limits first, then the power
// target (schedule within the headroom, plus FCR and aFRR activation),
// the ramp, the hard clamps (limits and the SoC window), and last the
// energy integration and counters. Active faults act in their places
// (fault.go): zero limits with the grid switch open, half the aFRR
// activation, the power held before the SoC window, the drift last.
func (b *Battery) Step(dt time.Duration) {
	if dt <= 0 {
		return
	}
	b.now = b.now.Add(dt)
	sec := dt.Seconds()
	b.updatePV()
	b.updateAvailability()
	lower, upper := b.limits()

	b.fcrSetpointMW, b.afrrSetpointMW = 0, 0
	if !b.cmd.Unavailable {
		b.fcrSetpointMW = FCRActivationMW(b.cmd.FCRReservedMW, b.frequency)
		b.afrrSetpointMW = math.Max(-b.cmd.AFRRReservedNegMW, math.Min(b.cmd.AFRRReservedPosMW, b.cmd.AFRRSetpointMW))
	}
	afrr := b.afrrSetpointMW
	if b.faults.AFRRUnderdelivery {
		afrr *= afrrDeliveredShare
	}
	schedule := math.Max(-b.availChargeMW, math.Min(b.availDischMW, b.scheduleTarget()))
	target := math.Max(lower, math.Min(upper, schedule+b.fcrSetpointMW+afrr))

	p := b.powerMW + math.Max(-b.cfg.RampDownMWPerSec*sec, math.Min(b.cfg.RampUpMWPerSec*sec, target-b.powerMW))
	p = math.Max(lower, math.Min(upper, p))
	stuck := b.faults.SetpointIgnored && !b.faults.GridSwitchOpen
	if stuck {
		p = b.powerMW
	}
	// The SoC window: never discharge below soc_min or charge above soc_max
	// within this step.
	socMin, socMax := b.socWindow()
	maxDisch := math.Max(0, b.socMWh-socMin) * b.cfg.DischargeEfficiency * 3600 / sec
	maxCharge := math.Max(0, socMax-b.socMWh) / b.cfg.ChargeEfficiency * 3600 / sec
	p = math.Max(-maxCharge, math.Min(maxDisch, p))
	b.powerMW = p

	energy := p * sec / 3600
	before := b.socMWh
	if energy > 0 {
		b.socMWh -= energy / b.cfg.DischargeEfficiency
		b.dischargeMWh += energy
	} else {
		b.socMWh -= energy * b.cfg.ChargeEfficiency
		b.chargeMWh -= energy
	}
	// Rounding may not push the SoC out of the window, nor may the window
	// move a SoC it found outside: the battery then only moves back in.
	b.socMWh = math.Max(math.Min(socMin, before), math.Min(math.Max(socMax, before), b.socMWh))

	b.fcrMW, b.afrrMW = b.fcrSetpointMW, afrr
	if p == 0 || stuck {
		b.fcrMW, b.afrrMW = 0, 0
	}
	if b.faults.SoCDrift {
		// Off the energy balance and off the window, within the cells.
		drift := b.driftSign * socDriftSharePerHour * b.cfg.EnergyCapacityMWh * sec / 3600
		b.socMWh = math.Max(0, math.Min(b.cfg.EnergyCapacityMWh, b.socMWh+drift))
	}
}

// socWindow is the allowable energy window (MWh): the whole usable
// capacity, which the registry already states net of reserves, narrowed
// by the command's energy limits.
func (b *Battery) socWindow() (lo, hi float64) {
	lo, hi = 0, b.cfg.EnergyCapacityMWh
	if b.cmd.MinEnergyMWh != nil {
		lo = math.Min(hi, math.Max(lo, *b.cmd.MinEnergyMWh))
	}
	if b.cmd.MaxEnergyMWh != nil {
		hi = math.Max(lo, math.Min(hi, *b.cmd.MaxEnergyMWh))
	}
	return lo, hi
}

// State is what a battery carries from one instance to the next: the
// physics that a restart must not lose.
type State struct {
	At                     time.Time // the instant the state describes
	SoCMWh                 float64
	PowerMW                float64 // battery AC power, positive = discharge
	ChargeThroughputMWh    float64
	DischargeThroughputMWh float64
}

// StateFrom recovers a battery's state from its measurements: the SoC
// from the energy left above the window's floor (or, at the floor, below
// its ceiling), undoing the efficiencies the measurements include.
func (c Config) StateFrom(m telemetry.Measurements) State {
	soc := m.SoCMin + m.AvailableDischargeEnergy/c.DischargeEfficiency
	if m.AvailableDischargeEnergy <= 0 {
		soc = m.SoCMax - m.AvailableChargeEnergy*c.ChargeEfficiency
	}
	return State{
		At:                     m.Timestamp,
		SoCMWh:                 math.Max(0, math.Min(c.EnergyCapacityMWh, soc)),
		PowerMW:                m.BatteryPowerActualAC,
		ChargeThroughputMWh:    m.ChargeThroughput,
		DischargeThroughputMWh: m.DischargeThroughput,
	}
}

// Restore puts the battery in state st: it continues from st.At, so a
// later Step or Tick simulates the time since under the command in force.
func (b *Battery) Restore(st State) {
	b.now = st.At
	b.socMWh = math.Max(0, math.Min(b.cfg.EnergyCapacityMWh, st.SoCMWh))
	b.powerMW = st.PowerMW
	b.chargeMWh, b.dischargeMWh = st.ChargeThroughputMWh, st.DischargeThroughputMWh
	b.fcrMW, b.afrrMW = 0, 0
	b.updatePV()
	b.updateAvailability()
}

// SetConfig replaces the asset's description, keeping its state; the
// stored energy is cut to a smaller capacity.
func (b *Battery) SetConfig(cfg Config) {
	b.cfg = cfg
	b.socMWh = math.Min(b.socMWh, cfg.EnergyCapacityMWh)
	b.updatePV()
	b.updateAvailability()
}

// updatePV computes irradiance and PV output at b.now: a clear-sky sine
// over the local solar day (06:00 to 18:00 solar time) scaled by a
// per-minute cloud factor drawn deterministically from the seed.
func (b *Battery) updatePV() {
	if !b.cfg.PVActive {
		return
	}
	t := b.now.UTC()
	solarHours := float64(t.Hour()) + float64(t.Minute())/60 + float64(t.Second())/3600 + b.cfg.LongitudeDeg/15
	solarHours = math.Mod(solarHours+24, 24)
	sun := math.Max(0, math.Sin(math.Pi*(solarHours-6)/12))
	cloud := 1 - 0.3*detrand.Uniform(b.noiseKey, uint64(t.Unix()/60))
	b.irradiance = clearSkyIrradiance * sun * cloud
	b.pvCapMW = b.cfg.PVPeakMW * (1 - b.grid.PVExportCurtailmentPct/100)
	b.pvDCMW = math.Min(b.pvCapMW, b.cfg.PVPeakMW*b.irradiance/clearSkyIrradiance)
	if b.faults.GridSwitchOpen {
		// The PV inverter follows the grid: it stops with the switch open.
		b.pvDCMW = 0
	}
}

func (b *Battery) pvACMW() float64 {
	if !b.cfg.PVActive {
		return 0
	}
	return math.Max(0, b.pvDCMW*pvInverterEfficiency-b.pvInverterSelfConsumption())
}

func (b *Battery) pvInverterSelfConsumption() float64 {
	if b.irradiance > 0 {
		return b.cfg.PVPeakMW * pvInverterShare
	}
	return b.cfg.PVPeakMW * pvInverterShare / 10
}

// Measurements reports every measurement of document 1 at b.now.
func (b *Battery) Measurements() telemetry.Measurements {
	flag := func(on bool) float64 {
		if on {
			return 1
		}
		return 0
	}
	socMin, socMax := b.socWindow()
	dischargeEnergy := math.Max(0, b.socMWh-socMin) * b.cfg.DischargeEfficiency
	chargeEnergy := math.Max(0, socMax-b.socMWh) / b.cfg.ChargeEfficiency
	dc := b.powerMW / b.cfg.DischargeEfficiency
	if b.powerMW < 0 {
		dc = b.powerMW * b.cfg.ChargeEfficiency
	}
	var cycles float64
	if b.cfg.EnergyCapacityMWh > 0 {
		cycles = (b.chargeMWh + b.dischargeMWh) / (2 * b.cfg.EnergyCapacityMWh)
	}
	var poc float64
	if b.cmd.PoCPowerMW != nil {
		poc = *b.cmd.PoCPowerMW
	}
	status := flag(!b.cmd.Unavailable)
	minute := b.now.Unix() / 60
	m := telemetry.Measurements{
		Timestamp:         b.now,
		AssetStatus:       status,
		OperationalStatus: status,

		FCRUpperLimit:  b.cmd.FCRReservedMW,
		FCRLowerLimit:  -b.cmd.FCRReservedMW,
		AFRRUpperLimit: b.cmd.AFRRReservedPosMW,
		AFRRLowerLimit: -b.cmd.AFRRReservedNegMW,

		FCRPowerActual:      b.fcrMW,
		AFRRPowerActual:     b.afrrMW,
		DispatchPowerActual: b.powerMW - b.fcrMW - b.afrrMW,

		FCRPowerSetpoint:   b.fcrSetpointMW,
		AFRRSetpoint:       b.afrrSetpointMW,
		DispatchSetpoint:   b.cmd.BESSPowerMW,
		Dispatch15Setpoint: b.cmd.Dispatch15PowerMW,
		PoCSetpoint:        poc,
		PVPowerSetpoint:    b.pvCapMW,
		ControlMode:        float64(b.cmd.ControlMode.Code()),

		AvailablePowerCharge:    b.availChargeMW,
		AvailablePowerDischarge: b.availDischMW,
		SoCMin:                  socMin,
		SoCMax:                  socMax,

		AvailableDischargeEnergy: dischargeEnergy,
		AvailableChargeEnergy:    chargeEnergy,
		AvailableSoCDischarge:    dischargeEnergy,
		AvailableSoCCharge:       chargeEnergy,

		PoCPowerActualAC:     b.powerMW + b.pvACMW(),
		BatteryPowerActualAC: b.powerMW,
		BatteryPowerActualDC: dc,

		GridSwitchStatus: flag(!b.faults.GridSwitchOpen),
		RedispatchActive: flag(b.grid.RedispatchMW != 0),
		RedispatchAmount: b.grid.RedispatchMW,
		SelfConsumption:  b.cfg.PowerCapacityMW * auxiliaryShare,
		Frequency:        b.frequency,

		IsFCROn:      flag(b.cmd.FCRReservedMW > 0 && !b.cmd.Unavailable),
		IsAFRROn:     flag(b.cmd.AFRRReservedPosMW+b.cmd.AFRRReservedNegMW > 0 && !b.cmd.Unavailable),
		IsDispatchOn: flag(b.cmd.ControlMode != telemetry.Passive && !b.cmd.Unavailable),

		ExportCurtailmentDSO: b.grid.ExportCurtailmentPct,
		ImportCurtailmentDSO: b.grid.ImportCurtailmentPct,

		ActualBatteryCycles: cycles,
		DischargeThroughput: b.dischargeMWh,
		ChargeThroughput:    b.chargeMWh,

		LTESignalDevice1:    math.Round(lteBaseDBm + 10*(detrand.Uniform(b.noiseKey^1, uint64(minute))-0.5)),
		LTESignalDevice2:    math.Round(lteBaseDBm + 10*(detrand.Uniform(b.noiseKey^2, uint64(minute))-0.5)),
		LANConnectedDevice1: 1,
		LANConnectedDevice2: 1,
	}
	if b.cfg.PVActive {
		m.PVExportCurtailmentDSO = new(b.grid.PVExportCurtailmentPct)
		m.PVIrradiance = new(b.irradiance)
		m.PVPowerDCActual = new(b.pvDCMW)
		m.PVInverterSelfConsumption = new(b.pvInverterSelfConsumption())
		m.PVSwitchStatus = new(1.0)
	}
	m.ClearNegativeZeros()
	return m
}
