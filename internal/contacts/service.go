package contacts

import (
	"context"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// Assets resolves the asset a contact request names, applying the
// caller's visibility and resolving virtual asset ids (*assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error)
}

var _ Assets = (*assets.Service)(nil)

// Service is the asset contact directory.
type Service struct {
	store  Store
	assets Assets
	clk    clock.Clock
}

// NewService returns the directory on store; registry resolves assets.
func NewService(store Store, registry Assets, clk clock.Clock) *Service {
	return &Service{store: store, assets: registry, clk: clk}
}

// visibility is the caller's filter; a missing principal sees nothing.
func visibility(p *auth.Principal) auth.Visibility {
	if p == nil {
		return auth.Visibility{}
	}
	return p.Visibility()
}

// resolve returns the id of the physical asset whose directory assetID
// names for the caller: the asset itself, or the parent of a virtual
// asset (a share of a battery has the battery's people). 404 when not
// visible.
func (s *Service) resolve(ctx context.Context, v auth.Visibility, assetID string) (string, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return "", err
	}
	if a.IsVirtual() {
		return *a.ParentAssetID, nil
	}
	return a.ID, nil
}

// writable returns the physical asset assetID names for a change: 404
// when not visible, 409 virtual_asset for a virtual asset, whose contacts
// are its parent's and are changed there.
func (s *Service) writable(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return assets.Asset{}, err
	}
	if a.IsVirtual() {
		return assets.Asset{}, errs.Conflictf(assets.CodeVirtualAsset,
			"asset %q is a virtual asset; its contacts are those of its parent %q: change them there", assetID, *a.ParentAssetID)
	}
	return a, nil
}

func notFound(assetID string, id int64) error {
	return errs.NotFoundf("asset %q has no contact %d", assetID, id)
}

// List returns the contacts of an asset the caller sees, ordered by
// contact_id; a virtual asset's are its parent's.
func (s *Service) List(ctx context.Context, p *auth.Principal, assetID string) ([]Contact, error) {
	v := visibility(p)
	physical, err := s.resolve(ctx, v, assetID)
	if err != nil {
		return nil, err
	}
	return s.store.List(ctx, v, physical)
}

// Get returns one contact of an asset the caller sees.
func (s *Service) Get(ctx context.Context, p *auth.Principal, assetID string, id int64) (Contact, error) {
	v := visibility(p)
	physical, err := s.resolve(ctx, v, assetID)
	if err != nil {
		return Contact{}, err
	}
	c, err := s.store.Get(ctx, v, physical, id)
	if errs.Is(err, errs.NotFound) {
		return Contact{}, notFound(assetID, id)
	}
	return c, err
}

// Create adds a contact with the writable fields of c to a physical
// asset the caller sees: 422 for invalid fields, 409 contact_limit_reached
// when the asset has MaxPerAsset contacts already.
func (s *Service) Create(ctx context.Context, p *auth.Principal, assetID string, c Contact) (Contact, error) {
	v := visibility(p)
	a, err := s.writable(ctx, v, assetID)
	if err != nil {
		return Contact{}, err
	}
	if err := c.Validate(); err != nil {
		return Contact{}, err
	}
	now := s.now()
	c.ID, c.AssetID, c.OrganizationID, c.CreatedAt, c.UpdatedAt = 0, a.ID, a.OrganizationID, now, now
	return s.store.Create(ctx, v, c, func(count int) error {
		if count >= MaxPerAsset {
			return errs.Conflictf(CodeContactLimitReached,
				"asset %q has %d contacts, the most an asset may have; delete one first", a.ID, count)
		}
		return nil
	})
}

// Replace overwrites every writable field of contact id with c's (a field
// c leaves empty is cleared).
func (s *Service) Replace(ctx context.Context, p *auth.Principal, assetID string, id int64, c Contact) (Contact, error) {
	v := visibility(p)
	a, err := s.writable(ctx, v, assetID)
	if err != nil {
		return Contact{}, err
	}
	if err := c.Validate(); err != nil {
		return Contact{}, err
	}
	c.ID, c.AssetID, c.OrganizationID, c.UpdatedAt = id, a.ID, a.OrganizationID, s.now()
	out, err := s.store.Replace(ctx, v, c)
	if errs.Is(err, errs.NotFound) {
		return Contact{}, notFound(assetID, id)
	}
	return out, err
}

// Delete removes contact id of a physical asset the caller sees.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, assetID string, id int64) error {
	v := visibility(p)
	a, err := s.writable(ctx, v, assetID)
	if err != nil {
		return err
	}
	err = s.store.Delete(ctx, v, a.ID, id)
	if errs.Is(err, errs.NotFound) {
		return notFound(assetID, id)
	}
	return err
}

// now is the platform time to the microsecond, as both stores keep it.
func (s *Service) now() time.Time { return s.clk.Now().UTC().Truncate(time.Microsecond) }
