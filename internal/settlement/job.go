package settlement

import (
	"context"
	"time"

	"atcp/internal/clock"
	"atcp/internal/markets/calendar"
	"atcp/internal/worker"
)

// The job's timing.
const (
	// JobName is the job's name in leases, logs and metrics.
	JobName = "settlement.compute"
	// Every is the job's period on the platform clock.
	Every = 5 * time.Minute
	// Lookback is how long after delivery a quarter-hour is computed
	// again on every run: energy outcomes are recorded after delivery
	// (within a minute) and cover steps may be written late, so its
	// figures may still change. A block whose figures come out the same is
	// not rewritten (its processed_at stays).
	Lookback = 2 * time.Hour
	// DaysJob marks, in the job's progress table, figures whose days are
	// not rendered yet (Store.RenderPendingDays): those stored before the
	// days were.
	DaysJob = "settlement.days"
)

// Settler is the job that computes and stores the settlement figures.
type Settler struct {
	store Store
	steps CoverSteps
	clock clock.Clock
}

// NewSettler returns the job over the figures' store, the cover steps of
// the pool dispatch and the platform clock (processed_at).
func NewSettler(store Store, steps CoverSteps, clk clock.Clock) *Settler {
	return &Settler{store: store, steps: steps, clock: clk}
}

// Jobs is the settlement job, for a worker.Runner.
func (s *Settler) Jobs() []worker.Job {
	return []worker.Job{{Name: JobName, Every: Every, Run: s.Run}}
}

// Run settles the quarter-hours delivered by due: every one since the
// first the job has not settled yet (so a restart catches up), and again
// every one of the last Lookback. A quarter-hour of the last Lookback
// whose energy outcomes are not all in (Ready) is left for a later run;
// one older than that is computed with what there is (a bid still without
// an outcome earns nothing), so a stuck bid cannot stop the job.
func (s *Settler) Run(ctx context.Context, due time.Time) error {
	if _, err := s.store.RenderPendingDays(ctx); err != nil {
		return err
	}
	end := due.Truncate(calendar.PeriodLength) // quarter-hours before end are delivered
	recent := end.Add(-Lookback)
	from := recent
	next, ok, err := s.store.Progress(ctx)
	if err != nil {
		return err
	}
	if ok && next.Before(from) {
		from = next
	}
	next = end
	for q := from; q.Before(end); q = q.Add(calendar.PeriodLength) {
		settled, err := s.Settle(ctx, q, !q.Before(recent))
		if err != nil {
			return err
		}
		if !settled && q.Before(next) {
			next = q
		}
	}
	return s.store.SetProgress(ctx, next)
}

// Settle computes and stores the figures of the quarter-hour starting at
// q. With wait, a quarter-hour whose energy outcomes are not all in is
// left alone and Settle reports false.
func (s *Settler) Settle(ctx context.Context, q time.Time, wait bool) (bool, error) {
	in, err := s.store.DeliveryBids(ctx, q)
	if err != nil {
		return false, err
	}
	if wait && !Ready(q, in) {
		return false, nil
	}
	steps, err := s.steps.StepsIn(ctx, q)
	if err != nil {
		return false, err
	}
	blocks, err := Compute(q, in, steps)
	if err != nil {
		return false, err
	}
	_, err = s.store.Save(ctx, q, blocks, s.clock.Now())
	return err == nil, err
}
