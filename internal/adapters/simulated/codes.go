package simulated

import "atcp/internal/errs"

// Error codes of fault injection.
const (
	// CodeAssetNotSimulated: the asset is not steered by the simulator
	// (another adapter, or the server runs without the simulator) (409).
	CodeAssetNotSimulated errs.Code = "asset_not_simulated"
)
