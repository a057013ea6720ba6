package control

import (
	"context"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/telemetry"
)

// Adapter is the loop's only way to an asset; docs/adapters.md.
//
// Every method is safe for concurrent use. Errors: an asset the adapter
// does not steer is errs.NotFound, an invalid command errs.Invalid, an
// unreachable asset errs.Unavailable; a refused Send leaves the previous
// command in force. Attach with a non-nil last resumes a simulated battery
// from it even when the asset is attached already (another instance
// stepped it meanwhile); a device adapter ignores last.
type Adapter interface {
	// Attach starts steering the physical asset a, or applies its changed registration when it is attached already. last is the asset's latest stored measurements (nil: none), from which a simulated battery resumes; at is the platform second.
	Attach(ctx context.Context, a assets.Asset, last *telemetry.Measurements, at time.Time) error
	// Detach stops steering the asset and forgets it.
	Detach(ctx context.Context, assetID string) error
	// Send replaces the asset's command in full, for platform second at.
	Send(ctx context.Context, assetID string, cmd telemetry.Command, at time.Time) error
	// Advance brings the adapter's world to platform second t: the simulator steps its physics and its grid (frequency, DSO curtailment); a device adapter has nothing to do.
	Advance(ctx context.Context, t time.Time) error
	// Read returns the asset's latest measurements; errs.Unavailable when the asset is not connected or its newest measurement is older than the adapter's staleness bound.
	Read(ctx context.Context, assetID string) (telemetry.Measurements, error)
	// Connected reports whether the asset can take commands now.
	Connected(assetID string) bool
}

// Fleet says which assets exist (*assets.Service): the loop steers every
// physical one through its adapter.
type Fleet interface {
	List(ctx context.Context, v auth.Visibility) ([]assets.Asset, error)
}

// Activations is the TSO's aFRR energy activation: the replayed day's
// clearing in the simulated world (simulated.Activations). The loop sends
// it to every asset as a command, whatever its adapter.
type Activations interface {
	// Activated returns, in the order of energy, the power (MW, signed:
	// positive = discharge for pos bids) the TSO activates of each aFRR
	// energy bid in the quarter-hour starting at period.
	Activated(ctx context.Context, period time.Time, energy []bids.Bid) ([]float64, error)
}
