package telemetry_test

import (
	"context"
	"math"
	"testing"
	"time"

	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

// TestScanHistory: the rows ScanHistory passes are the raw history's
// points, chunks and live edge (the tail) alike, across many chunk
// batches, absent values as NaN.
func TestScanHistory(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		r := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{ChunkLength: time.Minute})
		record(t, r, 0, 1210, map[string]bool{"bess": false}) // 20 chunks, the last rows only in the tail
		names := []string{"frequency", "available_soc_discharge", "pv_irradiance"}
		want, err := telemetry.NewHistoryReader(b.Telemetry()).History(ctx, "bess", at(30), at(1300), names[:2], 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = telemetry.ScanHistory(ctx, b.Telemetry(), "bess", at(30), at(1300), names, func(ms int64, v []float64) {
			f, e := want["frequency"][n], want["available_soc_discharge"][n]
			if m := snap("bess", 30+n, false).Measurements; !f.Timestamp.Equal(m.Timestamp) || math.Abs(f.Value-m.Frequency) > 1e-9 {
				t.Fatalf("history point %d: %+v, want %v at %s", n, f, m.Frequency, m.Timestamp)
			}
			if ms != f.Timestamp.UnixMilli() || v[0] != f.Value || v[1] != e.Value || !math.IsNaN(v[2]) {
				t.Fatalf("row %d: %d %v, want %s %v %v", n, ms, v, f.Timestamp, f.Value, e.Value)
			}
			n++
		})
		if err != nil || n != 1180 || len(want["frequency"]) != 1180 {
			t.Fatalf("%d rows, %v", n, err)
		}
		if err := telemetry.ScanHistory(ctx, b.Telemetry(), "bess", at(0), at(10), []string{"nope"}, nil); err == nil {
			t.Fatal("an unknown measurement was scanned")
		}
	})
}
