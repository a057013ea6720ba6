package assets

import (
	"context"
	"strings"
	"sync"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// DeletionGuard is implemented by areas that hold commitments of an asset
// (bids in committed states, dispatches, segmentations). A non-empty list
// of blockers, each a short sentence naming one commitment, refuses the
// deletion with 409 asset_in_use.
type DeletionGuard interface {
	AssetDeletionBlockers(ctx context.Context, assetID string, now time.Time) ([]string, error)
}

// VirtualResolver resolves virtual assets (segments of an active
// segmentation); the segmentation area implements it so that this package
// does not depend on it. Virtual assets are derived on every read and
// never cached: the cache holds physical assets only, so a segmentation
// change needs no invalidation here.
type VirtualResolver interface {
	// VirtualParent returns the parent id id would have as a virtual
	// asset id, without reading anything.
	VirtualParent(id string) (parentID string, ok bool)
	// VirtualAsset returns the virtual asset id of the (visible) parent,
	// and false when parent has no active segment making it.
	VirtualAsset(ctx context.Context, parent Asset, id string) (Asset, bool, error)
	// VirtualAssets returns the virtual assets of the parents visible to
	// v, keyed by parent id, in segment order.
	VirtualAssets(ctx context.Context, v auth.Visibility, parents []Asset) (map[string][]Asset, error)
}

// StatusOwner reports the onboarding workflow in progress of an asset,
// which owns its operational status until it completes or is cancelled
// (the onboarding area implements it; docs/onboarding.md, section 3).
// Service.Update consults it under the asset's row lock, with the context
// of that transaction (its reads join it), and the workflow's creation
// locks the asset row too, so that the two serialise.
type StatusOwner interface {
	OnboardingInProgress(ctx context.Context, assetID string) (onboardingID string, ok bool, err error)
}

// Service is the asset registry.
type Service struct {
	store Store
	clk   clock.Clock
	cache *readCache
	feed  ChangeFeed

	mu       sync.RWMutex
	guards   []DeletionGuard
	resolver VirtualResolver
	owner    StatusOwner
	// deleting serialises deletions: each holds a database connection
	// while its guards need more, and concurrent deletions must not take
	// every connection of the pool.
	deleting sync.Mutex
}

// NewService returns the registry on store. When the store is shared
// with other instances it must implement ChangeFeed, and Watch must run
// for reads to be cached; a store that does not (embedded SQLite, used by
// one process) has its reads cached from the start.
func NewService(store Store, clk clock.Clock) *Service {
	feed, shared := store.(ChangeFeed)
	return &Service{store: store, clk: clk, feed: feed, cache: newReadCache(!shared)}
}

// CachingReads reports whether reads are served from the cache: always
// for an unshared store, and for a shared one while its feed is connected.
func (s *Service) CachingReads() bool { return s.cache.enabled.Load() }

// Watch follows the changes other instances commit until ctx ends, so
// that cached reads stay current; it returns at once for an unshared store.
func (s *Service) Watch(ctx context.Context) {
	if s.feed == nil {
		return
	}
	s.feed.WatchAssetChanges(ctx,
		func() { s.cache.setEnabled(true) },
		s.cache.invalidate,
		func() { s.cache.setEnabled(false) })
}

// AddDeletionGuard makes every later deletion consult g.
func (s *Service) AddDeletionGuard(g DeletionGuard) {
	s.mu.Lock()
	s.guards = append(s.guards, g)
	s.mu.Unlock()
}

// SetVirtualResolver makes virtual asset ids resolve through r.
func (s *Service) SetVirtualResolver(r VirtualResolver) {
	s.mu.Lock()
	s.resolver = r
	s.mu.Unlock()
}

// SetStatusOwner makes every later update that changes
// asset_operational_status consult o (nil: no check).
func (s *Service) SetStatusOwner(o StatusOwner) {
	s.mu.Lock()
	s.owner = o
	s.mu.Unlock()
}

func (s *Service) statusOwner() StatusOwner {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.owner
}

func (s *Service) virtualResolver() VirtualResolver {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.resolver
}

// virtual resolves id as a virtual asset visible to v: found is false
// when id names none.
func (s *Service) virtual(ctx context.Context, v auth.Visibility, id string) (a Asset, found bool, err error) {
	r := s.virtualResolver()
	if r == nil {
		return Asset{}, false, nil
	}
	parentID, ok := r.VirtualParent(id)
	if !ok {
		return Asset{}, false, nil
	}
	parent, err := s.getPhysical(ctx, v, parentID)
	if errs.Is(err, errs.NotFound) {
		return Asset{}, false, nil
	}
	if err != nil {
		return Asset{}, false, err
	}
	return r.VirtualAsset(ctx, parent, id)
}

// Segmented reports whether the physical asset a has an active
// segmentation: its capacity then belongs to its virtual assets. A
// virtual asset is never segmented.
func (s *Service) Segmented(ctx context.Context, a Asset) (bool, error) {
	r := s.virtualResolver()
	if r == nil || a.IsVirtual() {
		return false, nil
	}
	virtual, err := r.VirtualAssets(ctx, auth.Visibility{OrganizationID: a.OrganizationID}, []Asset{a})
	return len(virtual[a.ID]) > 0, err
}

// refuseVirtual turns the NotFound of a write addressed to a virtual
// asset id into 409 virtual_asset: virtual assets are changed through
// their parent's segmentation.
func (s *Service) refuseVirtual(ctx context.Context, v auth.Visibility, id string, err error) error {
	if !errs.Is(err, errs.NotFound) {
		return err
	}
	a, found, verr := s.virtual(ctx, v, id)
	if verr != nil {
		return verr
	}
	if found {
		return errs.Conflictf(CodeVirtualAsset, "asset %q is a virtual asset of %q; change its parent's segmentation instead", id, *a.ParentAssetID)
	}
	return err
}

func notFound(id string) error { return errs.NotFoundf("asset %q not found", id) }

// List returns the assets visible to v ordered by asset_id, each parent
// of an active segmentation followed by its virtual assets.
func (s *Service) List(ctx context.Context, v auth.Visibility) ([]Asset, error) {
	list, err := s.store.List(ctx, v)
	r := s.virtualResolver()
	if err != nil || r == nil {
		return list, err
	}
	virtual, err := r.VirtualAssets(ctx, v, list)
	if err != nil || len(virtual) == 0 {
		return list, err
	}
	out := make([]Asset, 0, len(list))
	for _, a := range list {
		out = append(out, a)
		out = append(out, virtual[a.ID]...)
	}
	return out, nil
}

// Get returns the asset if v may see it, otherwise errs.NotFound. A
// virtual asset id resolves against its parent's active segmentation.
func (s *Service) Get(ctx context.Context, v auth.Visibility, assetID string) (Asset, error) {
	a, err := s.getPhysical(ctx, v, assetID)
	if !errs.Is(err, errs.NotFound) {
		return a, err
	}
	va, found, verr := s.virtual(ctx, v, assetID)
	if verr != nil {
		return Asset{}, verr
	}
	if found {
		return va, nil
	}
	return Asset{}, err
}

func (s *Service) getPhysical(ctx context.Context, v auth.Visibility, assetID string) (Asset, error) {
	if !ValidID(assetID) {
		return Asset{}, notFound(assetID)
	}
	if a, ok := s.cache.get(assetID); ok {
		if !v.Allows(a.OrganizationID) {
			return Asset{}, notFound(assetID)
		}
		return a, nil
	}
	gen := s.cache.generation.Load()
	// Read with full visibility so the cached copy serves every caller;
	// the caller's visibility is applied here.
	a, err := s.store.Get(ctx, auth.Visibility{All: true}, assetID)
	if err != nil {
		return Asset{}, err
	}
	s.cache.put(a, gen)
	if !v.Allows(a.OrganizationID) {
		return Asset{}, notFound(assetID)
	}
	return a, nil
}

// Create registers a new asset from a create request. A caller that does
// not see every organisation may name only its own (403
// organisation_not_permitted).
func (s *Service) Create(ctx context.Context, v auth.Visibility, u Update) (Asset, error) {
	org, err := u.Organisation()
	if err != nil {
		return Asset{}, err
	}
	if org.Present && !org.Null && !v.Allows(org.Value) {
		return Asset{}, errs.Forbiddenf(CodeOrganisationNotPermitted, "assets can be registered only for your own organisation")
	}
	a, err := u.Create(s.clk.Now())
	if err != nil {
		return Asset{}, err
	}
	if _, taken, err := s.virtual(ctx, auth.Visibility{All: true}, a.ID); err != nil || taken {
		if err == nil {
			err = errs.Conflictf(CodeAssetExists, "asset id %q is the id of a virtual asset", a.ID)
		}
		return Asset{}, err
	}
	defer s.cache.invalidate(a.ID)
	return s.store.Create(ctx, a)
}

// EnsureAsset registers a (validated, with the defaults of NewAsset for an
// empty operational status, adapter and topic prefix and for green grid
// import) unless an asset with its id exists or existed; used to seed the
// demonstration asset.
func (s *Service) EnsureAsset(ctx context.Context, a Asset) error {
	if a.OperationalStatus == "" {
		a.OperationalStatus = Onboarding
	}
	if a.Adapter == "" {
		a.Adapter = AdapterSimulator
	}
	if a.AdapterTopicPrefix == "" {
		a.AdapterTopicPrefix = DefaultTopicPrefix(a.ID)
	}
	a.normalize()
	if err := a.Validate(); err != nil {
		return err
	}
	now := s.clk.Now()
	a.CreatedAt, a.UpdatedAt, a.OptimizerOrgName = now, now, nil
	defer s.cache.invalidate(a.ID)
	if _, err := s.store.Create(ctx, a); err != nil && !errs.Is(err, errs.Conflict) {
		return err
	}
	return nil
}

// Update applies a partial update to a visible asset (see Update.Apply).
// A change of asset_operational_status while an onboarding of the asset is
// in progress is 409 onboarding_in_progress (see SetStatusOwner).
func (s *Service) Update(ctx context.Context, v auth.Visibility, assetID string, u Update) (Asset, error) {
	if !ValidID(assetID) {
		return Asset{}, notFound(assetID)
	}
	now := s.clk.Now()
	owner := s.statusOwner()
	defer s.cache.invalidate(assetID)
	a, err := s.store.Update(ctx, v, assetID, func(ctx context.Context, cur Asset) (Asset, bool, error) {
		next, changed, err := u.Apply(cur, now)
		if err != nil || owner == nil || next.OperationalStatus == cur.OperationalStatus {
			return next, changed, err
		}
		id, ok, err := owner.OnboardingInProgress(ctx, cur.ID)
		switch {
		case err != nil:
			return cur, false, err
		case ok:
			return cur, false, errs.Conflictf(CodeOnboardingInProgress,
				"the operational status of asset %q is moved by its onboarding %s while that is in progress; cancel the onboarding to change it here",
				cur.ID, id)
		}
		return next, changed, nil
	})
	if err != nil {
		return Asset{}, s.refuseVirtual(ctx, v, assetID, err)
	}
	return a, nil
}

// Forget drops the cached copy of an asset. An area that updates an asset
// inside its own transaction (onboarding moving the operational status)
// calls it once that transaction has ended: Update's own invalidation ran
// before the commit, and a read in between may have cached the old row.
func (s *Service) Forget(assetID string) { s.cache.invalidate(assetID) }

// Delete decommissions a visible asset: it disappears from every read and
// its id stays reserved. A live asset is refused (409 asset_live: set it
// to maintenance or offboarded first), and so is one a deletion guard
// reports commitments for (409 asset_in_use).
func (s *Service) Delete(ctx context.Context, v auth.Visibility, assetID string) error {
	if !ValidID(assetID) {
		return notFound(assetID)
	}
	s.mu.RLock()
	guards := append([]DeletionGuard(nil), s.guards...)
	s.mu.RUnlock()
	s.deleting.Lock()
	defer s.deleting.Unlock()
	defer s.cache.invalidate(assetID)
	now := s.clk.Now()
	err := s.store.Delete(ctx, v, assetID, now, func(ctx context.Context, a Asset) error {
		if a.OperationalStatus == Live {
			return errs.Conflictf(CodeAssetLive, "asset %q is live; set asset_operational_status to maintenance or offboarded before deleting it", a.ID)
		}
		var blockers []string
		for _, g := range guards {
			b, err := g.AssetDeletionBlockers(ctx, a.ID, now)
			if err != nil {
				return err
			}
			blockers = append(blockers, b...)
		}
		if len(blockers) > 0 {
			return errs.Conflictf(CodeAssetInUse, "asset %q has commitments: %s", a.ID, strings.Join(blockers, "; "))
		}
		return nil
	})
	return s.refuseVirtual(ctx, v, assetID, err)
}
