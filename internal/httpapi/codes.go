package httpapi

import "atcp/internal/errs"

// The codes of problems the HTTP layer raises itself, before or around a
// handler: authentication, scopes, the edge checks of a body, rate limits,
// and huma's own errors. A problem of a status without a code of its own
// (defaultCode) gets the generic codes of package errs.
const (
	// CodeInvalidToken: no bearer token, or one that is invalid or expired (401).
	CodeInvalidToken errs.Code = "invalid_token"
	// CodeInsufficientScope: the token lacks a scope the operation requires (403).
	CodeInsufficientScope errs.Code = "insufficient_scope"
	// CodeMagicLinkSessionNotAllowed: an onboarding magic-link session called
	// an operation outside its task endpoints (403).
	CodeMagicLinkSessionNotAllowed errs.Code = "magic_link_session_not_allowed"
	// CodeMagicLinkSessionRequired: an operation only a magic-link session
	// may call (its logout) was called by another caller (403).
	CodeMagicLinkSessionRequired errs.Code = "magic_link_session_required"
	// CodeMethodNotAllowed: the path exists but not with this method (405).
	CodeMethodNotAllowed errs.Code = "method_not_allowed"
	// CodeConflict: a 409 raised without a domain code of its own.
	CodeConflict errs.Code = "conflict"
	// CodeRequestTooLarge: the body exceeds the size limit (413).
	CodeRequestTooLarge errs.Code = "request_too_large"
	// CodeUnsupportedMediaType: the body's content type or charset is not accepted (415).
	CodeUnsupportedMediaType errs.Code = "unsupported_media_type"
	// CodeRateLimited: the caller exceeded its rate limit (429).
	CodeRateLimited errs.Code = "rate_limited"
	// CodeUnavailable: a 503 raised without a domain code of its own.
	CodeUnavailable errs.Code = "unavailable"
	// CodeNotAcceptable: no response media type the Accept header allows (406).
	CodeNotAcceptable errs.Code = "not_acceptable"
	// CodeInternalError: a bug or an unexpected failure (500 and other 5xx).
	CodeInternalError errs.Code = "internal_error"
	// CodeInvalidUTF8: the JSON body is not valid UTF-8 (400).
	CodeInvalidUTF8 errs.Code = "invalid_utf8"
	// CodeDuplicateMember: an object of the JSON body names a member twice (400).
	CodeDuplicateMember errs.Code = "duplicate_member"
)
