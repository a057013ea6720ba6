package identity

import (
	"time"

	"atcp/internal/auth"
)

// UserStatus tells whether a person can sign in yet.
type UserStatus string

const (
	// UserInvited: created, no password set yet (set-password link pending).
	UserInvited UserStatus = "invited"
	// UserActive: a password is set; the person can sign in.
	UserActive UserStatus = "active"
)

// User is a person of an organisation, signing in through the built-in
// identity provider. Email is the username, stored in lower case.
type User struct {
	ID             string
	OrganizationID string
	Email          string
	Scopes         auth.ScopeSet
	Status         UserStatus
	Enabled        bool
	PasswordHash   string // argon2id; empty while invited
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// CanSignIn reports whether the person may get new tokens.
func (u User) CanSignIn() bool { return u.Enabled && u.Status == UserActive && u.PasswordHash != "" }
