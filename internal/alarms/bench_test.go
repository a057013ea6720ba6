package alarms_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

// flappingFleet is n batteries; every hundredth is steered only during
// the first 40 s of each 80 s and does not follow its setpoint, so that
// DISPATCH-001 opens and resolves on 1 % of the fleet (tracks and events
// written) while the rest stays quiet.
type flappingFleet struct {
	clk           clock.Clock
	steered, idle []assets.Asset
}

func (f *flappingFleet) List(context.Context, auth.Visibility) ([]assets.Asset, error) {
	if f.clk.Now().Unix()/40%2 == 0 {
		return f.steered, nil
	}
	return f.idle, nil
}

type benchLimits []restrictions.Interval

func (l benchLimits) ActiveAt(context.Context, time.Time) ([]restrictions.Interval, error) {
	return l, nil
}

func benchFleet(n int, clk clock.Clock) (*flappingFleet, []telemetry.Snapshot, benchLimits) {
	f := &flappingFleet{clk: clk}
	var snaps []telemetry.Snapshot
	var limits benchLimits
	upper, lower := 8.0, -8.0
	for i := range n {
		id := fmt.Sprintf("bess-%05d", i)
		a := assets.NewAsset(id, "acme", id, "Leipzig", assets.Standalone)
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = new(10.0), new(20.0)
		a.ChargeEfficiency, a.DischargeEfficiency = new(0.95), new(0.95)
		a.ControlEnabled, a.OperationalStatus = true, assets.Live
		m := telemetry.Measurements{Timestamp: testkit.Start, AssetStatus: 1, GridSwitchStatus: 1, Frequency: 49.93,
			SoCMin: 0, SoCMax: 20, AvailableDischargeEnergy: 9.5, AvailableChargeEnergy: 10 / 0.95,
			AvailablePowerCharge: 10, AvailablePowerDischarge: 10, IsDispatchOn: 1, IsFCROn: 1, FCRUpperLimit: 2,
			FCRPowerActual: 0.7, DispatchSetpoint: 3, DispatchPowerActual: 3, BatteryPowerActualAC: 3.7,
			LANConnectedDevice1: 1, LTESignalDevice1: -80}
		idle := a
		if i%100 == 0 {
			m.DispatchPowerActual = 0
			idle.ControlEnabled = false
		}
		if i%10 == 0 {
			limits = append(limits, restrictions.Interval{Kind: restrictions.PowerLimit, OrganizationID: "acme", AssetID: id,
				Start: testkit.Start.Add(-time.Hour), Upper: &upper, Lower: &lower})
		}
		f.steered, f.idle = append(f.steered, a), append(f.idle, idle)
		snaps = append(snaps, telemetry.Snapshot{AssetID: id, Measurements: m})
	}
	return f, snaps, limits
}

// BenchmarkRuleEvaluation is one platform second of the alarm engine
// for n assets. plan: the pure evaluation of the nine rules and the
// hysteresis (Plan) on a quiet fleet. tick: the four shard runs of that
// second on in-memory SQLite: the batch read of the latest snapshots, the
// stored tracks and lifecycles, the evaluation and the writes (1 % of the
// fleet flapping, see flappingFleet). %core is the share of one core
// the work takes at 1 Hz.
func BenchmarkRuleEvaluation(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("plan/%d", n), func(b *testing.B) {
			clk := clock.NewManual(testkit.Start)
			fleet, snaps, _ := benchFleet(n, clk)
			inputs := make([]alarms.Input, n)
			for i := range inputs {
				inputs[i] = alarms.Input{Asset: &fleet.steered[i], Latest: &snaps[i].Measurements, Age: time.Second, StaleAfter: time.Hour}
			}
			now := testkit.Start
			for b.Loop() {
				now = now.Add(time.Second)
				alarms.Plan(now, inputs, alarms.EngineState{}, alarms.NewAlarmID)
			}
			reportCore(b)
		})
		b.Run(fmt.Sprintf("tick/%d", n), func(b *testing.B) {
			ctx := context.Background()
			store := testkit.OpenSQLite(b)
			clk := clock.NewManual(testkit.Start)
			if err := identity.NewDirectory(store.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
				b.Fatal(err)
			}
			fleet, snaps, limits := benchFleet(n, clk)
			if err := store.Telemetry().SaveLatest(ctx, snaps); err != nil {
				b.Fatal(err)
			}
			svc := alarms.NewService(store.Alarms(), nil, clk)
			e, err := alarms.NewEngine(alarms.EngineOptions{Service: svc, Store: store.Alarms(), Clock: clk, Fleet: fleet,
				Latest: store.Telemetry(), Restrictions: limits, Immediates: noImmediates{}, StaleAfter: 24 * time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				clk.Advance(time.Second)
				for i := range alarms.DefaultShards {
					if err := e.RunShard(ctx, alarms.Shard{Index: i, Count: alarms.DefaultShards}); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportCore(b)
			if _, total, _ := store.Alarms().Events(ctx, auth.Visibility{All: true}, alarms.EventFilter{Limit: 1}); b.N > 120 && total == 0 {
				b.Fatal("no alarm opened: the write path was not measured")
			}
		})
	}
}

// reportCore reports ns/op as the share of one core at one op a second.
func reportCore(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9*100, "%core@1Hz")
}
