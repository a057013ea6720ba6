// Package worker runs background jobs (market clearing, simulation) on the
// platform clock's timeline. A Runner starts every job at its due instants
// and stops cleanly on cancellation. When instances share a database, each
// job runs under a lease in it (LeaseStore), so that one instance at a time
// runs it and another takes over when that instance dies.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"atcp/internal/clock"
)

// Job is a named piece of work run periodically.
type Job struct {
	// Name identifies the job in leases, logs and metrics.
	Name string
	// Every is the period on the platform clock. Runs are due at the
	// instants Offset + k*Every (k whole) counted from the zero time, so a
	// 15-minute job is due on the UTC quarter-hours whatever the start.
	Every  time.Duration
	Offset time.Duration
	// Run does the work of the run due at due. It is given the due
	// instant, not now, so a late run still knows which slot it serves;
	// it must stop when ctx is done (shutdown or lease lost). A run that
	// fell several slots behind is run once, for the latest due slot, so
	// Run must catch up by itself (a clearing job clears everything due).
	Run func(ctx context.Context, due time.Time) error
	// Release, when set, runs at shutdown after the job's last run and
	// before its lease is given up, on the instance that held it (every
	// instance without leases): the moment to write what the job buffers,
	// before another instance can take the job over.
	Release func(ctx context.Context) error
	// LeaseTTL, when set, overrides Options.LeaseTTL for this job: a
	// one-second job on a fast clock needs a lease of some real seconds.
	LeaseTTL time.Duration
}

// Options configure a Runner.
type Options struct {
	Clock clock.Clock
	// Leases, when set, makes each job run on one instance at a time
	// among those sharing the store. Nil runs every job unconditionally
	// (one instance, or tests).
	Leases LeaseStore
	// Holder names this instance in leases; a random id when empty.
	Holder string
	// LeaseTTL is how long (platform clock) a lease lasts without
	// renewal; it defaults to twice the job's period, so that the holder
	// keeps the job between runs and a dead holder's jobs move within two
	// periods. A running job's lease is renewed every third of it.
	LeaseTTL time.Duration
	// MaxWait bounds each real sleep between looks at the clock (default
	// one second), so a clock that jumps (a test's manual clock, a
	// re-anchored demo) is noticed promptly.
	MaxWait time.Duration
	Logger  *slog.Logger
	// Registerer receives atcp_worker_lag_seconds and
	// atcp_worker_runs_total; nil registers nothing.
	Registerer prometheus.Registerer
}

// Run outcomes, the values of the outcome label of atcp_worker_runs_total.
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeSkipped   = "skipped"    // another instance holds the lease
	OutcomeLeaseLost = "lease_lost" // the lease expired or moved during the run
	OutcomeCancelled = "cancelled"  // shutdown during the run
)

// Runner runs jobs until its context ends.
type Runner struct {
	clock   clock.Clock
	leases  LeaseStore
	holder  string
	maxWait time.Duration
	log     *slog.Logger
	jobs    []*jobState
	runs    *prometheus.CounterVec
	running atomic.Bool
	started atomic.Bool
}

type jobState struct {
	Job
	ttl time.Duration

	mu      sync.Mutex
	pending time.Time // the due instant not yet finished, for the lag gauge
	held    bool      // this instance holds the lease (released at shutdown)
}

// NewRunner checks the jobs and registers the metrics.
func NewRunner(o Options, jobs ...Job) (*Runner, error) {
	if o.Clock == nil {
		return nil, errors.New("worker: no clock")
	}
	r := &Runner{clock: o.Clock, leases: o.Leases, holder: o.Holder, maxWait: o.MaxWait, log: o.Logger}
	if r.holder == "" {
		r.holder = uuid.NewString()
	}
	if r.maxWait <= 0 {
		r.maxWait = time.Second
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	names := map[string]bool{}
	for _, j := range jobs {
		switch {
		case j.Name == "" || names[j.Name]:
			return nil, fmt.Errorf("worker: job name %q empty or repeated", j.Name)
		case j.Every <= 0 || j.Offset < 0 || j.Offset >= j.Every:
			return nil, fmt.Errorf("worker: job %s: want Every > 0 and 0 <= Offset < Every", j.Name)
		case j.Run == nil:
			return nil, fmt.Errorf("worker: job %s has no Run", j.Name)
		}
		names[j.Name] = true
		ttl := j.LeaseTTL
		if ttl <= 0 {
			ttl = o.LeaseTTL
		}
		if ttl <= 0 {
			ttl = 2 * j.Every
		}
		r.jobs = append(r.jobs, &jobState{Job: j, ttl: ttl})
	}
	r.runs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "atcp_worker_runs_total", Help: "Background job runs by outcome (ok, error, skipped, lease_lost, cancelled).",
	}, []string{"job", "outcome"})
	if o.Registerer != nil {
		if err := o.Registerer.Register(r.runs); err != nil {
			return nil, fmt.Errorf("worker: register runs metric: %w", err)
		}
		if err := o.Registerer.Register(lagCollector{r}); err != nil {
			o.Registerer.Unregister(r.runs)
			return nil, fmt.Errorf("worker: register lag metric: %w", err)
		}
	}
	return r, nil
}

// Holder is the name this instance holds leases under.
func (r *Runner) Holder() string { return r.holder }

// Running reports whether Run is serving the jobs (for readiness).
func (r *Runner) Running() bool { return r.running.Load() }

// Run runs the jobs until ctx is done, then waits for runs in progress
// to return and releases this instance's leases so that another instance
// can take the jobs at once. A Runner runs once.
func (r *Runner) Run(ctx context.Context) error {
	if !r.started.CompareAndSwap(false, true) {
		return errors.New("worker: runner already started")
	}
	r.running.Store(true)
	var wg sync.WaitGroup
	for _, js := range r.jobs {
		wg.Go(func() { r.loop(ctx, js) })
	}
	wg.Wait()
	r.running.Store(false)
	return r.releaseAll(context.WithoutCancel(ctx))
}

func (r *Runner) releaseAll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var errList []error
	for _, js := range r.jobs {
		js.mu.Lock()
		held := js.held || r.leases == nil
		js.held = false
		js.mu.Unlock()
		if !held {
			continue
		}
		if js.Release != nil {
			if err := js.Release(ctx); err != nil {
				errList = append(errList, fmt.Errorf("job %s at release: %w", js.Name, err))
			}
		}
		if r.leases != nil {
			if err := r.leases.Release(ctx, js.Name, r.holder); err != nil {
				errList = append(errList, fmt.Errorf("release lease %s: %w", js.Name, err))
			}
		}
	}
	return errors.Join(errList...)
}

// slot is the latest due instant at or before t.
func (js *jobState) slot(t time.Time) time.Time {
	return t.Add(-js.Offset).Truncate(js.Every).Add(js.Offset)
}

func (js *jobState) setPending(t time.Time) {
	js.mu.Lock()
	js.pending = t
	js.mu.Unlock()
}

func (r *Runner) loop(ctx context.Context, js *jobState) {
	// The first run is the slot now falls in: a restart catches up at once.
	due := js.slot(r.clock.Now())
	for {
		js.setPending(due)
		if !r.waitUntil(ctx, due) {
			return
		}
		// Coalesce slots missed while a run overran or the clock jumped.
		due = js.slot(r.clock.Now())
		js.setPending(due)
		r.runOnce(ctx, js, due)
		if ctx.Err() != nil {
			return
		}
		due = due.Add(js.Every)
	}
}

// waitUntil sleeps until the clock reads t or later; false when ctx ended.
func (r *Runner) waitUntil(ctx context.Context, t time.Time) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		left := t.Sub(r.clock.Now())
		if left <= 0 {
			return true
		}
		timer := time.NewTimer(r.realWait(left))
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
		}
	}
}

// realWait converts a span of platform time into a real sleep, bounded
// by MaxWait.
func (r *Runner) realWait(d time.Duration) time.Duration {
	if s, ok := r.clock.(interface {
		RealDuration(time.Duration) time.Duration
	}); ok {
		d = s.RealDuration(d)
	}
	return max(min(d, r.maxWait), time.Millisecond)
}

func (r *Runner) runOnce(ctx context.Context, js *jobState, due time.Time) {
	log := r.log.With("job", js.Name, "due", due)
	var leasedAt time.Time
	if r.leases != nil {
		now := r.clock.Now()
		leasedAt = now
		l, err := r.leases.Acquire(ctx, js.Name, r.holder, now, js.ttl)
		if err != nil {
			if ctx.Err() != nil {
				return // shutdown while asking for the lease: no run happened
			}
			r.runs.WithLabelValues(js.Name, OutcomeError).Inc()
			log.Error("worker lease", "error", err)
			return
		}
		held := l.HeldBy(r.holder, now)
		js.mu.Lock()
		js.held = held
		js.mu.Unlock()
		if !held {
			r.runs.WithLabelValues(js.Name, OutcomeSkipped).Inc()
			log.Debug("job held by another instance", "holder", l.Holder)
			return
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	var lost atomic.Bool
	var heartbeat sync.WaitGroup
	if r.leases != nil {
		heartbeat.Go(func() { r.heartbeat(runCtx, js, leasedAt, func() { lost.Store(true); cancel() }) })
	}
	started := time.Now() // real time: how long the work takes, for the log only
	err := call(runCtx, js, due)
	cancel()
	heartbeat.Wait()
	outcome := OutcomeOK
	switch {
	case lost.Load():
		outcome = OutcomeLeaseLost
		js.mu.Lock()
		js.held = false
		js.mu.Unlock()
		log.Warn("job lost its lease during the run", "error", err)
	case err != nil && ctx.Err() != nil:
		outcome = OutcomeCancelled
		log.Info("job run cancelled by shutdown", "error", err)
	case err != nil:
		outcome = OutcomeError
		log.Error("job run failed", "error", err)
	default:
		log.Debug("job run done", "took", time.Since(started))
	}
	r.runs.WithLabelValues(js.Name, outcome).Inc()
}

// call runs the job, turning a panic into an error so that one faulty
// run neither stops the other jobs nor the server.
func call(ctx context.Context, js *jobState, due time.Time) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return js.Run(ctx, due)
}

// heartbeat renews the lease every third of its TTL, counted from when
// it was last extended (leasedAt), while the run lasts, and calls lost
// when it can no longer be renewed.
func (r *Runner) heartbeat(ctx context.Context, js *jobState, leasedAt time.Time, lost func()) {
	for next := leasedAt.Add(js.ttl / 3); r.waitUntil(ctx, next); {
		now := r.clock.Now()
		ok, err := r.leases.Renew(ctx, js.Name, r.holder, now, js.ttl)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			// A store outage: retry soon; if the lease lapses meanwhile the
			// next renewal reports it.
			r.log.Warn("worker lease renewal failed", "job", js.Name, "error", err)
			next = now.Add(js.ttl / 10)
		case !ok:
			lost()
			return
		default:
			next = now.Add(js.ttl / 3)
		}
	}
}

// lagCollector reports, at scrape time, how far each job is behind its
// schedule: platform-clock seconds since the due instant of the run not
// yet finished (0 while waiting for a future slot).
type lagCollector struct{ r *Runner }

var lagDesc = prometheus.NewDesc("atcp_worker_lag_seconds",
	"Platform-clock seconds a background job is behind its schedule (0 when on time).", []string{"job"}, nil)

func (c lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- lagDesc }

func (c lagCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.r.clock.Now()
	for _, js := range c.r.jobs {
		js.mu.Lock()
		pending := js.pending
		js.mu.Unlock()
		lag := 0.0
		if !pending.IsZero() && now.After(pending) {
			lag = now.Sub(pending).Seconds()
		}
		ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, lag, js.Name)
	}
}
