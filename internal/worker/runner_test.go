package worker_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"atcp/internal/clock"
	"atcp/internal/store"
	"atcp/internal/testkit"
	"atcp/internal/worker"
)

// start is a Monday quarter-hour plus seven minutes, so slot alignment shows.
var start = time.Date(2026, 2, 2, 6, 7, 0, 0, time.UTC)

// runner starts r and returns a stop function that cancels it and waits
// for Run to return, reporting its error.
func runner(t *testing.T, r *worker.Runner) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("runner did not stop")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting for a job run")
	}
	var zero T
	return zero
}

func quiet[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("unexpected run %v", v)
	case <-time.After(30 * time.Millisecond):
	}
}

// metric reads one sample from reg: a counter or gauge with the labels.
func metric(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue next
				}
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

func TestRunnerRunsOnAlignedSlotsAndCoalescesMissedOnes(t *testing.T) {
	clk := clock.NewManual(start)
	dues := make(chan time.Time, 16)
	reg := prometheus.NewRegistry()
	r, err := worker.NewRunner(worker.Options{Clock: clk, MaxWait: time.Millisecond, Registerer: reg},
		worker.Job{Name: "clear", Every: 15 * time.Minute, Offset: 30 * time.Second, Run: func(_ context.Context, due time.Time) error {
			dues <- due
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	stop := runner(t, r)
	// The slot the start time falls in runs at once.
	if got := receive(t, dues); !got.Equal(time.Date(2026, 2, 2, 6, 0, 30, 0, time.UTC)) {
		t.Fatalf("first due %s", got)
	}
	quiet(t, dues)
	clk.Set(time.Date(2026, 2, 2, 6, 15, 29, 0, time.UTC))
	quiet(t, dues)
	clk.Set(time.Date(2026, 2, 2, 6, 15, 30, 0, time.UTC))
	if got := receive(t, dues); !got.Equal(time.Date(2026, 2, 2, 6, 15, 30, 0, time.UTC)) {
		t.Fatalf("second due %s", got)
	}
	// An hour's jump runs once, for the latest slot.
	clk.Advance(time.Hour + 5*time.Minute)
	if got := receive(t, dues); !got.Equal(time.Date(2026, 2, 2, 7, 15, 30, 0, time.UTC)) {
		t.Fatalf("coalesced due %s", got)
	}
	quiet(t, dues)
	if !r.Running() {
		t.Fatal("runner not reported running")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if r.Running() {
		t.Fatal("runner still reported running after stop")
	}
	if n := metric(t, reg, "atcp_worker_runs_total", map[string]string{"job": "clear", "outcome": "ok"}); n != 3 {
		t.Fatalf("ok runs %v, want 3", n)
	}
	if err := r.Run(context.Background()); err == nil {
		t.Fatal("a runner ran twice")
	}
}

func TestRunnerShutdownWaitsForRunningJobs(t *testing.T) {
	clk := clock.NewManual(start)
	entered := make(chan struct{})
	var finished bool
	reg := prometheus.NewRegistry()
	r, err := worker.NewRunner(worker.Options{Clock: clk, MaxWait: time.Millisecond, Registerer: reg},
		worker.Job{Name: "slow", Every: time.Minute, Run: func(ctx context.Context, _ time.Time) error {
			close(entered)
			<-ctx.Done()
			time.Sleep(20 * time.Millisecond) // cleanup after cancellation
			finished = true
			return ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	stop := runner(t, r)
	receive(t, entered)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !finished {
		t.Fatal("Run returned before the job finished")
	}
	if n := metric(t, reg, "atcp_worker_runs_total", map[string]string{"job": "slow", "outcome": "cancelled"}); n != 1 {
		t.Fatalf("cancelled runs %v", n)
	}
}

func TestRunnerSurvivesFailingAndPanickingJobs(t *testing.T) {
	clk := clock.NewManual(start)
	reg := prometheus.NewRegistry()
	calls := make(chan string, 16)
	r, err := worker.NewRunner(worker.Options{Clock: clk, MaxWait: time.Millisecond, Registerer: reg},
		worker.Job{Name: "panics", Every: time.Minute, Run: func(context.Context, time.Time) error {
			calls <- "panics"
			panic("boom")
		}},
		worker.Job{Name: "fails", Every: time.Minute, Run: func(context.Context, time.Time) error {
			calls <- "fails"
			return errors.New("store down")
		}})
	if err != nil {
		t.Fatal(err)
	}
	runner(t, r)
	seen := map[string]int{}
	for range 2 {
		seen[receive(t, calls)]++
	}
	clk.Advance(time.Minute)
	for range 2 {
		seen[receive(t, calls)]++
	}
	if seen["panics"] != 2 || seen["fails"] != 2 {
		t.Fatalf("runs %v: both jobs must keep running", seen)
	}
	deadline := time.Now().Add(5 * time.Second)
	for metric(t, reg, "atcp_worker_runs_total", map[string]string{"job": "panics", "outcome": "error"}) != 2 ||
		metric(t, reg, "atcp_worker_runs_total", map[string]string{"job": "fails", "outcome": "error"}) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("error outcomes not counted")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRunnerLagGauge(t *testing.T) {
	clk := clock.NewManual(start)
	reg := prometheus.NewRegistry()
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	r, err := worker.NewRunner(worker.Options{Clock: clk, MaxWait: time.Millisecond, Registerer: reg},
		worker.Job{Name: "clear", Every: 15 * time.Minute, Run: func(context.Context, time.Time) error {
			entered <- struct{}{}
			<-release
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	runner(t, r)
	receive(t, entered)
	// The run due 06:00 is in progress at 06:07: seven minutes behind.
	if lag := metric(t, reg, "atcp_worker_lag_seconds", map[string]string{"job": "clear"}); lag != 7*60 {
		t.Fatalf("lag during a late run %v", lag)
	}
	clk.Advance(time.Minute)
	if lag := metric(t, reg, "atcp_worker_lag_seconds", map[string]string{"job": "clear"}); lag != 8*60 {
		t.Fatalf("lag grows while the run lasts: %v", lag)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for metric(t, reg, "atcp_worker_lag_seconds", map[string]string{"job": "clear"}) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("lag not back to 0 while waiting for the next slot")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestNewRunnerRejectsBadJobs(t *testing.T) {
	clk := clock.NewManual(start)
	ok := func(context.Context, time.Time) error { return nil }
	for name, jobs := range map[string][]worker.Job{
		"empty name":    {{Every: time.Minute, Run: ok}},
		"repeated name": {{Name: "a", Every: time.Minute, Run: ok}, {Name: "a", Every: time.Minute, Run: ok}},
		"zero period":   {{Name: "a", Run: ok}},
		"offset":        {{Name: "a", Every: time.Minute, Offset: time.Minute, Run: ok}},
		"no run":        {{Name: "a", Every: time.Minute}},
	} {
		if _, err := worker.NewRunner(worker.Options{Clock: clk}, jobs...); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := worker.NewRunner(worker.Options{}); err == nil {
		t.Error("runner without a clock accepted")
	}
	reg := prometheus.NewRegistry()
	if _, err := worker.NewRunner(worker.Options{Clock: clk, Registerer: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.NewRunner(worker.Options{Clock: clk, Registerer: reg}); err == nil {
		t.Error("a second runner on one registry registered its metrics twice")
	}
}

// TestRunnersShareJobsThroughLeases runs two instances on one store: each
// slot runs on exactly one of them, and when the holder stops the other
// takes over at the next slot.
func TestRunnersShareJobsThroughLeases(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		clk := clock.NewManual(start)
		type run struct {
			holder string
			due    time.Time
		}
		runs := make(chan run, 64)
		job := func(holder string) worker.Job {
			return worker.Job{Name: "clear", Every: time.Minute, Run: func(_ context.Context, due time.Time) error {
				runs <- run{holder, due}
				return nil
			}}
		}
		regA, regB := prometheus.NewRegistry(), prometheus.NewRegistry()
		a, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "a", MaxWait: time.Millisecond, Registerer: regA}, job("a"))
		if err != nil {
			t.Fatal(err)
		}
		stopA := runner(t, a)
		if got := receive(t, runs); got.holder != "a" {
			t.Fatalf("first run by %s", got.holder)
		}
		bRunner, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "b", MaxWait: time.Millisecond, Registerer: regB}, job("b"))
		if err != nil {
			t.Fatal(err)
		}
		runner(t, bRunner)
		waitFor(t, func() bool {
			return metric(t, regB, "atcp_worker_runs_total", map[string]string{"outcome": "skipped"}) == 1
		})
		for i := range 5 {
			clk.Advance(time.Minute)
			got := receive(t, runs)
			if got.holder != "a" || !got.due.Equal(time.Date(2026, 2, 2, 6, 8+i, 0, 0, time.UTC)) {
				t.Fatalf("slot %d run %+v, want a at its slot", i, got)
			}
			waitFor(t, func() bool {
				return metric(t, regB, "atcp_worker_runs_total", map[string]string{"outcome": "skipped"}) == float64(i+2)
			})
			quiet(t, runs)
		}
		// A stops cleanly and releases: b runs the next slot.
		if err := stopA(); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		if got := receive(t, runs); got.holder != "b" {
			t.Fatalf("after a stopped, run by %s", got.holder)
		}
	})
}

// TestRunnerTakesOverAnExpiredLease: a dead instance's lease blocks the job
// until it expires, then the live instance runs it.
func TestRunnerTakesOverAnExpiredLease(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		clk := clock.NewManual(start)
		ctx := context.Background()
		if _, err := b.Leases().Acquire(ctx, "clear", "dead", clk.Now(), 3*time.Minute); err != nil {
			t.Fatal(err)
		}
		dues := make(chan time.Time, 16)
		reg := prometheus.NewRegistry()
		r, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "live", MaxWait: time.Millisecond, Registerer: reg},
			worker.Job{Name: "clear", Every: time.Minute, Run: func(_ context.Context, due time.Time) error {
				dues <- due
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		runner(t, r)
		for i := 1; i <= 2; i++ {
			waitFor(t, func() bool {
				return metric(t, reg, "atcp_worker_runs_total", map[string]string{"outcome": "skipped"}) == float64(i)
			})
			clk.Advance(time.Minute)
		}
		quiet(t, dues)
		clk.Advance(time.Minute) // 06:10: the dead holder's lease (until 06:10) has expired
		if got := receive(t, dues); !got.Equal(time.Date(2026, 2, 2, 6, 10, 0, 0, time.UTC)) {
			t.Fatalf("take-over due %s", got)
		}
		l, err := b.Leases().Lease(ctx, "clear")
		if err != nil || l.Holder != "live" {
			t.Fatalf("lease after take-over %+v, %v", l, err)
		}
	})
}

// TestRunnerStopsAJobWhoseLeaseIsLost: when renewal fails (the holder was
// paused past its lease and another instance took the job), the run's
// context is cancelled.
func TestRunnerStopsAJobWhoseLeaseIsLost(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		clk := clock.NewManual(start)
		entered := make(chan struct{}, 1)
		stopped := make(chan error, 1)
		reg := prometheus.NewRegistry()
		r, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "a", LeaseTTL: 30 * time.Second,
			MaxWait: time.Millisecond, Registerer: reg},
			worker.Job{Name: "clear", Every: time.Hour, Run: func(ctx context.Context, _ time.Time) error {
				entered <- struct{}{}
				<-ctx.Done()
				stopped <- ctx.Err()
				return ctx.Err()
			}})
		if err != nil {
			t.Fatal(err)
		}
		runner(t, r)
		receive(t, entered)
		clk.Advance(time.Minute)
		if l, err := b.Leases().Acquire(context.Background(), "clear", "b", clk.Now(), time.Hour); err != nil || l.Holder != "b" {
			t.Fatalf("b could not take the expired lease: %+v, %v", l, err)
		}
		if err := receive(t, stopped); !errors.Is(err, context.Canceled) {
			t.Fatalf("job context ended with %v", err)
		}
		waitFor(t, func() bool {
			return metric(t, reg, "atcp_worker_runs_total", map[string]string{"outcome": "lease_lost"}) == 1
		})
	})
}

// TestRunnerRenewsTheLeaseOfALongRun: a run longer than the TTL keeps its
// lease through the heartbeat.
func TestRunnerRenewsTheLeaseOfALongRun(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		clk := clock.NewManual(start)
		entered := make(chan struct{}, 1)
		release := make(chan struct{})
		r, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "a", LeaseTTL: 30 * time.Second, MaxWait: time.Millisecond},
			worker.Job{Name: "clear", Every: time.Hour, Run: func(ctx context.Context, _ time.Time) error {
				entered <- struct{}{}
				select {
				case <-release:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		runner(t, r)
		receive(t, entered)
		ctx := context.Background()
		// Renewed every 10 s to now+30 s, the lease always has at least 20 s
		// left; without renewal it would lapse at 30 s.
		for range 12 {
			clk.Advance(5 * time.Second)
			waitFor(t, func() bool {
				l, _ := b.Leases().Lease(ctx, "clear")
				return l.ExpiresAt.Sub(clk.Now()) >= 20*time.Second
			})
		}
		l, err := b.Leases().Lease(ctx, "clear")
		if err != nil || !l.HeldBy("a", clk.Now()) {
			t.Fatalf("lease after a run of %s: %+v, %v", clk.Now().Sub(start), l, err)
		}
		if l, _ := b.Leases().Acquire(ctx, "clear", "b", clk.Now(), time.Minute); l.Holder != "a" {
			t.Fatalf("another instance took a renewed lease: %+v", l)
		}
		close(release)
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRunnerMetricsOnTheServer registers the runner on the API server's
// registry: both series appear on GET /metrics.
func TestRunnerMetricsOnTheServer(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := testkit.NewHarness(t, b)
		ran := make(chan struct{}, 4)
		r, err := worker.NewRunner(worker.Options{Clock: h.Clock, Leases: b.Leases(), MaxWait: time.Millisecond, Registerer: h.Server.Registry()},
			worker.Job{Name: "clear", Every: 15 * time.Minute, Run: func(context.Context, time.Time) error {
				ran <- struct{}{}
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		runner(t, r)
		receive(t, ran)
		waitFor(t, func() bool {
			body := h.Do("GET", "/metrics", "", nil).Body
			return strings.Contains(string(body), `atcp_worker_runs_total{job="clear",outcome="ok"} 1`) &&
				strings.Contains(string(body), `atcp_worker_lag_seconds{job="clear"} 0`)
		})
	})
}

// TestJobLeaseTTLOverridesTheRunners: a job's own LeaseTTL sets how long
// its lease lasts, the runner's applies to the others.
func TestJobLeaseTTLOverridesTheRunners(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		clk := clock.NewManual(start)
		ran := make(chan struct{}, 8)
		run := func(context.Context, time.Time) error { ran <- struct{}{}; return nil }
		r, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "a", LeaseTTL: 30 * time.Second, MaxWait: time.Millisecond},
			worker.Job{Name: "tick", Every: time.Second, LeaseTTL: 2 * time.Minute, Run: run},
			worker.Job{Name: "clear", Every: time.Hour, Run: run})
		if err != nil {
			t.Fatal(err)
		}
		runner(t, r)
		receive(t, ran)
		receive(t, ran)
		ctx := context.Background()
		for job, want := range map[string]time.Duration{"tick": 2 * time.Minute, "clear": 30 * time.Second} {
			waitFor(t, func() bool {
				l, err := b.Leases().Lease(ctx, job)
				return err == nil && l.ExpiresAt.Sub(clk.Now()) == want
			})
		}
	})
}

// TestReleaseRunsBeforeTheLeaseIsGivenUp: at shutdown the job's Release
// hook runs while this instance still holds the lease, and only on the
// holder.
func TestReleaseRunsBeforeTheLeaseIsGivenUp(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		clk := clock.NewManual(start)
		ctx := context.Background()
		ran := make(chan struct{}, 8)
		var heldAtRelease []string
		job := func(holder string) worker.Job {
			return worker.Job{Name: "control", Every: time.Second, LeaseTTL: time.Hour,
				Run: func(context.Context, time.Time) error { ran <- struct{}{}; return nil },
				Release: func(ctx context.Context) error {
					l, err := b.Leases().Lease(ctx, "control")
					if err != nil {
						return err
					}
					heldAtRelease = append(heldAtRelease, holder+":"+l.Holder)
					return nil
				}}
		}
		ra, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "a", MaxWait: time.Millisecond}, job("a"))
		if err != nil {
			t.Fatal(err)
		}
		stopA := runner(t, ra)
		receive(t, ran)
		rb, err := worker.NewRunner(worker.Options{Clock: clk, Leases: b.Leases(), Holder: "b", MaxWait: time.Millisecond}, job("b"))
		if err != nil {
			t.Fatal(err)
		}
		stopB := runner(t, rb)
		clk.Advance(time.Second) // b is refused the lease a holds
		if err := stopB(); err != nil {
			t.Fatal(err)
		}
		if err := stopA(); err != nil {
			t.Fatal(err)
		}
		if len(heldAtRelease) != 1 || heldAtRelease[0] != "a:a" {
			t.Fatalf("release hooks saw %v, want [a:a]", heldAtRelease)
		}
		if l, err := b.Leases().Lease(ctx, "control"); err == nil && l.HeldBy("a", clk.Now()) {
			t.Fatalf("a still holds the lease after stopping: %+v", l)
		}
	})
}
