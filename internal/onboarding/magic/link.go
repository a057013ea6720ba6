package magic

import (
	"slices"
	"time"

	"atcp/internal/errs"
)

// Limits of links and sessions (docs/onboarding.md section 7).
const (
	DefaultLinkDays = 30
	MaxLinkDays     = 90
	// MaxOpenSessions per link: a further exchange is refused rather than
	// evicting the oldest, so a leaked link cannot push the contact out.
	MaxOpenSessions = 10
	// SessionIdle is how long a session lives after its exchange or last
	// refresh, never beyond its link's expiry.
	SessionIdle = 14 * 24 * time.Hour
	// SessionKept is how long a session's row stays after it expired or
	// ended; the next exchange of its link deletes it (its audit entries
	// stay), so that the rows of a link stay bounded.
	SessionKept = 24 * time.Hour
)

// LinkRoles are the task roles a link may be issued for: the external
// contacts' (docs/onboarding.md 5.G); the platform's own roles act as
// users, never through links.
var LinkRoles = []string{"asset_owner", "epc", "ems_provider", "tso"}

// Languages of links and sessions.
var Languages = []string{"de", "en"}

// LinkStatus is a link's state at an instant of the security clock.
type LinkStatus string

// The link states.
const (
	LinkActive  LinkStatus = "active"
	LinkRevoked LinkStatus = "revoked"
	LinkExpired LinkStatus = "expired"
)

// Link is an access link: one contact, one role, one onboarding.
type Link struct {
	ID             string
	OrganizationID string // the asset's organisation, the onboarding's
	OnboardingID   string
	ContactID      string
	Role           string
	Language       string // "de", "en" or "" (the contact's, else the branding default)
	// TokenHash is the hash of the current token; PriorTokenHash, when
	// set, of the token before a resend that did not rotate, which still
	// works. They never leave the service.
	TokenHash      []byte
	PriorTokenHash []byte
	CreatedAt      time.Time // platform clock
	CreatedBy      string    // the issuer's name, for the access-link list
	ExpiresAt      time.Time // security clock
	RevokedAt      *time.Time
	RevokeReason   string
	LastUsedAt     *time.Time
	UseCount       int
	SendCount      int
	LastSentAt     *time.Time
	// OpenSessions is filled by reads: the sessions open at the instant
	// the read was asked for.
	OpenSessions int
}

// Status is the link's state at now (security clock).
func (l Link) Status(now time.Time) LinkStatus {
	switch {
	case l.RevokedAt != nil:
		return LinkRevoked
	case !now.Before(l.ExpiresAt):
		return LinkExpired
	}
	return LinkActive
}

// LinkSpec is what IssueLink needs. The caller (the access-link endpoint)
// has checked that the onboarding is open and visible and that the
// contact holds the role.
type LinkSpec struct {
	OrganizationID string
	OnboardingID   string
	ContactID      string
	Role           string
	Language       string // optional: de or en
	ExpiresInDays  int    // 0: DefaultLinkDays; else 1 to MaxLinkDays
	CreatedBy      string
}

// Validate names each offending member as the access-link body does.
func (s LinkSpec) Validate() error {
	v := &errs.Validation{}
	if s.OrganizationID == "" || s.OnboardingID == "" || s.ContactID == "" {
		v.Add("body.contact_id", "a link needs an organisation, an onboarding and a contact", s.ContactID)
	}
	if !slices.Contains(LinkRoles, s.Role) {
		v.Add("body.role", "must be one of asset_owner, epc, ems_provider, tso", s.Role)
	}
	validLanguage(v, s.Language)
	validDays(v, s.ExpiresInDays)
	return v.Err()
}

func validLanguage(v *errs.Validation, lang string) {
	if lang != "" && !slices.Contains(Languages, lang) {
		v.Add("body.language", "must be de or en", lang)
	}
}

func validDays(v *errs.Validation, days int) {
	if days < 0 || days > MaxLinkDays {
		v.Add("body.expires_in_days", "must be between 1 and 90", days)
	}
}

// ResendSpec is what ResendLink may change.
type ResendSpec struct {
	Language string // optional: a new language
	// Rotate makes the token before stop working; without it, it keeps
	// working next to the new one (docs/onboarding.md 5.G).
	Rotate        bool
	ExpiresInDays int // optional: a new expiry from now
}

// Validate names each offending member.
func (s ResendSpec) Validate() error {
	v := &errs.Validation{}
	validLanguage(v, s.Language)
	validDays(v, s.ExpiresInDays)
	return v.Err()
}

// LinkFilter narrows the links listed: zero members match all.
type LinkFilter struct {
	ContactID string
	Role      string
	Status    LinkStatus // judged at the security clock's now
}

// SessionFilter names the sessions to end on one onboarding: zero members
// match all.
type SessionFilter struct {
	ContactID string
	Role      string
	LinkID    string
}

// Session is a magic-link session: what an exchange opened.
type Session struct {
	ID             string
	OrganizationID string
	OnboardingID   string
	LinkID         string
	ContactID      string
	Role           string
	Language       string // resolved at exchange: the link's, the contact's or the branding default
	// RefreshHash is the hash of the current refresh token; Generation
	// counts rotations.
	RefreshHash []byte
	Generation  int
	AuthTime    time.Time // security clock: the exchange, the ID token's auth_time
	ExpiresAt   time.Time // security clock
	CreatedAt   time.Time // platform clock
	LastSeenAt  time.Time // platform clock: the exchange or last refresh
	EndedAt     *time.Time
	EndReason   string
	// LinkExpiresAt is read with the session: its lifetime never passes it.
	LinkExpiresAt time.Time
}

// Open reports whether the session is usable at now (security clock).
func (s Session) Open(now time.Time) bool { return s.EndedAt == nil && now.Before(s.ExpiresAt) }

// RevokeReissued is the revoke reason of a link replaced by a new one for
// the same contact and role.
const RevokeReissued = "reissued"

// Why sessions end.
const (
	EndLogout       = "logout"
	EndLinkRevoked  = "link_revoked"
	EndRefreshReuse = "refresh_token_reused"
	EndTargetGone   = "target_gone"
)

// sessionExpiry is the end of a session refreshed (or opened) at now.
func sessionExpiry(now, linkExpires time.Time) time.Time {
	if end := now.Add(SessionIdle); end.Before(linkExpires) {
		return end
	}
	return linkExpires
}
