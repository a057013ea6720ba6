package pools

import "context"

// Store persists pools keyed by (organization_id, pool_id) and their
// members keyed by asset_id, so that the database itself holds an asset in
// at most one pool. The API's methods take the organisation the request
// acts on (a Target the service resolved from the caller) and filter by it
// in SQL: a pool of another organisation is errs.NotFound. Deleting or
// offboarding an asset removes it from its pool in the same transaction
// (the asset store's Delete and Update do); a membership never blocks
// either.
type Store interface {
	// List returns the organisation's pools ordered by pool_id, each with
	// its members in list order; empty when it has none.
	List(ctx context.Context, org string) ([]Pool, error)
	// Get returns one pool of the organisation, errs.NotFound when there
	// is none.
	Get(ctx context.Context, org, id string) (Pool, error)
	// Create stores p, in one transaction: errs.Conflict pool_exists when
	// the organisation has the pool_id already; otherwise it locks the
	// listed assets (serialising every write that claims one of them,
	// and their deletion), reads them as Candidates in the order of
	// p.AssetIDs and passes them to check, and stores the pool unless
	// check fails. It returns the pool as stored.
	Create(ctx context.Context, p Pool, check func([]Candidate) error) (Pool, error)
	// Replace stores p's members, AllowInternalCollateralisation and
	// UpdatedAt over the organisation's pool p.ID, keeping its creation
	// time, in one transaction that locks the pool and the listed assets
	// and passes their Candidates to check as Create does; errs.NotFound
	// when there is no such pool. It returns the pool as stored.
	Replace(ctx context.Context, p Pool, check func([]Candidate) error) (Pool, error)
	// Delete removes the organisation's pool id and its memberships;
	// errs.NotFound when there is none.
	Delete(ctx context.Context, org, id string) error

	// All returns every organisation's pools ordered by organisation and
	// pool_id: the background workers' read, outside any request.
	All(ctx context.Context) ([]Pool, error)
	// PoolOf returns the pool holding the asset, errs.NotFound when it is
	// in none.
	PoolOf(ctx context.Context, assetID string) (Pool, error)
}
