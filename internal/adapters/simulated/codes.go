package simulated

import "atcp/internal/errs"

// The codes of fault injection. A caller who is not a platform
// administrator is identity.CodePlatformAdminRequired, a virtual asset
// assets.CodeVirtualAsset.
const (
	// CodeAssetNotSimulated: the asset is not steered by the simulator:
	// another adapter steers it, or the server runs without the simulator
	// (409).
	CodeAssetNotSimulated errs.Code = "asset_not_simulated"
)
