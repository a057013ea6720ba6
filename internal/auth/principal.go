package auth

import "context"

// PlatformOrganization is the id of the platform operator's organisation;
// every caller in it is a platform administrator.
const PlatformOrganization = "platform"

// Principal is the authenticated caller of a request, as carried on its
// access token.
type Principal struct {
	Subject        string // user_id for people, integration id for machines
	OrganizationID string
	Scopes         ScopeSet
	IsM2M          bool
	Email          string // people only
	ClientID       string // the OAuth client the token was issued to
	// Credential names what the token was issued on: the client secret
	// for integrations, the sign-in (grant) for people; revoking it ends
	// the token. Empty on tokens issued before the claim existed.
	Credential string
	// Task is set only for an onboarding magic-link session (document 1,
	// Authentication rule 9): a contact acting as one task role on one
	// onboarding, with no scopes. Such a caller reaches only the task
	// endpoints of that onboarding.
	Task *TaskGrant
}

// TaskGrant is what a magic-link session may act as: one role of one
// contact on one onboarding, for as long as session SessionID is open.
type TaskGrant struct {
	OnboardingID string
	ContactID    string
	Role         string // a task role of document 1: asset_owner, epc, ems_provider, tso, ...
	SessionID    string
}

// IsTaskSession reports whether the caller is an onboarding magic-link
// session rather than a user or an integration.
func (p *Principal) IsTaskSession() bool { return p.Task != nil }

// IsPlatformAdmin reports whether the caller may see and act on every
// organisation. A magic-link session never is, also on an onboarding of
// the platform's own organisation: it acts for one contact on one
// onboarding.
func (p *Principal) IsPlatformAdmin() bool {
	return p.Task == nil && p.OrganizationID == PlatformOrganization
}

// CanSeeOrganization reports whether the caller may see resources of org.
func (p *Principal) CanSeeOrganization(org string) bool {
	return p.IsPlatformAdmin() || p.OrganizationID == org
}

// Visibility is the organisation filter the stores apply to every query:
// All, or only OrganizationID.
type Visibility struct {
	All            bool
	OrganizationID string
}

// Visibility returns the filter for the caller's queries.
func (p *Principal) Visibility() Visibility {
	return Visibility{All: p.IsPlatformAdmin(), OrganizationID: p.OrganizationID}
}

// Allows reports whether v lets a caller see resources of org.
func (v Visibility) Allows(org string) bool { return v.All || v.OrganizationID == org }

type principalKey struct{}

// WithPrincipal returns a context carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the caller of the request, or nil.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
