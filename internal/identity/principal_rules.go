package identity

import (
	"strings"

	"atcp/internal/auth"
	"atcp/internal/errs"
)

// principal is what the rule of acting on another principal reads of a
// user or an integration.
type principal struct {
	kind           string // "user" or "integration", for the message
	organizationID string
	scopes         auth.ScopeSet
}

func userPrincipal(u User) principal {
	return principal{kind: "user", organizationID: u.OrganizationID, scopes: u.Scopes}
}

func integrationPrincipal(in Integration) principal {
	return principal{kind: "integration", organizationID: in.OrganizationID, scopes: in.Scopes}
}

// mayActOn is the one rule for every operation on an existing user or
// integration: deleting it, replacing its scopes, issuing its set-password
// link, listing, adding or deleting its secrets. Each of these leads to a
// credential of the target, or takes one away, so document 1's "a caller
// can grant only scopes it possesses" applies to them as it does to
// creating: the caller must see the target's organisation (else it does
// not exist for it: errs.NotFound) and hold every scope the target holds
// (equal is fine; otherwise 403 stronger_principal naming what it lacks).
//
// Platform administrators are excepted from the organisation boundary
// only, not from the scope rule: a platform caller holding just
// users.write must not take over a platform administrator holding every
// scope. A full platform administrator holds every scope and so passes.
// The caller's scopes are those of its token, which a person or an
// integration may have narrowed; a narrowed token acts as the weaker
// principal it stands for.
func mayActOn(caller *auth.Principal, target principal) error {
	if !caller.CanSeeOrganization(target.organizationID) {
		return errs.NotFoundf("%s not found", target.kind)
	}
	missing := NotHeld(caller.Scopes, target.scopes)
	if len(missing) == 0 {
		return nil
	}
	return errs.Forbiddenf(CodeStrongerPrincipal,
		"this %s holds scopes you do not hold, so you may not act on it; you lack %s",
		target.kind, strings.Join(auth.ScopeNames(missing), ", "))
}

// requireNamedOrganization makes platform administrators name the
// organisation a new user or integration belongs to: defaulting to the
// caller's own would quietly create another platform administrator.
// Others default to their own organisation.
func requireNamedOrganization(v *errs.Validation, caller *auth.Principal, named string) {
	if named == "" && caller.IsPlatformAdmin() {
		v.Add("body.organization_id", "required for platform administrators: name the organisation, "+
			auth.PlatformOrganization+" included", nil)
	}
}
