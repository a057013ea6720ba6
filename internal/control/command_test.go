package control

import (
	"errors"
	"math"
	"testing"

	"atcp/internal/dispatch"
	"atcp/internal/telemetry"
)

func f(v float64) *float64 { return &v }

func bessTarget(mw float64) Target { return Target{Mode: telemetry.BESSOnly, BESSPowerMW: f(mw)} }

// band is in with fcr MW of FCR awarded, the energies measured and target.
func band(in Inputs, fcr, discharge, charge float64, target Target) Inputs {
	in.FCRReservedMW, in.EnergyKnown, in.AvailableDischargeMWh, in.AvailableChargeMWh, in.Target = fcr, true, discharge, charge, target
	return in
}

func TestDecide(t *testing.T) {
	base := Inputs{RatedMW: 10, FCRBuffer: dispatch.DefaultFCRBuffer}
	with := func(change func(*Inputs)) Inputs {
		in := base
		change(&in)
		return in
	}
	tests := []struct {
		name          string
		in            Inputs
		mode          telemetry.ControlMode
		bess          float64
		poc           *float64
		effective     float64
		clipped       bool
		reason        string
		overridden    bool
		unavailable   bool
		afrrSetpoint  float64
		limitsCarried bool
	}{
		{name: "no target is passive", in: base, mode: telemetry.Passive},
		{name: "full", in: with(func(in *Inputs) { in.Target = bessTarget(5) }), mode: telemetry.BESSOnly, bess: 5, effective: 5},
		{name: "rated power", in: with(func(in *Inputs) { in.Target = bessTarget(-12) }),
			mode: telemetry.BESSOnly, bess: -10, effective: -10, clipped: true, reason: ReasonRated},
		{name: "power limit", in: with(func(in *Inputs) { in.Target = bessTarget(5); in.MaxPowerMW = f(2) }),
			mode: telemetry.BESSOnly, bess: 2, effective: 2, clipped: true, reason: ReasonPowerLimit, limitsCarried: true},
		// A limit on the other side does not explain the cut.
		{name: "rated power despite a charging limit", in: with(func(in *Inputs) { in.Target = bessTarget(12); in.MinPowerMW = f(-1) }),
			mode: telemetry.BESSOnly, bess: 10, effective: 10, clipped: true, reason: ReasonRated, limitsCarried: true},
		{name: "grid connection below rated power", in: with(func(in *Inputs) { in.Target = bessTarget(-9); in.GridConnectionMW = 8 }),
			mode: telemetry.BESSOnly, bess: -8, effective: -8, clipped: true, reason: ReasonGridConnection},
		{name: "grid connection above rated power", in: with(func(in *Inputs) { in.Target = bessTarget(12); in.GridConnectionMW = 15 }),
			mode: telemetry.BESSOnly, bess: 10, effective: 10, clipped: true, reason: ReasonRated},
		{name: "power limit within the grid connection", in: with(func(in *Inputs) {
			in.Target = bessTarget(9)
			in.GridConnectionMW, in.MaxPowerMW = 8, f(6)
		}), mode: telemetry.BESSOnly, bess: 6, effective: 6, clipped: true, reason: ReasonPowerLimit, limitsCarried: true},
		{name: "power limit on charging", in: with(func(in *Inputs) { in.Target = bessTarget(-5); in.MinPowerMW = f(-1) }),
			mode: telemetry.BESSOnly, bess: -1, effective: -1, clipped: true, reason: ReasonPowerLimit, limitsCarried: true},
		{name: "unavailable", in: with(func(in *Inputs) { in.Target = bessTarget(5); in.Unavailable = true }),
			mode: telemetry.BESSOnly, clipped: true, reason: ReasonUnavailable, unavailable: true},
		{name: "fully restricted by an energy limit", in: with(func(in *Inputs) {
			in.Target = bessTarget(-3)
			in.FullyRestricted, in.MinEnergyMWh, in.MaxEnergyMWh = true, f(5), f(5)
		}), mode: telemetry.BESSOnly, clipped: true, reason: ReasonUnavailable},
		{name: "FCR buffer", in: with(func(in *Inputs) { in.Target = bessTarget(9); in.FCRReservedMW = 2 }),
			mode: telemetry.BESSOnly, bess: 7.5, effective: 7.5, clipped: true, reason: ReasonReserved},
		{name: "aFRR neg stops charging", in: with(func(in *Inputs) { in.Target = bessTarget(-4); in.AFRRReservedNegMW = 10 }),
			mode: telemetry.BESSOnly, clipped: true, reason: ReasonReserved},
		{name: "aFRR setpoint within the award", in: with(func(in *Inputs) {
			in.Target = bessTarget(1)
			in.AFRRReservedNegMW, in.AFRRSetpointMW = 3, -5
		}), mode: telemetry.BESSOnly, bess: 1, effective: 1, afrrSetpoint: -3},
		{name: "aFRR setpoint without award does nothing", in: with(func(in *Inputs) { in.AFRRSetpointMW = 4 }), mode: telemetry.Passive},
		{name: "immediate overrides everything", in: with(func(in *Inputs) {
			in.Target = bessTarget(5)
			in.Immediate, in.Unavailable, in.MaxPowerMW, in.FCRReservedMW, in.AFRRSetpointMW = f(-8), true, f(1), 3, 2
		}), mode: telemetry.BESSOnly, bess: -8, effective: -8, overridden: true},
		{name: "poc_only clips the PoC target", in: with(func(in *Inputs) {
			in.Target = Target{Mode: telemetry.PoCOnly, PoCPowerMW: f(12)}
		}), mode: telemetry.PoCOnly, poc: f(10), effective: 10, clipped: true, reason: ReasonRated},
		{name: "bess_and_poc", in: with(func(in *Inputs) {
			in.Target = Target{Mode: telemetry.BESSAndPoC, BESSPowerMW: f(2), PoCPowerMW: f(4)}
		}), mode: telemetry.BESSAndPoC, bess: 2, poc: f(4), effective: 4},
		{name: "passive event", in: with(func(in *Inputs) { in.Target = Target{Mode: telemetry.Passive} }), mode: telemetry.Passive},

		// The FCR reserve band: 2 MW of FCR keeps 0.5 MWh each way; 2^-10
		// MWh above it is 3.515625 MW for one second.
		{name: "FCR band: room to spare", in: band(base, 2, 5, 5, bessTarget(5)), mode: telemetry.BESSOnly, bess: 5, effective: 5},
		{name: "FCR band: discharge stops at the reserve", in: band(base, 2, 0.5, 5, bessTarget(5)),
			mode: telemetry.BESSOnly, clipped: true, reason: ReasonFCRReserve},
		{name: "FCR band: the last second before the edge", in: band(base, 2, 0.5+1.0/1024, 5, bessTarget(5)),
			mode: telemetry.BESSOnly, bess: 3.515625, effective: 3.515625, clipped: true, reason: ReasonFCRReserve},
		{name: "FCR band: tighter than the headroom names the band", in: band(base, 2, 0.5+1.0/1024, 5, bessTarget(9)),
			mode: telemetry.BESSOnly, bess: 3.515625, effective: 3.515625, clipped: true, reason: ReasonFCRReserve},
		{name: "FCR band: the headroom tighter keeps its reason", in: band(base, 2, 5, 5, bessTarget(9)),
			mode: telemetry.BESSOnly, bess: 7.5, effective: 7.5, clipped: true, reason: ReasonReserved},
		{name: "FCR band: below the reserve, charging brings it back", in: band(base, 2, 0.2, 5, bessTarget(-4)),
			mode: telemetry.BESSOnly, bess: -4, effective: -4},
		{name: "FCR band: charging stops at the reserve below the maximum", in: band(base, 2, 5, 0.4, bessTarget(-4)),
			mode: telemetry.BESSOnly, clipped: true, reason: ReasonFCRReserve},
		{name: "FCR band: no award, no band", in: band(base, 0, 0, 0, bessTarget(5)), mode: telemetry.BESSOnly, bess: 5, effective: 5},
		{name: "FCR band: energy not measured yet", in: with(func(in *Inputs) { *in = band(*in, 2, 0, 0, bessTarget(5)); in.EnergyKnown = false }),
			mode: telemetry.BESSOnly, bess: 5, effective: 5},
		{name: "FCR band: a non-finite measurement bounds nothing", in: band(base, 2, math.NaN(), 5, bessTarget(5)),
			mode: telemetry.BESSOnly, bess: 5, effective: 5},
		{name: "FCR band: unavailability keeps its reason", in: with(func(in *Inputs) { *in = band(*in, 2, 0, 0, bessTarget(5)); in.Unavailable = true }),
			mode: telemetry.BESSOnly, clipped: true, reason: ReasonUnavailable, unavailable: true},
		{name: "FCR band: an immediate dispatch is not bound", in: with(func(in *Inputs) { *in = band(*in, 2, 0, 0, bessTarget(5)); in.Immediate = f(8) }),
			mode: telemetry.BESSOnly, bess: 8, effective: 8, overridden: true},
		{name: "FCR band: bess_and_poc clips both targets", in: band(base, 2, 0.5, 5, Target{Mode: telemetry.BESSAndPoC, BESSPowerMW: f(3), PoCPowerMW: f(4)}),
			mode: telemetry.BESSAndPoC, poc: f(0), clipped: true, reason: ReasonFCRReserve},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.in)
			c := d.Command
			if err := c.Validate(); err != nil {
				t.Fatalf("invalid command: %v", err)
			}
			if c.ControlMode != tc.mode || c.BESSPowerMW != tc.bess || d.EffectiveMW != tc.effective || d.Clipped != tc.clipped ||
				d.Reason != tc.reason || d.Overridden != tc.overridden || c.Unavailable != tc.unavailable || c.AFRRSetpointMW != tc.afrrSetpoint {
				t.Fatalf("Decide = %+v", d)
			}
			if (tc.poc == nil) != (c.PoCPowerMW == nil) || (tc.poc != nil && *tc.poc != *c.PoCPowerMW) {
				t.Fatalf("PoC target %v, want %v", c.PoCPowerMW, tc.poc)
			}
			if tc.limitsCarried != (c.MaxPowerMW != nil || c.MinPowerMW != nil) {
				t.Fatalf("limits carried %v %v", c.MaxPowerMW, c.MinPowerMW)
			}
			if tc.overridden && (c.FCRReservedMW != 0 || c.AFRRSetpointMW != 0 || c.Unavailable || c.MaxPowerMW != nil) {
				t.Fatalf("immediate dispatch carries restrictions: %+v", c)
			}
		})
	}
}

func TestDecideCarriesReservationsAndNext(t *testing.T) {
	d := Decide(Inputs{RatedMW: 10, FCRBuffer: 1.25, Target: bessTarget(1), NextMW: -4, FCRReservedMW: 1,
		AFRRReservedPosMW: 2, AFRRReservedNegMW: 3, MinEnergyMWh: f(2), MaxEnergyMWh: f(18)})
	c := d.Command
	if c.Dispatch15PowerMW != -4 || c.FCRReservedMW != 1 || c.AFRRReservedPosMW != 2 || c.AFRRReservedNegMW != 3 ||
		*c.MinEnergyMWh != 2 || *c.MaxEnergyMWh != 18 {
		t.Fatalf("command %+v", c)
	}
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name      string
		d         Decision
		control   bool
		connected bool
		sendErr   error
		want      dispatch.Status
		reason    string
	}{
		{"full", Decision{}, true, true, nil, dispatch.Full, ""},
		{"clipped", Decision{Clipped: true, Reason: ReasonReserved}, true, true, nil, dispatch.Clipped, ReasonReserved},
		{"unavailable", Decision{Clipped: true, Reason: ReasonUnavailable}, true, true, nil, dispatch.Rejected, ReasonUnavailable},
		{"rejected under immediate", Decision{Overridden: true}, true, true, nil, dispatch.Rejected, ReasonImmediateActive},
		{"rejected wins over disabled control", Decision{Overridden: true}, false, true, nil, dispatch.Rejected, ReasonImmediateActive},
		{"control disabled", Decision{Clipped: true}, false, true, nil, dispatch.Failed, ReasonControlDisabled},
		{"send failed", Decision{}, true, true, errors.New("unreachable"), dispatch.Failed, ReasonSendFailed + ": unreachable"},
		{"unreachable", Decision{}, true, false, nil, dispatch.Failed, ReasonUnreachable},
		{"disabled control wins over unreachable", Decision{}, false, false, nil, dispatch.Failed, ReasonControlDisabled},
		{"rejected wins over unreachable", Decision{Clipped: true, Reason: ReasonUnavailable}, true, false, nil, dispatch.Rejected, ReasonUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, reason := Judge(tc.d, tc.control, tc.connected, tc.sendErr)
			if status != tc.want || reason != tc.reason {
				t.Fatalf("Judge = %s %q, want %s %q", status, reason, tc.want, tc.reason)
			}
		})
	}
}

func TestTargetRequested(t *testing.T) {
	tests := []struct {
		target Target
		want   float64
	}{
		{Target{}, 0},
		{Target{Mode: telemetry.Passive, BESSPowerMW: f(3)}, 0},
		{bessTarget(-2), -2},
		{Target{Mode: telemetry.BESSAndPoC, BESSPowerMW: f(1), PoCPowerMW: f(3)}, 3},
		{Target{Mode: telemetry.PoCOnly, PoCPowerMW: f(-1)}, -1},
	}
	for _, tc := range tests {
		if got := tc.target.RequestedMW(); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.target, got, tc.want)
		}
	}
}
