// Package contacts holds the people of an onboarding (docs/onboarding.md
// section 5.H) and their access links (5.G): contacts with task roles,
// the roles a console user holds through a contact (onboarding.ContactRoles),
// whether a link's target still stands (magic.LinkTargets), issuing,
// listing, revoking and resending links with their e-mail, and the
// revocation of links and sessions when a contact or a role goes or the
// workflow is cancelled. Every change runs inside the core's Mutate and is
// audited there.
package contacts
