package dispatch

import (
	"context"
	"time"

	"atcp/internal/auth"
)

// Store persists immediate dispatches, schedule events and the schedule
// dispatch report. Writes of one asset serialise on the asset's row (a
// transaction holding its lock), so the asset has at most one immediate
// dispatch in force and a schedule replacement is atomic. Reads filter by
// the caller's visibility in the SQL; the asset is resolved (and its
// visibility checked) by the service beforehand. Plan's methods read every
// asset.
type Store interface {
	Plan
	// StartImmediate stores im after applying Replacement(old, im.Start)
	// to every dispatch of the asset ending after im.Start, in one
	// transaction under the asset's row lock, and returns those dispatches
	// as they were before. errs.NotFound when the asset has no row.
	StartImmediate(ctx context.Context, im Immediate) (replaced []Immediate, err error)
	// EndImmediate sets end = at on the asset's dispatch active at at
	// (start <= at < end), under the row lock, and returns it closed (one
	// starting exactly at at is removed, being empty); errs.NotFound when
	// none is active.
	EndImmediate(ctx context.Context, assetID string, at time.Time) (Immediate, error)
	// Immediates returns the visible dispatches of the asset overlapping
	// w (document 1, rule 5), ordered by start_time.
	Immediates(ctx context.Context, v auth.Visibility, assetID string, w Window) ([]Immediate, error)
	// ReplaceEvents deletes the asset's events with from <= set_time < to
	// and stores events, in one transaction under the asset's row lock.
	ReplaceEvents(ctx context.Context, assetID string, from, to time.Time, events []Event) error
	// Events returns the visible events of the asset with from <=
	// set_time < to, ordered by set_time.
	Events(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) ([]Event, error)
	// Outcomes returns the visible report entries of the asset with from
	// <= set_time < to, ordered by set_time, with RequestID and SourceID
	// of their events.
	Outcomes(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) ([]Outcome, error)
	// Prune deletes what lies wholly before the read horizon: immediate
	// dispatches that ended at or before before, events and report
	// entries with set_time before it. It returns how many rows went.
	Prune(ctx context.Context, before time.Time) (int, error)
}
