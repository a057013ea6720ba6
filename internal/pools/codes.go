package pools

import "atcp/internal/errs"

// Error codes of the pool area.
const (
	// CodePoolExists: POST /v1/pools names a pool_id the organisation has
	// already (409).
	CodePoolExists errs.Code = "pool_exists"
	// CodeAssetInOtherPool: list_asset_ids names an asset that is a member
	// of another pool; an asset is in at most one pool (409).
	CodeAssetInOtherPool errs.Code = "asset_in_other_pool"
)
