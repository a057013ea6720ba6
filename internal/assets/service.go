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

// Service is the asset registry.
type Service struct {
	store Store
	clk   clock.Clock
	cache *readCache
	feed  ChangeFeed

	mu     sync.RWMutex
	guards []DeletionGuard
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

func notFound(id string) error { return errs.NotFoundf("asset %q not found", id) }

// List returns the assets visible to v ordered by asset_id.
func (s *Service) List(ctx context.Context, v auth.Visibility) ([]Asset, error) {
	return s.store.List(ctx, v)
}

// Get returns the asset if v may see it, otherwise errs.NotFound.
func (s *Service) Get(ctx context.Context, v auth.Visibility, assetID string) (Asset, error) {
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
	if org := u.OrganisationID; org.Present && !org.Null && !v.Allows(org.Value) {
		return Asset{}, errs.Forbiddenf("organisation_not_permitted", "assets can be registered only for your own organisation")
	}
	a, err := u.Create(s.clk.Now())
	if err != nil {
		return Asset{}, err
	}
	defer s.cache.invalidate(a.ID)
	return s.store.Create(ctx, a)
}

// EnsureAsset registers a (validated, with the defaults of NewAsset for an
// empty operational status and green grid import) unless an asset with its
// id exists or existed; used to seed the demonstration asset.
func (s *Service) EnsureAsset(ctx context.Context, a Asset) error {
	if a.OperationalStatus == "" {
		a.OperationalStatus = Onboarding
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
func (s *Service) Update(ctx context.Context, v auth.Visibility, assetID string, u Update) (Asset, error) {
	if !ValidID(assetID) {
		return Asset{}, notFound(assetID)
	}
	now := s.clk.Now()
	defer s.cache.invalidate(assetID)
	return s.store.Update(ctx, v, assetID, func(cur Asset) (Asset, bool, error) { return u.Apply(cur, now) })
}

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
	return s.store.Delete(ctx, v, assetID, now, func(ctx context.Context, a Asset) error {
		if a.OperationalStatus == Live {
			return errs.Conflictf("asset_live", "asset %q is live; set asset_operational_status to maintenance or offboarded before deleting it", a.ID)
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
			return errs.Conflictf("asset_in_use", "asset %q has commitments: %s", a.ID, strings.Join(blockers, "; "))
		}
		return nil
	})
}
