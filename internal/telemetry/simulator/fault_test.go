package simulator

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

func TestFaultKinds(t *testing.T) {
	for _, k := range FaultKinds {
		var f Faults
		f.Add(k)
		if !k.Valid() || f == (Faults{}) {
			t.Errorf("%s: valid %v, faults %+v", k, k.Valid(), f)
		}
	}
	var f Faults
	f.Add("meteor_strike")
	if FaultKind("meteor_strike").Valid() || f != (Faults{}) {
		t.Fatalf("an unknown kind: %+v", f)
	}
}

func TestFaultCommunicationLoss(t *testing.T) {
	ctx := context.Background()
	s := New(1)
	if err := s.Add(cfg(), start); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, "a1", bess(4)); err != nil {
		t.Fatal(err)
	}
	s.Tick(start.Add(time.Second))
	if err := s.SetFaults("a1", Faults{CommunicationLoss: true}); err != nil {
		t.Fatal(err)
	}
	unreachable := func(err error) bool {
		var e *errs.Error
		return errs.Is(err, errs.Unavailable) && errors.As(err, &e) && e.Code == "asset_unreachable"
	}
	if _, err := s.Read(ctx, "a1"); !unreachable(err) {
		t.Fatalf("read while lost: %v", err)
	}
	if err := s.Send(ctx, "a1", bess(-4)); !unreachable(err) {
		t.Fatalf("send while lost: %v", err)
	}
	if err := s.SetFaults("nope", Faults{}); !errs.Is(err, errs.NotFound) {
		t.Fatalf("faults of an unknown asset: %v", err)
	}
	// The battery goes on under the command it had.
	s.Tick(start.Add(time.Hour + time.Second))

	if err := s.SetFaults("a1", Faults{}); err != nil {
		t.Fatal(err)
	}
	m, err := s.Read(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Timestamp.Equal(start.Add(time.Hour + time.Second)) {
		t.Fatalf("timestamp %v", m.Timestamp)
	}
	near(t, "power under the old command", m.BatteryPowerActualAC, 4)
	near(t, "discharged meanwhile", m.DischargeThroughput, 4+4.0/3600)
	if err := s.Send(ctx, "a1", bess(-4)); err != nil {
		t.Fatal(err)
	}
	s.Tick(start.Add(time.Hour + 2*time.Second))
	if m, _ := s.Read(ctx, "a1"); m.BatteryPowerActualAC != -4 {
		t.Fatalf("the new command after recovery: %v", m.BatteryPowerActualAC)
	}
}

func TestFaultGridSwitchOpen(t *testing.T) {
	c := cfg()
	c.PVActive, c.PVPeakMW = true, 6
	noon := time.Date(2026, 6, 1, 11, 20, 0, 0, time.UTC)
	b := NewBattery(c, 1, noon)
	cmd := bess(3)
	cmd.FCRReservedMW = 2
	b.SetCommand(cmd)
	b.SetFrequency(49.9)
	run(b, 1)
	if m := b.Measurements(); math.Abs(m.BatteryPowerActualAC-4) > 1e-9 || *m.PVPowerDCActual <= 0 || m.GridSwitchStatus != 1 {
		t.Fatalf("before: power %v, PV %v, switch %v", m.BatteryPowerActualAC, *m.PVPowerDCActual, m.GridSwitchStatus)
	}

	b.SetFaults(Faults{GridSwitchOpen: true})
	soc := b.SoCMWh()
	run(b, 60)
	m := b.Measurements()
	near(t, "grid_switch_status", m.GridSwitchStatus, 0)
	near(t, "battery_power_actual_ac", m.BatteryPowerActualAC, 0)
	near(t, "poc_power_actual_ac", m.PoCPowerActualAC, 0)
	near(t, "pv_power_dc_actual", *m.PVPowerDCActual, 0)
	near(t, "fcr_power_actual", m.FCRPowerActual, 0)
	near(t, "available_power_discharge", m.AvailablePowerDischarge, 0)
	near(t, "dispatch_setpoint (still received)", m.DispatchSetpoint, 3)
	near(t, "soc", b.SoCMWh(), soc)

	b.SetFaults(Faults{})
	run(b, 1)
	m = b.Measurements()
	near(t, "grid_switch_status after", m.GridSwitchStatus, 1)
	near(t, "battery_power_actual_ac after", m.BatteryPowerActualAC, 4)
	if *m.PVPowerDCActual <= 0 || m.PoCPowerActualAC <= 4 {
		t.Fatalf("PV after: %v, PoC %v", *m.PVPowerDCActual, m.PoCPowerActualAC)
	}
}

func TestFaultSoCDrift(t *testing.T) {
	rate := socDriftSharePerHour * 20 // MWh per hour
	b := NewBattery(cfg(), 1, start)
	cmd := telemetry.Command{ControlMode: telemetry.BESSOnly, MinEnergyMWh: f(8)}
	b.SetCommand(cmd)
	b.SetFaults(Faults{SoCDrift: true})
	run(b, 600)
	// Idle at half charge: it drifts down, while the energy balance (the
	// throughputs) says nothing moved.
	m := b.Measurements()
	near(t, "soc after 10 minutes", b.SoCMWh(), 10-rate/6)
	near(t, "available_discharge_energy", m.AvailableDischargeEnergy, 10-rate/6-8)
	near(t, "throughput", m.ChargeThroughput+m.DischargeThroughput, 0)
	near(t, "battery_power_actual_ac", m.BatteryPowerActualAC, 0)
	// Past the window's floor: nothing left to discharge, more to charge
	// than the window holds.
	run(b, 1200)
	m = b.Measurements()
	near(t, "soc after 30 minutes", b.SoCMWh(), 10-rate/2)
	near(t, "available_discharge_energy below the window", m.AvailableDischargeEnergy, 0)
	near(t, "available_charge_energy below the window", m.AvailableChargeEnergy, 20-(10-rate/2))
	// Never below empty.
	run(b, 3*3600)
	near(t, "soc after hours", b.SoCMWh(), 0)

	// Ended: the SoC follows the energy balance again (from where the
	// fault left it).
	b.SetFaults(Faults{})
	b.SetCommand(bess(-6))
	run(b, 600)
	near(t, "soc charging after the fault", b.SoCMWh(), 1)
	b.SetCommand(bess(0))
	run(b, 600)
	near(t, "soc idle after the fault", b.SoCMWh(), 1)

	// Below half charge it drifts up.
	b.SetFaults(Faults{SoCDrift: true})
	run(b, 600)
	near(t, "soc drifting up", b.SoCMWh(), 1+rate/6)
}

func TestFaultSetpointIgnored(t *testing.T) {
	b := NewBattery(cfg(), 1, start)
	b.SetCommand(bess(4))
	run(b, 1)
	b.SetFaults(Faults{SetpointIgnored: true})
	cmd := bess(-6)
	cmd.AFRRReservedNegMW, cmd.AFRRSetpointMW = 2, -2
	b.SetCommand(cmd)
	run(b, 10)
	m := b.Measurements()
	near(t, "battery_power_actual_ac held", m.BatteryPowerActualAC, 4)
	near(t, "dispatch_setpoint received", m.DispatchSetpoint, -6)
	near(t, "afrr_setpoint received", m.AFRRSetpoint, -2)
	near(t, "afrr_power_actual", m.AFRRPowerActual, 0)
	near(t, "dispatch_power_actual", m.DispatchPowerActual, 4)
	// Not even an unavailability moves it.
	b.SetCommand(telemetry.Command{ControlMode: telemetry.Passive, Unavailable: true})
	run(b, 10)
	near(t, "held while unavailable", b.PowerMW(), 4)
	// The SoC protection still stops it at the window's floor.
	run(b, 3*3600)
	near(t, "stopped empty", b.PowerMW(), 0)
	near(t, "soc empty", b.SoCMWh(), 0)

	b.SetFaults(Faults{})
	b.SetCommand(bess(-6))
	run(b, 1)
	near(t, "following again", b.PowerMW(), -6)
}

func TestFaultAFRRUnderdelivery(t *testing.T) {
	cmd := bess(2)
	cmd.AFRRReservedPosMW, cmd.AFRRSetpointMW = 3, 2.5
	b := NewBattery(cfg(), 1, start)
	b.SetCommand(cmd)
	b.SetFaults(Faults{AFRRUnderdelivery: true})
	run(b, 1)
	m := b.Measurements()
	near(t, "afrr_setpoint", m.AFRRSetpoint, 2.5)
	near(t, "afrr_power_actual", m.AFRRPowerActual, 2.5*afrrDeliveredShare)
	near(t, "battery_power_actual_ac", m.BatteryPowerActualAC, 2+2.5*afrrDeliveredShare)
	near(t, "dispatch_power_actual", m.DispatchPowerActual, 2)

	b.SetFaults(Faults{})
	run(b, 1)
	m = b.Measurements()
	near(t, "afrr_power_actual after", m.AFRRPowerActual, 2.5)
	near(t, "battery_power_actual_ac after", m.BatteryPowerActualAC, 4.5)
}
