package assets

import (
	"context"
	"time"

	"atcp/internal/auth"
)

// Store persists assets. Every read and write is filtered by the caller's
// auth.Visibility in the query itself, and a deleted asset is invisible to
// all of them: it is reported as errs.NotFound like an asset of another
// organisation. Assets returned carry OptimizerOrgName, read from the
// organisations registry.
type Store interface {
	// List returns the visible assets ordered by asset_id (byte order).
	List(ctx context.Context, v auth.Visibility) ([]Asset, error)
	// Get returns a visible asset or errs.NotFound.
	Get(ctx context.Context, v auth.Visibility, id string) (Asset, error)
	// Create inserts a validated asset. It returns errs.Conflict
	// "asset_exists" when the id is taken, also by a deleted asset (ids
	// are never reused), and errs.Invalid naming the field organisation_id
	// or optimizer_org_id when that is not a registered organisation.
	Create(ctx context.Context, a Asset) (Asset, error)
	// Update reads the visible asset and locks it until the transaction
	// ends, passes it to change and, when change reports a change, stores
	// what it returns, so that concurrent partial updates apply one after
	// the other and none is lost. change's context carries the
	// transaction, so that what it reads runs inside it. Inside a store
	// transaction (ctx carries it) it joins that transaction. It returns
	// the asset as stored. An
	// unknown optimizer_org_id is errs.Invalid naming that field.
	Update(ctx context.Context, v auth.Visibility, id string, change func(ctx context.Context, current Asset) (next Asset, changed bool, err error)) (Asset, error)
	// Delete reads the visible asset and locks it, calls check with it
	// and, when check returns nil, marks the asset deleted at at, in one
	// transaction. check runs before anything is written; it may read
	// other stores but must not write or lock the asset row itself.
	Delete(ctx context.Context, v auth.Visibility, id string, at time.Time, check func(ctx context.Context, current Asset) error) error
}
