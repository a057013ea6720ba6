package pools

import (
	"context"
	"fmt"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/restrictions"
	"atcp/internal/segmentation"
	"atcp/internal/telemetry"
)

// Assets resolves asset ids within an organisation, virtual ids included
// (*assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error)
}

// Organizations finds a registered organisation, errs.NotFound when there
// is none (identity.DirectoryStore).
type Organizations interface {
	Organization(ctx context.Context, id string) (identity.Organization, error)
}

// Latest returns the latest snapshots of the assets among ids that ever
// reported (telemetry.Store).
type Latest interface {
	LatestMany(ctx context.Context, ids []string) ([]telemetry.Snapshot, error)
}

// Reservations returns the bids of a market in a status whose interval
// contains an instant (bids.Store).
type Reservations interface {
	Covering(ctx context.Context, market bids.Market, status bids.Status, at time.Time) ([]bids.Bid, error)
}

// Restrictions returns every asset's limits and unavailabilities active
// at an instant, in one read (restrictions.Store).
type Restrictions interface {
	ActiveAt(ctx context.Context, t time.Time) ([]restrictions.Interval, error)
}

var (
	_ Assets        = (*assets.Service)(nil)
	_ Organizations = identity.DirectoryStore(nil)
	_ Latest        = telemetry.Store(nil)
	_ Reservations  = bids.Store(nil)
	_ Restrictions  = restrictions.Store(nil)
)

// Deps are what the service works with; every one is required.
type Deps struct {
	Store         Store
	Assets        Assets
	Organizations Organizations
	Latest        Latest
	Reservations  Reservations
	Restrictions  Restrictions
	Clock         clock.Clock // the platform clock
	// StaleAfter is the age (platform time) beyond which a member's latest
	// snapshot no longer counts (the asset state's; 0: never stale).
	StaleAfter time.Duration
}

// Service manages pools and reads their state.
type Service struct{ d Deps }

// NewService returns the pool service on d.
func NewService(d Deps) *Service { return &Service{d: d} }

// Target is the organisation a pool request acts on. Only Service.Target
// makes one, from the caller, so that every other method runs on an
// organisation the caller may act on.
type Target struct{ org string }

// OrganizationID is the organisation's id.
func (t Target) OrganizationID() string { return t.org }

// Target resolves the organisation a request names (query organization_id,
// "" for none) for caller p (auth.ActingFor): by default the caller's own;
// another one only for a platform administrator, and only a registered
// one; anything else is 422 organization_not_accessible at
// organization_id.
func (s *Service) Target(ctx context.Context, p *auth.Principal, named string) (Target, error) {
	org, err := auth.ActingFor(ctx, p, auth.OrganizationTarget{Named: named, Location: "organization_id"}, s.registered)
	return Target{org: org}, err
}

func (s *Service) registered(ctx context.Context, id string) error {
	_, err := s.d.Organizations.Organization(ctx, id)
	return err
}

func notFound(t Target, id string) error {
	return errs.NotFoundf("organisation %q has no pool %q", t.org, id)
}

// List returns the organisation's pools ordered by pool_id.
func (s *Service) List(ctx context.Context, t Target) ([]Pool, error) {
	return s.d.Store.List(ctx, t.org)
}

// Get returns one pool of the organisation, 404 when there is none.
func (s *Service) Get(ctx context.Context, t Target, id string) (Pool, error) {
	if !ValidID(id) {
		return Pool{}, notFound(t, id)
	}
	p, err := s.d.Store.Get(ctx, t.org, id)
	if errs.Is(err, errs.NotFound) {
		return Pool{}, notFound(t, id)
	}
	return p, err
}

// Create adds pool p (its ID, AssetIDs and AllowInternalCollateralisation)
// to the organisation: 422 for an invalid pool_id or member, 409
// pool_exists, 409 asset_in_other_pool.
func (s *Service) Create(ctx context.Context, t Target, p Pool) (Pool, error) {
	var v errs.Validation
	if !ValidID(p.ID) {
		v.Add("pool_id", "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", p.ID)
	}
	if err := s.precheck(ctx, t, &v, p.AssetIDs); err != nil {
		return Pool{}, err
	}
	now := s.now()
	p.OrganizationID, p.CreatedAt, p.UpdatedAt = t.org, now, now
	p.AssetIDs = members(p.AssetIDs)
	return s.d.Store.Create(ctx, p, func(c []Candidate) error { return CheckCandidates(t.org, p.ID, c) })
}

// Replace sets the members and allow_internal_collateralisation of the
// organisation's pool id: 404 when there is none, otherwise as Create.
func (s *Service) Replace(ctx context.Context, t Target, id string, assetIDs []string, allowInternalCollateralisation bool) (Pool, error) {
	// An unknown pool is 404 whatever the body holds (the store looks
	// again under its lock).
	if _, err := s.Get(ctx, t, id); err != nil {
		return Pool{}, err
	}
	var v errs.Validation
	if err := s.precheck(ctx, t, &v, assetIDs); err != nil {
		return Pool{}, err
	}
	p := Pool{OrganizationID: t.org, ID: id, AssetIDs: members(assetIDs),
		AllowInternalCollateralisation: allowInternalCollateralisation, UpdatedAt: s.now()}
	out, err := s.d.Store.Replace(ctx, p, func(c []Candidate) error { return CheckCandidates(t.org, id, c) })
	if errs.Is(err, errs.NotFound) {
		return Pool{}, notFound(t, id)
	}
	return out, err
}

// Delete removes the organisation's pool id; its members stay assets of
// no pool.
func (s *Service) Delete(ctx context.Context, t Target, id string) error {
	if !ValidID(id) {
		return notFound(t, id)
	}
	err := s.d.Store.Delete(ctx, t.org, id)
	if errs.Is(err, errs.NotFound) {
		return notFound(t, id)
	}
	return err
}

// members is the list to store: never nil, so that an empty pool reads
// back as [] on every store.
func members(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// precheck checks a member list before the store is asked, adding to v
// (which may hold other fields' problems already): its length and
// repetitions first, then each member through the asset registry within
// the organisation, the only place that knows virtual asset ids. It
// returns v's error. The store checks membership again under its locks.
func (s *Service) precheck(ctx context.Context, t Target, v *errs.Validation, ids []string) error {
	if !checkList(v, ids) {
		// No registry lookups for a list refused anyway (10,000 ids).
		return v.Err()
	}
	within := auth.Visibility{OrganizationID: t.org}
	for i, id := range ids {
		a, err := s.d.Assets.Get(ctx, within, id)
		switch {
		case errs.Is(err, errs.NotFound):
			checkMember(v, t.org, i, Candidate{AssetID: id})
		case err != nil:
			return err
		case a.IsVirtual():
			// A pool steers batteries: covering one member's obligation by
			// dispatching another moves physical power, and a virtual
			// asset's battery is its parent's.
			v.Add(memberLocation(i), fmt.Sprintf("is a virtual asset, a segment of %q; a pool holds physical batteries: list %q instead",
				*a.ParentAssetID, *a.ParentAssetID), id)
		default:
			checkMember(v, t.org, i, Candidate{AssetID: id, Found: true, Status: a.OperationalStatus})
		}
	}
	return v.Err()
}

// State is the live state of the organisation's pool id at the platform
// clock's now (see Aggregate): its members' latest snapshots, full
// restrictions (restrictions.FullyRestrictedBy, as the asset state) and
// the SUCCESSFUL FCR and aFRR capacity bids in force, a member's own and
// its virtual assets'.
func (s *Service) State(ctx context.Context, t Target, id string) (State, error) {
	p, err := s.Get(ctx, t, id)
	if err != nil {
		return State{}, err
	}
	now := s.d.Clock.Now()
	readings := make([]Reading, len(p.AssetIDs))
	index := make(map[string]int, len(p.AssetIDs))
	for i, assetID := range p.AssetIDs {
		readings[i].AssetID = assetID
		index[assetID] = i
	}
	// One read for the whole platform (the control loop's each second)
	// rather than one per member.
	active, err := s.d.Restrictions.ActiveAt(ctx, now)
	if err != nil {
		return State{}, err
	}
	byMember := make(map[int][]restrictions.Interval)
	for _, iv := range active {
		if i, ok := index[iv.AssetID]; ok && iv.OrganizationID == t.org {
			byMember[i] = append(byMember[i], iv)
		}
	}
	for i, ivs := range byMember {
		readings[i].Restricted = restrictions.FullyRestrictedBy(ivs, now)
	}
	snaps, err := s.d.Latest.LatestMany(ctx, p.AssetIDs)
	if err != nil {
		return State{}, err
	}
	for _, sn := range snaps {
		if i, ok := index[sn.AssetID]; ok {
			m := sn.Measurements
			readings[i].Latest = &m
		}
	}
	for _, market := range []bids.Market{bids.FCR, bids.AFRRCapacity} {
		held, err := s.d.Reservations.Covering(ctx, market, bids.Successful, now)
		if err != nil {
			return State{}, err
		}
		for _, b := range held {
			i, ok, err := s.memberOf(ctx, t, index, b)
			if err != nil {
				return State{}, err
			}
			if !ok {
				continue
			}
			mw := b.CommittedMW()
			switch {
			case market == bids.FCR:
				readings[i].FCRMW += mw
			case b.Product == bids.Pos:
				readings[i].AFRRPosMW += mw
			case b.Product == bids.Neg:
				readings[i].AFRRNegMW += mw
			}
		}
	}
	return Aggregate(p.ID, now, s.d.StaleAfter, readings), nil
}

// memberOf returns the index of the member whose battery holds bid b: the
// member it was placed on, or the parent of the virtual asset it was
// placed on.
func (s *Service) memberOf(ctx context.Context, t Target, index map[string]int, b bids.Bid) (int, bool, error) {
	if b.OrganizationID != t.org {
		return 0, false, nil
	}
	if i, ok := index[b.AssetID]; ok {
		return i, true, nil
	}
	parent, _, virtual := segmentation.SplitVirtualAssetID(b.AssetID)
	i, ok := index[parent]
	if !virtual || !ok {
		return 0, false, nil
	}
	// A physical asset may be named like a virtual one ("bess-1.a" beside
	// "bess-1"): only the registry knows which it is.
	a, err := s.d.Assets.Get(ctx, auth.Visibility{OrganizationID: t.org}, b.AssetID)
	if errs.Is(err, errs.NotFound) {
		// The segmentation changed since: the battery is the parent's.
		return i, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	return i, a.IsVirtual() && *a.ParentAssetID == parent, nil
}

// now is the platform time to the microsecond, as both stores keep it.
func (s *Service) now() time.Time { return s.d.Clock.Now().UTC().Truncate(time.Microsecond) }
