// Package magic owns the access links of onboarding contacts and the
// sessions they open (docs/onboarding.md sections 4.2, 5.G and 7; document 1,
// Authentication rule 9): the link token (aml_ + 256 random bits, stored
// only as its SHA-256), issuing, listing, revoking and resending links,
// the exchange of a link for a session, the session's refresh token with
// rotation and reuse detection, its idle and link-bound lifetime, logout,
// ending the sessions of a link, contact, role or workflow, and the check
// that a session's access token is still in force (SessionCheck, asked on
// every request through identity.CredentialCheck).
//
// Lifetimes (link and session expiry, token times) run on the security
// clock; records (created_at, last_used_at, revoked_at, ended_at) on the
// platform clock. What the onboarding itself says (is the workflow in
// progress, does the contact still hold the role, the branding) is asked
// of LinkTargets, which the onboarding core and contacts provide. The
// endpoints are in magichttp; the access-link endpoints (#53 to #56) use
// the Service's Go API.
package magic
