package contacts

import "atcp/internal/errs"

// Error codes of onboarding contacts and access links.
const (
	// CodeContactNotFound: the onboarding has no such contact (deleted, unknown or malformed id) (404).
	CodeContactNotFound errs.Code = "contact_not_found"
	// CodeContactExists: another contact of the onboarding has this e-mail address, case-insensitively (409).
	CodeContactExists errs.Code = "contact_exists"
	// CodeContactAssigned: the contact is a gate's assignee; assign another first (409).
	CodeContactAssigned errs.Code = "contact_assigned"
	// CodeRoleNotHeld: an access link or an assignment names a role the contact does not hold (422).
	CodeRoleNotHeld errs.Code = "role_not_held"
	// CodeLinkNotFound: the onboarding has no such access link (404).
	CodeLinkNotFound errs.Code = "access_link_not_found"
	// CodeResendRateLimited: the link was sent MaxSendsPerHour times in the last hour (429).
	CodeResendRateLimited errs.Code = "resend_rate_limited"
	// CodeContactMailRateLimited: the contact was sent MaxMailsPerContactHour
	// access-link mails (issues and resends of all its links) in the last hour (429).
	CodeContactMailRateLimited errs.Code = "contact_mail_rate_limited"
)
