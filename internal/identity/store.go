package identity

import (
	"context"
	"time"

	"atcp/internal/auth"
)

// DirectoryStore persists organisations, users, preferences and
// set-password links. Methods that take an auth.Visibility apply it in the
// query: a user the caller may not see is reported as errs.NotFound.
type DirectoryStore interface {
	// UserByEmail returns the user with this (lower-case) email from any
	// organisation, or an errs.NotFound error. Used by sign-in.
	UserByEmail(ctx context.Context, email string) (User, error)
	// UserByID returns the user with this id, or an errs.NotFound error.
	// Used when refreshing a person's tokens.
	UserByID(ctx context.Context, userID string) (User, error)

	// CreateOrganization stores a new organisation; an existing id gives
	// errs.Conflict with code organization_exists.
	CreateOrganization(ctx context.Context, o Organization) error
	// EnsureOrganization stores o unless its id exists; an existing
	// organisation is left unchanged.
	EnsureOrganization(ctx context.Context, o Organization) error
	// Organization returns one organisation, or errs.NotFound.
	Organization(ctx context.Context, id string) (Organization, error)
	// Organizations returns every organisation ordered by id.
	Organizations(ctx context.Context) ([]Organization, error)

	// CreateUser stores a new user together with its first set-password
	// link (nil for none), atomically; an email that exists in any
	// organisation gives errs.Conflict with code user_exists.
	CreateUser(ctx context.Context, u User, link *SetPasswordLink) error
	// EnsureUser stores u unless its email exists and reports whether it
	// did.
	EnsureUser(ctx context.Context, u User) (created bool, err error)
	// Users returns the users of organisation org ordered by email; none
	// when vis does not allow org.
	Users(ctx context.Context, vis auth.Visibility, org string) ([]User, error)
	// DeleteUser locks the visible user with this email, asks check
	// whether it may go and removes it with its preferences and links, all
	// in one transaction; check's error aborts the deletion and is
	// returned. errs.NotFound when vis does not reach the user.
	DeleteUser(ctx context.Context, vis auth.Visibility, email string, check func(current User) error) error
	// UpdateUserScopes locks the visible user with this email, asks decide
	// for its new scopes and stores them with updatedAt, all in one
	// transaction; decide's error aborts the change and is returned.
	UpdateUserScopes(ctx context.Context, vis auth.Visibility, email string, updatedAt time.Time,
		decide func(current User) (auth.ScopeSet, error)) (before, after User, err error)

	// Preferences returns a person's preferences, with only UserID set when
	// none were saved, or errs.NotFound when the user does not exist.
	Preferences(ctx context.Context, userID string) (Preferences, error)
	// SavePreferences replaces a person's preferences, or returns
	// errs.NotFound when the user does not exist.
	SavePreferences(ctx context.Context, p Preferences) error

	// ReplacePasswordLink locks the visible user with this email, asks
	// issue for a link and stores it as the user's only set-password link,
	// deleting earlier ones, all in one transaction; issue's error aborts
	// the change and is returned. errs.NotFound when vis does not reach the
	// user.
	ReplacePasswordLink(ctx context.Context, vis auth.Visibility, email string,
		issue func(current User) (SetPasswordLink, error)) error
	// PasswordLink returns the link with this token hash and its user, or
	// errs.NotFound.
	PasswordLink(ctx context.Context, tokenHash string) (SetPasswordLink, User, error)
	// ConsumePasswordLink marks the link used at now (security time) if it
	// is unused and not expired at now and, in the same transaction, sets
	// the user's password hash, makes it active and sets its updated_at to
	// updatedAt (platform time). It reports false (and changes nothing)
	// when there is no such usable link; of concurrent calls for one link
	// at most one reports true.
	ConsumePasswordLink(ctx context.Context, tokenHash string, now, updatedAt time.Time, passwordHash string) (User, bool, error)
}
