package feasibility

import "atcp/internal/errs"

// The codes of cross-market feasibility. Both are returned only for an
// asset with strict_validation, for a change that creates or worsens a
// violation (without it the violations are warnings).
const (
	// CodeExceedPower: bids would commit the asset to more power in a
	// 15-minute period and direction, across markets, than its usable
	// power capacity (409, each violation in violations; nothing stored).
	CodeExceedPower errs.Code = "COMMITMENTS_EXCEED_POWER"
	// CodeExceedEnergy: the FCR 15-minute reserve and full aFRR activation
	// over a tender block would need more stored energy than the asset's
	// usable energy capacity (409, violations; nothing stored). When both
	// rules break, the code is CodeExceedPower.
	CodeExceedEnergy errs.Code = "COMMITMENTS_EXCEED_ENERGY"
)
