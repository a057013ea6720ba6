package app

import (
	"context"
	"time"

	"atcp/internal/portfolio"
	"atcp/internal/settlement"
	"atcp/internal/worker"
)

// coverSteps gives settlement the pool cover steps the portfolio planner
// recorded for a quarter-hour (docs/portfolio.md).
type coverSteps struct{ store portfolio.Store }

func (c coverSteps) StepsIn(ctx context.Context, quarterHour time.Time) ([]settlement.CoverStep, error) {
	steps, err := c.store.StepsIn(ctx, quarterHour)
	if err != nil {
		return nil, err
	}
	out := make([]settlement.CoverStep, len(steps))
	for i, s := range steps {
		out[i] = settlement.CoverStep{OrganizationID: s.OrganizationID, QuarterHour: s.QuarterHour, Product: string(s.Product),
			FailingAssetID: s.Failing, CoveringAssetID: s.Covering, MW: s.MW, ObligationMW: s.ObligationMW, From: s.From, To: s.To,
			BackupPrice: s.Price}
	}
	return out, nil
}

// settlementJobs compute the settlement figures of every delivered
// quarter-hour (docs/settlement.md).
func (a *App) settlementJobs() []worker.Job {
	return settlement.NewSettler(a.Store.Settlements(), coverSteps{a.Store.CoverSteps()}, a.Clock).Jobs()
}
