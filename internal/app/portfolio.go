package app

import (
	"time"

	"atcp/internal/markets/calendar"
	"atcp/internal/portfolio"
	"atcp/internal/worker"
)

// coverEvery is the cover planner's period: every platform minute, but
// on a clock faster than 120x the shortest period dividing 15 minutes
// that lasts at least half a real second, so that a fast demo clock does
// not plan many times a real second.
func coverEvery(speed float64) time.Duration {
	for _, every := range []time.Duration{time.Minute, 3 * time.Minute, 5 * time.Minute} {
		if every.Seconds() >= speed/2 {
			return every
		}
	}
	return calendar.PeriodLength
}

// portfolioJobs plan the backup-market dispatch across pool members
// (docs/portfolio.md); staleAfter is the state's staleness bound, past
// which an asset's adapter counts as offline.
func (a *App) portfolioJobs(staleAfter time.Duration) ([]worker.Job, error) {
	p, err := portfolio.NewPlanner(portfolio.PlannerOptions{
		Fleet: a.Assets, Pools: portfolio.PoolsOf(a.Store.Pools()), Awards: a.Store.Bids(), Restrictions: a.Store.Restrictions(),
		Latest: a.Store.Telemetry(), Offers: a.Backup, Store: a.Store.CoverSteps(), StaleAfter: staleAfter,
		Every: coverEvery(a.Config.ClockSpeed), Logger: a.Log,
	})
	if err != nil {
		return nil, err
	}
	return p.Jobs(), nil
}
