package telemetry_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

// fleet drives simulated 10 MW / 20 MWh batteries, every other one with
// PV: schedules changing every 15 minutes, FCR or aFRR reservations in
// 4-hour blocks, an aFRR setpoint changing every 4 seconds and a grid
// frequency wandering at 1 mHz resolution.
type fleet struct {
	sim  *simulator.Simulator
	ids  []string
	cmds []telemetry.Command
	rng  *rand.Rand
	freq float64
	snap []telemetry.Snapshot
}

func newFleet(b testing.TB, n int) *fleet {
	f := &fleet{sim: simulator.New(11), rng: rand.New(rand.NewPCG(3, 4)), freq: 50}
	for i := range n {
		id := fmt.Sprintf("bess-%04d", i)
		cfg := simulator.Config{AssetID: id, EnergyCapacityMWh: 20, PowerCapacityMW: 10,
			ChargeEfficiency: 0.95, DischargeEfficiency: 0.95, RampUpMWPerSec: 1, RampDownMWPerSec: 1,
			GridImportAllowed: true, PVActive: i%2 == 1, LongitudeDeg: 10}
		if cfg.PVActive {
			cfg.PVPeakMW = 8
		}
		if err := f.sim.Add(cfg, day0); err != nil {
			b.Fatal(err)
		}
		f.ids = append(f.ids, id)
		f.cmds = append(f.cmds, telemetry.Command{ControlMode: telemetry.BESSOnly})
	}
	return f
}

// tick advances the fleet to second s after day0 and returns every
// asset's snapshot (valid until the next tick).
func (f *fleet) tick(b testing.TB, s int) []telemetry.Snapshot {
	ctx := context.Background()
	for i, id := range f.ids {
		c := &f.cmds[i]
		changed := false
		if (s+i)%900 == 1 {
			c.BESSPowerMW = math.Round(f.rng.Float64()*12-6) / 2
			c.Dispatch15PowerMW, changed = c.BESSPowerMW, true
		}
		if (s+i)%14400 == 1 {
			block := (s + i) / 14400
			c.FCRReservedMW = float64(block%2) * 2
			c.AFRRReservedPosMW = float64((block+1)%2) * 3
			c.AFRRReservedNegMW, changed = c.AFRRReservedPosMW, true
		}
		if (s+i)%4 == 0 && c.AFRRReservedPosMW > 0 {
			c.AFRRSetpointMW, changed = math.Round((f.rng.Float64()*6-3)*10)/10, true
		}
		if changed {
			if err := f.sim.Send(ctx, id, *c); err != nil {
				b.Fatal(err)
			}
		}
	}
	f.freq += (f.rng.Float64() - 0.5) * 0.004
	f.freq += (50 - f.freq) * 0.05
	if err := f.sim.SetFrequency(math.Round(f.freq*1000) / 1000); err != nil {
		b.Fatal(err)
	}
	f.sim.Tick(at(s))
	f.snap = f.snap[:0]
	for _, id := range f.ids {
		m, err := f.sim.Read(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		f.snap = append(f.snap, telemetry.Snapshot{AssetID: id, Measurements: m})
	}
	return f.snap
}

func fileStore(b testing.TB) store.Backend {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite://"+filepath.Join(b.TempDir(), "atcp.db"), "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkRecord1000Assets is one control tick of 1,000 assets on a SQLite
// file: the latest-state upsert of all of them and the chunk writes whose
// slot came, after ten minutes of warm-up so that open chunks have their
// steady-state size. One op is one tick, i.e. one second at 1 Hz.
func BenchmarkRecord1000Assets(b *testing.B) {
	ctx := context.Background()
	f := newFleet(b, 1000)
	r := telemetry.NewRecorder(fileStore(b).Telemetry(), telemetry.RecorderOptions{})
	s := 0
	for ; s < 600; s++ {
		if err := r.Record(ctx, f.tick(b, s)); err != nil {
			b.Fatal(err)
		}
	}
	var spent time.Duration
	for b.Loop() {
		b.StopTimer()
		snaps := f.tick(b, s)
		s++
		b.StartTimer()
		t0 := time.Now()
		if err := r.Record(ctx, snaps); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(t0)
	}
	b.ReportMetric(100*spent.Seconds()/float64(b.N), "%core-at-1Hz")
}

// BenchmarkHistory reads one asset's history out of a SQLite file holding
// 24 hours of it, recorded by the Recorder from the simulator, and the
// same day of 20 other assets.
func BenchmarkHistory(b *testing.B) {
	ctx := context.Background()
	db := fileStore(b)
	ts := db.Telemetry()
	f := newFleet(b, 2) // bess-0001 has PV
	r := telemetry.NewRecorder(ts, telemetry.RecorderOptions{})
	const day = 86_400
	for s := range day {
		if err := r.Record(ctx, f.tick(b, s)[1:]); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	chunks, err := ts.Chunks(ctx, "bess-0001", at(0), at(day))
	if err != nil {
		b.Fatal(err)
	}
	bytes := 0
	for _, c := range chunks {
		bytes += len(c.Data)
	}
	for i := range 20 {
		others := slices.Clone(chunks)
		for k := range others {
			others[k].AssetID = fmt.Sprintf("other-%02d", i)
		}
		if err := ts.PutChunks(ctx, others); err != nil {
			b.Fatal(err)
		}
	}
	h := telemetry.NewHistoryReader(ts)
	run := func(b *testing.B, from, to time.Time, names []string, maxPoints int) {
		var lat []time.Duration
		points := 0
		for b.Loop() {
			t0 := time.Now()
			got, err := h.History(ctx, "bess-0001", from, to, names, maxPoints)
			lat = append(lat, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
			points = 0
			for _, p := range got {
				points += len(p)
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(points), "points")
	}
	b.Run("24h-200-all", func(b *testing.B) { run(b, at(0), at(day), nil, 200) })
	b.Run("24h-200-three", func(b *testing.B) {
		run(b, at(0), at(day), []string{"battery_power_actual_ac", "available_discharge_energy", "frequency"}, 200)
	})
	b.Run("5min-raw-all", func(b *testing.B) { run(b, at(day-300), at(day), nil, 0) })
	b.Run("asset-day", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(float64(bytes)/1e6, "MB/asset-day")
		b.ReportMetric(float64(bytes)/float64(day*len(telemetry.PointNames())), "bytes/point")
	})
}
