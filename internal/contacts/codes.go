package contacts

import "atcp/internal/errs"

// Error codes of the contact directory.
const (
	// CodeContactLimitReached: the asset has MaxPerAsset contacts already (409).
	CodeContactLimitReached errs.Code = "contact_limit_reached"
)
