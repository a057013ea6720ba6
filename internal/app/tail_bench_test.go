package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/app"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/dispatch"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// tailDay is the delivery day the REPLACE requests bid into: every
// quarter-hour of it is open at controlBenchStart (D-1, 11:00 CET).
var tailDay = calendar.Day{Year: 2026, Month: 2, Day: 3}

// BenchmarkTail measures the latency tail a user sees while the server
// works: the control loop steering N simulated assets at 1 Hz in real
// time (ATCP_BENCH_ASSETS, default 1,000) and 1,000 assets holding a
// delivery day of aFRR energy bids (192 each). Run it alone, once:
//
//	go test ./internal/app -run '^$' -bench Tail -benchtime 1x
//
// After a 20 s warm-up it sends, open loop (each request on schedule
// whatever the earlier ones do, so queueing shows):
//   - GET /v1/assets/{id}/state at 200 requests per second over random
//     assets for ATCP_BENCH_SECONDS (default 30);
//   - a REPLACE of one asset's delivery day with 96 aFRR energy bids at 10
//     requests per second for as long.
//
// It reports p50, p99 and the maximum of each. Options:
//   - ATCP_BENCH_SEPARATE=true serves from a child process (this test
//     binary again, as TestTailServerProcess), so that the load generator's
//     allocations and scheduling are not the server's: a black-box
//     measurement (the generator's collector is off while it measures);
//   - ATCP_BENCH_STEER=false serves the same stored bids without the
//     control loop and measures the REPLACEs alone (the conditions issue 10
//     measured them in);
//   - ATCP_BENCH_DATABASE_URL runs it on another store (a PostgreSQL URL);
//   - ATCP_BENCH_TRACE=file and ATCP_BENCH_CPUPROFILE=file write the
//     server's runtime execution trace and CPU profile of the measured
//     phase; ATCP_BENCH_MEMPROFILE=file writes heap profiles before
//     (file.base) and after it: what it allocated is
//     go tool pprof -sample_index=alloc_space -base file.base app.test file.
func BenchmarkTail(b *testing.B) {
	seconds := envInt(b, "ATCP_BENCH_SECONDS", 30)
	steer := os.Getenv("ATCP_BENCH_STEER") != "false"
	var srv tailServer
	separate := os.Getenv("ATCP_BENCH_SEPARATE") == "true"
	if separate {
		srv = tailChild(b)
	} else {
		srv = startTailServer(b)
	}
	replace := replaceBody(b)
	time.Sleep(20 * time.Second)

	if separate {
		// The load generator's own collector is no part of the server's
		// latency: at Go's default it ran several times a second on the
		// generator's small heap, and its pauses were counted in the
		// figures up to the third round of issue 10. It allocates some
		// 100 MB over the measured phase.
		prev := debug.SetGCPercent(-1)
		defer debug.SetGCPercent(prev)
	}
	srv.begin()
	client := loadClient()
	var wg sync.WaitGroup
	var state, repl []time.Duration
	if steer {
		wg.Add(1)
		go func() {
			defer wg.Done()
			state = paced(200, 200*seconds, func(i int) time.Duration {
				return timed(b, client, http.MethodGet, srv.base+"/v1/assets/"+srv.ids[(i*7919)%len(srv.ids)]+"/state", srv.token, nil, http.StatusOK)
			})
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		repl = paced(10, 10*seconds, func(int) time.Duration {
			return timed(b, client, http.MethodPost, srv.base+"/v1/assets/replace/markets/afrr/energy/bids", srv.token, replace, http.StatusCreated)
		})
	}()
	wg.Wait()
	figures := srv.end()
	if steer {
		report(b, "state", state)
	}
	report(b, "replace", repl)
	b.Logf("%d assets, %s: state %s; replace %s; server: %s", len(srv.ids), srv.store, summary(state), summary(repl), figures)
}

// tailServer is the server BenchmarkTail loads.
type tailServer struct {
	base, token, store string
	ids                []string      // the steered assets
	begin              func()        // the measured phase starts: start the profiles
	end                func() string // it ended: stop them; the server's memory figures
}

// startTailServer serves in this process: the assets (ATCP_BENCH_ASSETS),
// their stored bids, the asset "replace" without bids, and, unless
// ATCP_BENCH_STEER=false, an immediate dispatch on every third asset.
func startTailServer(tb testing.TB) tailServer {
	n := envInt(tb, "ATCP_BENCH_ASSETS", 1000)
	steer := os.Getenv("ATCP_BENCH_STEER") != "false"
	a := benchServer(tb, os.Getenv("ATCP_BENCH_DATABASE_URL"), steer)
	ctx := context.Background()
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("load-%05d", i)
		x := benchAsset(ids[i], i%2 == 0)
		x.AFRREnabled, x.AFRRPrequalifiedPosMW, x.AFRRPrequalifiedNegMW = true, 10, 10
		if err := a.Assets.EnsureAsset(ctx, x); err != nil {
			tb.Fatal(err)
		}
		if i < 1000 {
			seedEnergyDay(tb, a, x)
		}
	}
	target := benchAsset("replace", false)
	target.AFRREnabled, target.AFRRPrequalifiedPosMW, target.AFRRPrequalifiedNegMW = true, 10, 10
	if err := a.Assets.EnsureAsset(ctx, target); err != nil {
		tb.Fatal(err)
	}
	base := serve(tb, a)
	all := auth.Visibility{All: true}
	for i := 0; steer && i < n; i += 3 {
		end := a.Clock.Now().Add(2 * time.Hour)
		if _, _, err := a.Dispatch.StartImmediate(ctx, all, ids[i], dispatch.ImmediateDraft{End: end, SetPowerMW: float64(i%9 - 4)}); err != nil {
			tb.Fatal(err)
		}
	}
	var stops []func()
	return tailServer{base: base, token: token(tb, base), store: a.Store.Name(), ids: ids,
		begin: func() { stops = startProfiles(tb) },
		end: func() string {
			for _, stop := range slices.Backward(stops) {
				stop()
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return fmt.Sprintf("heap %d MB, %d GCs, GC pause total %s", ms.HeapAlloc>>20, ms.NumGC,
				time.Duration(ms.PauseTotalNs).Round(time.Millisecond))
		}}
}

// startProfiles starts what ATCP_BENCH_TRACE, _CPUPROFILE and _MEMPROFILE
// ask for and returns what stops each.
func startProfiles(tb testing.TB) []func() {
	var stops []func()
	if path := os.Getenv("ATCP_BENCH_TRACE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			tb.Fatal(err)
		}
		if err := trace.Start(f); err != nil {
			tb.Fatal(err)
		}
		stops = append(stops, func() { trace.Stop(); f.Close() })
	}
	if path := os.Getenv("ATCP_BENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			tb.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			tb.Fatal(err)
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if path := os.Getenv("ATCP_BENCH_MEMPROFILE"); path != "" {
		writeHeap(tb, path+".base")
		stops = append(stops, func() { writeHeap(tb, path) })
	}
	return stops
}

// TestTailServerProcess is not a test: it is the server process of
// BenchmarkTail with ATCP_BENCH_SEPARATE=true, run only when the benchmark
// starts this binary with ATCP_TAIL_SERVER=1. It writes the server's
// address, token and store on one line, starts the profiles when its
// standard input says "begin", and on end of input stops them, writes
// its memory figures and returns.
func TestTailServerProcess(t *testing.T) {
	if os.Getenv("ATCP_TAIL_SERVER") != "1" {
		return
	}
	app.TuneGC(os.LookupEnv) // as cmd/atcp serves
	srv := startTailServer(t)
	fmt.Printf("serving %s %s %s %s\n", srv.base, srv.token, srv.store, strings.Join(srv.ids, ","))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "begin" {
			srv.begin()
		}
	}
	fmt.Println("figures", srv.end())
}

// tailChild starts TestTailServerProcess in a child process and waits
// until it serves.
func tailChild(b *testing.B) tailServer {
	cmd := exec.Command(os.Args[0], "-test.run=^TestTailServerProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), "ATCP_TAIL_SERVER=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	out := bufio.NewScanner(stdout)
	out.Buffer(nil, 1<<20)
	var f []string
	for len(f) == 0 && out.Scan() {
		if rest, ok := strings.CutPrefix(out.Text(), "serving "); ok {
			f = strings.Fields(rest)
		}
	}
	if len(f) != 4 {
		b.Fatalf("the server process did not serve: %v", out.Err())
	}
	return tailServer{base: f[0], token: f[1], store: f[2] + " (separate process)", ids: strings.Split(f[3], ","),
		begin: func() {
			if _, err := io.WriteString(stdin, "begin\n"); err != nil {
				b.Fatal(err)
			}
		},
		end: func() string {
			stdin.Close()
			var figures string
			for out.Scan() {
				if rest, ok := strings.CutPrefix(out.Text(), "figures "); ok {
					figures = rest
				}
			}
			if err := cmd.Wait(); err != nil {
				b.Fatalf("the server process: %v", err)
			}
			return figures
		}}
}

func writeHeap(b testing.TB, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

func envInt(b testing.TB, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		b.Fatalf("%s=%q is not a positive number", name, s)
	}
	return v
}

// seedEnergyDay stores a delivery day of energy bids (pos and neg for each
// of the 96 quarter-hours) on x, as earlier submissions would have.
func seedEnergyDay(b testing.TB, a *app.App, x assets.Asset) {
	price := bids.EUR(50)
	now := a.Clock.Now()
	err := a.Store.Bids().Apply(context.Background(), auth.Visibility{All: true}, x, bids.AFRREnergy, tailDay.Span(),
		func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			var ch bids.Changes
			for _, p := range tailDay.Periods() {
				for _, prod := range []bids.Product{bids.Pos, bids.Neg} {
					ch.Insert = append(ch.Insert, bids.Bid{ID: bids.NewID(), OrganizationID: "load", AssetID: x.ID,
						Market: bids.AFRREnergy, Product: prod, Start: p.Start, End: p.End, EnergyPrice: &price, OfferedMW: 5,
						Status: bids.Pending, CreatedAt: now, UpdatedAt: now})
				}
			}
			return ch, nil
		})
	if err != nil {
		b.Fatal(err)
	}
}

// replaceBody replaces the whole tailDay with 96 neg bids.
func replaceBody(b testing.TB) []byte {
	span := tailDay.Span()
	list := []map[string]any{}
	for _, p := range tailDay.Periods() {
		list = append(list, map[string]any{"product": "neg", "start_time": p.Start, "end_time": p.End,
			"energy_price_eur_per_mwh": "-12.34", "offered_power_mw": 5})
	}
	body, err := json.Marshal(map[string]any{"mode": "REPLACE", "bids": list,
		"replace_scope": map[string]any{"start_time": span.Start, "end_time": span.End}})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// paced calls fire n times, perSecond a second, each call on its own
// schedule whether or not earlier ones have finished, and returns the
// sorted durations.
func paced(perSecond, n int, fire func(i int) time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	interval := time.Second / time.Duration(perSecond)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fire(i)
		}()
	}
	wg.Wait()
	slices.Sort(out)
	return out
}

func timed(b *testing.B, client *http.Client, method, url, tok string, body []byte, want int) time.Duration {
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return 0
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(t0)
	if resp.StatusCode != want {
		b.Errorf("%s %s: %d %s", method, url, resp.StatusCode, got)
	}
	return took
}

func report(b *testing.B, name string, sorted []time.Duration) {
	b.ReportMetric(ms(sorted[len(sorted)/2]), name+"-p50-ms")
	b.ReportMetric(ms(sorted[len(sorted)*99/100]), name+"-p99-ms")
	b.ReportMetric(ms(sorted[len(sorted)-1]), name+"-max-ms")
}

func summary(sorted []time.Duration) string {
	if len(sorted) == 0 {
		return "not measured"
	}
	return fmt.Sprintf("p50 %.2f / p99 %.2f / max %.2f ms over %d", ms(sorted[len(sorted)/2]),
		ms(sorted[len(sorted)*99/100]), ms(sorted[len(sorted)-1]), len(sorted))
}
