package alarms

import (
	"math"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/telemetry"
)

var t0 = time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)

// healthy is a 10 MW / 20 MWh battery at half charge, connected, idle,
// measured 1 s ago.
func healthy() Input {
	a := assets.NewAsset("b1", "acme", "Battery", "Kiel", assets.Standalone)
	a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = new(10.0), new(20.0)
	a.ControlEnabled = true
	m := telemetry.Measurements{
		Timestamp: t0.Add(-time.Second), AssetStatus: 1, OperationalStatus: 1, GridSwitchStatus: 1, Frequency: 50,
		SoCMin: 0, SoCMax: 20, AvailableDischargeEnergy: 10, AvailableChargeEnergy: 10,
		AvailablePowerCharge: 10, AvailablePowerDischarge: 10, IsDispatchOn: 1, ControlMode: 1,
		LANConnectedDevice1: 1, LANConnectedDevice2: 1, LTESignalDevice1: -75, LTESignalDevice2: -78,
	}
	return Input{Asset: &a, Latest: &m, Age: time.Second, StaleAfter: 5 * time.Second}
}

func TestEveryRuleIsClearOnAHealthyBattery(t *testing.T) {
	for _, r := range Rules() {
		in := healthy()
		if got := r.Evaluate(&in); got != Clear {
			t.Errorf("%s: %v on a healthy battery (facts %v)", r.ID, got, r.Facts(&in))
		}
		if len(r.Facts(&in)) == 0 {
			t.Errorf("%s: no facts", r.ID)
		}
	}
}

func TestRulesWithoutMeasurements(t *testing.T) {
	for _, r := range Rules() {
		in := healthy()
		in.Latest = nil
		if got := r.Evaluate(&in); got != Unknown {
			t.Errorf("%s: %v for an asset that never reported, want unknown", r.ID, got)
		}
		if len(r.Facts(&in)) == 0 {
			t.Errorf("%s: no facts without measurements", r.ID)
		}
		// Stale measurements tell nothing but that they are stale.
		in = healthy()
		in.Age = 6 * time.Second
		want := Unknown
		if r.ID == RuleTelemetry {
			want = Holds
		}
		if got := r.Evaluate(&in); got != want {
			t.Errorf("%s: %v on stale measurements, want %v", r.ID, got, want)
		}
	}
}

func TestRuleConditions(t *testing.T) {
	cases := []struct {
		rule, name string
		change     func(*Input)
		want       Outcome
		fact       string // a fact that must be among the facts
	}{
		{RuleTelemetry, "stale", func(in *Input) { in.Age = 42 * time.Second }, Holds, "42 s old"},
		{RuleTelemetry, "at the bound", func(in *Input) { in.Age = 5 * time.Second }, Clear, "bound 5 s"},
		{RuleTelemetry, "no bound", func(in *Input) { in.Age, in.StaleAfter = time.Hour, 0 }, Clear, ""},

		{RuleComms, "asset_status 0", func(in *Input) { in.Latest.AssetStatus = 0 }, Holds, "asset_status 0"},
		{RuleComms, "asset_status 0 explained by an unavailability", func(in *Input) {
			in.Latest.AssetStatus, in.Unavailable = 0, true
		}, Clear, "platform restriction"},
		{RuleComms, "no link", func(in *Input) {
			m := in.Latest
			m.LANConnectedDevice1, m.LANConnectedDevice2, m.LTESignalDevice1, m.LTESignalDevice2 = 0, 0, -113, 0
		}, Holds, "lte_signal_device_1 -113 dBm"},
		{RuleComms, "LTE left", func(in *Input) { in.Latest.LANConnectedDevice1, in.Latest.LANConnectedDevice2 = 0, 0 }, Clear, ""},

		{RuleGrid, "open", func(in *Input) { in.Latest.GridSwitchStatus = 0 }, Holds, "grid_switch_status 0 (open)"},

		{RuleSoC, "below soc_min", func(in *Input) {
			// soc 1 MWh in a window [2, 18]: nothing to discharge, 17 MWh to charge.
			m := in.Latest
			m.SoCMin, m.SoCMax, m.AvailableDischargeEnergy, m.AvailableChargeEnergy = 2, 18, 0, 17
		}, Holds, "derived stored energy 1 MWh"},
		{RuleSoC, "above soc_max", func(in *Input) {
			m := in.Latest
			m.SoCMin, m.SoCMax, m.AvailableDischargeEnergy, m.AvailableChargeEnergy = 2, 18, 17, 0
		}, Holds, "derived stored energy 19 MWh"},
		{RuleSoC, "within tolerance", func(in *Input) {
			m := in.Latest
			m.SoCMin, m.SoCMax, m.AvailableDischargeEnergy, m.AvailableChargeEnergy = 2, 18, 0, 16.05
		}, Clear, ""},
		{RuleSoC, "with efficiencies", func(in *Input) {
			in.Asset.ChargeEfficiency, in.Asset.DischargeEfficiency = new(0.9), new(0.9)
			// soc 10 in [0, 20]: discharge 10*0.9, charge 10/0.9.
			in.Latest.AvailableDischargeEnergy, in.Latest.AvailableChargeEnergy = 9, 10/0.9
		}, Clear, "derived stored energy 10 MWh"},
		{RuleSoC, "crossed window", func(in *Input) { in.Latest.SoCMin, in.Latest.SoCMax = 12, 8 }, Unknown, ""},

		{RuleDispatch, "not followed", func(in *Input) { in.Latest.DispatchSetpoint, in.Latest.DispatchPowerActual = 5, 1 }, Holds,
			"deviation 4 MW (tolerance 0.5 MW)"},
		{RuleDispatch, "followed", func(in *Input) { in.Latest.DispatchSetpoint, in.Latest.DispatchPowerActual = 5, 4.6 }, Clear, ""},
		{RuleDispatch, "bounded by available power", func(in *Input) {
			in.Latest.DispatchSetpoint, in.Latest.DispatchPowerActual, in.Latest.AvailablePowerDischarge = 5, 2, 2
		}, Clear, "achievable 2 MW"},
		{RuleDispatch, "bounded by a power limit", func(in *Input) {
			in.Latest.DispatchSetpoint, in.Latest.DispatchPowerActual, in.PowerLimit = 5, 3, &Bounds{Upper: 3, Lower: -3}
		}, Clear, ""},
		{RuleDispatch, "not steered", func(in *Input) {
			in.Asset.ControlEnabled = false
			in.Latest.DispatchSetpoint, in.Latest.DispatchPowerActual = 5, 1
		}, Clear, "does not steer"},
		{RuleDispatch, "dispatch off", func(in *Input) {
			in.Latest.IsDispatchOn, in.Latest.DispatchSetpoint, in.Latest.DispatchPowerActual = 0, 5, 1
		}, Clear, ""},

		{RuleAFRR, "under-delivery", func(in *Input) {
			in.Latest.IsAFRROn, in.Latest.AFRRSetpoint, in.Latest.AFRRPowerActual = 1, -4, -2
		}, Holds, "fill rate 50 % (minimum 90 %)"},
		{RuleAFRR, "delivered", func(in *Input) {
			in.Latest.IsAFRROn, in.Latest.AFRRSetpoint, in.Latest.AFRRPowerActual = 1, 4, 3.8
		}, Clear, "fill rate 95 %"},
		{RuleAFRR, "no activation", func(in *Input) { in.Latest.IsAFRROn, in.Latest.AFRRSetpoint = 1, 0.2 }, Unknown, ""},
		{RuleAFRR, "aFRR off", func(in *Input) { in.Latest.AFRRSetpoint = 4 }, Clear, ""},

		{RuleFCR, "missing", func(in *Input) {
			in.Latest.IsFCROn, in.Latest.FCRUpperLimit, in.Latest.Frequency, in.Latest.FCRPowerActual = 1, 4, 49.9, 0.5
		}, Holds, "called response 2 MW"},
		{RuleFCR, "delivered low frequency", func(in *Input) {
			in.Latest.IsFCROn, in.Latest.FCRUpperLimit, in.Latest.Frequency, in.Latest.FCRPowerActual = 1, 4, 49.9, 1.8
		}, Clear, ""},
		{RuleFCR, "wrong direction at high frequency", func(in *Input) {
			in.Latest.IsFCROn, in.Latest.FCRUpperLimit, in.Latest.Frequency, in.Latest.FCRPowerActual = 1, 4, 50.3, 1
		}, Holds, "called response -4 MW"},
		{RuleFCR, "small deviation", func(in *Input) {
			in.Latest.IsFCROn, in.Latest.FCRUpperLimit, in.Latest.Frequency = 1, 4, 50.02
		}, Unknown, ""},
		{RuleFCR, "implausible frequency", func(in *Input) {
			in.Latest.IsFCROn, in.Latest.FCRUpperLimit, in.Latest.Frequency = 1, 4, 0
		}, Unknown, ""},

		{RuleLimit, "breach", func(in *Input) { in.Latest.BatteryPowerActualAC, in.PowerLimit = 6, &Bounds{Upper: 5, Lower: -5} }, Holds,
			"power limit [-5, 5] MW (tolerance 0.1 MW)"},
		{RuleLimit, "within tolerance", func(in *Input) { in.Latest.BatteryPowerActualAC, in.PowerLimit = 5.05, &Bounds{Upper: 5, Lower: -5} }, Clear, ""},
		{RuleLimit, "charging beyond", func(in *Input) { in.Latest.BatteryPowerActualAC, in.PowerLimit = -3, &Bounds{Upper: 5, Lower: -2} }, Holds, ""},
		{RuleLimit, "moving while unavailable", func(in *Input) { in.Latest.BatteryPowerActualAC, in.Unavailable = 2, true }, Holds,
			"unavailable: limit 0 MW"},
		{RuleLimit, "immediate dispatch overrides", func(in *Input) {
			in.Latest.BatteryPowerActualAC, in.PowerLimit, in.ImmediateDispatch = 6, &Bounds{Upper: 5, Lower: -5}, true
		}, Clear, "immediate dispatch"},
		{RuleLimit, "no limit", func(in *Input) { in.Latest.BatteryPowerActualAC = 9 }, Clear, "no power limit active"},

		{RulePlaus, "NaN", func(in *Input) { in.Latest.Frequency = math.NaN() }, Holds, "frequency is not a finite number"},
		{RulePlaus, "infinite", func(in *Input) { in.Latest.SelfConsumption = math.Inf(1) }, Holds, "self_consumption is not a finite number"},
		{RulePlaus, "absent PV", func(in *Input) {}, Clear, "every measurement is plausible"},
		{RulePlaus, "PV NaN", func(in *Input) { in.Latest.PVIrradiance = new(math.NaN()) }, Holds, "pv_irradiance is not a finite number"},
		{RulePlaus, "power beyond capacity", func(in *Input) { in.Latest.BatteryPowerActualAC = -11.5 }, Holds, "beyond 110 %"},
		{RulePlaus, "crossed window", func(in *Input) { in.Latest.SoCMin = 21 }, Holds, "soc_min 21 MWh"},
		{RulePlaus, "window beyond capacity", func(in *Input) { in.Latest.SoCMax = 22 }, Holds, "soc_max 22 MWh beyond"},
		{RulePlaus, "negative energy", func(in *Input) { in.Latest.AvailableChargeEnergy = -1 }, Holds, "available_charge_energy -1 MWh"},
		{RulePlaus, "frequency", func(in *Input) { in.Latest.Frequency = 60 }, Holds, "frequency 60 Hz"},
		{RulePlaus, "grid switch", func(in *Input) { in.Latest.GridSwitchStatus = 2 }, Holds, "neither 0 nor 1"},
	}
	for _, c := range cases {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			r, ok := RuleByID(c.rule)
			if !ok {
				t.Fatalf("no rule %s", c.rule)
			}
			in := healthy()
			c.change(&in)
			facts := r.Facts(&in)
			if got := r.Evaluate(&in); got != c.want {
				t.Errorf("%v, want %v (facts %v)", got, c.want, facts)
			}
			if c.fact != "" && !strings.Contains(strings.Join(facts, "|"), c.fact) {
				t.Errorf("facts %q lack %q", facts, c.fact)
			}
		})
	}
}

func TestCatalogue(t *testing.T) {
	if len(Rules()) != 9 {
		t.Fatalf("%d rules, want 9", len(Rules()))
	}
	seen := map[string]bool{}
	for _, r := range Rules() {
		switch {
		case seen[r.ID]:
			t.Errorf("rule %s twice", r.ID)
		case !r.Severity.Valid():
			t.Errorf("%s: severity %q", r.ID, r.Severity)
		case r.Name == "" || r.AlarmType == "" || r.Description == "" || r.ClearingCondition == "":
			t.Errorf("%s: incomplete %+v", r.ID, r)
		case r.Sustain < 0 || r.ClearAfter < 0:
			t.Errorf("%s: negative timing", r.ID)
		}
		seen[r.ID] = true
		if got, ok := RuleByID(r.ID); !ok || got != r {
			t.Errorf("RuleByID(%s)", r.ID)
		}
	}
	for _, id := range []string{RuleTelemetry, RuleComms, RuleGrid, RuleSoC, RuleDispatch, RuleAFRR, RuleFCR, RuleLimit, RulePlaus} {
		if !seen[id] {
			t.Errorf("rule %s missing", id)
		}
	}
}
