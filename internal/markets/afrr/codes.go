package afrr

import "atcp/internal/errs"

// The codes of the aFRR markets. The bid engine's codes are package
// bids', its gate_closed (bids.CodeGateClosed) the backup market's too.
const (
	// CodePrequalifiedCapacityExceeded: aFRR capacity or energy bids would
	// commit more than the asset's prequalified aFRR capacity in a period
	// (409, the breached periods in periods).
	CodePrequalifiedCapacityExceeded errs.Code = "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED"
	// CodeOverrideOverlaps: a backup-market override overlaps a stored one
	// of the same product (409).
	CodeOverrideOverlaps errs.Code = "override_overlaps"
	// CodeNoDefault: reading the backup-market default of a product that
	// has never had one (404).
	CodeNoDefault errs.Code = "no_default"
)
