package objstore

import "atcp/internal/errs"

// Error codes of the embedded store's own routes (not API operations).
const (
	// CodeURLRefused: a presigned URL with a wrong method, key, expiry,
	// content type, size or signature, or an expired one (403). The
	// problem says no more, so that a forger learns nothing.
	CodeURLRefused errs.Code = "url_refused"
)
