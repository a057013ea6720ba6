package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

// documentOneNames are the measurement names of document 1 "Asset state
// (measurements)", copied from the spec.
var documentOneNames = []string{
	"asset_status", "operational_status",
	"fcr_upper_limit", "fcr_lower_limit", "afrr_upper_limit", "afrr_lower_limit",
	"fcr_power_actual", "afrr_power_actual", "dispatch_power_actual",
	"fcr_power_setpoint", "afrr_setpoint", "dispatch_setpoint", "dispatch15_setpoint", "poc_setpoint", "pv_power_setpoint",
	"control_mode",
	"available_power_charge", "available_power_discharge",
	"soc_min", "soc_max",
	"available_discharge_energy", "available_charge_energy", "available_soc_discharge", "available_soc_charge",
	"poc_power_actual_ac", "battery_power_actual_ac", "battery_power_actual_dc",
	"grid_switch_status", "redispatch_active", "redispatch_amount", "self_consumption", "frequency",
	"is_fcr_on", "is_afrr_on", "is_dispatch_on",
	"export_curtailment_dso", "import_curtailment_dso",
	"actual_battery_cycles", "discharge_throughput", "charge_throughput",
	"lte_signal_device_1", "lte_signal_device_2", "lan_connected_device_1", "lan_connected_device_2",
}

var pvNames = []string{
	"pv_export_curtailment_dso", "pv_irradiance", "pv_power_dc_actual", "pv_inverter_self_consumption", "pv_switch_status",
}

func snapshotJSON(t *testing.T, m telemetry.Measurements) map[string]any {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSnapshotCarriesEveryMeasurementName(t *testing.T) {
	for _, pv := range []bool{false, true} {
		t.Run(fmt.Sprintf("pv_active=%v", pv), func(t *testing.T) {
			c := cfg()
			c.PVActive, c.PVPeakMW = pv, 4
			b := NewBattery(c, 1, start)
			b.SetCommand(bess(3))
			b.Step(time.Second)
			got := snapshotJSON(t, b.Measurements())
			want := map[string]bool{}
			for _, n := range documentOneNames {
				want[n] = true
			}
			for _, n := range pvNames {
				want[n] = pv
			}
			for n, present := range want {
				v, ok := got[n]
				if ok != present {
					t.Errorf("%s present=%v, want %v", n, ok, present)
				}
				if ok {
					if _, isNum := v.(float64); !isNum {
						t.Errorf("%s = %v, want a number", n, v)
					}
				}
			}
			for n := range got {
				if _, known := want[n]; !known {
					t.Errorf("unexpected measurement %s", n)
				}
			}
			if got["available_soc_discharge"] != got["available_discharge_energy"] ||
				got["available_soc_charge"] != got["available_charge_energy"] {
				t.Errorf("deprecated aliases differ: %v", got)
			}
		})
	}
}

func TestSimulatorAdapter(t *testing.T) {
	ctx := context.Background()
	s := New(42)
	if err := s.Add(cfg(), start); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(cfg(), start); !errs.Is(err, errs.Conflict) {
		t.Fatalf("second add: %v", err)
	}
	bad := cfg()
	bad.AssetID, bad.ChargeEfficiency = "bad", 0
	if err := s.Add(bad, start); !errs.Is(err, errs.Invalid) {
		t.Fatalf("invalid config: %v", err)
	}
	if err := s.Send(ctx, "nope", bess(1)); !errs.Is(err, errs.NotFound) {
		t.Fatalf("send to unknown: %v", err)
	}
	if _, err := s.Read(ctx, "nope"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("read unknown: %v", err)
	}
	if err := s.Send(ctx, "a1", telemetry.Command{ControlMode: "turbo"}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("invalid command: %v", err)
	}
	if err := s.Send(ctx, "a1", telemetry.Command{ControlMode: telemetry.PoCOnly}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("poc_only without target: %v", err)
	}
	if err := s.Send(ctx, "a1", telemetry.Command{ControlMode: telemetry.BESSOnly, FCRReservedMW: -1}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("negative reservation: %v", err)
	}
	if err := s.SetGridSignals("a1", GridSignals{ExportCurtailmentPct: 101}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("curtailment above 100: %v", err)
	}
	if err := s.SetGridSignals("nope", GridSignals{}); !errs.Is(err, errs.NotFound) {
		t.Fatalf("signals to unknown: %v", err)
	}
	if err := s.SetFrequency(0); !errs.Is(err, errs.Invalid) {
		t.Fatalf("zero frequency: %v", err)
	}
	m, _ := s.Read(ctx, "a1")
	near(t, "power after rejected sends", m.BatteryPowerActualAC, 0)

	if err := s.Send(ctx, "a1", bess(4)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFrequency(50.1); err != nil {
		t.Fatal(err)
	}
	s.Tick(start.Add(90 * time.Minute))
	m, err := s.Read(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Timestamp.Equal(start.Add(90 * time.Minute)) {
		t.Fatalf("timestamp %v", m.Timestamp)
	}
	near(t, "soc after long tick", m.AvailableDischargeEnergy, 10-6)
	near(t, "frequency", m.Frequency, 50.1)
	near(t, "control_mode", m.ControlMode, float64(telemetry.BESSOnly.Code()))
	near(t, "is_dispatch_on", m.IsDispatchOn, 1)

	s.Tick(start) // a clock stepping back does not rewind
	m, _ = s.Read(ctx, "a1")
	if !m.Timestamp.Equal(start.Add(90 * time.Minute)) {
		t.Fatalf("rewound to %v", m.Timestamp)
	}

	s.Remove("a1")
	if _, err := s.Read(ctx, "a1"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("read after remove: %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Send(cancelled, "a1", bess(1)); err == nil {
		t.Fatal("send on a cancelled context succeeded")
	}
}

func TestTickFractionalSeconds(t *testing.T) {
	s := New(1)
	c := cfg()
	c.RampUpMWPerSec = 1
	if err := s.Add(c, start); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), "a1", bess(10)); err != nil {
		t.Fatal(err)
	}
	s.Tick(start.Add(2500 * time.Millisecond))
	m, _ := s.Read(context.Background(), "a1")
	near(t, "ramped power", m.BatteryPowerActualAC, 2.5)
}

func TestSimulatorConcurrentUse(t *testing.T) {
	ctx := context.Background()
	s := New(3)
	for i := range 20 {
		c := cfg()
		c.AssetID = fmt.Sprint("a", i)
		if err := s.Add(c, start); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range 20 {
		id := fmt.Sprint("a", i)
		wg.Go(func() {
			for j := range 50 {
				if err := s.Send(ctx, id, bess(float64(j%5))); err != nil {
					t.Error(err)
				}
				if _, err := s.Read(ctx, id); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		for j := range 100 {
			s.Tick(start.Add(time.Duration(j) * time.Second))
		}
	})
	wg.Wait()
}

// BenchmarkTick1000Assets ticks 1,000 assets (half with PV, all with
// reservations) by one second per iteration.
func BenchmarkTick1000Assets(b *testing.B) {
	const n = 1000
	s := New(9)
	ctx := context.Background()
	for i := range n {
		c := cfg()
		c.AssetID = fmt.Sprint("asset-", i)
		c.ChargeEfficiency, c.DischargeEfficiency, c.RampUpMWPerSec, c.RampDownMWPerSec = 0.95, 0.95, 1, 1
		c.PVActive, c.PVPeakMW = i%2 == 0, 5
		if err := s.Add(c, start); err != nil {
			b.Fatal(err)
		}
		cmd := bess(float64(i%7) - 3)
		cmd.FCRReservedMW, cmd.AFRRReservedPosMW, cmd.AFRRReservedNegMW, cmd.AFRRSetpointMW = 1, 1, 1, 0.5
		if err := s.Send(ctx, c.AssetID, cmd); err != nil {
			b.Fatal(err)
		}
	}
	now := start
	b.ResetTimer()
	for b.Loop() {
		now = now.Add(time.Second)
		s.Tick(now)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/asset-tick")
}

func TestSimulatorUpdateRestore(t *testing.T) {
	s := New(1)
	if err := s.Add(cfg(), start); err != nil {
		t.Fatal(err)
	}
	c := cfg()
	c.PowerCapacityMW = 4
	if err := s.Update(c); err != nil {
		t.Fatal(err)
	}
	bad := cfg()
	bad.ChargeEfficiency = 0
	if err := s.Update(bad); !errs.Is(err, errs.Invalid) {
		t.Fatalf("invalid update: %v", err)
	}
	c.AssetID = "a2"
	if err := s.Update(c); !errs.Is(err, errs.NotFound) {
		t.Fatalf("update of unknown asset: %v", err)
	}
	st := State{At: start.Add(-time.Minute), SoCMWh: 3, PowerMW: 2}
	if err := s.Restore("a1", st); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore("a2", st); !errs.Is(err, errs.NotFound) {
		t.Fatalf("restore of unknown asset: %v", err)
	}
	if err := s.Restore("a1", State{}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("restore without instant: %v", err)
	}
	ctx := context.Background()
	if err := s.Send(ctx, "a1", bess(10)); err != nil {
		t.Fatal(err)
	}
	s.Tick(start)
	m, err := s.Read(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	// A minute at the updated 4 MW from the restored 3 MWh.
	if got, want := m.BatteryPowerActualAC, 4.0; got != want {
		t.Fatalf("power %v, want %v", got, want)
	}
	if got, want := m.AvailableDischargeEnergy, 3-4.0/60; math.Abs(got-want) > 1e-9 {
		t.Fatalf("energy %v, want %v", got, want)
	}
}
