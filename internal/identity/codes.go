package identity

import "atcp/internal/errs"

// The codes of the directory (organisations, users, preferences,
// set-password links) and of integrations and their secrets. The OAuth
// 2.0 error codes of the token and authorize endpoints are RFC 6749's, not
// errs codes: see oauth.go.
const (
	// CodePlatformAdminRequired: the operation, or acting for another
	// organisation, is for platform administrators only (403).
	CodePlatformAdminRequired errs.Code = "platform_admin_required"
	// CodeOrganizationExists: an organisation with the id exists already (409).
	CodeOrganizationExists errs.Code = "organization_exists"
	// CodeUserExists: a user with the e-mail address exists already (409).
	CodeUserExists errs.Code = "user_exists"
	// CodeScopeNotHeld: the caller grants a scope it does not hold itself (403).
	CodeScopeNotHeld errs.Code = "scope_not_held"
	// CodeCannotDeleteSelf: a user or an integration deletes itself (409).
	CodeCannotDeleteSelf errs.Code = "cannot_delete_self"
	// CodeCannotChangeOwnScopes: a user changes its own scopes (409).
	CodeCannotChangeOwnScopes errs.Code = "cannot_change_own_scopes"
	// CodePeopleOnly: an integration reads or writes preferences, which
	// belong to people (403).
	CodePeopleOnly errs.Code = "people_only"
	// CodeStrongerPrincipal: the caller acts on a user or an integration
	// holding a scope the caller does not hold (403).
	CodeStrongerPrincipal errs.Code = "stronger_principal"

	// The three reasons a set-password link cannot be used. All are of
	// kind errs.NotFound; the set-password page answers 404 for an
	// unknown link and 410 for a used or expired one.

	// CodeLinkUnknown: no such set-password link (404).
	CodeLinkUnknown errs.Code = "set_password_link_unknown"
	// CodeLinkUsed: the set-password link has been used already (404; the page 410).
	CodeLinkUsed errs.Code = "set_password_link_used"
	// CodeLinkExpired: the set-password link has expired (404; the page 410).
	CodeLinkExpired errs.Code = "set_password_link_expired"

	// CodeIntegrationExists: the organisation already has an integration
	// of the name (409).
	CodeIntegrationExists errs.Code = "integration_exists"
	// CodeSecretLimitReached: the integration holds MaxActiveSecrets
	// secrets already (409).
	CodeSecretLimitReached errs.Code = "secret_limit_reached"
	// CodeLastSecret: deleting the integration's only secret (409).
	CodeLastSecret errs.Code = "last_secret"
)
