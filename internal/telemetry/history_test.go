package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/store/workload"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/chunk"
	"atcp/internal/testkit"
)

var day0 = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)

// snap is a synthetic snapshot of asset at second s after day0: a linear
// energy, a periodic frequency, a status flipping every 100 s, PV points
// for pv assets.
func snap(asset string, s int, pv bool) telemetry.Snapshot {
	m := telemetry.Measurements{
		Timestamp:                day0.Add(time.Duration(s) * time.Second),
		AssetStatus:              float64(s / 100 % 2),
		Frequency:                50 + 0.001*float64(s%7),
		AvailableDischargeEnergy: 10 - 0.001*float64(s),
		DischargeThroughput:      0.01 * float64(s),
		DispatchSetpoint:         float64(s / 900),
	}
	m.AvailableSoCDischarge = m.AvailableDischargeEnergy
	if pv {
		irr := float64(s % 1000)
		m.PVIrradiance = &irr
	}
	return telemetry.Snapshot{AssetID: asset, Measurements: m}
}

func record(t testing.TB, r *telemetry.Recorder, from, to int, assets map[string]bool) {
	t.Helper()
	ctx := context.Background()
	var batch []telemetry.Snapshot
	for s := from; s < to; s++ {
		batch = batch[:0]
		for id, pv := range assets {
			batch = append(batch, snap(id, s, pv))
		}
		if err := r.Record(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
}

func at(s int) time.Time { return day0.Add(time.Duration(s) * time.Second) }

// TestRecorderHistory records 25 minutes of two assets (one with PV) and
// reads them back raw, through the aliases and the point filter.
func TestRecorderHistory(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		r := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
		record(t, r, 0, 1500, map[string]bool{"bess": false, "solar": true})
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		latest, err := b.Telemetry().Latest(ctx, "solar")
		if err != nil || !latest.Measurements.Timestamp.Equal(at(1499)) || *latest.Measurements.PVIrradiance != 499 {
			t.Fatalf("latest %+v %v", latest, err)
		}
		h := telemetry.NewHistoryReader(b.Telemetry())
		// Five minutes across a chunk boundary (10:00 after day0).
		got, err := h.History(ctx, "solar", at(450), at(750), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		// snap sets one PV point of five.
		if len(got) != len(telemetry.PointNames())+len(telemetry.Aliases)-4 {
			t.Fatalf("%d measurements", len(got))
		}
		for name, points := range got {
			if len(points) != 300 {
				t.Fatalf("%s: %d points", name, len(points))
			}
			i, _ := telemetry.PointIndex(name)
			for k, p := range points {
				want := snap("solar", 450+k, true).Measurements
				if !p.Timestamp.Equal(want.Timestamp) || math.Abs(p.Value-want.Values(nil)[i]) > 1e-6 {
					t.Fatalf("%s[%d] = %v, want %v at %s", name, k, p, want.Values(nil)[i], want.Timestamp)
				}
			}
		}
		if a, c := got["available_soc_discharge"], got["available_discharge_energy"]; &a[0] == &c[0] || a[7] != c[7] {
			t.Fatal("alias must carry an equal copy")
		}
		battery, err := h.History(ctx, "bess", at(0), at(1500), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := battery["pv_irradiance"]; ok || len(battery["frequency"]) != 1500 {
			t.Fatalf("battery history: pv present %v, %d frequency points", ok, len(battery["frequency"]))
		}
		some, err := h.History(ctx, "bess", at(10), at(12), []string{"available_soc_discharge", "pv_irradiance", "frequency"}, 0)
		if err != nil || len(some) != 2 || len(some["available_soc_discharge"]) != 2 || some["frequency"][1].Value != 50.004 {
			t.Fatalf("filtered %v %v", some, err)
		}
		if _, err := h.History(ctx, "bess", at(0), at(1), []string{"nope"}, 0); !errs.Is(err, errs.Invalid) {
			t.Fatalf("unknown name: %v", err)
		}
		if none, err := h.History(ctx, "nobody", at(0), at(1500), nil, 0); err != nil || len(none) != 0 {
			t.Fatalf("unknown asset %v %v", none, err)
		}
	})
}

func TestHistoryDownsampled(t *testing.T) {
	ctx := context.Background()
	b := testkit.OpenSQLite(t)
	r := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
	record(t, r, 0, 1200, map[string]bool{"bess": false})
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	h := telemetry.NewHistoryReader(b.Telemetry())
	// 1200 s in 5 buckets of 240 s from 100 s; the last one has data up to
	// 1199 s only.
	got, err := h.History(ctx, "bess", at(100), at(1300), []string{"available_discharge_energy", "asset_status", "discharge_throughput"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	energy, status, throughput := got["available_discharge_energy"], got["asset_status"], got["discharge_throughput"]
	if len(energy) != 5 || len(status) != 5 || len(throughput) != 5 {
		t.Fatalf("buckets %d %d %d", len(energy), len(status), len(throughput))
	}
	for k := range 5 {
		lo := 100 + 240*k
		hi := min(lo+240, 1200)
		if !energy[k].Timestamp.Equal(at(lo)) {
			t.Fatalf("bucket %d stamped %s", k, energy[k].Timestamp)
		}
		mean := 10 - 0.001*float64(lo+hi-1)/2
		if math.Abs(energy[k].Value-mean) > 1e-9 {
			t.Errorf("bucket %d mean %v, want %v", k, energy[k].Value, mean)
		}
		if want := float64((hi - 1) / 100 % 2); status[k].Value != want {
			t.Errorf("bucket %d status %v, want last %v", k, status[k].Value, want)
		}
		if want := 0.01 * float64(hi-1); math.Abs(throughput[k].Value-want) > 1e-9 {
			t.Errorf("bucket %d throughput %v, want last %v", k, throughput[k].Value, want)
		}
	}
	// Fewer seconds than points: one bucket per stored point at most.
	fine, err := h.History(ctx, "bess", at(10), at(13), []string{"frequency"}, 200)
	if err != nil || len(fine["frequency"]) != 3 {
		t.Fatalf("fine %v %v", fine, err)
	}
	if _, err := h.History(ctx, "bess", at(0), at(10), nil, -1); !errs.Is(err, errs.Invalid) {
		t.Fatalf("negative max points: %v", err)
	}
	if empty, err := h.History(ctx, "bess", at(10), at(10), nil, 0); err != nil || len(empty) != 0 {
		t.Fatalf("empty window %v %v", empty, err)
	}
}

// countingStore counts the chunks written per PutChunks call and can fail.
type countingStore struct {
	telemetry.Store
	mu     sync.Mutex
	writes []int
	fail   bool
}

func (s *countingStore) PutChunks(ctx context.Context, chunks []telemetry.Chunk) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("store down")
	}
	s.writes = append(s.writes, len(chunks))
	return s.Store.PutChunks(ctx, chunks)
}

// History is readable at most FlushEvery behind the snapshots, and the
// writes are spread: no tick writes every asset, window ends included.
func TestRecorderFlushLagAndSpread(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: testkit.OpenSQLite(t).Telemetry()}
	r := telemetry.NewRecorder(cs, telemetry.RecorderOptions{FlushEvery: 15 * time.Second, ChunkLength: 5 * time.Minute})
	h := telemetry.NewHistoryReader(cs)
	assets := map[string]bool{}
	for i := range 60 {
		assets[fmt.Sprintf("asset-%02d", i)] = i%2 == 0
	}
	for s := 0; s < 700; s++ {
		record(t, r, s, s+1, assets)
		if s%37 != 0 {
			continue
		}
		for _, id := range []string{"asset-00", "asset-31"} {
			got, err := h.History(ctx, id, at(0), at(s+1), []string{"frequency"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			stored := len(got["frequency"])
			if lag := s + 1 - stored; lag > 15 {
				t.Fatalf("at %d s %s has %d points stored: lag %d s", s, id, stored, lag)
			}
		}
	}
	if len(cs.writes) < 500 {
		t.Fatalf("%d writes in 700 ticks: not spread", len(cs.writes))
	}
	if most := slices.Max(cs.writes); most > 24 {
		t.Fatalf("one tick wrote %d chunks of 60 assets", most)
	}
}

// A failed write is retried at the asset's next slot and loses nothing.
func TestRecorderRetriesFailedWrite(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: testkit.OpenSQLite(t).Telemetry(), fail: true}
	r := telemetry.NewRecorder(cs, telemetry.RecorderOptions{})
	assets := map[string]bool{"bess": false}
	for s := 0; s < 700; s++ {
		cs.fail = s < 300 // the slots of the first 300 s fail
		if err := r.Record(ctx, []telemetry.Snapshot{snap("bess", s, false)}); err != nil && !cs.fail {
			t.Fatal(err)
		}
	}
	record(t, r, 700, 701, assets)
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := telemetry.NewHistoryReader(cs).History(ctx, "bess", at(0), at(701), []string{"frequency"}, 0)
	if err != nil || len(got["frequency"]) != 701 {
		t.Fatalf("%d points %v", len(got["frequency"]), err)
	}
}

// Lease lost while the database is failing: A's Flush fails, B records
// the window meanwhile, then A gets the lease back. A continues from the
// store (B's rows) instead of overwriting them with what it held.
func TestRecorderFlushFailureForgets(t *testing.T) {
	ctx := context.Background()
	base := testkit.OpenSQLite(t).Telemetry()
	cs := &countingStore{Store: base}
	a := telemetry.NewRecorder(cs, telemetry.RecorderOptions{})
	assets := map[string]bool{"bess": false}
	record(t, a, 0, 100, assets)
	cs.fail = true
	if err := a.Flush(ctx); err == nil {
		t.Fatal("flush into a failing store succeeded")
	}
	cs.fail = false
	b := telemetry.NewRecorder(base, telemetry.RecorderOptions{})
	record(t, b, 100, 300, assets)
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	record(t, a, 300, 400, assets)
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := telemetry.NewHistoryReader(base).History(ctx, "bess", at(100), at(400), []string{"frequency"}, 0)
	if err != nil || len(got["frequency"]) != 300 {
		t.Fatalf("%d points of [100 s, 400 s) %v", len(got["frequency"]), err)
	}
}

// A lease that moved between runs: A buffered [0, 100 s) unflushed, B
// recorded [100 s, 300 s); A takes the job back, forgets its buffer and
// continues from the store: B's points survive.
func TestRecorderForget(t *testing.T) {
	ctx := context.Background()
	base := testkit.OpenSQLite(t).Telemetry()
	assets := map[string]bool{"bess": false}
	a := telemetry.NewRecorder(base, telemetry.RecorderOptions{FlushEvery: time.Hour})
	record(t, a, 0, 100, assets)
	b := telemetry.NewRecorder(base, telemetry.RecorderOptions{})
	record(t, b, 0, 300, assets)
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	a.Forget()
	record(t, a, 300, 400, assets)
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := telemetry.NewHistoryReader(base).History(ctx, "bess", at(0), at(400), []string{"frequency"}, 0)
	if err != nil || len(got["frequency"]) != 400 {
		t.Fatalf("%d points of [0, 400 s) %v", len(got["frequency"]), err)
	}
}

// Failover: instance A records and dies without flushing; B takes over a
// few seconds later, re-sent snapshots included. B continues A's stored
// chunk: no duplicate, no hole beyond A's unflushed tail.
func TestRecorderContinuation(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		assets := map[string]bool{"bess": true}
		a := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
		record(t, a, 0, 400, assets) // no Flush: A's tail after its last slot is lost
		h := telemetry.NewHistoryReader(b.Telemetry())
		before, err := h.History(ctx, "bess", at(0), at(400), []string{"frequency"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		stored := len(before["frequency"])
		if stored < 385 {
			t.Fatalf("A stored %d points", stored)
		}
		bRec := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
		record(t, bRec, 380, 900, assets)
		if err := bRec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := h.History(ctx, "bess", at(0), at(900), []string{"frequency", "pv_irradiance"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		freq := got["frequency"]
		lost := max(0, 380-stored)
		if len(freq) != 900-lost || len(got["pv_irradiance"]) != len(freq) {
			t.Fatalf("%d points after failover, want %d", len(freq), 900-lost)
		}
		for k := 1; k < len(freq); k++ {
			if !freq[k].Timestamp.After(freq[k-1].Timestamp) {
				t.Fatalf("point %d at %s after %s", k, freq[k].Timestamp, freq[k-1].Timestamp)
			}
		}
		// The same recorder after Flush (lease lost and regained) continues
		// from the store too.
		record(t, bRec, 900, 905, assets)
		if err := bRec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := h.History(ctx, "bess", at(0), at(905), []string{"frequency"}, 0); len(got["frequency"]) != 905-lost {
			t.Fatalf("%d points after reuse", len(got["frequency"]))
		}
	})
}

func TestPrune(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		r := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
		record(t, r, 0, 1800, map[string]bool{"bess": false})
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := telemetry.Prune(ctx, b.Telemetry(), at(1200).Add(telemetry.Retention))
		if err != nil || n != 2 {
			t.Fatalf("pruned %d %v", n, err)
		}
		got, err := telemetry.NewHistoryReader(b.Telemetry()).History(ctx, "bess", at(0), at(1800), []string{"frequency"}, 0)
		if err != nil || len(got["frequency"]) != 600 || !got["frequency"][0].Timestamp.Equal(at(1200)) {
			t.Fatalf("after prune %d %v", len(got["frequency"]), err)
		}
	})
}

// A chunk written before later points existed (fewer columns) is read with
// those points absent and continued with them.
func TestHistoryOlderChunkFormat(t *testing.T) {
	ctx := context.Background()
	b := testkit.OpenSQLite(t)
	old := chunk.Block{Times: []int64{at(0).UnixMilli(), at(1).UnixMilli()}, Columns: [][]float64{{1, 1}, {0, 1}}}
	data, err := chunk.Encode(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Telemetry().PutChunks(ctx, []telemetry.Chunk{{AssetID: "bess", Start: at(0), End: at(600), Points: 2, Data: data}}); err != nil {
		t.Fatal(err)
	}
	r := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
	record(t, r, 1, 4, map[string]bool{"bess": false}) // at(1) is stored already
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := telemetry.NewHistoryReader(b.Telemetry()).History(ctx, "bess", at(0), at(10), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got["asset_status"]) != 4 || got["operational_status"][1].Value != 1 || len(got["frequency"]) != 2 {
		t.Fatalf("status %v, operational %v, frequency %v", got["asset_status"], got["operational_status"], got["frequency"])
	}
}

// TestHistoryLiveEdge: history is readable up to the last recorded tick,
// not FlushEvery behind, through a reader that shares nothing with the
// recorder but the store (what another instance serving the same
// database has), raw and downsampled, without a point twice.
func TestHistoryLiveEdge(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		r := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{ChunkLength: 5 * time.Minute})
		h := telemetry.NewHistoryReader(b.Telemetry())
		assets := map[string]bool{"bess": false, "solar": true}
		for s := 0; s < 400; s++ {
			record(t, r, s, s+1, assets)
			if s%23 != 0 && s != 299 && s != 300 {
				continue
			}
			got, err := h.History(ctx, "solar", at(max(0, s-200)), at(s+1), []string{"frequency", "pv_irradiance"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			freq := got["frequency"]
			if want := min(s+1, 201); len(freq) != want || len(got["pv_irradiance"]) != want {
				t.Fatalf("at %d s: %d points, want %d", s, len(freq), want)
			}
			for k, p := range freq {
				want := snap("solar", max(0, s-200)+k, true).Measurements
				if !p.Timestamp.Equal(want.Timestamp) || math.Abs(p.Value-want.Frequency) > 1e-9 {
					t.Fatalf("at %d s, point %d: %+v, want %v at %s", s, k, p, want.Frequency, want.Timestamp)
				}
			}
			// A day's chart ends at the last tick: its bucket holds it.
			day, err := h.History(ctx, "solar", at(0), at(86400), []string{"dispatch_setpoint"}, 200)
			if err != nil {
				t.Fatal(err)
			}
			if d := day["dispatch_setpoint"]; len(d) != s/432+1 {
				t.Fatalf("at %d s: %d buckets", s, len(d))
			}
		}
	})
}

// staleTail serves a tail captured earlier: the reader read it just
// before the recorder flushed those rows into the chunks it reads next.
type staleTail struct {
	telemetry.Store
	tail []byte
}

func (s staleTail) Latest(ctx context.Context, assetID string) (telemetry.Snapshot, error) {
	sn, err := s.Store.Latest(ctx, assetID)
	sn.Tail = s.tail
	return sn, err
}

// TestHistoryTailOverlap: rows both in the tail and in the stored chunks
// are read once.
func TestHistoryTailOverlap(t *testing.T) {
	ctx := context.Background()
	base := testkit.OpenSQLite(t).Telemetry()
	r := telemetry.NewRecorder(base, telemetry.RecorderOptions{FlushEvery: time.Hour})
	record(t, r, 0, 100, map[string]bool{"bess": false})
	latest, err := base.Latest(ctx, "bess")
	if err != nil || len(latest.Tail) == 0 {
		t.Fatalf("no tail after 100 unflushed ticks: %v", err)
	}
	record(t, r, 100, 110, map[string]bool{"bess": false})
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	h := telemetry.NewHistoryReader(staleTail{base, latest.Tail})
	stored := telemetry.NewHistoryReader(staleTail{base, nil}) // every row is in the chunks now
	for _, maxPoints := range []int{0, 7, 1000} {
		// A linear series: a row counted twice would move a bucket's mean.
		got, err := h.History(ctx, "bess", at(0), at(200), []string{"discharge_throughput"}, maxPoints)
		if err != nil {
			t.Fatal(err)
		}
		want, err := stored.History(ctx, "bess", at(0), at(200), []string{"discharge_throughput"}, maxPoints)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || maxPoints == 0 && len(got["discharge_throughput"]) != 110 {
			t.Fatalf("max %d: %d points %v, want %d %v", maxPoints, len(got["discharge_throughput"]), got, len(want["discharge_throughput"]), want)
		}
	}
	// An unreadable tail leaves the stored history.
	h = telemetry.NewHistoryReader(staleTail{base, []byte{0xff, 1, 2}})
	if got, err := h.History(ctx, "bess", at(0), at(200), []string{"frequency"}, 0); err != nil || len(got["frequency"]) != 110 {
		t.Fatalf("with a corrupt tail: %d points, %v", len(got["frequency"]), err)
	}
}

// probeStore wakes a goroutine when it saves the latest states and notes,
// when it writes chunks, whether that goroutine has run meanwhile. It
// never blocks, so only a yield lets the woken goroutine run on one
// processor.
type probeStore struct {
	telemetry.Store
	woken                       atomic.Bool
	ranBySave, ranByPut, probed bool
	wake                        bool
}

func (s *probeStore) SaveLatest(ctx context.Context, snapshots []telemetry.Snapshot) error {
	s.ranBySave = s.woken.Load()
	if s.wake {
		s.woken.Store(false)
		go s.woken.Store(true)
	}
	return nil
}

func (s *probeStore) PutChunks(ctx context.Context, chunks []telemetry.Chunk) error {
	s.ranByPut, s.probed = s.woken.Load(), true
	return nil
}

func (s *probeStore) Chunks(ctx context.Context, assetID string, from, to time.Time) ([]telemetry.Chunk, error) {
	return nil, nil
}

// recordYieldProbes is how many yields a woken goroutine may take to run
// (see workload's test: the runtime's fairness rule can hand a yield back).
const recordYieldProbes = 3

// TestRecorderYieldsItsProcessor: a goroutine woken while the recorder
// takes a second of many assets as background work (a request handed a
// connection, say) runs within a few yields, both while it appends the
// rows and while it encodes the chunks due, not when the second ends.
func TestRecorderYieldsItsProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := workload.Background(context.Background())
	ps := &probeStore{}
	// Every asset's flush slot comes every tick.
	r := telemetry.NewRecorder(ps, telemetry.RecorderOptions{FlushEvery: time.Millisecond})
	n := recordYieldProbes*workload.YieldEvery + 1
	tick := func(s int) {
		batch := make([]telemetry.Snapshot, 0, n)
		for i := range n {
			batch = append(batch, snap(fmt.Sprintf("asset-%03d", i), s, false))
		}
		if err := r.Record(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	tick(0)
	ps.wake = true
	go ps.woken.Store(true)
	tick(1)
	if !ps.ranBySave || !ps.probed || !ps.ranByPut {
		t.Fatalf("the woken goroutine had run by the latest states' save: %v, by the chunks' write: %v (probed %v)",
			ps.ranBySave, ps.ranByPut, ps.probed)
	}
}
