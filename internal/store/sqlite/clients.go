package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store/sqlutil"
)

// Clients returns the store of integrations, secrets and OAuth grants.
func (db *DB) Clients() identity.ClientStore { return clientStore{db} }

// clientStore runs every read-check-write in one write transaction; the
// single write connection serialises them, which keeps the secret limit
// and single use of codes and refresh tokens under concurrency.
type clientStore struct{ db *DB }

const integrationColumns = `integration_id, organization_id, name, scopes, created_at`

type integrationRow interface{ Scan(dest ...any) error }

func scanIntegration(row integrationRow) (identity.Integration, error) {
	var in identity.Integration
	var scopes string
	var created int64
	if err := row.Scan(&in.ID, &in.OrganizationID, &in.Name, &scopes, &created); err != nil {
		return identity.Integration{}, err
	}
	in.Scopes = auth.ParseScopeString(scopes)
	in.CreatedAt = sqlutil.FromMicros(created)
	return in, nil
}

func (s clientStore) CreateIntegration(ctx context.Context, in identity.Integration, first identity.StoredSecret) (err error) {
	defer sqlutil.Wrap(&err, "clients: create integration")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := insertIntegration(ctx, tx, in, first, false)
		return err
	})
}

func (s clientStore) EnsureIntegration(ctx context.Context, in identity.Integration, first identity.StoredSecret) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "clients: ensure integration")
	var created bool
	err = s.db.credentialTx(ctx, func(tx *sql.Tx, changed func(string)) error {
		var err error
		created, err = insertIntegration(ctx, tx, in, first, true)
		if created {
			// Its fixed id may have been refused, and remembered so, while
			// the integration did not exist.
			changed(in.ID)
		}
		return err
	})
	return created, err
}

// insertIntegration inserts an integration and its first secret; with
// keepExisting an integration of the same id is left alone.
func insertIntegration(ctx context.Context, tx *sql.Tx, in identity.Integration, first identity.StoredSecret, keepExisting bool) (bool, error) {
	var known bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM organizations WHERE organization_id = ?)`,
		in.OrganizationID).Scan(&known); err != nil {
		return false, err
	}
	if !known {
		return false, identity.ErrUnknownOrganization
	}
	q := `INSERT INTO integrations (` + integrationColumns + `) VALUES (?, ?, ?, ?, ?)`
	if keepExisting {
		q += ` ON CONFLICT (integration_id) DO NOTHING`
	}
	res, err := tx.ExecContext(ctx, q, in.ID, in.OrganizationID, in.Name, in.Scopes.String(), sqlutil.Micros(in.CreatedAt))
	if isUniqueViolation(err) {
		return false, errs.Conflictf(identity.CodeIntegrationExists, "organisation %s already has an integration named %q", in.OrganizationID, in.Name)
	}
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO integration_secrets (secret_id, integration_id, organization_id, secret_hash, created_at)
		VALUES (?, ?, ?, ?, ?)`, first.ID, in.ID, in.OrganizationID, first.Hash, sqlutil.Micros(first.CreatedAt))
	return err == nil, err
}

func (s clientStore) Integrations(ctx context.Context, vis auth.Visibility) (_ []identity.Integration, err error) {
	defer sqlutil.Wrap(&err, "clients: integrations")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+integrationColumns+` FROM integrations
		WHERE (? OR organization_id = ?) ORDER BY organization_id, created_at, integration_id`, vis.All, vis.OrganizationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []identity.Integration{}
	for rows.Next() {
		in, err := scanIntegration(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

func (s clientStore) Integration(ctx context.Context, vis auth.Visibility, id string) (_ identity.Integration, err error) {
	defer sqlutil.Wrap(&err, "clients: integration")
	return integrationIn(ctx, s.db.read(ctx), vis, id)
}

// rowQueryer is a pool or a transaction.
type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func integrationIn(ctx context.Context, q rowQueryer, vis auth.Visibility, id string) (identity.Integration, error) {
	in, err := scanIntegration(q.QueryRowContext(ctx, `SELECT `+integrationColumns+` FROM integrations
		WHERE integration_id = ? AND (? OR organization_id = ?)`, id, vis.All, vis.OrganizationID))
	if errors.Is(err, sql.ErrNoRows) {
		return identity.Integration{}, errIntegrationNotFound(id)
	}
	return in, err
}

func errIntegrationNotFound(id string) error { return errs.NotFoundf("integration %s not found", id) }

func (s clientStore) DeleteIntegration(ctx context.Context, vis auth.Visibility, id string) (err error) {
	defer sqlutil.Wrap(&err, "clients: delete integration")
	return s.db.credentialTx(ctx, func(tx *sql.Tx, changed func(string)) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM integrations WHERE integration_id = ? AND (? OR organization_id = ?)`,
			id, vis.All, vis.OrganizationID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return errIntegrationNotFound(id)
		}
		// The foreign key cascades too; deleting explicitly keeps the rule
		// visible here.
		_, err = tx.ExecContext(ctx, `DELETE FROM integration_secrets WHERE integration_id = ?`, id)
		changed(id)
		return err
	})
}

func (s clientStore) Secrets(ctx context.Context, vis auth.Visibility, integrationID string) (_ []identity.SecretInfo, err error) {
	defer sqlutil.Wrap(&err, "clients: secrets")
	if _, err := s.Integration(ctx, vis, integrationID); err != nil {
		return nil, err
	}
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT secret_id, created_at FROM integration_secrets
		WHERE integration_id = ? ORDER BY created_at, secret_id`, integrationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []identity.SecretInfo{}
	for rows.Next() {
		si := identity.SecretInfo{IntegrationID: integrationID}
		var created int64
		if err := rows.Scan(&si.ID, &created); err != nil {
			return nil, err
		}
		si.CreatedAt = sqlutil.FromMicros(created)
		out = append(out, si)
	}
	return out, rows.Err()
}

func (s clientStore) AddSecret(ctx context.Context, vis auth.Visibility, sec identity.StoredSecret, allow func(held int) error) (err error) {
	defer sqlutil.Wrap(&err, "clients: add secret")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		in, err := integrationIn(ctx, tx, vis, sec.IntegrationID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM integration_secrets WHERE integration_id = ?`,
			sec.IntegrationID).Scan(&n); err != nil {
			return err
		}
		if err := allow(n); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO integration_secrets (secret_id, integration_id, organization_id, secret_hash, created_at)
			VALUES (?, ?, ?, ?, ?)`, sec.ID, sec.IntegrationID, in.OrganizationID, sec.Hash, sqlutil.Micros(sec.CreatedAt))
		return err
	})
}

func (s clientStore) DeleteSecret(ctx context.Context, vis auth.Visibility, integrationID, secretID string, allow func(held int) error) (err error) {
	defer sqlutil.Wrap(&err, "clients: delete secret")
	return s.db.credentialTx(ctx, func(tx *sql.Tx, changed func(string)) error {
		if _, err := integrationIn(ctx, tx, vis, integrationID); err != nil {
			return err
		}
		var n, found int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), COALESCE(max(secret_id = ?), 0)
			FROM integration_secrets WHERE integration_id = ?`, secretID, integrationID).Scan(&n, &found); err != nil {
			return err
		}
		if found == 0 {
			return errs.NotFoundf("secret %s not found", secretID)
		}
		if err := allow(n); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM integration_secrets WHERE secret_id = ?`, secretID)
		changed(integrationID)
		return err
	})
}

func (s clientStore) ClientSecrets(ctx context.Context, clientID string) (_ identity.Integration, _ []identity.StoredSecret, err error) {
	defer sqlutil.Wrap(&err, "clients: client secrets")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT i.integration_id, i.organization_id, i.name, i.scopes, i.created_at,
			s.secret_id, s.created_at, s.secret_hash
		FROM integrations i LEFT JOIN integration_secrets s ON s.integration_id = i.integration_id
		WHERE i.integration_id = ? ORDER BY s.created_at, s.secret_id`, clientID)
	if err != nil {
		return identity.Integration{}, nil, err
	}
	defer rows.Close()
	var in identity.Integration
	var secrets []identity.StoredSecret
	found := false
	for rows.Next() {
		var scopes string
		var created int64
		var secretID, hash sql.NullString
		var secretCreated sql.NullInt64
		if err := rows.Scan(&in.ID, &in.OrganizationID, &in.Name, &scopes, &created, &secretID, &secretCreated, &hash); err != nil {
			return identity.Integration{}, nil, err
		}
		found = true
		in.Scopes = auth.ParseScopeString(scopes)
		in.CreatedAt = sqlutil.FromMicros(created)
		if secretID.Valid {
			secrets = append(secrets, identity.StoredSecret{
				SecretInfo: identity.SecretInfo{ID: secretID.String, IntegrationID: in.ID, CreatedAt: sqlutil.FromMicros(secretCreated.Int64)},
				Hash:       hash.String,
			})
		}
	}
	if err := rows.Err(); err != nil {
		return identity.Integration{}, nil, err
	}
	if !found {
		return identity.Integration{}, nil, errIntegrationNotFound(clientID)
	}
	return in, secrets, nil
}

func (s clientStore) CreateAuthorization(ctx context.Context, g identity.Grant, c identity.AuthorizationCode, purgeBefore time.Time) (err error) {
	defer sqlutil.Wrap(&err, "clients: create authorization")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		cutoff := sqlutil.Micros(purgeBefore)
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_refresh_tokens WHERE expires_at < ?`, cutoff); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_grants WHERE created_at < ?
			AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens t WHERE t.grant_id = oauth_grants.grant_id)`, cutoff); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_grants
			(grant_id, organization_id, user_id, client_id, scope, nonce, auth_time, created_at, revoked_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.ID, g.OrganizationID, g.UserID, g.ClientID, g.Scope.String(), g.Nonce,
			sqlutil.Micros(g.AuthTime), sqlutil.Micros(g.CreatedAt), sqlutil.NullMicros(g.RevokedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_codes
			(code_hash, grant_id, organization_id, redirect_uri, code_challenge, expires_at, used_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			c.Hash, g.ID, g.OrganizationID, c.RedirectURI, c.CodeChallenge, sqlutil.Micros(c.ExpiresAt), sqlutil.NullMicros(c.UsedAt))
		return err
	})
}

const grantColumns = `g.grant_id, g.organization_id, g.user_id, g.client_id, g.scope, g.nonce, g.auth_time, g.created_at, g.revoked_at`

// grantScan holds the destinations of grantColumns.
type grantScan struct {
	g                 identity.Grant
	scope             string
	authTime, created int64
	revoked           *int64
}

func (gs *grantScan) dest() []any {
	return []any{&gs.g.ID, &gs.g.OrganizationID, &gs.g.UserID, &gs.g.ClientID, &gs.scope, &gs.g.Nonce,
		&gs.authTime, &gs.created, &gs.revoked}
}

func (gs *grantScan) grant() identity.Grant {
	g := gs.g
	g.Scope = auth.ParseScopeString(gs.scope)
	g.AuthTime, g.CreatedAt, g.RevokedAt = sqlutil.FromMicros(gs.authTime), sqlutil.FromMicros(gs.created), sqlutil.FromNullMicros(gs.revoked)
	return g
}

func (s clientStore) ConsumeCode(ctx context.Context, codeHash string, now time.Time) (_ identity.Grant, _ identity.AuthorizationCode, err error) {
	defer sqlutil.Wrap(&err, "clients: consume code")
	var gs grantScan
	c := identity.AuthorizationCode{Hash: codeHash}
	var expires int64
	var used *int64
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		dest := append([]any{&c.GrantID, &c.RedirectURI, &c.CodeChallenge, &expires, &used}, gs.dest()...)
		err := tx.QueryRowContext(ctx, `SELECT c.grant_id, c.redirect_uri, c.code_challenge, c.expires_at, c.used_at, `+grantColumns+`
			FROM oauth_codes c JOIN oauth_grants g ON g.grant_id = c.grant_id
			WHERE c.code_hash = ?`, codeHash).Scan(dest...)
		if errors.Is(err, sql.ErrNoRows) {
			return errs.NotFoundf("authorization code not found")
		}
		if err != nil || used != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_codes SET used_at = ? WHERE code_hash = ?`, sqlutil.Micros(now), codeHash)
		return err
	})
	if err != nil {
		return identity.Grant{}, identity.AuthorizationCode{}, err
	}
	c.ExpiresAt, c.UsedAt = sqlutil.FromMicros(expires), sqlutil.FromNullMicros(used)
	return gs.grant(), c, nil
}

func (s clientStore) AddRefreshToken(ctx context.Context, t identity.RefreshToken) (err error) {
	defer sqlutil.Wrap(&err, "clients: add refresh token")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO oauth_refresh_tokens
			(token_hash, grant_id, organization_id, created_at, expires_at, used_at)
			SELECT ?, grant_id, organization_id, ?, ?, ? FROM oauth_grants WHERE grant_id = ?`,
			t.Hash, sqlutil.Micros(t.CreatedAt), sqlutil.Micros(t.ExpiresAt), sqlutil.NullMicros(t.UsedAt), t.GrantID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return errs.NotFoundf("grant %s not found", t.GrantID)
		}
		return nil
	})
}

func (s clientStore) RotateRefreshToken(ctx context.Context, oldHash string, now time.Time, next identity.RefreshToken) (_ identity.Grant, _ identity.RefreshToken, _ bool, err error) {
	defer sqlutil.Wrap(&err, "clients: rotate refresh token")
	var gs grantScan
	old := identity.RefreshToken{Hash: oldHash}
	var created, expires int64
	var used *int64
	rotated := false
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		dest := append([]any{&old.GrantID, &created, &expires, &used}, gs.dest()...)
		err := tx.QueryRowContext(ctx, `SELECT t.grant_id, t.created_at, t.expires_at, t.used_at, `+grantColumns+`
			FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.grant_id = t.grant_id
			WHERE t.token_hash = ?`, oldHash).Scan(dest...)
		if errors.Is(err, sql.ErrNoRows) {
			return errs.NotFoundf("refresh token not found")
		}
		if err != nil {
			return err
		}
		if used != nil || sqlutil.Micros(now) >= expires || gs.revoked != nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_refresh_tokens SET used_at = ? WHERE token_hash = ?`,
			sqlutil.Micros(now), oldHash); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_refresh_tokens
			(token_hash, grant_id, organization_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, NULL)`,
			next.Hash, old.GrantID, gs.g.OrganizationID, sqlutil.Micros(next.CreatedAt), sqlutil.Micros(next.ExpiresAt)); err != nil {
			return err
		}
		rotated = true
		return nil
	})
	if err != nil {
		return identity.Grant{}, identity.RefreshToken{}, false, err
	}
	old.CreatedAt, old.ExpiresAt, old.UsedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(expires), sqlutil.FromNullMicros(used)
	return gs.grant(), old, rotated, nil
}

func (s clientStore) RevokeGrant(ctx context.Context, grantID string, now time.Time) (err error) {
	defer sqlutil.Wrap(&err, "clients: revoke grant")
	return s.db.credentialTx(ctx, func(tx *sql.Tx, changed func(string)) error {
		var userID string
		err := tx.QueryRowContext(ctx, `UPDATE oauth_grants SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL
			RETURNING user_id`, sqlutil.Micros(now), grantID).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		changed(userID)
		return nil
	})
}
