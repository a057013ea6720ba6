package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"atcp/internal/app"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/config"
	"atcp/internal/dispatch"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

// controlBenchStart is a weekday late morning of the replayed delivery
// day: PV produces and the replayed frequency moves.
var controlBenchStart = time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)

// BenchmarkControl1000 runs the server with 1,000 simulated assets at
// 1 Hz on the embedded store (a file) in real time, then measures what a
// user sees. Run it alone, once:
//
//	go test ./internal/app -run '^$' -bench Control1000 -benchtime 1x
//
// It reports the CPU share of one core the server used while steering and
// recording (no requests), the points stored per second, the storage per
// asset-day, the lag of the live state behind the clock, and the p50/p99
// of GET state and of a downsampled 24-hour GET state/history.
//
// ATCP_BENCH_ASSETS=10000 runs it with another number of assets, to find
// where the limit lies.
func BenchmarkControl1000(b *testing.B) {
	const (
		warmUp  = 20 * time.Second // the recorder's first flushes spread out
		measure = 60 * time.Second
	)
	n := envInt(b, "ATCP_BENCH_ASSETS", 1000)
	a := benchServer(b, "", true)
	start := controlBenchStart
	ctx := context.Background()
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("load-%04d", i)
		if err := a.Assets.EnsureAsset(ctx, benchAsset(ids[i], i%2 == 0)); err != nil {
			b.Fatal(err)
		}
	}
	// One asset with a full day of history behind it, for the 24-hour query.
	if err := a.Assets.EnsureAsset(ctx, benchAsset("history-day", false)); err != nil {
		b.Fatal(err)
	}
	recordDay(b, a.Store.Telemetry(), start.Add(-24*time.Hour), start)

	base := serve(b, a)
	tok := token(b, base)
	// A third of the batteries move under immediate dispatch, the rest
	// follow their (empty) schedules, reserve nothing and idle.
	all := auth.Visibility{All: true}
	for i := 0; i < n; i += 3 {
		end := a.Clock.Now().Add(2 * time.Hour)
		if _, _, err := a.Dispatch.StartImmediate(ctx, all, ids[i], dispatch.ImmediateDraft{End: end, SetPowerMW: float64(i%9 - 4)}); err != nil {
			b.Fatal(err)
		}
	}

	time.Sleep(warmUp)
	cpu0, wall0, clock0 := cpuTime(), time.Now(), a.Clock.Now()
	var maxLag time.Duration
	for time.Since(wall0) < measure {
		time.Sleep(time.Second)
		s, err := a.Store.Telemetry().Latest(ctx, ids[n-1])
		if err != nil {
			b.Fatal(err)
		}
		maxLag = max(maxLag, a.Clock.Now().Sub(s.Measurements.Timestamp))
	}
	cpu, wall, clockSpan := cpuTime()-cpu0, time.Since(wall0), a.Clock.Now().Sub(clock0)

	// Storage over the first stored ten minutes, flushed and final by now.
	var bytes, points int
	for _, id := range ids {
		chunks, err := a.Store.Telemetry().Chunks(ctx, id, start, start.Add(10*time.Minute))
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range chunks {
			bytes += len(c.Data)
			points += c.Points
		}
	}
	stored := float64(points) / float64(n) // seconds stored per asset
	perDayMB := float64(bytes) / float64(n) / stored * 86400 / 1e6

	client := loadClient()
	state := latencies(b, client, tok, 2000, func(i int) string { return base + "/v1/assets/" + ids[(i*7919)%n] + "/state" })
	day := start.Add(-24 * time.Hour).Format(time.RFC3339)
	history := latencies(b, client, tok, 50, func(int) string {
		return base + "/v1/assets/history-day/state/history?do_downsample=true&start_time=" + day + "&end_time=" + start.Format(time.RFC3339)
	})

	b.ReportMetric(cpu.Seconds()/wall.Seconds()*100, "cpu%")
	b.ReportMetric(float64(n*len(telemetry.PointNames()))*clockSpan.Seconds()/wall.Seconds(), "points/s")
	b.ReportMetric(perDayMB, "MB/asset-day")
	b.ReportMetric(maxLag.Seconds(), "max-lag-s")
	b.ReportMetric(ms(state[len(state)/2]), "state-p50-ms")
	b.ReportMetric(ms(state[len(state)*99/100]), "state-p99-ms")
	b.ReportMetric(ms(history[len(history)/2]), "history24h-p50-ms")
	b.ReportMetric(ms(history[len(history)*99/100]), "history24h-p99-ms")
	b.Logf("%d assets for %s: cpu %s (%.1f %% of one core), clock advanced %s, live state at most %s behind, "+
		"%.0f stored seconds per asset over the first 10 minutes, %.2f MB per asset-day",
		n, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), cpu.Seconds()/wall.Seconds()*100, clockSpan.Round(time.Millisecond),
		maxLag, stored, perDayMB)
}

// benchServer builds a server without the demonstration data on
// databaseURL (default: a SQLite file), its platform clock at
// controlBenchStart, with the organisation "load" and, if simulate, the
// control loop steering simulated batteries; configure changes the rest
// of its configuration.
func benchServer(b testing.TB, databaseURL string, simulate bool, configure ...func(*config.Config)) *app.App {
	dir := b.TempDir()
	if databaseURL == "" {
		databaseURL = "sqlite://" + filepath.Join(dir, "atcp.db")
	}
	cfg := testConfig(b, databaseURL, dir)
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	cfg.Demo, cfg.Simulate = false, simulate
	start := controlBenchStart
	cfg.ClockStart = &start
	for _, f := range configure {
		f(&cfg)
	}
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Directory.EnsureOrganization(context.Background(), "load", "Load Test GmbH"); err != nil {
		b.Fatal(err)
	}
	return a
}

func benchAsset(id string, pv bool) assets.Asset {
	x := assets.NewAsset(id, "load", "Battery "+id, "Leipzig", assets.Standalone)
	x.UsablePowerCapacityMW, x.UsableEnergyCapacityMWh = new(10.0), new(20.0)
	x.ChargeEfficiency, x.DischargeEfficiency = new(0.95), new(0.95)
	x.MaxPosRampRateMWPerSec, x.MinNegRampRateMWPerSec = new(1.0), new(1.0)
	x.ControlEnabled, x.PVActive = true, pv
	// Live: the benchmarks bid and steer, which an asset still onboarding may not.
	x.OperationalStatus = assets.Live
	return x
}

// recordDay stores one asset-day of simulated history for history-day,
// as the control loop's recorder would have written it.
func recordDay(b *testing.B, st telemetry.Store, from, to time.Time) {
	ctx := context.Background()
	sim := simulator.New(7)
	if err := sim.Add(simulator.ConfigFromAsset(benchAsset("history-day", false)), from); err != nil {
		b.Fatal(err)
	}
	rec := telemetry.NewRecorder(st, telemetry.RecorderOptions{})
	for t := from; t.Before(to); t = t.Add(time.Second) {
		if t.Second() == 0 && t.Minute()%15 == 0 {
			p := float64(t.Hour()%5*2 - 4)
			if err := sim.Send(ctx, "history-day", telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: p, FCRReservedMW: 1}); err != nil {
				b.Fatal(err)
			}
		}
		sim.Tick(t)
		m, err := sim.Read(ctx, "history-day")
		if err != nil {
			b.Fatal(err)
		}
		if err := rec.Record(ctx, []telemetry.Snapshot{{AssetID: "history-day", Measurements: m}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := rec.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// latencies fires count GETs one after the other and returns their
// sorted durations.
func latencies(b *testing.B, client *http.Client, tok string, count int, url func(i int) string) []time.Duration {
	out := make([]time.Duration, 0, count)
	for i := range count {
		req, _ := http.NewRequest("GET", url(i), nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out = append(out, time.Since(t0))
		if resp.StatusCode != 200 {
			b.Fatalf("GET %s: %d %s", url(i), resp.StatusCode, body)
		}
	}
	slices.Sort(out)
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuTime is the CPU time (user and system) the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
