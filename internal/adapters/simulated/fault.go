package simulated

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/telemetry/simulator"
)

// Fault is a fault injected into a simulated battery (docs/telemetry.md,
// "Fault injection"): in force on the platform clock from Start
// (inclusive) to End (exclusive), unless cleared before.
type Fault struct {
	ID             string // a UUID
	AssetID        string
	OrganizationID string
	Kind           simulator.FaultKind
	Start, End     time.Time
	CreatedBy      string // the subject of the administrator who injected it
}

// ActiveFaults reads the faults in force at an instant, of every asset,
// in one query: what the adapter applies each second.
type ActiveFaults interface {
	ActiveFaults(ctx context.Context, at time.Time) ([]Fault, error)
}

// FaultStore persists injected faults. A cleared fault keeps its row
// (cleared_at set) and is no longer in force. Reads of one asset filter by
// the caller's visibility in the SQL.
type FaultStore interface {
	ActiveFaults
	// InsertFault stores f.
	InsertFault(ctx context.Context, f Fault) error
	// AssetFaults returns the visible faults of the asset in force at at,
	// ordered by start and id.
	AssetFaults(ctx context.Context, v auth.Visibility, assetID string, at time.Time) ([]Fault, error)
	// ClearFault clears the visible fault of the asset at at when it is in
	// force then; errs.NotFound otherwise.
	ClearFault(ctx context.Context, v auth.Visibility, assetID, faultID string, at time.Time) error
}

// MaxFaultSeconds bounds a fault's duration: one day.
const MaxFaultSeconds = 86400

// FaultService injects, lists and clears faults of simulated batteries:
// platform administrators only, physical assets steered by the simulator
// only.
type FaultService struct {
	store      FaultStore
	assets     *assets.Service
	clock      clock.Clock
	simulating bool
}

// NewFaultService returns a FaultService; simulating says whether this
// server runs the simulator (ATCP_SIMULATE), without which no asset is
// simulated.
func NewFaultService(store FaultStore, as *assets.Service, clk clock.Clock, simulating bool) *FaultService {
	return &FaultService{store: store, assets: as, clock: clk, simulating: simulating}
}

// simulated returns the asset the administrator p names when the
// simulator steers it.
func (s *FaultService) simulated(ctx context.Context, p *auth.Principal, assetID string) (assets.Asset, error) {
	if !p.IsPlatformAdmin() {
		return assets.Asset{}, errs.Forbiddenf(identity.CodePlatformAdminRequired, "only platform administrators may inject simulator faults")
	}
	a, err := s.assets.Get(ctx, p.Visibility(), assetID)
	switch {
	case err != nil:
		return assets.Asset{}, err
	case a.IsVirtual():
		return assets.Asset{}, errs.Conflictf(assets.CodeVirtualAsset, "asset %q is a virtual asset of %q; inject faults into its parent", assetID, *a.ParentAssetID)
	case !s.simulating:
		return assets.Asset{}, errs.Conflictf(CodeAssetNotSimulated, "this server runs without the simulator (ATCP_SIMULATE=false)")
	case a.Adapter != assets.AdapterSimulator:
		return assets.Asset{}, errs.Conflictf(CodeAssetNotSimulated, "asset %q is steered by the %s adapter, not the simulator", assetID, a.Adapter)
	}
	return a, nil
}

// Inject starts a fault of kind on the asset for seconds of platform time
// from now.
func (s *FaultService) Inject(ctx context.Context, p *auth.Principal, assetID string, kind simulator.FaultKind, seconds int) (Fault, error) {
	a, err := s.simulated(ctx, p, assetID)
	if err != nil {
		return Fault{}, err
	}
	var v errs.Validation
	if !kind.Valid() {
		names := make([]string, len(simulator.FaultKinds))
		for i, k := range simulator.FaultKinds {
			names[i] = string(k)
		}
		v.Add("body.kind", "must be one of "+strings.Join(names, ", "), kind)
	}
	if seconds < 1 || seconds > MaxFaultSeconds {
		v.Add("body.duration_seconds", fmt.Sprintf("must be between 1 and %d", MaxFaultSeconds), seconds)
	}
	if err := v.Err(); err != nil {
		return Fault{}, err
	}
	now := s.clock.Now().UTC().Truncate(time.Microsecond)
	f := Fault{ID: uuid.NewString(), AssetID: a.ID, OrganizationID: a.OrganizationID, Kind: kind,
		Start: now, End: now.Add(time.Duration(seconds) * time.Second), CreatedBy: p.Subject}
	if err := s.store.InsertFault(ctx, f); err != nil {
		return Fault{}, err
	}
	return f, nil
}

// Active lists the asset's faults in force now.
func (s *FaultService) Active(ctx context.Context, p *auth.Principal, assetID string) ([]Fault, error) {
	a, err := s.simulated(ctx, p, assetID)
	if err != nil {
		return nil, err
	}
	return s.store.AssetFaults(ctx, p.Visibility(), a.ID, s.clock.Now().UTC().Truncate(time.Microsecond))
}

// Clear ends the asset's fault faultID now; errs.NotFound when it is not
// in force.
func (s *FaultService) Clear(ctx context.Context, p *auth.Principal, assetID, faultID string) error {
	a, err := s.simulated(ctx, p, assetID)
	if err != nil {
		return err
	}
	id, err := uuid.Parse(faultID)
	if err != nil {
		return errs.NotFoundf("fault %q not found", faultID)
	}
	return s.store.ClearFault(ctx, p.Visibility(), a.ID, id.String(), s.clock.Now().UTC().Truncate(time.Microsecond))
}
