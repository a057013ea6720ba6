package control

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"atcp/internal/adapters/simulated"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/dispatch"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/replay"
	"atcp/internal/restrictions"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
	"atcp/internal/testkit"
)

// t0 is a quarter-hour of a replayed delivery day.
var t0 = time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)

var replayData = func() *replay.Dataset {
	d, err := replay.Load()
	if err != nil {
		panic(err)
	}
	return d
}()

type env struct {
	t      *testing.T
	ctx    context.Context
	b      store.Backend
	clk    *clock.Manual
	assets *assets.Service
	restr  *restrictions.Service
	plan   *fakePlan
	rec    *fakeRecorder
	seed   uint64
}

// quietSeed is a seed under which none of ids is curtailed on t0's day
// (and, when pvID is set, that PV asset is).
func quietSeed(t *testing.T, pvID string, ids ...string) uint64 {
	day := t0.Truncate(24 * time.Hour)
	for seed := uint64(1); seed < 1000; seed++ {
		ok, pvSeen := true, pvID == ""
		for m := 0; m < 1440 && ok; m++ {
			at := day.Add(time.Duration(m) * time.Minute)
			for _, id := range ids {
				if gridCurtailed(simulated.Curtailment(seed, id, false, at)) {
					ok = false
				}
			}
			if pvID != "" && simulated.Curtailment(seed, pvID, true, at).PVExportCurtailmentPct > 0 {
				pvSeen = true
			}
		}
		if ok && pvSeen {
			return seed
		}
	}
	t.Fatal("no seed found")
	return 0
}

// gridCurtailed reports whether the DSO's signals g curtail the point of
// connection.
func gridCurtailed(g simulator.GridSignals) bool {
	return g.ExportCurtailmentPct > 0 || g.ImportCurtailmentPct > 0
}

// simulatedOptions are the loop's options with the simulator adapter
// (seeded with seed) and the replayed activations.
func simulatedOptions(seed uint64) Options {
	return Options{Adapters: map[string]Adapter{assets.AdapterSimulator: simulated.New(replayData, seed, nil)},
		Activations: simulated.NewActivations(replayData)}
}

// newEnv registers acme's battery bess-1 (10 MW / 20 MWh, lossless,
// control enabled), adjusted by configure.
func newEnv(t *testing.T, b store.Backend, configure func(*assets.Asset)) *env {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewManual(t0)
	if err := identity.NewDirectory(b.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	as := assets.NewService(b.Assets(), clk)
	e := &env{t: t, ctx: ctx, b: b, clk: clk, assets: as, restr: restrictions.NewService(b.Restrictions(), as, clk),
		plan: newFakePlan(), rec: newFakeRecorder(), seed: quietSeed(t, "", "bess-1", "bess-2")}
	e.addAsset("bess-1", configure)
	return e
}

func (e *env) addAsset(id string, configure func(*assets.Asset)) {
	e.t.Helper()
	a := assets.NewAsset(id, "acme", id, "Leipzig", assets.Standalone)
	a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = f(10), f(20)
	a.ControlEnabled = true
	if configure != nil {
		configure(&a)
	}
	if err := e.assets.EnsureAsset(e.ctx, a); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) loop() *Loop {
	e.t.Helper()
	o := simulatedOptions(e.seed)
	o.Assets, o.Plan, o.Restrictions, o.Curtailments = e.assets, e.plan, e.b.Restrictions(), e.restr
	o.Bids, o.Covers, o.Recorder, o.Latest = e.b.Bids(), e.b.CoverSteps(), e.rec, e.rec
	l, err := New(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

// run runs the loop's job for due with the clock there.
func (e *env) run(l *Loop, due time.Time) {
	e.t.Helper()
	e.clk.Set(due)
	if err := l.Run(e.ctx, due); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) state(id string) telemetry.Measurements { return e.rec.last(id) }

func (e *env) restrict(kind restrictions.Kind, from time.Time, end *time.Time, upper, lower *float64) {
	e.t.Helper()
	e.clk.Set(from)
	if _, err := e.restr.Create(e.ctx, auth.Visibility{All: true}, "bess-1", kind,
		restrictions.Draft{Start: from, End: end, Upper: upper, Lower: lower, Reason: "maintenance"}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) insertBid(b bids.Bid) {
	e.t.Helper()
	a, err := e.assets.Get(e.ctx, auth.Visibility{All: true}, b.AssetID)
	if err != nil {
		e.t.Fatal(err)
	}
	b.ID, b.OrganizationID, b.CreatedAt, b.UpdatedAt = uuid.NewString(), a.OrganizationID, t0, t0
	err = e.b.Bids().Apply(e.ctx, auth.Visibility{All: true}, a, b.Market, b.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
		return bids.Changes{Insert: []bids.Bid{b}}, nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) outcome(id string, at time.Time) dispatch.Outcome {
	e.t.Helper()
	o, ok := e.plan.outcome(id, at)
	if !ok {
		e.t.Fatalf("no outcome for %s at %s", id, at)
	}
	return o
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Fatalf("%s = %v, want %v", name, got, want)
	}
}

func sec(n int) time.Duration { return time.Duration(n) * time.Second }

func TestScheduleMovesSoCAndResetsAtBlockStart(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.plan.schedule("acme", "bess-1", t0.Add(10*time.Minute), 5)
		e.plan.schedule("acme", "bess-1", t0.Add(13*time.Minute), -4)
		l := e.loop()
		e.run(l, t0.Add(10*time.Minute))
		m := e.state("bess-1")
		near(t, "power", m.BatteryPowerActualAC, 5)
		near(t, "dispatch_setpoint", m.DispatchSetpoint, 5)
		// Catch-up: 4 minutes of platform time in one run, second by second.
		e.run(l, t0.Add(14*time.Minute))
		near(t, "charging", e.state("bess-1").BatteryPowerActualAC, -4)
		if o := e.outcome("bess-1", t0.Add(10*time.Minute)); o.Status != dispatch.Full || o.EffectivePowerMW != 5 {
			t.Fatalf("outcome %+v", o)
		}
		if o := e.outcome("bess-1", t0.Add(13*time.Minute)); o.Status != dispatch.Full || o.EffectivePowerMW != -4 {
			t.Fatalf("outcome %+v", o)
		}
		// The next block starts without an event: back to 0 MW.
		e.run(l, t0.Add(15*time.Minute))
		m = e.state("bess-1")
		near(t, "reset at block start", m.BatteryPowerActualAC, 0)
		near(t, "control mode passive", m.ControlMode, 0)
		// 10 MWh - 5 MW x 181 s + 4 MW x 120 s.
		near(t, "SoC", m.AvailableDischargeEnergy, 10-5*180.0/3600+4*120.0/3600)
		if got := len(e.rec.points("bess-1")); got != 301 {
			t.Fatalf("%d points, want one per second (301)", got)
		}
	})
}

// The loop runs on UTC quarter-hours: the Europe/Berlin clock changes
// (02:00 CET -> 03:00 CEST at 01:00 UTC, 03:00 CEST -> 02:00 CET at 01:00
// UTC) neither move the block-start reset nor drop or repeat a second.
func TestClockChangeNights(t *testing.T) {
	for _, change := range []time.Time{
		time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC),
	} {
		t.Run(change.Format("2006-01-02"), func(t *testing.T) {
			e := newEnv(t, testkit.OpenSQLite(t), nil)
			e.plan.schedule("acme", "bess-1", change.Add(-10*time.Minute), 3)
			l := e.loop()
			e.run(l, change.Add(-4*time.Minute))
			e.run(l, change.Add(-sec(1)))
			near(t, "target before the block start", e.state("bess-1").BatteryPowerActualAC, 3)
			e.run(l, change.Add(sec(1)))
			near(t, "reset at the UTC block start", e.state("bess-1").BatteryPowerActualAC, 0)
			points := e.rec.points("bess-1")
			for i := 1; i < len(points); i++ {
				if d := points[i].Timestamp.Sub(points[i-1].Timestamp); d != time.Second {
					t.Fatalf("points %v apart at %v", d, points[i].Timestamp)
				}
			}
			if f := e.state("bess-1").Frequency; !(f > 49 && f < 51) {
				t.Fatalf("frequency %v", f)
			}
		})
	}
}

func TestRampAndDispatch15(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, func(a *assets.Asset) { a.MaxPosRampRateMWPerSec, a.MinNegRampRateMWPerSec = f(1), f(2) })
		e.plan.schedule("acme", "bess-1", t0.Add(time.Minute), 5)
		e.plan.schedule("acme", "bess-1", t0.Add(15*time.Minute), -3)
		l := e.loop()
		e.run(l, t0.Add(time.Minute))
		near(t, "first second", e.state("bess-1").BatteryPowerActualAC, 1)
		e.run(l, t0.Add(time.Minute+sec(2)))
		m := e.state("bess-1")
		near(t, "third second", m.BatteryPowerActualAC, 3)
		near(t, "dispatch15_setpoint", m.Dispatch15Setpoint, -3)
		e.run(l, t0.Add(15*time.Minute))
		near(t, "ramping down at 2 MW/s", e.state("bess-1").BatteryPowerActualAC, 3)
	})
}

func TestImmediateDispatchOverridesAndIgnoresUnavailability(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.restrict(restrictions.Unavailability, t0, nil, nil, nil)
		e.plan.override("bess-1", t0.Add(time.Minute), t0.Add(2*time.Minute), -6)
		e.plan.schedule("acme", "bess-1", t0.Add(time.Minute+sec(30)), 4)
		l := e.loop()
		e.run(l, t0.Add(time.Minute))
		e.run(l, t0.Add(time.Minute+sec(40)))
		m := e.state("bess-1")
		near(t, "immediate power despite the unavailability", m.BatteryPowerActualAC, -6)
		// The rejected target moved nothing: 0 MW effective, not the
		// immediate dispatch's power.
		if o := e.outcome("bess-1", t0.Add(time.Minute+sec(30))); o.Status != dispatch.Rejected || o.Reason != ReasonImmediateActive ||
			o.EffectivePowerMW != 0 {
			t.Fatalf("outcome %+v", o)
		}
		// At its end the scheduled power applies again, under the
		// unavailability: 0 MW.
		e.run(l, t0.Add(2*time.Minute))
		m = e.state("bess-1")
		near(t, "back to the clamped schedule", m.BatteryPowerActualAC, 0)
		near(t, "asset status", m.AssetStatus, 0)
	})
}

func TestRestrictionsClipTargets(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		end := t0.Add(2 * time.Minute)
		e.restrict(restrictions.Unavailability, t0.Add(time.Minute), &end, nil, nil)
		e.restrict(restrictions.PowerLimit, t0.Add(3*time.Minute), nil, f(2), nil)
		e.plan.schedule("acme", "bess-1", t0.Add(time.Minute+sec(10)), 5)
		e.plan.schedule("acme", "bess-1", t0.Add(3*time.Minute+sec(10)), 6)
		l := e.loop()
		e.run(l, t0.Add(time.Minute+sec(10)))
		near(t, "unavailable", e.state("bess-1").BatteryPowerActualAC, 0)
		if o := e.outcome("bess-1", t0.Add(time.Minute+sec(10))); o.Status != dispatch.Rejected || o.EffectivePowerMW != 0 || o.Reason != ReasonUnavailable {
			t.Fatalf("outcome %+v", o)
		}
		// The unavailability ends: the target stays, now unclipped.
		e.run(l, t0.Add(2*time.Minute+sec(5)))
		near(t, "after the unavailability", e.state("bess-1").BatteryPowerActualAC, 5)
		e.run(l, t0.Add(3*time.Minute+sec(10)))
		near(t, "power limit", e.state("bess-1").BatteryPowerActualAC, 2)
		if o := e.outcome("bess-1", t0.Add(3*time.Minute+sec(10))); o.Status != dispatch.Clipped || o.EffectivePowerMW != 2 || o.Reason != ReasonPowerLimit {
			t.Fatalf("outcome %+v", o)
		}
	})
}

// fcrBlock is the FCR/aFRR tender block around t0.
var fcrBlock = calendar.Interval{Start: time.Date(2026, 2, 2, 7, 0, 0, 0, time.UTC), End: time.Date(2026, 2, 2, 11, 0, 0, 0, time.UTC)}

func TestFCRAwardHoldsBackBufferedCapacity(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, func(a *assets.Asset) { a.FCREnabled, a.FCRPrequalifiedMW = true, 2 })
		price := bids.EUR(10)
		e.insertBid(bids.Bid{AssetID: "bess-1", Market: bids.FCR, Product: bids.Sym, Start: fcrBlock.Start, End: fcrBlock.End,
			CapacityPrice: &price, OfferedMW: 2, AwardedMW: f(2), Status: bids.Successful})
		e.plan.schedule("acme", "bess-1", t0.Add(time.Minute), 9)
		l := e.loop()
		e.run(l, t0.Add(time.Minute))
		m := e.state("bess-1")
		near(t, "fcr_upper_limit", m.FCRUpperLimit, 2)
		near(t, "dispatch power", m.DispatchSetpoint, 7.5)
		o := e.outcome("bess-1", t0.Add(time.Minute))
		if o.Status != dispatch.Clipped || o.EffectivePowerMW != 7.5 || o.Reason != ReasonReserved {
			t.Fatalf("outcome %+v", o)
		}
		// The battery moves the schedule plus the FCR activation of the
		// modelled frequency.
		fcr := m.FCRPowerSetpoint
		near(t, "battery power", m.BatteryPowerActualAC, 7.5+fcr)
		near(t, "FCR activation", fcr, 2*math.Max(-1, math.Min(1, (50-m.Frequency)/0.2)))
	})
}

func TestAFRRActivationMovesBattery(t *testing.T) {
	// The first quarter-hour of the block the replay model activates.
	var qh time.Time
	var clearing replay.QuarterHourClearing
	for p := fcrBlock.Start; p.Before(fcrBlock.End); p = p.Add(calendar.PeriodLength) {
		c, err := replayData.ClearQuarterHour(p)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cleared && (c.Pos.ActivatedMW > 0 || c.Neg.ActivatedMW > 0) {
			qh, clearing = p, c
			break
		}
	}
	if qh.IsZero() {
		t.Skip("no activation modelled in the block")
	}
	product, sign, dir := bids.Pos, 1.0, replay.Pos
	if clearing.Pos.ActivatedMW == 0 {
		product, sign, dir = bids.Neg, -1, replay.Neg
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, func(a *assets.Asset) {
			a.AFRREnabled, a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW = true, 5, 5
		})
		capPrice, energyPrice := bids.EUR(5), bids.EUR(-15000) // first in the merit order
		e.insertBid(bids.Bid{AssetID: "bess-1", Market: bids.AFRRCapacity, Product: product, Start: fcrBlock.Start, End: fcrBlock.End,
			CapacityPrice: &capPrice, EnergyPrice: &energyPrice, OfferedMW: 5, AwardedMW: f(5), Status: bids.Successful})
		e.insertBid(bids.Bid{AssetID: "bess-1", Market: bids.AFRREnergy, Product: product, Start: qh, End: qh.Add(calendar.PeriodLength),
			EnergyPrice: &energyPrice, OfferedMW: 5, Status: bids.Submitted})
		l := e.loop()
		at := qh.Add(5 * time.Minute)
		e.run(l, at)
		m := e.state("bess-1")
		// The market's figure for the bid (the replayed merit order).
		market, err := replayData.ClearAFRREnergy([]replay.EnergyBid{{ID: "e", Period: calendar.Interval{Start: qh, End: qh.Add(calendar.PeriodLength)},
			Direction: dir, PowerMW: 5, Price: decimal.New(int64(energyPrice), -2)}})
		if err != nil {
			t.Fatal(err)
		}
		activated := sign * market[0].ActivatedMW
		want := AFRRSetpoint(activated, 5, 5, at)
		near(t, "afrr_setpoint", m.AFRRSetpoint, want)
		near(t, "afrr_power_actual", m.AFRRPowerActual, want)
		near(t, "battery power", m.BatteryPowerActualAC, want)
		if want == 0 {
			t.Fatal("nothing activated")
		}
		// The next quarter-hour without an energy bid: nothing activated.
		e.run(l, qh.Add(calendar.PeriodLength+time.Minute))
		near(t, "after the bid", e.state("bess-1").AFRRSetpoint, 0)
	})
}

func TestControlDisabledAndSkippedOutcomes(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.addAsset("bess-2", func(a *assets.Asset) { a.ControlEnabled = false })
		e.plan.schedule("acme", "bess-2", t0.Add(sec(5)), 5)
		e.plan.schedule("acme", "bess-1", t0.Add(sec(100)), 3)
		e.plan.schedule("acme", "ghost", t0.Add(sec(800)), 3)
		l := e.loop()
		e.run(l, t0)
		e.run(l, t0.Add(sec(5)))
		if o := e.outcome("bess-2", t0.Add(sec(5))); o.Status != dispatch.Failed || o.Reason != ReasonControlDisabled {
			t.Fatalf("outcome %+v", o)
		}
		near(t, "passive battery", e.state("bess-2").BatteryPowerActualAC, 0)
		// Beyond the catch-up window: the event at +100 s was never
		// executed, but its target is in force after the skip.
		e.run(l, t0.Add(sec(850)))
		if o := e.outcome("bess-1", t0.Add(sec(100))); o.Status != dispatch.Failed || o.Reason != ReasonSkipped {
			t.Fatalf("outcome %+v", o)
		}
		if o := e.outcome("ghost", t0.Add(sec(800))); o.Status != dispatch.Failed || o.Reason != ReasonNotControlled {
			t.Fatalf("outcome %+v", o)
		}
		near(t, "target after the skip", e.state("bess-1").BatteryPowerActualAC, 3)
		if got := len(e.rec.points("bess-1")); got != 1+5+int(MaxCatchUp/time.Second) {
			t.Fatalf("%d points", got)
		}
		// 1 s + 5 s + 300 s processed; the skipped 545 s are crossed in
		// longer steps under the command last sent (none: passive), the
		// target of +100 s applies from +550 s.
		near(t, "SoC over the skip", e.state("bess-1").AvailableDischargeEnergy, 10-3*300.0/3600)
	})
}

func TestOutcomesRetriedAfterAFailedWrite(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.plan.schedule("acme", "bess-1", t0.Add(sec(5)), 3)
		l := e.loop()
		e.run(l, t0)
		e.plan.mu.Lock()
		e.plan.fail = errors.New("store unavailable")
		e.plan.mu.Unlock()
		e.clk.Set(t0.Add(sec(5)))
		if err := l.Run(e.ctx, t0.Add(sec(5))); err == nil {
			t.Fatal("failed write not reported")
		}
		e.plan.mu.Lock()
		e.plan.fail = nil
		e.plan.mu.Unlock()
		// The second is done (not processed again), but its outcome is
		// reported with the next run.
		e.run(l, t0.Add(sec(6)))
		if o := e.outcome("bess-1", t0.Add(sec(5))); o.Status != dispatch.Full || o.EffectivePowerMW != 3 {
			t.Fatalf("outcome %+v", o)
		}
		if n := len(e.rec.points("bess-1")); n != 7 {
			t.Fatalf("%d points, want 7", n)
		}
	})
}

func TestGridConnectionCapsTargets(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, func(a *assets.Asset) { a.GridConnectionPowerMW = f(8) })
		e.plan.schedule("acme", "bess-1", t0.Add(sec(1)), 9)
		l := e.loop()
		e.run(l, t0.Add(sec(1)))
		near(t, "battery power", e.state("bess-1").BatteryPowerActualAC, 8)
		if o := e.outcome("bess-1", t0.Add(sec(1))); o.Status != dispatch.Clipped || o.EffectivePowerMW != 8 || o.Reason != ReasonGridConnection {
			t.Fatalf("outcome %+v", o)
		}
	})
}

func TestRestoreAfterFailover(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.plan.schedule("acme", "bess-1", t0, 6)
		a, other := e.loop(), e.loop()
		e.run(a, t0)
		e.run(a, t0.Add(sec(10)))
		// Another instance takes the job over: it starts from a's last
		// snapshot.
		e.run(other, t0.Add(sec(11)))
		e.run(other, t0.Add(sec(20)))
		near(t, "SoC continued", e.state("bess-1").AvailableDischargeEnergy, 10-6*21.0/3600)
		// Back to a: it notices the gap, drops what it still buffers and
		// resumes from other's state.
		if e.rec.forgets != 0 {
			t.Fatalf("%d forgets before the failback", e.rec.forgets)
		}
		e.run(a, t0.Add(sec(30)))
		if e.rec.forgets != 1 {
			t.Fatalf("%d forgets after the failback, want 1", e.rec.forgets)
		}
		near(t, "SoC after the failback", e.state("bess-1").AvailableDischargeEnergy, 10-6*31.0/3600)
		points := e.rec.points("bess-1")
		if len(points) != 31 {
			t.Fatalf("%d points, want 31", len(points))
		}
		for i, p := range points {
			if !p.Timestamp.Equal(t0.Add(sec(i))) {
				t.Fatalf("point %d at %v", i, p.Timestamp)
			}
		}
		// A cancelled run (lease lost) flushes the recorder.
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		e.clk.Set(t0.Add(sec(31)))
		if err := a.Run(ctx, t0.Add(sec(31))); err == nil {
			t.Fatal("cancelled run reported no error")
		}
		if e.rec.flushes != 1 {
			t.Fatalf("%d flushes", e.rec.flushes)
		}
		// The next run resumes where the cancelled one stopped.
		e.run(a, t0.Add(sec(32)))
		points = e.rec.points("bess-1")
		if len(points) != 33 || !points[32].Timestamp.Equal(t0.Add(sec(32))) {
			t.Fatalf("%d points, last at %v", len(points), points[len(points)-1].Timestamp)
		}
		near(t, "SoC after the cancelled run", e.state("bess-1").AvailableDischargeEnergy, 10-6*33.0/3600)
	})
}

func TestCurtailmentRecords(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.seed = quietSeed(t, "pv-1", "bess-1")
		e.addAsset("pv-1", func(a *assets.Asset) { a.PVActive = true })
		// Find the episode of the day.
		var from, to time.Time
		for s := t0.Truncate(24 * time.Hour); s.Before(t0.Truncate(24 * time.Hour).Add(24 * time.Hour)); s = s.Add(time.Minute) {
			on := gridCurtailed(simulated.Curtailment(e.seed, "pv-1", true, s))
			if on && from.IsZero() {
				from = s
			}
			if !on && !from.IsZero() {
				to = s
				break
			}
		}
		l := e.loop()
		e.run(l, from.Add(-sec(1)))
		e.run(l, from.Add(sec(1)))
		list, err := e.restr.Curtailments(e.ctx, auth.Visibility{All: true}, "pv-1", restrictions.Window{}, restrictions.ByStart, restrictions.Asc)
		if err != nil {
			t.Fatal(err)
		}
		// Stamped with the second the signal came, not the later instant
		// the run processed it at.
		if len(list) != 1 || list[0].End != nil || !list[0].Start.Equal(from) {
			t.Fatalf("curtailments %+v, want one open since %v", list, from)
		}
		g := simulated.Curtailment(e.seed, "pv-1", true, from)
		if m := e.state("pv-1"); m.ExportCurtailmentDSO != g.ExportCurtailmentPct || *m.PVExportCurtailmentDSO != g.PVExportCurtailmentPct {
			t.Fatalf("state %v %v, want %+v", m.ExportCurtailmentDSO, *m.PVExportCurtailmentDSO, g)
		}
		e.run(l, to.Add(-sec(1)))
		e.run(l, to.Add(sec(1)))
		list, err = e.restr.Curtailments(e.ctx, auth.Visibility{All: true}, "pv-1", restrictions.Window{}, restrictions.ByStart, restrictions.Asc)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].End == nil || !list[0].End.Equal(to) {
			t.Fatalf("curtailments %+v", list)
		}
		if m := e.state("pv-1"); m.ExportCurtailmentDSO != 0 {
			t.Fatalf("still curtailed: %v", m.ExportCurtailmentDSO)
		}
	})
}

func TestCurtailmentRecordReplacedWhenTheLevelChanges(t *testing.T) {
	// A seed under which pv-1's curtailment changes level while it lasts
	// (its midday PV episode meets another episode).
	day := t0.Truncate(24 * time.Hour)
	var seed uint64
	var change time.Time
	for s := uint64(1); s < 20000 && change.IsZero(); s++ {
		prev := simulated.Curtailment(s, "pv-1", true, day)
		for m := 1; m < 1440; m++ {
			at := day.Add(time.Duration(m) * time.Minute)
			g := simulated.Curtailment(s, "pv-1", true, at)
			if gridCurtailed(prev) && gridCurtailed(g) && g != prev {
				seed, change = s, at
				break
			}
			prev = g
		}
	}
	if change.IsZero() {
		t.Fatal("no seed found")
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.seed = seed
		e.addAsset("pv-1", func(a *assets.Asset) { a.PVActive = true })
		l := e.loop()
		e.run(l, change.Add(-sec(1)))
		e.run(l, change.Add(sec(1)))
		list, err := e.restr.Curtailments(e.ctx, auth.Visibility{All: true}, "pv-1", restrictions.Window{}, restrictions.ByStart, restrictions.Asc)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].End == nil || list[1].End != nil || !list[1].Start.Equal(*list[0].End) {
			t.Fatalf("curtailments %+v", list)
		}
		cfg := simulator.ConfigFromAsset(func() assets.Asset {
			a, err := e.assets.Get(e.ctx, auth.Visibility{All: true}, "pv-1")
			if err != nil {
				t.Fatal(err)
			}
			return a
		}())
		// The bounds rest on the connection the simulator models.
		conn := cfg.PowerCapacityMW + cfg.PVPeakMW
		for i, at := range []time.Time{change.Add(-sec(1)), change} {
			g := simulated.Curtailment(seed, "pv-1", true, at)
			maxMW, minMW := curtailmentBounds(conn, telemetry.Measurements{
				ExportCurtailmentDSO: g.ExportCurtailmentPct, ImportCurtailmentDSO: g.ImportCurtailmentPct})
			if list[i].MaxCurtailment != maxMW || list[i].MinCurtailment != minMW {
				t.Fatalf("record %d: %v / %v, want %v / %v", i, list[i].MaxCurtailment, list[i].MinCurtailment, maxMW, minMW)
			}
		}
	})
}

func TestEnergyLimitAndPoCTarget(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.addAsset("pv-2", func(a *assets.Asset) { a.Type, a.PVActive = assets.GreyColocation, true })
		// The energy limit keeps at least 9.99 MWh: 5 MW empties 0.01 MWh
		// in 7.2 s.
		e.restrict(restrictions.EnergyLimit, t0, nil, f(20), f(9.99))
		e.plan.schedule("acme", "bess-1", t0, 5)
		poc := 2.0
		e.plan.mu.Lock()
		e.plan.events = append(e.plan.events, dispatch.Event{OrganizationID: "acme", AssetID: "pv-2", ControlMode: telemetry.PoCOnly,
			PoCPowerMW: &poc, SetTime: t0, DeliveryTime: t0})
		e.plan.mu.Unlock()
		l := e.loop()
		e.run(l, t0)
		e.run(l, t0.Add(sec(20)))
		m := e.state("bess-1")
		near(t, "soc_min", m.SoCMin, 9.99)
		near(t, "held at the window floor", m.AvailableDischargeEnergy, 0)
		near(t, "stopped", m.BatteryPowerActualAC, 0)

		pv := e.state("pv-2")
		near(t, "poc_setpoint", pv.PoCSetpoint, 2)
		near(t, "point of connection follows the target", pv.PoCPowerActualAC, 2)
		if *pv.PVPowerDCActual <= 0 {
			t.Fatal("no PV at 10:00 UTC")
		}
		if o := e.outcome("pv-2", t0); o.Status != dispatch.Full || o.EffectivePowerMW != 2 || o.ControlMode != telemetry.PoCOnly {
			t.Fatalf("outcome %+v", o)
		}
	})
}

func TestAssetRefreshAndControlWithdrawn(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.plan.schedule("acme", "bess-1", t0, 8)
		l := e.loop()
		e.run(l, t0)
		near(t, "rated 10 MW", e.state("bess-1").BatteryPowerActualAC, 8)
		v := auth.Visibility{All: true}
		// A registration changes at a later instant than it was made: the
		// loop tells a change by its updated_at.
		e.clk.Set(t0.Add(sec(1)))
		if _, err := e.assets.Update(e.ctx, v, "bess-1", assets.Update{UsablePowerCapacityMW: assets.Set(6.0)}); err != nil {
			t.Fatal(err)
		}
		e.addAsset("bess-2", nil)
		// Within 10 s the new capacity and the new asset are picked up.
		e.run(l, t0.Add(sec(10)))
		near(t, "rated 6 MW", e.state("bess-1").BatteryPowerActualAC, 6)
		if len(e.rec.points("bess-2")) == 0 {
			t.Fatal("new asset not simulated")
		}
		// Control withdrawn: the battery is handed back (passive) and the
		// asset still reports.
		if _, err := e.assets.Update(e.ctx, v, "bess-1", assets.Update{BESSControlEnabled: assets.Set(false)}); err != nil {
			t.Fatal(err)
		}
		e.run(l, t0.Add(sec(20)))
		m := e.state("bess-1")
		near(t, "passive", m.BatteryPowerActualAC, 0)
		near(t, "control mode", m.ControlMode, 0)
		if !m.Timestamp.Equal(t0.Add(sec(20))) {
			t.Fatalf("reported at %v", m.Timestamp)
		}
		e.clk.Set(t0.Add(sec(21)))
		if err := e.assets.Delete(e.ctx, v, "bess-2"); err != nil {
			t.Fatal(err)
		}
		e.run(l, t0.Add(sec(30)))
		if n := len(e.rec.points("bess-2")); n != 20 {
			t.Fatalf("deleted asset reported %d points, want 20", n)
		}
	})
}

func TestBatteryHandedBackAfterARefusedCommand(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.plan.schedule("acme", "bess-1", t0.Add(sec(1)), 5)
		l := e.loop()
		e.run(l, t0.Add(sec(1)))
		near(t, "steered", e.state("bess-1").BatteryPowerActualAC, 5)
		// A next-block target the adapter refuses (not finite): from the
		// next awards refresh every command is refused and the previous
		// one stays in force.
		e.plan.schedule("acme", "bess-1", t0.Add(calendar.PeriodLength), math.Inf(1))
		e.run(l, t0.Add(sec(70)))
		m := e.state("bess-1")
		near(t, "previous command in force", m.BatteryPowerActualAC, 5)
		near(t, "dispatch15_setpoint of the last accepted command", m.Dispatch15Setpoint, 0)
		// Control withdrawn: the battery must still be handed back.
		if _, err := e.assets.Update(e.ctx, auth.Visibility{All: true}, "bess-1", assets.Update{BESSControlEnabled: assets.Set(false)}); err != nil {
			t.Fatal(err)
		}
		e.run(l, t0.Add(sec(90)))
		m = e.state("bess-1")
		near(t, "handed back", m.BatteryPowerActualAC, 0)
		near(t, "passive", m.ControlMode, 0)
	})
}

func TestNewChecksOptionsAndRegistersMetrics(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("empty options accepted")
	}
	if _, err := New(Options{Assets: &fakeFleet{}, Adapters: map[string]Adapter{assets.AdapterSimulator: nil}, Plan: newFakePlan(),
		Restrictions: fakeRestrictions{}, Curtailments: fakeCurtailments{}, Bids: fakeBids{}, Activations: noActivations{}, Covers: fakeCovers{},
		Recorder: newFakeRecorder(), Latest: newFakeRecorder()}); err == nil {
		t.Fatal("nil adapter accepted")
	}
	b := testkit.OpenSQLite(t)
	e := newEnv(t, b, nil)
	reg := prometheus.NewRegistry()
	o := simulatedOptions(1)
	o.Assets, o.Plan, o.Restrictions, o.Curtailments = e.assets, e.plan, b.Restrictions(), e.restr
	o.Bids, o.Covers, o.Recorder, o.Latest, o.Registerer = b.Bids(), b.CoverSteps(), e.rec, e.rec, reg
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if jobs := l.Jobs(); len(jobs) != 1 || jobs[0].Name != "control" || jobs[0].Every != time.Second {
		t.Fatalf("jobs %+v", jobs)
	}
	e.plan.schedule("acme", "bess-1", t0, 1)
	e.run(l, t0)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, mf := range families {
		got[mf.GetName()] = true
	}
	for _, name := range []string{"atcp_control_tick_seconds", "atcp_control_assets", "atcp_control_schedule_outcomes_total"} {
		if !got[name] {
			t.Fatalf("metric %s missing: %v", name, got)
		}
	}
	if err := l.Flush(e.ctx); err != nil || e.rec.flushes != 1 {
		t.Fatalf("flush: %v, %d", err, e.rec.flushes)
	}
}

// TestRecordFailureKeepsTheSecond: a second whose snapshots could not be
// recorded was still executed; it is neither failed nor run again.
func TestRecordFailureKeepsTheSecond(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, nil)
		e.plan.schedule("acme", "bess-1", t0.Add(sec(2)), 4)
		l := e.loop()
		e.run(l, t0)
		e.rec.mu.Lock()
		e.rec.failing = true
		e.rec.mu.Unlock()
		e.run(l, t0.Add(sec(2)))
		if o := e.outcome("bess-1", t0.Add(sec(2))); o.Status != dispatch.Full || o.EffectivePowerMW != 4 {
			t.Fatalf("outcome %+v", o)
		}
		e.rec.mu.Lock()
		e.rec.failing = false
		e.rec.mu.Unlock()
		e.run(l, t0.Add(sec(3)))
		points := e.rec.points("bess-1")
		if last := points[len(points)-1]; !last.Timestamp.Equal(t0.Add(sec(3))) || len(points) != 2 {
			t.Fatalf("%d points, last at %v; want the seconds 0 and 3", len(points), last.Timestamp)
		}
	})
}

// probeYields is how many of the loop's yields the woken goroutine may
// take to run. A yield puts the loop's goroutine on the global run queue,
// and one scheduling in 61 takes from that queue first (the runtime's
// fairness rule), so the loop can win a yield back before the woken
// goroutine runs: a probe after one yield failed about once in 60 runs.
// After three, about once in 200,000.
const probeYields = 3

// probeAdapter wakes a goroutine at the first Send of a second and, after
// probeYields yields, notes whether it has run meanwhile.
type probeAdapter struct {
	Adapter
	sends  int
	woken  atomic.Bool
	ranBy  bool // the woken goroutine ran before the probing Send
	probed bool
}

func (p *probeAdapter) Send(ctx context.Context, id string, cmd telemetry.Command, at time.Time) error {
	p.sends++
	switch p.sends {
	case 1:
		go p.woken.Store(true)
	case probeYields*yieldEvery + 1:
		p.ranBy, p.probed = p.woken.Load(), true
	}
	return p.Adapter.Send(ctx, id, cmd, at)
}

// TestLoopYieldsItsProcessor: a goroutine woken while the loop steps its
// assets (a request handed a connection, say) runs within a few yields,
// not when the loop's second ends: on one processor, which is the run
// queue it waits in, it has run by the command after probeYields yields.
func TestLoopYieldsItsProcessor(t *testing.T) {
	e := newEnv(t, testkit.OpenSQLite(t), nil)
	for i := range probeYields*yieldEvery + 8 {
		e.addAsset(fmt.Sprintf("bess-y%03d", i), nil)
	}
	o := simulatedOptions(e.seed)
	probe := &probeAdapter{Adapter: o.Adapters[assets.AdapterSimulator]}
	o.Adapters = map[string]Adapter{assets.AdapterSimulator: probe}
	o.Assets, o.Plan, o.Restrictions, o.Curtailments = e.assets, e.plan, e.b.Restrictions(), e.restr
	o.Bids, o.Covers, o.Recorder, o.Latest = e.b.Bids(), e.b.CoverSteps(), e.rec, e.rec
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e.run(l, t0)
	if !probe.probed || !probe.ranBy {
		t.Fatalf("after %d commands the woken goroutine had run: %v (probed %v)", probeYields*yieldEvery, probe.ranBy, probe.probed)
	}
}
