package fcr

import "atcp/internal/errs"

// CodePrequalifiedCapacityExceeded: FCR bids would commit more than the
// asset's prequalified FCR capacity in a period (409, the breached periods
// in periods). The bid engine's codes are package bids'.
const CodePrequalifiedCapacityExceeded errs.Code = "FCR_PREQUALIFIED_CAPACITY_EXCEEDED"
