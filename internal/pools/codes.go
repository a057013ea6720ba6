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
	// CodeOrganizationNotAccessible: query organization_id names an
	// organisation the caller cannot act on: another one for a caller who
	// is not a platform administrator, an unregistered one for an
	// administrator (422).
	CodeOrganizationNotAccessible errs.Code = "organization_not_accessible"
)
