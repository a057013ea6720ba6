package restrictions

import (
	"context"
	"time"

	"atcp/internal/auth"
)

// Window is the half-open overlap window of document 1, rule 5; a zero
// From or To leaves that side unbounded.
type Window struct{ From, To time.Time }

// RequestFilter selects restriction requests; zero values do not filter.
type RequestFilter struct {
	AssetID string
	Kind    Kind
}

// Store persists intervals, restriction requests and curtailments. Reads
// filter by the caller's visibility in the SQL; the asset itself is
// resolved (and its visibility checked) by the service beforehand.
type Store interface {
	// Intervals returns the visible intervals of the asset (of kind, or of
	// every kind when kind is empty) overlapping w, ordered by start_time.
	Intervals(ctx context.Context, v auth.Visibility, assetID string, kind Kind, w Window) ([]Interval, error)
	// MutateIntervals reads every interval of kind of the asset of
	// organizationID, calls plan with them and applies the change it
	// returns, as one atomic step per asset (also across instances).
	// plan's error is returned unchanged and nothing is written.
	MutateIntervals(ctx context.Context, organizationID, assetID string, kind Kind, plan func([]Interval) (Change, error)) (Change, error)
	// ActiveAt returns every asset's intervals of every kind active at t
	// (start <= t and, when set, end > t), ordered by asset and kind: the
	// control loop reads them once a second for all assets (unfiltered,
	// internal use only).
	ActiveAt(ctx context.Context, t time.Time) ([]Interval, error)

	// CreateRequest stores a new request.
	CreateRequest(ctx context.Context, r Request) error
	// Requests returns the visible requests matching f, newest first.
	Requests(ctx context.Context, v auth.Visibility, f RequestFilter) ([]Request, error)
	// Request returns the visible request id, errs.NotFound otherwise.
	Request(ctx context.Context, v auth.Visibility, id string) (Request, error)
	// DecideRequest reads the visible request id and the intervals of its
	// kind on its asset, calls decide and writes the request it returns
	// together with the interval change (nil for none), atomically and
	// serialised with every other decision and interval write on the
	// asset. When decide fails with a request whose status changed (an
	// expiry), that request is written and the error returned.
	DecideRequest(ctx context.Context, v auth.Visibility, id string, decide func(Request, []Interval) (Request, *Change, error)) (Request, error)

	// OpenCurtailment stores c unless allow, given the asset's ongoing
	// curtailment (nil for none), refuses with an error; atomically and
	// serialised with the other openings on the asset.
	OpenCurtailment(ctx context.Context, c Curtailment, allow func(ongoing *Curtailment) error) error
	// CloseCurtailment ends the asset's ongoing curtailment at end and
	// returns it; errs.NotFound when none is ongoing.
	CloseCurtailment(ctx context.Context, assetID string, end time.Time) (Curtailment, error)
	// Curtailments returns the visible curtailments of the asset
	// overlapping w, ordered by start_time.
	Curtailments(ctx context.Context, v auth.Visibility, assetID string, w Window) ([]Curtailment, error)
}
