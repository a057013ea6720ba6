package fcrreporthttp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/reporting"
	"atcp/internal/reporting/fcrreport"
	"atcp/internal/store"
	"atcp/internal/telemetry/simulator"
	"atcp/internal/testkit"
)

// benchmarkReports runs the 30-day delivery (hourly), activation (one
// histogram) and availability (hourly) reports of one asset holding 30
// days of 1-second history: the frequency a random walk at 1 mHz
// resolution, an 8 MW reserve in every other 4-hour block, delivery
// following the droop (exactly, as the simulator reports it, or with
// ±0.1 MW of metering noise: noise), the available energies integrating
// it. Each run of a report is timed; p50, p99 and the CPU time per run
// are reported as metrics.
func benchmarkReports(b *testing.B, open func(testing.TB) store.Backend, noise float64) {
	be := open(b)
	ctx := context.Background()
	now := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	clk := clock.NewManual(now)
	registry := assets.NewService(be.Assets(), clk)
	if err := identity.NewDirectory(be.Directory(), clk, "http://test").EnsureOrganization(ctx, "acme", "acme"); err != nil {
		b.Fatal(err)
	}
	if err := registry.EnsureAsset(ctx, assets.NewAsset("bess-1", "acme", "bess-1", "Cottbus", assets.Standalone)); err != nil {
		b.Fatal(err)
	}
	from := now.Add(-fcrreport.MaxMeasuredWindow)
	rng := rand.New(rand.NewPCG(1, 2))
	f, soc := 50.0, 10.0
	row := make([]float64, len(fcrreport.SampleNames))
	start := time.Now()
	writeHistory(b, be.Telemetry(), "bess-1", from, now, func(at time.Time) ([]float64, bool) {
		f = math.Round((f+(50-f)*0.01+(rng.Float64()-0.5)*0.004)*1000) / 1000
		reserved := 0.0
		if at.Unix()/(4*3600)%2 == 0 {
			reserved = 8
		}
		delivered := math.Round((simulator.FCRActivationMW(reserved, f)+(rng.Float64()-0.5)*2*noise)*1000) / 1000
		soc = math.Max(2, math.Min(18, soc-delivered/3600))
		row[0], row[1], row[2], row[3], row[4], row[5] = f, reserved, delivered, soc-1, 19-soc, 1
		return row, true
	})
	chunks, err := be.Telemetry().Chunks(ctx, "bess-1", from, now)
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, c := range chunks {
		size += len(c.Data)
	}
	b.Logf("%s: 30 days of history written in %s, %d chunks, %.2f MB a day", be.Name(), time.Since(start).Round(time.Millisecond),
		len(chunks), float64(size)/30/1e6)
	svc := fcrreport.NewService(fcrreport.Deps{Assets: registry, Bids: be.Bids(), Covers: be.CoverSteps(),
		Restrictions: be.Restrictions(), Telemetry: be.Telemetry(), Clock: clk})
	w := reporting.Window{Start: from, End: now}
	v := auth.Visibility{All: true}
	for _, r := range []struct {
		name string
		run  func() error
	}{
		{"delivery", func() error {
			rep, err := svc.Delivery(ctx, v, "bess-1", w, "hourly")
			if err == nil && len(rep.Periods) != 720 {
				b.Fatalf("%d periods", len(rep.Periods))
			}
			return err
		}},
		{"activations", func() error {
			rep, err := svc.Activations(ctx, v, "bess-1", w, "")
			if err == nil && rep.Periods[0].FrequencySeconds != 30*86400 {
				b.Fatalf("%d seconds", rep.Periods[0].FrequencySeconds)
			}
			return err
		}},
		{"availability", func() error {
			_, err := svc.Availability(ctx, v, "bess-1", w, "hourly")
			return err
		}},
	} {
		b.Run(r.name, func(b *testing.B) {
			var took []time.Duration
			cpu0 := cpuTime(b)
			for b.Loop() {
				t := time.Now()
				if err := r.run(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t))
			}
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(len(took)), "cpu-ms/op")
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[min(len(took)-1, len(took)*99/100)].Microseconds())/1000, "p99-ms")
		})
	}
}

func BenchmarkReports30Days(b *testing.B) {
	for _, d := range []struct {
		name  string
		noise float64
	}{{"simulated", 0}, {"noisy", 0.1}} {
		b.Run("sqlite-file/"+d.name, func(b *testing.B) { benchmarkReports(b, testkit.OpenSQLiteFile, d.noise) })
		if testkit.PostgresURL() != "" {
			b.Run("postgres/"+d.name, func(b *testing.B) { benchmarkReports(b, testkit.OpenPostgres, d.noise) })
		}
	}
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
