package bids

import (
	"context"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/calendar"
)

// Store persists the bids of every market. API reads and writes are keyed
// by asset and filtered by the caller's visibility in the query itself;
// the clearing methods work on bid references (asset and bid id).
type Store interface {
	// Apply is one atomic read-decide-write on an asset's bids. It locks
	// the physical asset row behind asset (its parent for a virtual
	// asset; visible to v and not deleted, otherwise errs.NotFound), so
	// that changes of the bids of one battery, physical or virtual, apply
	// one after the other. It reads the bids of market on asset.ID that
	// overlap window (every status) and passes decide the asset (for a
	// physical asset the freshly locked row, for a virtual asset the
	// record given) and those bids, then applies the changes decide
	// returns. An error from decide, or from applying its changes, rolls
	// everything back. A bid inserted into an idempotency scope that is
	// taken is errs.Conflict "idempotency_key_in_use".
	Apply(ctx context.Context, v auth.Visibility, asset assets.Asset, market Market, window calendar.Interval,
		decide func(a assets.Asset, existing []Bid) (Changes, error)) error
	// ApplyAcross is Apply whose decide also gets the asset's bids in the
	// markets others overlapping window in committed statuses, read in
	// the same transaction under the same lock: a rule that spans
	// markets (cross-market feasibility) holds under concurrency, since
	// every bid write of the battery, in any market, waits for the lock.
	ApplyAcross(ctx context.Context, v auth.Visibility, asset assets.Asset, market Market, window calendar.Interval,
		others []Market, decide func(a assets.Asset, existing, others []Bid) (Changes, error)) error
	// List returns the asset's bids of market matching f, ordered by
	// start_time, product and created_at.
	List(ctx context.Context, v auth.Visibility, assetID string, market Market, f Filter) ([]Bid, error)
	// Get returns one bid of market on the asset, or errs.NotFound.
	Get(ctx context.Context, v auth.Visibility, assetID string, market Market, id string) (Bid, error)

	// Due returns up to limit bids of market in status starting before
	// startBefore, oldest start first: the bids the simulated market
	// submits or fails (PENDING) and clears (SUBMITTED).
	Due(ctx context.Context, market Market, status Status, startBefore time.Time, limit int) ([]Bid, error)
	// Covering returns the bids of market in status whose interval
	// contains at (start <= at < end): the capacity awards a quarter-hour
	// of energy must honour.
	Covering(ctx context.Context, market Market, status Status, at time.Time) ([]Bid, error)
	// MarkSubmitted moves PENDING bids to SUBMITTED (submitted_at at)
	// and returns how many moved; bids in any other status are left.
	MarkSubmitted(ctx context.Context, refs []Ref, at time.Time) (int, error)
	// MarkFailed moves PENDING bids that never reached the market to
	// FAILED and returns how many moved.
	MarkFailed(ctx context.Context, refs []Ref, at time.Time) (int, error)
	// RecordOutcomes stores auction outcomes of SUBMITTED bids (FALLBACK
	// also from PENDING) and returns how many bids changed.
	RecordOutcomes(ctx context.Context, outcomes []Outcome, at time.Time) (int, error)
	// RecordAwards is RecordOutcomes for awards that bring bids with them
	// (an aFRR capacity award: its energy bids). In the same transaction,
	// for each asset, it passes then.Create the bids it moved to
	// SUCCESSFUL, as recorded and in the order of outcomes, with the
	// asset's bids of then.Market overlapping them (every status), and
	// inserts the bids Create returns. An award and its bids are stored
	// together or not at all, and a re-run, which moves nothing, creates
	// nothing.
	RecordAwards(ctx context.Context, outcomes []Outcome, at time.Time, then FollowUp) (int, error)
	// PendingEdits returns up to limit bids of market whose late edit
	// waits to be forwarded (last_edit_attempt PENDING_RESYNC).
	PendingEdits(ctx context.Context, market Market, limit int) ([]Bid, error)
	// ResolveEdit settles a PENDING_RESYNC late edit: applied, the bid
	// takes the requested values and the attempt becomes APPLIED;
	// otherwise the attempt becomes FAILED_LATE_EDIT with reason and
	// detail and the bid keeps its values. It returns errs.NotFound when
	// the bid has no pending edit.
	ResolveEdit(ctx context.Context, ref Ref, applied bool, reason, detail string, at time.Time) error
	// CommittedAfter counts the asset's bids in committed statuses that
	// end after t, per market; it reads without locking (deletion guard).
	CommittedAfter(ctx context.Context, assetID string, t time.Time) (map[Market]int, error)
}

// Changes are what one Apply writes.
type Changes struct {
	Delete []string // ids of PENDING bids to delete
	Update []Bid    // bids rewritten in full (status, values, last edit)
	Insert []Bid
}

// Filter selects bids for List.
type Filter struct {
	// EndAfter keeps bids ending after it: the 30-day read horizon.
	EndAfter time.Time
	// Start and End, when set, keep bids overlapping [Start, End).
	Start, End *time.Time
	Product    *Product
}

// Ref names one bid.
type Ref struct {
	AssetID string
	ID      string
}

// FollowUp creates the bids that awards bring with them (RecordAwards).
type FollowUp struct {
	Market Market // the market of the bids Create returns
	// Create returns the bids to insert for the awards of one asset,
	// given the asset's bids of Market overlapping them. It must not
	// return a bid in an idempotency scope that existing holds.
	Create func(awards, existing []Bid) []Bid
}

// Outcome is the auction result of one bid.
type Outcome struct {
	Ref
	Status          Status // SUCCESSFUL, REJECTED or FALLBACK
	AwardedMW       *float64
	SettlementPrice *Price
	PriceSource     *string
	SourceDay       *string
	ClearingNote    *string
}
