package telemetry

import (
	"math"
	"testing"

	"atcp/internal/errs"
)

func TestCommandValidate(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		cmd  Command
		ok   bool
	}{
		{"passive", Command{ControlMode: Passive}, true},
		{"bess_only", Command{ControlMode: BESSOnly, BESSPowerMW: -3}, true},
		{"poc_only with target", Command{ControlMode: PoCOnly, PoCPowerMW: f(2)}, true},
		{"bess_and_poc with target", Command{ControlMode: BESSAndPoC, BESSPowerMW: 1, PoCPowerMW: f(2)}, true},
		{"limits", Command{ControlMode: BESSOnly, MinPowerMW: f(-2), MaxPowerMW: f(3)}, true},
		{"empty mode", Command{}, false},
		{"unknown mode", Command{ControlMode: "auto"}, false},
		{"poc_only without target", Command{ControlMode: PoCOnly}, false},
		{"bess_and_poc without target", Command{ControlMode: BESSAndPoC}, false},
		{"NaN power", Command{ControlMode: BESSOnly, BESSPowerMW: math.NaN()}, false},
		{"infinite aFRR setpoint", Command{ControlMode: BESSOnly, AFRRSetpointMW: math.Inf(1)}, false},
		{"negative FCR", Command{ControlMode: BESSOnly, FCRReservedMW: -1}, false},
		{"negative aFRR pos", Command{ControlMode: BESSOnly, AFRRReservedPosMW: -1}, false},
		{"negative aFRR neg", Command{ControlMode: BESSOnly, AFRRReservedNegMW: -1}, false},
		{"crossed limits", Command{ControlMode: BESSOnly, MinPowerMW: f(3), MaxPowerMW: f(2)}, false},
		{"NaN limit", Command{ControlMode: BESSOnly, MaxPowerMW: f(math.NaN())}, false},
		{"NaN PoC", Command{ControlMode: PoCOnly, PoCPowerMW: f(math.NaN())}, false},
		{"energy window", Command{ControlMode: BESSOnly, MinEnergyMWh: f(2), MaxEnergyMWh: f(8)}, true},
		{"empty energy window", Command{ControlMode: BESSOnly, MinEnergyMWh: f(5), MaxEnergyMWh: f(5)}, true},
		{"crossed energy limits", Command{ControlMode: BESSOnly, MinEnergyMWh: f(6), MaxEnergyMWh: f(5)}, false},
		{"infinite energy bound", Command{ControlMode: BESSOnly, MaxEnergyMWh: f(math.Inf(1))}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cmd.Validate()
			if tc.ok && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if !tc.ok && !errs.Is(err, errs.Invalid) {
				t.Fatalf("want Invalid, got %v", err)
			}
		})
	}
}

func TestControlModeCodesDistinct(t *testing.T) {
	seen := map[int]ControlMode{}
	for _, m := range []ControlMode{Passive, BESSOnly, BESSAndPoC, PoCOnly} {
		c := m.Code()
		if c < 0 {
			t.Fatalf("%s has no code", m)
		}
		if other, dup := seen[c]; dup {
			t.Fatalf("%s and %s share code %d", m, other, c)
		}
		seen[c] = m
	}
}
