package app

import (
	"context"
	"time"

	"atcp/internal/settlement"
	"atcp/internal/worker"
)

// noCoverStepsYet stands in for the pool dispatch's cover steps until its
// store is wired here: no pool member covers another, so the figures carry
// no backup fees and no penalties of uncovered obligations (the offer
// shortfall still counts).
type noCoverStepsYet struct{}

func (noCoverStepsYet) StepsIn(context.Context, time.Time) ([]settlement.CoverStep, error) {
	return nil, nil
}

// settlementJobs compute the settlement figures of every delivered
// quarter-hour (docs/settlement.md).
func (a *App) settlementJobs() []worker.Job {
	return settlement.NewSettler(a.Store.Settlements(), noCoverStepsYet{}, a.Clock).Jobs()
}
