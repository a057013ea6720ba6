package alarmstream_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"atcp/internal/alarms/alarmstream"
	"atcp/internal/auth"
	"atcp/internal/testkit"
)

// BenchmarkStreamFanout: 100 subscribers of one organisation on one
// instance with the default 200 ms poll; each iteration writes one event
// to the store and waits until every subscriber has it. It reports the
// latency from the write's return to each receipt (p50, p99; the goal is
// p99 under 1 s).
func BenchmarkStreamFanout(b *testing.B) {
	const subscribers = 100
	be := testkit.OpenSQLiteFile(b)
	w := newWriter(b, be)
	h, _ := serve(b, be, alarmstream.Options{Poll: 200 * time.Millisecond, MaxPerCaller: subscribers})
	token := h.TokenFor("acme", auth.AlarmRead)
	received := make(chan time.Time, subscribers)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); wg.Wait() }()
	for range subscribers {
		c := mustDial(b, h, token, "")
		wg.Go(func() {
			for {
				if _, _, err := c.Read(ctx); err != nil {
					return
				}
				received <- time.Now()
			}
		})
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		w.emit("acme", "b"+string(rune('a'+i%20)))
		wrote := time.Now()
		for range subscribers {
			lat = append(lat, (<-received).Sub(wrote))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
}
