package simulator

import (
	"math"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/telemetry"
)

var start = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)

func cfg() Config {
	return Config{
		AssetID: "a1", EnergyCapacityMWh: 20, PowerCapacityMW: 10,
		ChargeEfficiency: 1, DischargeEfficiency: 1,
		RampUpMWPerSec: math.Inf(1), RampDownMWPerSec: math.Inf(1),
		GridImportAllowed: true,
	}
}

func f(v float64) *float64 { return &v }

func bess(p float64) telemetry.Command {
	return telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: p}
}

// run steps b one second at a time.
func run(b *Battery, seconds int) {
	for range seconds {
		b.Step(time.Second)
	}
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %.9f, want %.9f", name, got, want)
	}
}

func TestSoCIntegration(t *testing.T) {
	tests := []struct {
		name       string
		chargeEff  float64
		dischEff   float64
		power      float64
		seconds    int
		wantSoC    float64
		wantDC     float64
		wantDisch  float64
		wantCharge float64
	}{
		{"lossless discharge", 1, 1, 10, 1800, 5, 10, 5, 0},
		{"discharge loses on the way out", 1, 0.9, 9, 1800, 10 - 4.5/0.9, 10, 4.5, 0},
		{"charge loses on the way in", 0.8, 1, -10, 1800, 10 + 5*0.8, -8, 0, 5},
		{"both efficiencies, charge", 0.95, 0.9, -4, 3600, 10 + 4*0.95, -3.8, 0, 4},
		{"idle keeps SoC", 0.9, 0.9, 0, 3600, 10, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg()
			c.ChargeEfficiency, c.DischargeEfficiency = tc.chargeEff, tc.dischEff
			b := NewBattery(c, 1, start)
			b.SetCommand(bess(tc.power))
			run(b, tc.seconds)
			m := b.Measurements()
			near(t, "soc", b.SoCMWh(), tc.wantSoC)
			near(t, "battery_power_actual_ac", m.BatteryPowerActualAC, tc.power)
			near(t, "battery_power_actual_dc", m.BatteryPowerActualDC, tc.wantDC)
			near(t, "discharge_throughput", m.DischargeThroughput, tc.wantDisch)
			near(t, "charge_throughput", m.ChargeThroughput, tc.wantCharge)
			near(t, "available_discharge_energy", m.AvailableDischargeEnergy, tc.wantSoC*tc.dischEff)
			near(t, "available_charge_energy", m.AvailableChargeEnergy, (20-tc.wantSoC)/tc.chargeEff)
			if !m.Timestamp.Equal(start.Add(time.Duration(tc.seconds) * time.Second)) {
				t.Errorf("timestamp %v", m.Timestamp)
			}
		})
	}
}

func TestRampLimiting(t *testing.T) {
	tests := []struct {
		name     string
		up, down float64
		from, to float64
		seconds  int
		want     float64
	}{
		{"ramp up limited", 1, 1, 0, 10, 3, 3},
		{"ramp up reaches target", 1, 1, 0, 2.5, 3, 2.5},
		{"ramp down limited", 1, 0.5, 0, -10, 4, -2},
		{"reversal uses down rate", 2, 1, 5, -5, 3, 2},
		{"unlimited jumps", math.Inf(1), math.Inf(1), 0, -7, 1, -7},
		{"zero ramp never moves", 0, 0, 0, 10, 5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg()
			b := NewBattery(c, 1, start)
			b.SetCommand(bess(tc.from))
			run(b, 1)
			b.cfg.RampUpMWPerSec, b.cfg.RampDownMWPerSec = tc.up, tc.down
			b.SetCommand(bess(tc.to))
			run(b, tc.seconds)
			near(t, "power", b.PowerMW(), tc.want)
		})
	}
}

func TestSoCWindowStopsBattery(t *testing.T) {
	tests := []struct {
		name    string
		power   float64
		wantSoC float64
	}{
		{"discharge stops at soc_min", 10, 0},
		{"charge stops at soc_max", -10, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg()
			c.ChargeEfficiency, c.DischargeEfficiency = 0.9, 0.9
			b := NewBattery(c, 1, start)
			b.SetCommand(bess(tc.power))
			run(b, 2*3600)
			near(t, "soc", b.SoCMWh(), tc.wantSoC)
			near(t, "power", b.PowerMW(), 0)
			m := b.Measurements()
			near(t, "soc_min", m.SoCMin, 0)
			near(t, "soc_max", m.SoCMax, 20)
			if tc.power > 0 {
				near(t, "discharged", m.DischargeThroughput, 10*0.9)
				near(t, "available_discharge_energy", m.AvailableDischargeEnergy, 0)
			} else {
				near(t, "charged", m.ChargeThroughput, 10/0.9)
				near(t, "available_charge_energy", m.AvailableChargeEnergy, 0)
			}
		})
	}
}

func TestClamping(t *testing.T) {
	tests := []struct {
		name       string
		cmd        telemetry.Command
		grid       GridSignals
		importOK   bool
		want       float64
		wantStatus float64
	}{
		{"rated power", bess(25), GridSignals{}, true, 10, 1},
		{"rated power charging", bess(-25), GridSignals{}, true, -10, 1},
		{"max power limit", telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: 8, MaxPowerMW: f(3)}, GridSignals{}, true, 3, 1},
		{"min power limit", telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: -8, MinPowerMW: f(-2)}, GridSignals{}, true, -2, 1},
		{"unavailable", telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: 8, Unavailable: true}, GridSignals{}, true, 0, 0},
		{"passive ignores target", telemetry.Command{ControlMode: telemetry.Passive, BESSPowerMW: 8}, GridSignals{}, true, 0, 1},
		{"export curtailment", bess(8), GridSignals{ExportCurtailmentPct: 70}, true, 3, 1},
		{"import curtailment", bess(-8), GridSignals{ImportCurtailmentPct: 50}, true, -5, 1},
		{"grid import not permitted", bess(-8), GridSignals{}, false, 0, 1},
		{"poc target without PV", telemetry.Command{ControlMode: telemetry.PoCOnly, PoCPowerMW: f(4)}, GridSignals{}, true, 4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg()
			c.GridImportAllowed = tc.importOK
			b := NewBattery(c, 1, start)
			b.SetCommand(tc.cmd)
			b.SetGridSignals(tc.grid)
			run(b, 2)
			near(t, "power", b.PowerMW(), tc.want)
			m := b.Measurements()
			near(t, "asset_status", m.AssetStatus, tc.wantStatus)
			near(t, "export_curtailment_dso", m.ExportCurtailmentDSO, tc.grid.ExportCurtailmentPct)
			near(t, "import_curtailment_dso", m.ImportCurtailmentDSO, tc.grid.ImportCurtailmentPct)
		})
	}
}

func TestLimitDropClampsImmediately(t *testing.T) {
	c := cfg()
	c.RampDownMWPerSec = 0.1
	b := NewBattery(c, 1, start)
	b.SetCommand(bess(10))
	run(b, 1)
	b.SetCommand(telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: 10, MaxPowerMW: f(2)})
	run(b, 1)
	near(t, "power", b.PowerMW(), 2)
}

func TestReservedHeadroomAndActivation(t *testing.T) {
	reserve := func(c telemetry.Command) telemetry.Command {
		c.FCRReservedMW, c.AFRRReservedPosMW, c.AFRRReservedNegMW = 2, 3, 1
		return c
	}
	tests := []struct {
		name         string
		cmd          telemetry.Command
		frequency    float64
		want         float64
		wantFCR      float64
		wantAFRR     float64
		wantDispatch float64
	}{
		{"discharge schedule held back", reserve(bess(10)), 50, 5, 0, 0, 5},
		{"charge schedule held back", reserve(bess(-10)), 50, -7, 0, 0, -7},
		{"afrr activation on top", func() telemetry.Command { c := reserve(bess(2)); c.AFRRSetpointMW = 2.5; return c }(), 50, 4.5, 0, 2.5, 2},
		{"afrr activation capped by award", func() telemetry.Command { c := reserve(bess(0)); c.AFRRSetpointMW = -5; return c }(), 50, -1, 0, -1, 0},
		{"afrr setpoint without award ignored", func() telemetry.Command { c := bess(1); c.AFRRSetpointMW = 4; return c }(), 50, 1, 0, 0, 1},
		{"fcr low frequency discharges", reserve(bess(1)), 49.9, 2, 1, 0, 1},
		{"fcr full activation saturates", reserve(bess(0)), 50.5, -2, -2, 0, 0},
		{"full use of headroom and reserves", func() telemetry.Command { c := reserve(bess(10)); c.AFRRSetpointMW = 3; return c }(), 49.7, 10, 2, 3, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBattery(cfg(), 1, start)
			b.SetCommand(tc.cmd)
			b.SetFrequency(tc.frequency)
			run(b, 1)
			m := b.Measurements()
			near(t, "power", b.PowerMW(), tc.want)
			near(t, "fcr_power_actual", m.FCRPowerActual, tc.wantFCR)
			near(t, "afrr_power_actual", m.AFRRPowerActual, tc.wantAFRR)
			near(t, "dispatch_power_actual", m.DispatchPowerActual, tc.wantDispatch)
			near(t, "frequency", m.Frequency, tc.frequency)
			if tc.cmd.FCRReservedMW > 0 {
				near(t, "available_power_discharge", m.AvailablePowerDischarge, 5)
				near(t, "available_power_charge", m.AvailablePowerCharge, 7)
				near(t, "fcr_upper_limit", m.FCRUpperLimit, 2)
				near(t, "fcr_lower_limit", m.FCRLowerLimit, -2)
				near(t, "afrr_upper_limit", m.AFRRUpperLimit, 3)
				near(t, "afrr_lower_limit", m.AFRRLowerLimit, -1)
				near(t, "is_fcr_on", m.IsFCROn, 1)
				near(t, "is_afrr_on", m.IsAFRROn, 1)
			} else {
				near(t, "available_power_discharge", m.AvailablePowerDischarge, 10)
				near(t, "is_fcr_on", m.IsFCROn, 0)
			}
		})
	}
}

func TestCounters(t *testing.T) {
	c := cfg()
	c.ChargeEfficiency, c.DischargeEfficiency = 0.9, 0.9
	b := NewBattery(c, 1, start)
	b.SetCommand(bess(6))
	run(b, 1800)
	b.SetCommand(bess(-6))
	run(b, 3600)
	m := b.Measurements()
	near(t, "discharge_throughput", m.DischargeThroughput, 3)
	near(t, "charge_throughput", m.ChargeThroughput, 6)
	near(t, "actual_battery_cycles", m.ActualBatteryCycles, 9.0/40)
	near(t, "soc", b.SoCMWh(), 10-3/0.9+6*0.9)
}

func TestPVProfile(t *testing.T) {
	c := cfg()
	c.PVActive, c.PVPeakMW = true, 5
	c.LongitudeDeg = 0
	noon := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	midnight := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

	day := NewBattery(c, 7, noon)
	day.Step(time.Second)
	m := day.Measurements()
	if m.PVIrradiance == nil || *m.PVIrradiance < 0.7*clearSkyIrradiance || *m.PVIrradiance > clearSkyIrradiance {
		t.Fatalf("noon irradiance %v", m.PVIrradiance)
	}
	near(t, "pv_power_dc_actual", *m.PVPowerDCActual, 5**m.PVIrradiance/clearSkyIrradiance)
	near(t, "poc = battery + pv", m.PoCPowerActualAC, m.BatteryPowerActualAC+*m.PVPowerDCActual*pvInverterEfficiency-*m.PVInverterSelfConsumption)
	near(t, "pv_switch_status", *m.PVSwitchStatus, 1)

	again := NewBattery(c, 7, noon)
	again.Step(time.Second)
	near(t, "same seed same irradiance", *again.Measurements().PVIrradiance, *m.PVIrradiance)

	night := NewBattery(c, 7, midnight)
	night.Step(time.Second)
	near(t, "night irradiance", *night.Measurements().PVIrradiance, 0)
	near(t, "night pv power", *night.Measurements().PVPowerDCActual, 0)

	curtailed := NewBattery(c, 7, noon)
	curtailed.SetGridSignals(GridSignals{PVExportCurtailmentPct: 80})
	curtailed.Step(time.Second)
	cm := curtailed.Measurements()
	near(t, "curtailed pv", *cm.PVPowerDCActual, 1)
	near(t, "pv_power_setpoint", cm.PVPowerSetpoint, 1)
	near(t, "pv_export_curtailment_dso", *cm.PVExportCurtailmentDSO, 80)

	// With PV the battery follows a PoC target net of PV output.
	poc := NewBattery(c, 7, noon)
	poc.SetCommand(telemetry.Command{ControlMode: telemetry.PoCOnly, PoCPowerMW: f(0)})
	poc.Step(time.Second)
	pm := poc.Measurements()
	near(t, "poc_power_actual_ac", pm.PoCPowerActualAC, 0)
	if pm.BatteryPowerActualAC >= 0 {
		t.Errorf("battery should charge from PV, got %v", pm.BatteryPowerActualAC)
	}
}

func TestConfigFromAsset(t *testing.T) {
	a := assets.NewAsset("x", "org", "n", "loc", assets.GreenColocation)
	a.UsableEnergyCapacityMWh, a.UsablePowerCapacityMW = f(20), f(10)
	a.ChargeEfficiency, a.DischargeEfficiency = f(0.9), f(0.95)
	a.MaxPosRampRateMWPerSec = f(2)
	a.PVActive = true
	c := ConfigFromAsset(a)
	if c.AssetID != "x" || c.EnergyCapacityMWh != 20 || c.PowerCapacityMW != 10 || c.ChargeEfficiency != 0.9 ||
		c.DischargeEfficiency != 0.95 || c.RampUpMWPerSec != 2 || !math.IsInf(c.RampDownMWPerSec, 1) ||
		c.GridImportAllowed || !c.PVActive || c.PVPeakMW != 10 || c.LongitudeDeg != defaultLongitude {
		t.Fatalf("config %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestEnergyLimitWindow(t *testing.T) {
	// 20 MWh at 10 MWh; the energy limit allows 8-12 MWh.
	b := NewBattery(cfg(), 1, start)
	cmd := bess(10)
	cmd.MinEnergyMWh, cmd.MaxEnergyMWh = f(8), f(12)
	b.SetCommand(cmd)
	run(b, 3600)
	near(t, "SoC at the window floor", b.SoCMWh(), 8)
	m := b.Measurements()
	near(t, "soc_min", m.SoCMin, 8)
	near(t, "soc_max", m.SoCMax, 12)
	near(t, "available_discharge_energy", m.AvailableDischargeEnergy, 0)
	cmd.BESSPowerMW = -10
	b.SetCommand(cmd)
	run(b, 3600)
	near(t, "SoC at the window ceiling", b.SoCMWh(), 12)

	// A window above the SoC never lifts it: the battery may only charge.
	b = NewBattery(cfg(), 1, start)
	cmd = bess(5)
	cmd.MinEnergyMWh = f(15)
	b.SetCommand(cmd)
	run(b, 60)
	near(t, "SoC below the window holds", b.SoCMWh(), 10)
	near(t, "no discharge below the window", b.PowerMW(), 0)
	cmd.BESSPowerMW = -6
	b.SetCommand(cmd)
	run(b, 600)
	near(t, "charging back into the window", b.SoCMWh(), 11)
}

func TestRestoreAndStateFrom(t *testing.T) {
	c := cfg()
	c.ChargeEfficiency, c.DischargeEfficiency = 0.9, 0.95
	b := NewBattery(c, 1, start)
	b.SetCommand(bess(6))
	run(b, 900)
	m := b.Measurements()
	st := c.StateFrom(m)
	near(t, "SoC recovered", st.SoCMWh, b.SoCMWh())
	near(t, "power recovered", st.PowerMW, 6)
	if !st.At.Equal(b.Now()) {
		t.Fatalf("At = %v, want %v", st.At, b.Now())
	}

	fresh := NewBattery(c, 1, start.Add(time.Hour))
	fresh.Restore(st)
	near(t, "SoC restored", fresh.SoCMWh(), b.SoCMWh())
	got := fresh.Measurements()
	near(t, "discharge throughput", got.DischargeThroughput, m.DischargeThroughput)
	near(t, "battery power", got.BatteryPowerActualAC, 6)
	if !fresh.Now().Equal(b.Now()) {
		t.Fatalf("restored battery at %v, want %v", fresh.Now(), b.Now())
	}

	// At the floor the SoC comes from the charge side.
	empty := NewBattery(c, 1, start)
	empty.SetCommand(bess(10))
	run(empty, 7200)
	near(t, "empty SoC recovered", c.StateFrom(empty.Measurements()).SoCMWh, 0)
}

func TestSetConfigKeepsState(t *testing.T) {
	b := NewBattery(cfg(), 1, start)
	b.SetCommand(bess(-10))
	run(b, 1800) // 15 MWh
	smaller := cfg()
	smaller.EnergyCapacityMWh = 12
	b.SetConfig(smaller)
	near(t, "SoC cut to the new capacity", b.SoCMWh(), 12)
	bigger := cfg()
	bigger.PowerCapacityMW = 20
	b.SetConfig(bigger)
	b.SetCommand(bess(20))
	run(b, 1)
	near(t, "new rated power", b.PowerMW(), 20)
	near(t, "SoC kept", b.SoCMWh(), 12-20.0/3600)
}
