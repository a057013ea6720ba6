package contacts

import (
	"context"

	"atcp/internal/auth"
)

// Store persists contacts, keyed by asset and contact_id. Every query is
// filtered by the caller's auth.Visibility in SQL and sees only contacts
// of assets that are not deleted; what the caller may not see is
// errs.NotFound. Deleting an asset removes its contacts (the asset
// store's Delete does, in its transaction).
type Store interface {
	// List returns the contacts of the visible asset ordered by
	// contact_id; empty when it has none or is not visible.
	List(ctx context.Context, v auth.Visibility, assetID string) ([]Contact, error)
	// Get returns contact id of the visible asset, errs.NotFound when
	// there is none (also when it belongs to another asset).
	Get(ctx context.Context, v auth.Visibility, assetID string, id int64) (Contact, error)
	// Create locks the visible asset c.AssetID until the transaction ends
	// (errs.NotFound when there is none), counts its contacts and passes
	// the count to allow; unless allow fails, it stores c with the asset's
	// organisation and a new contact_id and returns it as stored. The lock
	// makes the count and the insert one step for concurrent creates.
	Create(ctx context.Context, v auth.Visibility, c Contact, allow func(count int) error) (Contact, error)
	// Replace stores the writable fields and UpdatedAt of c over contact
	// c.ID of the visible asset c.AssetID, keeping its creation time, and
	// returns it as stored; errs.NotFound when there is none.
	Replace(ctx context.Context, v auth.Visibility, c Contact) (Contact, error)
	// Delete removes contact id of the visible asset; errs.NotFound when
	// there is none.
	Delete(ctx context.Context, v auth.Visibility, assetID string, id int64) error
}
