package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

func telemetrySnapshot(asset string, at time.Duration, soc float64, pv bool) telemetry.Snapshot {
	m := telemetry.Measurements{Timestamp: testkit.Start.Add(at), AssetStatus: 1, Frequency: 49.987,
		AvailableDischargeEnergy: soc, AvailableSoCDischarge: soc, DispatchSetpoint: -2.5, LTESignalDevice1: -75}
	if pv {
		irr := 640.5
		m.PVIrradiance = &irr
	}
	return telemetry.Snapshot{AssetID: asset, Measurements: m}
}

func TestTelemetryLatestStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx, s := context.Background(), b.Telemetry()
		if _, err := s.Latest(ctx, "a1"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("never reported: %v", err)
		}
		if err := s.SaveLatest(ctx, nil); err != nil {
			t.Fatal(err)
		}
		want := telemetrySnapshot("a1", 1500*time.Microsecond, 7.5, true)
		if err := s.SaveLatest(ctx, []telemetry.Snapshot{want, telemetrySnapshot("a2", 0, 1, false)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Latest(ctx, "a1")
		if err != nil {
			t.Fatal(err)
		}
		wj, _ := json.Marshal(want.Measurements)
		gj, _ := json.Marshal(got.Measurements)
		if got.AssetID != "a1" || !got.Measurements.Timestamp.Equal(want.Measurements.Timestamp) ||
			got.Measurements.Timestamp.Location() != time.UTC || string(wj) != string(gj) {
			t.Fatalf("round trip %s at %s\nwant %s", gj, got.Measurements.Timestamp, wj)
		}
		if other, _ := s.Latest(ctx, "a2"); other.Measurements.PVIrradiance != nil || other.Tail != nil {
			t.Fatal("absent PV point or tail came back")
		}
		// The history tail travels with the snapshot; an older snapshot
		// leaves both.
		withTail := telemetrySnapshot("a3", time.Second, 1, false)
		withTail.Tail = []byte{1, 2, 3}
		stale := telemetrySnapshot("a3", 0, 1, false)
		stale.Tail = []byte{9}
		if err := s.SaveLatest(ctx, []telemetry.Snapshot{withTail}); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveLatest(ctx, []telemetry.Snapshot{stale}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Latest(ctx, "a3"); err != nil || string(got.Tail) != string(withTail.Tail) {
			t.Fatalf("tail %v %v", got.Tail, err)
		}

		latestSoC := func() float64 {
			t.Helper()
			got, err := s.Latest(ctx, "a1")
			if err != nil {
				t.Fatal(err)
			}
			return got.Measurements.AvailableDischargeEnergy
		}
		// Older never replaces newer; the same instant does (a resend).
		if err := s.SaveLatest(ctx, []telemetry.Snapshot{telemetrySnapshot("a1", 0, 1, true)}); err != nil {
			t.Fatal(err)
		}
		if soc := latestSoC(); soc != 7.5 {
			t.Fatalf("older snapshot replaced the newer: %v", soc)
		}
		if err := s.SaveLatest(ctx, []telemetry.Snapshot{telemetrySnapshot("a1", 1500*time.Microsecond, 2, true)}); err != nil {
			t.Fatal(err)
		}
		if soc := latestSoC(); soc != 2 {
			t.Fatalf("same instant not replaced: %v", soc)
		}
		// One batch holding an asset twice keeps the newer, in either order.
		batch := []telemetry.Snapshot{telemetrySnapshot("a1", time.Minute, 5, true), telemetrySnapshot("a1", 2*time.Second, 4, true)}
		if err := s.SaveLatest(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if soc := latestSoC(); soc != 5 {
			t.Fatalf("batch kept %v", soc)
		}
	})
}

// TestTelemetryLatestMany: one read returns the latest snapshots of the
// assets named that reported, without their tails.
func TestTelemetryLatestMany(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx, s := context.Background(), b.Telemetry()
		if got, err := s.LatestMany(ctx, nil); err != nil || len(got) != 0 {
			t.Fatalf("no ids: %v %v", got, err)
		}
		withTail := telemetrySnapshot("a1", time.Second, 7.5, true)
		withTail.Tail = []byte{1, 2}
		if err := s.SaveLatest(ctx, []telemetry.Snapshot{withTail, telemetrySnapshot("a2", 0, 1, false),
			telemetrySnapshot("a3", 0, 2, false)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.LatestMany(ctx, []string{"a1", "a3", "never", "it's \"quoted\""})
		if err != nil || len(got) != 2 {
			t.Fatalf("%+v %v", got, err)
		}
		byID := map[string]telemetry.Snapshot{}
		for _, sn := range got {
			byID[sn.AssetID] = sn
		}
		a1, a3 := byID["a1"], byID["a3"]
		if a1.Measurements.AvailableDischargeEnergy != 7.5 || a1.Measurements.PVIrradiance == nil || a1.Tail != nil ||
			!a1.Measurements.Timestamp.Equal(testkit.Start.Add(time.Second)) || a3.Measurements.AvailableDischargeEnergy != 2 {
			t.Fatalf("%+v", byID)
		}
	})
}

// Concurrent batches over the same assets in shuffled orders: no
// deadlock, and each asset ends at its newest snapshot.
func TestTelemetryLatestConcurrent(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx, s := context.Background(), b.Telemetry()
		const writers, assetsN = 8, 20
		var wg sync.WaitGroup
		errList := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), 1))
				var batch []telemetry.Snapshot
				for a := range assetsN {
					batch = append(batch, telemetrySnapshot(fmt.Sprintf("a%02d", a), time.Duration(w)*time.Second, float64(w), false))
				}
				rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
				errList[w] = s.SaveLatest(ctx, batch)
			})
		}
		wg.Wait()
		for _, err := range errList {
			if err != nil {
				t.Fatal(err)
			}
		}
		for a := range assetsN {
			got, err := s.Latest(ctx, fmt.Sprintf("a%02d", a))
			if err != nil || got.Measurements.AvailableDischargeEnergy != writers-1 {
				t.Fatalf("asset %d: %+v %v", a, got.Measurements.AvailableDischargeEnergy, err)
			}
		}
	})
}

func TestTelemetryChunksStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx, s := context.Background(), b.Telemetry()
		at := func(m int) time.Time { return testkit.Start.Add(time.Duration(m) * time.Minute) }
		chunkAt := func(asset string, startMin int, data string) telemetry.Chunk {
			return telemetry.Chunk{AssetID: asset, Start: at(startMin), End: at(startMin + 10), Points: len(data), Data: []byte(data)}
		}
		if err := s.PutChunks(ctx, []telemetry.Chunk{chunkAt("a1", 0, "first"), chunkAt("a1", 10, "second"),
			chunkAt("a2", 0, "other"), chunkAt("a1", 20, "old"), chunkAt("a1", 20, "third")}); err != nil {
			t.Fatal(err)
		}
		// A rewrite of a growing chunk replaces it.
		if err := s.PutChunks(ctx, []telemetry.Chunk{chunkAt("a1", 10, "second, longer")}); err != nil {
			t.Fatal(err)
		}
		query := func(from, to time.Time) string {
			t.Helper()
			got, err := s.Chunks(ctx, "a1", from, to)
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, c := range got {
				if c.AssetID != "a1" || c.End.Sub(c.Start) != 10*time.Minute || c.Start.Location() != time.UTC || c.Points != len(c.Data) {
					t.Fatalf("chunk %+v", c)
				}
				out += "[" + string(c.Data) + "]"
			}
			return out
		}
		cases := []struct {
			from, to time.Time
			want     string
		}{
			{at(0), at(30), "[first][second, longer][third]"},
			{at(10), at(20), "[second, longer]"},
			{at(10).Add(-time.Microsecond), at(10), "[first]"},
			{at(20), at(20).Add(time.Microsecond), "[third]"},
			{at(30), at(90), ""},
			{at(-60), at(0), ""},
			{at(5), at(25), "[first][second, longer][third]"},
		}
		for _, tc := range cases {
			if got := query(tc.from, tc.to); got != tc.want {
				t.Errorf("[%s, %s) = %s, want %s", tc.from.Sub(testkit.Start), tc.to.Sub(testkit.Start), got, tc.want)
			}
		}
		for _, bad := range []telemetry.Chunk{
			{AssetID: "a1", Start: at(0), End: at(0)},
			{AssetID: "a1", Start: at(0), End: at(0).Add(telemetry.MaxChunkSpan + time.Second)},
			{Start: at(0), End: at(1)},
		} {
			if err := s.PutChunks(ctx, []telemetry.Chunk{bad}); !errs.Is(err, errs.Invalid) {
				t.Errorf("chunk %+v: %v", bad, err)
			}
		}

		// Prune removes what ended at or before the instant.
		n, err := s.PruneChunks(ctx, at(10))
		if err != nil || n != 2 {
			t.Fatalf("pruned %d %v", n, err)
		}
		if got := query(at(-60), at(60)); got != "[second, longer][third]" {
			t.Fatalf("after prune %s", got)
		}
		if other, _ := s.Chunks(ctx, "a2", at(0), at(60)); len(other) != 0 {
			t.Fatal("a2 kept its pruned chunk")
		}
	})
}

// Pruning more chunks than one deletion batch removes them all.
func TestTelemetryPruneMany(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx, s := context.Background(), b.Telemetry()
		var chunks []telemetry.Chunk
		for i := range 4500 {
			start := testkit.Start.Add(time.Duration(i%1500) * time.Minute)
			chunks = append(chunks, telemetry.Chunk{AssetID: fmt.Sprintf("a%d", i/1500), Start: start, End: start.Add(time.Minute), Data: []byte{1}})
		}
		if err := s.PutChunks(ctx, chunks); err != nil {
			t.Fatal(err)
		}
		n, err := s.PruneChunks(ctx, testkit.Start.Add(1400*time.Minute))
		if err != nil || n != 3*1400 {
			t.Fatalf("pruned %d %v", n, err)
		}
		if left, _ := s.Chunks(ctx, "a2", testkit.Start, testkit.Start.Add(time.Hour*48)); len(left) != 100 {
			t.Fatalf("%d left", len(left))
		}
	})
}
