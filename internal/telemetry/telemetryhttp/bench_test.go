package telemetryhttp_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

// benchState sends GET state of solo through HTTP (token check, JSON),
// one request at a time, and reports the latency percentiles.
func benchState(b *testing.B, e *env) {
	req, err := http.NewRequest(http.MethodGet, e.h.URL+"/v1/assets/solo/state", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.ro)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if r := e.h.Send(req); r.Status != http.StatusOK {
			b.Fatal(r)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkState: assets and restrictions on SQLite, the latest snapshot
// from a fake store.
func BenchmarkState(b *testing.B) {
	benchState(b, setup(b, testkit.OpenSQLite(b)))
}

// BenchmarkStateStored: the latest snapshot from SQLite's telemetry store.
func BenchmarkStateStored(b *testing.B) {
	bk := testkit.OpenSQLite(b)
	e := serve(b, bk, true)
	if err := bk.Telemetry().SaveLatest(context.Background(), []telemetry.Snapshot{{AssetID: "solo", Measurements: sample(testkit.Start, false)}}); err != nil {
		b.Fatal(err)
	}
	benchState(b, e)
}
