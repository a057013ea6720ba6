package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store/sqlutil"
)

// Clients returns the store of integrations, secrets and OAuth grants.
func (db *DB) Clients() identity.ClientStore { return clientStore{db} }

type clientStore struct{ db *DB }

const integrationColumns = `integration_id, organization_id, name, scopes, created_at`

func scanIntegration(row pgx.Row) (identity.Integration, error) {
	var in identity.Integration
	var scopes string
	if err := row.Scan(&in.ID, &in.OrganizationID, &in.Name, &scopes, &in.CreatedAt); err != nil {
		return identity.Integration{}, err
	}
	in.Scopes = auth.ParseScopeString(scopes)
	in.CreatedAt = sqlutil.UTC(in.CreatedAt)
	return in, nil
}

func (s clientStore) CreateIntegration(ctx context.Context, in identity.Integration, first identity.StoredSecret) (err error) {
	defer sqlutil.Wrap(&err, "clients: create integration")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, err := insertIntegration(ctx, tx, in, first, false)
		return err
	})
}

func (s clientStore) EnsureIntegration(ctx context.Context, in identity.Integration, first identity.StoredSecret) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "clients: ensure integration")
	var created bool
	err = s.db.credentialTx(ctx, func(tx pgx.Tx, changed func(string) error) error {
		var err error
		if created, err = insertIntegration(ctx, tx, in, first, true); err != nil || !created {
			return err
		}
		// Its fixed id may have been refused, and remembered so, while the
		// integration did not exist.
		return changed(in.ID)
	})
	return created, err
}

// insertIntegration inserts an integration and its first secret; with
// keepExisting an integration of the same id is left alone.
func insertIntegration(ctx context.Context, tx pgx.Tx, in identity.Integration, first identity.StoredSecret, keepExisting bool) (bool, error) {
	var known bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM organizations WHERE organization_id = $1)`,
		in.OrganizationID).Scan(&known); err != nil {
		return false, err
	}
	if !known {
		return false, identity.ErrUnknownOrganization
	}
	q := `INSERT INTO integrations (` + integrationColumns + `) VALUES ($1, $2, $3, $4, $5)`
	if keepExisting {
		q += ` ON CONFLICT (integration_id) DO NOTHING`
	}
	tag, err := tx.Exec(ctx, q, in.ID, in.OrganizationID, in.Name, in.Scopes.String(), in.CreatedAt)
	if isUniqueViolation(err) {
		return false, errs.Conflictf(identity.CodeIntegrationExists, "organisation %s already has an integration named %q", in.OrganizationID, in.Name)
	}
	if err != nil || tag.RowsAffected() == 0 {
		return false, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO integration_secrets (secret_id, integration_id, organization_id, secret_hash, created_at)
		VALUES ($1, $2, $3, $4, $5)`, first.ID, in.ID, in.OrganizationID, first.Hash, first.CreatedAt)
	return err == nil, err
}

func (s clientStore) Integrations(ctx context.Context, vis auth.Visibility) (_ []identity.Integration, err error) {
	defer sqlutil.Wrap(&err, "clients: integrations")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+integrationColumns+` FROM integrations
		WHERE ($1 OR organization_id = $2) ORDER BY organization_id, created_at, integration_id`, vis.All, vis.OrganizationID)
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
	in, err := scanIntegration(s.db.conn(ctx).QueryRow(ctx, `SELECT `+integrationColumns+` FROM integrations
		WHERE integration_id = $1 AND ($2 OR organization_id = $3)`, id, vis.All, vis.OrganizationID))
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.Integration{}, errIntegrationNotFound(id)
	}
	return in, err
}

func errIntegrationNotFound(id string) error { return errs.NotFoundf("integration %s not found", id) }

func (s clientStore) DeleteIntegration(ctx context.Context, vis auth.Visibility, id string) (err error) {
	defer sqlutil.Wrap(&err, "clients: delete integration")
	return s.db.credentialTx(ctx, func(tx pgx.Tx, changed func(string) error) error {
		tag, err := tx.Exec(ctx, `DELETE FROM integrations WHERE integration_id = $1 AND ($2 OR organization_id = $3)`,
			id, vis.All, vis.OrganizationID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errIntegrationNotFound(id)
		}
		// The foreign key cascades too; deleting explicitly keeps the rule
		// visible here.
		if _, err = tx.Exec(ctx, `DELETE FROM integration_secrets WHERE integration_id = $1`, id); err != nil {
			return err
		}
		return changed(id)
	})
}

func (s clientStore) Secrets(ctx context.Context, vis auth.Visibility, integrationID string) (_ []identity.SecretInfo, err error) {
	defer sqlutil.Wrap(&err, "clients: secrets")
	if _, err := s.Integration(ctx, vis, integrationID); err != nil {
		return nil, err
	}
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT secret_id, created_at FROM integration_secrets
		WHERE integration_id = $1 ORDER BY created_at, secret_id`, integrationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []identity.SecretInfo{}
	for rows.Next() {
		si := identity.SecretInfo{IntegrationID: integrationID}
		if err := rows.Scan(&si.ID, &si.CreatedAt); err != nil {
			return nil, err
		}
		si.CreatedAt = sqlutil.UTC(si.CreatedAt)
		out = append(out, si)
	}
	return out, rows.Err()
}

// lockIntegration locks a visible integration's row for the rest of tx,
// serialising changes to its secrets, and returns its organisation.
func lockIntegration(ctx context.Context, tx pgx.Tx, vis auth.Visibility, id string) (string, error) {
	var org string
	err := tx.QueryRow(ctx, `SELECT organization_id FROM integrations
		WHERE integration_id = $1 AND ($2 OR organization_id = $3) FOR UPDATE`, id, vis.All, vis.OrganizationID).Scan(&org)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errIntegrationNotFound(id)
	}
	return org, err
}

func (s clientStore) AddSecret(ctx context.Context, vis auth.Visibility, sec identity.StoredSecret, allow func(held int) error) (err error) {
	defer sqlutil.Wrap(&err, "clients: add secret")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		org, err := lockIntegration(ctx, tx, vis, sec.IntegrationID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM integration_secrets WHERE integration_id = $1`,
			sec.IntegrationID).Scan(&n); err != nil {
			return err
		}
		if err := allow(n); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO integration_secrets (secret_id, integration_id, organization_id, secret_hash, created_at)
			VALUES ($1, $2, $3, $4, $5)`, sec.ID, sec.IntegrationID, org, sec.Hash, sec.CreatedAt)
		return err
	})
}

func (s clientStore) DeleteSecret(ctx context.Context, vis auth.Visibility, integrationID, secretID string, allow func(held int) error) (err error) {
	defer sqlutil.Wrap(&err, "clients: delete secret")
	return s.db.credentialTx(ctx, func(tx pgx.Tx, changed func(string) error) error {
		if _, err := lockIntegration(ctx, tx, vis, integrationID); err != nil {
			return err
		}
		var n int
		var found bool
		if err := tx.QueryRow(ctx, `SELECT count(*), COALESCE(bool_or(secret_id = $2), false)
			FROM integration_secrets WHERE integration_id = $1`, integrationID, secretID).Scan(&n, &found); err != nil {
			return err
		}
		if !found {
			return errs.NotFoundf("secret %s not found", secretID)
		}
		if err := allow(n); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM integration_secrets WHERE secret_id = $1`, secretID); err != nil {
			return err
		}
		return changed(integrationID)
	})
}

func (s clientStore) ClientSecrets(ctx context.Context, clientID string) (_ identity.Integration, _ []identity.StoredSecret, err error) {
	defer sqlutil.Wrap(&err, "clients: client secrets")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT i.integration_id, i.organization_id, i.name, i.scopes, i.created_at,
			s.secret_id, s.created_at, s.secret_hash
		FROM integrations i LEFT JOIN integration_secrets s ON s.integration_id = i.integration_id
		WHERE i.integration_id = $1 ORDER BY s.created_at, s.secret_id`, clientID)
	if err != nil {
		return identity.Integration{}, nil, err
	}
	defer rows.Close()
	var in identity.Integration
	var secrets []identity.StoredSecret
	found := false
	for rows.Next() {
		var scopes string
		var secretID, hash *string
		var secretCreated *time.Time
		if err := rows.Scan(&in.ID, &in.OrganizationID, &in.Name, &scopes, &in.CreatedAt, &secretID, &secretCreated, &hash); err != nil {
			return identity.Integration{}, nil, err
		}
		found = true
		in.Scopes = auth.ParseScopeString(scopes)
		in.CreatedAt = sqlutil.UTC(in.CreatedAt)
		if secretID != nil {
			secrets = append(secrets, identity.StoredSecret{
				SecretInfo: identity.SecretInfo{ID: *secretID, IntegrationID: in.ID, CreatedAt: sqlutil.UTC(*secretCreated)},
				Hash:       *hash,
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
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_refresh_tokens WHERE expires_at < $1`, purgeBefore); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_grants g WHERE g.created_at < $1
			AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens t WHERE t.grant_id = g.grant_id)`, purgeBefore); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_grants
			(grant_id, organization_id, user_id, client_id, scope, nonce, auth_time, created_at, revoked_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			g.ID, g.OrganizationID, g.UserID, g.ClientID, g.Scope.String(), g.Nonce, g.AuthTime, g.CreatedAt, g.RevokedAt); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO oauth_codes
			(code_hash, grant_id, organization_id, redirect_uri, code_challenge, expires_at, used_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			c.Hash, g.ID, g.OrganizationID, c.RedirectURI, c.CodeChallenge, c.ExpiresAt, c.UsedAt)
		return err
	})
}

const grantColumns = `g.grant_id, g.organization_id, g.user_id, g.client_id, g.scope, g.nonce, g.auth_time, g.created_at, g.revoked_at`

// grantScan holds the destinations of grantColumns.
type grantScan struct {
	g     identity.Grant
	scope string
}

func (gs *grantScan) dest() []any {
	return []any{&gs.g.ID, &gs.g.OrganizationID, &gs.g.UserID, &gs.g.ClientID, &gs.scope, &gs.g.Nonce,
		&gs.g.AuthTime, &gs.g.CreatedAt, &gs.g.RevokedAt}
}

func (gs *grantScan) grant() identity.Grant {
	g := gs.g
	g.Scope = auth.ParseScopeString(gs.scope)
	g.AuthTime, g.CreatedAt, g.RevokedAt = sqlutil.UTC(g.AuthTime), sqlutil.UTC(g.CreatedAt), sqlutil.UTCPtr(g.RevokedAt)
	return g
}

func (s clientStore) ConsumeCode(ctx context.Context, codeHash string, now time.Time) (_ identity.Grant, _ identity.AuthorizationCode, err error) {
	defer sqlutil.Wrap(&err, "clients: consume code")
	var gs grantScan
	c := identity.AuthorizationCode{Hash: codeHash}
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		dest := append([]any{&c.GrantID, &c.RedirectURI, &c.CodeChallenge, &c.ExpiresAt, &c.UsedAt}, gs.dest()...)
		err := tx.QueryRow(ctx, `SELECT c.grant_id, c.redirect_uri, c.code_challenge, c.expires_at, c.used_at, `+grantColumns+`
			FROM oauth_codes c JOIN oauth_grants g ON g.grant_id = c.grant_id
			WHERE c.code_hash = $1 FOR UPDATE OF c`, codeHash).Scan(dest...)
		if errors.Is(err, pgx.ErrNoRows) {
			return errs.NotFoundf("authorization code not found")
		}
		if err != nil || c.UsedAt != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1`, codeHash, now)
		return err
	})
	if err != nil {
		return identity.Grant{}, identity.AuthorizationCode{}, err
	}
	c.ExpiresAt, c.UsedAt = sqlutil.UTC(c.ExpiresAt), sqlutil.UTCPtr(c.UsedAt)
	return gs.grant(), c, nil
}

func (s clientStore) AddRefreshToken(ctx context.Context, t identity.RefreshToken) (err error) {
	defer sqlutil.Wrap(&err, "clients: add refresh token")
	tag, err := s.db.conn(ctx).Exec(ctx, `INSERT INTO oauth_refresh_tokens
		(token_hash, grant_id, organization_id, created_at, expires_at, used_at)
		SELECT $1::text, grant_id, organization_id, $3::timestamptz, $4::timestamptz, $5::timestamptz
		FROM oauth_grants WHERE grant_id = $2`,
		t.Hash, t.GrantID, t.CreatedAt, t.ExpiresAt, t.UsedAt)
	if err == nil && tag.RowsAffected() == 0 {
		return errs.NotFoundf("grant %s not found", t.GrantID)
	}
	return err
}

func (s clientStore) RotateRefreshToken(ctx context.Context, oldHash string, now time.Time, next identity.RefreshToken) (_ identity.Grant, _ identity.RefreshToken, _ bool, err error) {
	defer sqlutil.Wrap(&err, "clients: rotate refresh token")
	var gs grantScan
	old := identity.RefreshToken{Hash: oldHash}
	rotated := false
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		dest := append([]any{&old.GrantID, &old.CreatedAt, &old.ExpiresAt, &old.UsedAt}, gs.dest()...)
		// Locking the token row makes a concurrent second use wait and then
		// see it used: reuse is detected even between racing requests.
		err := tx.QueryRow(ctx, `SELECT t.grant_id, t.created_at, t.expires_at, t.used_at, `+grantColumns+`
			FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.grant_id = t.grant_id
			WHERE t.token_hash = $1 FOR UPDATE OF t`, oldHash).Scan(dest...)
		if errors.Is(err, pgx.ErrNoRows) {
			return errs.NotFoundf("refresh token not found")
		}
		if err != nil {
			return err
		}
		if old.UsedAt != nil || !now.Before(old.ExpiresAt) || gs.g.RevokedAt != nil {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE oauth_refresh_tokens SET used_at = $2 WHERE token_hash = $1`, oldHash, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_refresh_tokens
			(token_hash, grant_id, organization_id, created_at, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, NULL)`,
			next.Hash, old.GrantID, gs.g.OrganizationID, next.CreatedAt, next.ExpiresAt); err != nil {
			return err
		}
		rotated = true
		return nil
	})
	if err != nil {
		return identity.Grant{}, identity.RefreshToken{}, false, err
	}
	old.CreatedAt, old.ExpiresAt, old.UsedAt = sqlutil.UTC(old.CreatedAt), sqlutil.UTC(old.ExpiresAt), sqlutil.UTCPtr(old.UsedAt)
	return gs.grant(), old, rotated, nil
}

func (s clientStore) RevokeGrant(ctx context.Context, grantID string, now time.Time) (err error) {
	defer sqlutil.Wrap(&err, "clients: revoke grant")
	return s.db.credentialTx(ctx, func(tx pgx.Tx, changed func(string) error) error {
		var userID string
		err := tx.QueryRow(ctx, `UPDATE oauth_grants SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL
			RETURNING user_id`, grantID, now).Scan(&userID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		return changed(userID)
	})
}
