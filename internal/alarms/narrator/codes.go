package narrator

import "atcp/internal/errs"

// The codes of the errors Draft returns.
const (
	CodeNotConfigured errs.Code = "narrator_not_configured" // 503
	CodeFailed        errs.Code = "narrator_failed"         // 502: an HTTP error, no answer, a timeout
	CodeUnusable      errs.Code = "narrator_unusable"       // 502: an answer that is no usable draft
)
