package sqlite

import (
	"atcp/internal/store/sqlutil"
	"context"
	"database/sql"
	"errors"

	"atcp/internal/identity"
)

// Credentials returns the store the check of access tokens reads.
func (db *DB) Credentials() identity.CredentialStore { return credentialStore{db} }

type credentialStore struct{ db *DB }

// extraColumn scans a row whose last column is extra after the columns a
// shared scan function reads.
type extraColumn struct {
	row   rowScanner
	extra any
}

func (e extraColumn) Scan(dest ...any) error { return e.row.Scan(append(dest, e.extra)...) }

func (s credentialStore) IntegrationCredential(ctx context.Context, integrationID, secretID string) (_ identity.Integration, _ bool, err error) {
	defer sqlutil.Wrap(&err, "credentials: integration credential")
	var secretFound bool
	in, err := scanIntegration(extraColumn{s.db.read(ctx).QueryRowContext(ctx, `SELECT `+integrationColumns+`,
			EXISTS (SELECT 1 FROM integration_secrets s WHERE s.secret_id = ? AND s.integration_id = i.integration_id)
		FROM integrations i WHERE integration_id = ?`, secretID, integrationID), &secretFound})
	if errors.Is(err, sql.ErrNoRows) {
		return identity.Integration{}, false, errIntegrationNotFound(integrationID)
	}
	return in, secretFound, err
}

func (s credentialStore) UserCredential(ctx context.Context, userID, grantID string) (_ identity.User, _ bool, err error) {
	defer sqlutil.Wrap(&err, "credentials: user credential")
	var grantLive bool
	u, err := scanUser(extraColumn{s.db.read(ctx).QueryRowContext(ctx, `SELECT `+userColumns+`,
			EXISTS (SELECT 1 FROM oauth_grants g WHERE g.grant_id = ? AND g.user_id = u.user_id AND g.revoked_at IS NULL)
		FROM users u WHERE user_id = ?`, grantID, userID), &grantLive})
	return u, grantLive, err
}

// WatchCredentialChanges implements identity.CredentialStore. Every change
// is made by this process (SQLite is not shared), which announces it after
// the commit, so nothing can be missed while ctx lasts.
func (s credentialStore) WatchCredentialChanges(ctx context.Context, onConnected func(), onChange func(string), onLost func()) {
	remove := s.db.credentialWatchers.Add(onChange)
	onConnected()
	<-ctx.Done()
	remove()
	onLost()
}

// credentialTx runs fn in a write transaction and, once it has committed,
// announces the subjects fn reported changed.
func (db *DB) credentialTx(ctx context.Context, fn func(tx *sql.Tx, changed func(subject string)) error) error {
	var subjects []string
	err := db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return fn(tx, func(subject string) { subjects = append(subjects, subject) })
	})
	if err != nil {
		return err
	}
	for _, subject := range subjects {
		db.credentialWatchers.Announce(subject)
	}
	return nil
}
