package simulator

import "atcp/internal/errs"

// CodeAssetSimulated: adding a battery for an asset the simulator
// simulates already (409).
const CodeAssetSimulated errs.Code = "asset_simulated"
