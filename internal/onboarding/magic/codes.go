package magic

import "atcp/internal/errs"

// Error codes of magic links and their sessions.
const (
	// CodeMalformedToken: the path token is not of the link format (400), refused before any lookup.
	CodeMalformedToken errs.Code = "malformed_token"
	// CodeLinkNotFound: the link is unknown, expired or revoked, or its contact, role or workflow is
	// gone (404); one answer for all of them.
	CodeLinkNotFound errs.Code = "link_not_found"
	// CodeLinkSessionLimit: the link has MaxOpenSessions open sessions already (409).
	CodeLinkSessionLimit errs.Code = "link_session_limit"
	// CodeSessionEnded: the session is unknown, expired, logged out or ended, or the refresh token
	// presented is not its current one, which ends it (409).
	CodeSessionEnded errs.Code = "session_ended"
	// CodeLinkRevoked: a revoked link cannot be resent; issue a new one (409).
	CodeLinkRevoked errs.Code = "link_revoked"
	// CodeLinkExpired: an expired link cannot be resent; issue a new one (409).
	CodeLinkExpired errs.Code = "link_expired"
)
