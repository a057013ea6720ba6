package identity

import "time"

// Organization is a tenant of the platform. Organisation PlatformOrganization
// (auth.PlatformOrganization) is the operator's own.
type Organization struct {
	ID        string
	Name      string
	CreatedAt time.Time
}

// Preferences are a person's portal settings; nil fields were never set.
type Preferences struct {
	UserID    string
	Locale    *string // one of Locales
	Theme     *string // one of Themes
	UpdatedAt *time.Time
}

// SetPasswordLink is a one-time link that lets a person choose a password.
// Only the hash of its token is stored (auth.LookupHash).
type SetPasswordLink struct {
	TokenHash      string
	UserID         string
	OrganizationID string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	UsedAt         *time.Time
}

// IssuedLink is a set-password link as handed to the administrator who
// passes it on: the only time the token is known.
type IssuedLink struct {
	URL       string
	ExpiresAt time.Time
}

// ScopeChange is the outcome of replacing a user's scopes.
type ScopeChange struct {
	User    User
	Added   []string
	Removed []string
}

// LinkInfo is what the set-password page shows about a usable link.
type LinkInfo struct {
	Email     string
	ExpiresAt time.Time
}

// NewUser is the input of creating a user.
type NewUser struct {
	Email          string
	Scopes         []string
	OrganizationID string // empty: the caller's organisation; platform administrators must name it
}
