package postgres

import (
	"context"

	"atcp/internal/errs"
	"atcp/internal/identity"
)

// Directory returns the store of organisations, users and preferences.
func (db *DB) Directory() identity.DirectoryStore { return directoryStore{db} }

type directoryStore struct{ db *DB }

func (s directoryStore) UserByEmail(ctx context.Context, email string) (identity.User, error) {
	return identity.User{}, errs.NotFoundf("user not found")
}

func (s directoryStore) UserByID(ctx context.Context, userID string) (identity.User, error) {
	return identity.User{}, errs.NotFoundf("user not found")
}
