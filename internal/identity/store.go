package identity

import "context"

// DirectoryStore persists organisations, users, preferences and
// set-password links.
type DirectoryStore interface {
	// UserByEmail returns the user with this (lower-case) email from any
	// organisation, or an errs.NotFound error. Used by sign-in.
	UserByEmail(ctx context.Context, email string) (User, error)
	// UserByID returns the user with this id, or an errs.NotFound error.
	// Used when refreshing a person's tokens.
	UserByID(ctx context.Context, userID string) (User, error)
}
