package postgres

import (
	"atcp/internal/store/sqlutil"
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/identity"
)

// credentialChannel announces, with the subject (integration or user id)
// as payload, every committed change that can end access tokens.
const credentialChannel = "atcp_credential_changed"

// Credentials returns the store the check of access tokens reads.
func (db *DB) Credentials() identity.CredentialStore { return credentialStore{db} }

type credentialStore struct{ db *DB }

// extraColumn scans a row whose last column is extra after the columns a
// shared scan function reads.
type extraColumn struct {
	row   pgx.Row
	extra any
}

func (e extraColumn) Scan(dest ...any) error { return e.row.Scan(append(dest, e.extra)...) }

func (s credentialStore) IntegrationCredential(ctx context.Context, integrationID, secretID string) (_ identity.Integration, _ bool, err error) {
	defer sqlutil.Wrap(&err, "credentials: integration credential")
	var secretFound bool
	in, err := scanIntegration(extraColumn{s.db.conn(ctx).QueryRow(ctx, `SELECT `+integrationColumns+`,
			EXISTS (SELECT 1 FROM integration_secrets s WHERE s.secret_id = $2 AND s.integration_id = i.integration_id)
		FROM integrations i WHERE integration_id = $1`, integrationID, secretID), &secretFound})
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.Integration{}, false, errIntegrationNotFound(integrationID)
	}
	return in, secretFound, err
}

func (s credentialStore) UserCredential(ctx context.Context, userID, grantID string) (_ identity.User, _ bool, err error) {
	defer sqlutil.Wrap(&err, "credentials: user credential")
	var grantLive bool
	u, err := scanUser(extraColumn{s.db.conn(ctx).QueryRow(ctx, `SELECT `+userColumns+`,
			EXISTS (SELECT 1 FROM oauth_grants g WHERE g.grant_id = $2 AND g.user_id = u.user_id AND g.revoked_at IS NULL)
		FROM users u WHERE user_id = $1`, userID, grantID), &grantLive})
	return u, grantLive, err
}

// WatchCredentialChanges implements identity.CredentialStore: this
// instance's changes are announced in process after their commit, those of
// every instance (this one's again) by LISTEN on a dedicated connection,
// reconnecting after failures; onLost runs whenever that connection is
// lost, since other instances' changes made meanwhile are not delivered.
func (s credentialStore) WatchCredentialChanges(ctx context.Context, onConnected func(), onChange func(string), onLost func()) {
	remove := s.db.credentialWatchers.Add(onChange)
	defer remove()
	for ctx.Err() == nil {
		s.db.listen(ctx, credentialChannel, onConnected, onChange)
		onLost()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// credentialTx runs fn in a transaction. Each subject fn reports changed
// is notified to every instance when (and only if) the transaction
// commits, and announced to this instance right after the commit.
func (db *DB) credentialTx(ctx context.Context, fn func(tx pgx.Tx, changed func(subject string) error) error) error {
	var subjects []string
	err := db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		return fn(tx, func(subject string) error {
			subjects = append(subjects, subject)
			_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", credentialChannel, subject)
			return err
		})
	})
	if err != nil {
		return err
	}
	for _, subject := range subjects {
		db.credentialWatchers.Announce(subject)
	}
	return nil
}
