package segmentation

import (
	"context"

	"atcp/internal/auth"
)

// Store persists designs, one per physical asset. Every query is filtered
// by the caller's auth.Visibility and hides designs of deleted assets.
type Store interface {
	// Get returns the design of a visible asset, errs.NotFound when the
	// asset is not visible or has none.
	Get(ctx context.Context, v auth.Visibility, assetID string) (Segmentation, error)
	// ListActive returns the active designs of the visible assets.
	ListActive(ctx context.Context, v auth.Visibility) ([]Segmentation, error)
	// Change locks the visible asset (errs.NotFound when there is none)
	// until the transaction ends, reads its design (nil when none) and
	// passes it with the asset's organisation to change; unless change
	// fails, it stores what change returns and returns it as stored.
	// change may read other stores but must not write.
	Change(ctx context.Context, v auth.Visibility, assetID string, change func(ctx context.Context, organizationID string, current *Segmentation) (Segmentation, error)) (Segmentation, error)
	// Delete locks the visible asset, reads its design (errs.NotFound
	// when none), calls check with it and, when check returns nil,
	// removes the design, in one transaction.
	Delete(ctx context.Context, v auth.Visibility, assetID string, check func(ctx context.Context, current Segmentation) error) error
}
