package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store/sqlutil"
)

// Directory returns the store of organisations, users and preferences.
func (db *DB) Directory() identity.DirectoryStore { return directoryStore{db} }

type directoryStore struct{ db *DB }

var _ identity.DirectoryStore = directoryStore{}

const userColumns = `user_id, organization_id, email, scopes, status, enabled, password_hash, created_at, updated_at`

// userVisible is the organisation filter of user queries: $2 and $3 are
// auth.Visibility's All and OrganizationID.
const userVisible = `($2 OR organization_id = $3)`

func scanUser(row pgx.Row) (identity.User, error) {
	var u identity.User
	var scopes []string
	var status string
	var hash *string
	err := row.Scan(&u.ID, &u.OrganizationID, &u.Email, &scopes, &status, &u.Enabled, &hash, &u.CreatedAt, &u.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.User{}, errs.NotFoundf("user not found")
	}
	if err != nil {
		return identity.User{}, err
	}
	u.Scopes = scopeSet(scopes)
	u.Status = identity.UserStatus(status)
	if hash != nil {
		u.PasswordHash = *hash
	}
	u.CreatedAt, u.UpdatedAt = sqlutil.UTC(u.CreatedAt), sqlutil.UTC(u.UpdatedAt)
	return u, nil
}

func scopeSet(names []string) auth.ScopeSet {
	set := make(auth.ScopeSet, len(names))
	for _, n := range names {
		set[auth.Scope(n)] = struct{}{}
	}
	return set
}

func nullHash(h string) *string {
	if h == "" {
		return nil
	}
	return &h
}

func (s directoryStore) UserByEmail(ctx context.Context, email string) (_ identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: user by email")
	return scanUser(s.db.conn(ctx).QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = $1`, email))
}

func (s directoryStore) UserByID(ctx context.Context, userID string) (_ identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: user by id")
	return scanUser(s.db.conn(ctx).QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE user_id = $1`, userID))
}

func (s directoryStore) CreateOrganization(ctx context.Context, o identity.Organization) (err error) {
	defer sqlutil.Wrap(&err, "directory: create organization")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ($1, $2, $3)`,
		o.ID, o.Name, o.CreatedAt)
	if isUniqueViolation(err) {
		return errs.Conflictf(identity.CodeOrganizationExists, "organisation %q exists already", o.ID)
	}
	return err
}

func (s directoryStore) EnsureOrganization(ctx context.Context, o identity.Organization) (err error) {
	defer sqlutil.Wrap(&err, "directory: ensure organization")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (organization_id) DO NOTHING`, o.ID, o.Name, o.CreatedAt)
	return err
}

func (s directoryStore) Organization(ctx context.Context, id string) (_ identity.Organization, err error) {
	defer sqlutil.Wrap(&err, "directory: organization")
	var o identity.Organization
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT organization_id, name, created_at FROM organizations WHERE organization_id = $1`, id).
		Scan(&o.ID, &o.Name, &o.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.Organization{}, errs.NotFoundf("organisation %q not found", id)
	}
	o.CreatedAt = sqlutil.UTC(o.CreatedAt)
	return o, err
}

func (s directoryStore) Organizations(ctx context.Context) (_ []identity.Organization, err error) {
	defer sqlutil.Wrap(&err, "directory: organizations")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT organization_id, name, created_at FROM organizations ORDER BY organization_id`)
	if err != nil {
		return nil, err
	}
	out := []identity.Organization{}
	for rows.Next() {
		var o identity.Organization
		if err := rows.Scan(&o.ID, &o.Name, &o.CreatedAt); err != nil {
			rows.Close()
			return nil, err
		}
		o.CreatedAt = sqlutil.UTC(o.CreatedAt)
		out = append(out, o)
	}
	return out, rows.Err()
}

func insertUser(ctx context.Context, tx pgx.Tx, u identity.User, onConflict string) (pgconn.CommandTag, error) {
	return tx.Exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`+onConflict,
		u.ID, u.OrganizationID, u.Email, u.Scopes.Strings(), string(u.Status), u.Enabled, nullHash(u.PasswordHash),
		u.CreatedAt, u.UpdatedAt)
}

func insertLink(ctx context.Context, tx pgx.Tx, l identity.SetPasswordLink) error {
	_, err := tx.Exec(ctx, `INSERT INTO set_password_links (token_hash, user_id, organization_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, l.TokenHash, l.UserID, l.OrganizationID, l.CreatedAt, l.ExpiresAt)
	return err
}

func (s directoryStore) CreateUser(ctx context.Context, u identity.User, link *identity.SetPasswordLink) (err error) {
	defer sqlutil.Wrap(&err, "directory: create user")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := insertUser(ctx, tx, u, ""); err != nil {
			if isUniqueViolation(err) {
				return errs.Conflictf(identity.CodeUserExists, "a user with e-mail %s exists already", u.Email)
			}
			return err
		}
		if link == nil {
			return nil
		}
		return insertLink(ctx, tx, *link)
	})
}

func (s directoryStore) EnsureUser(ctx context.Context, u identity.User) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "directory: ensure user")
	var created bool
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := insertUser(ctx, tx, u, " ON CONFLICT (email) DO NOTHING")
		created = tag.RowsAffected() == 1
		return err
	})
	return created, err
}

func (s directoryStore) Users(ctx context.Context, vis auth.Visibility, org string) (_ []identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: users")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+userColumns+` FROM users WHERE organization_id = $1 AND `+userVisible+`
		ORDER BY email`, org, vis.All, vis.OrganizationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []identity.User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// lockVisibleUser reads and locks the visible user with this email for
// the rest of tx, so that the caller's decision holds until its change is
// committed. Every transaction that changes a user, its scopes or its
// links locks the user row first, in this way or by id.
func lockVisibleUser(ctx context.Context, tx pgx.Tx, vis auth.Visibility, email string) (identity.User, error) {
	return scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = $1 AND `+userVisible+` FOR UPDATE`,
		email, vis.All, vis.OrganizationID))
}

func (s directoryStore) DeleteUser(ctx context.Context, vis auth.Visibility, email string, check func(identity.User) error) (err error) {
	defer sqlutil.Wrap(&err, "directory: delete user")
	return s.db.credentialTx(ctx, func(tx pgx.Tx, changed func(string) error) error {
		u, err := lockVisibleUser(ctx, tx, vis, email)
		if err != nil {
			return err
		}
		if err := check(u); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM users WHERE user_id = $1`, u.ID); err != nil {
			return err
		}
		return changed(u.ID)
	})
}

func (s directoryStore) UpdateUserScopes(ctx context.Context, vis auth.Visibility, email string, updatedAt time.Time,
	decide func(identity.User) (auth.ScopeSet, error)) (before, after identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: update user scopes")
	err = s.db.credentialTx(ctx, func(tx pgx.Tx, changed func(string) error) error {
		var err error
		before, err = lockVisibleUser(ctx, tx, vis, email)
		if err != nil {
			return err
		}
		scopes, err := decide(before)
		if err != nil {
			return err
		}
		after, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET scopes = $2, updated_at = $3 WHERE user_id = $1 RETURNING `+userColumns,
			before.ID, scopes.Strings(), updatedAt))
		if err != nil {
			return err
		}
		return changed(before.ID)
	})
	if err != nil {
		return identity.User{}, identity.User{}, err
	}
	return before, after, nil
}

func (s directoryStore) Preferences(ctx context.Context, userID string) (_ identity.Preferences, err error) {
	defer sqlutil.Wrap(&err, "directory: preferences")
	p := identity.Preferences{UserID: userID}
	var found string
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT u.user_id, p.locale, p.theme, p.updated_at
		FROM users u LEFT JOIN user_preferences p ON p.user_id = u.user_id WHERE u.user_id = $1`, userID).
		Scan(&found, &p.Locale, &p.Theme, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.Preferences{}, errs.NotFoundf("user not found")
	}
	p.UpdatedAt = sqlutil.UTCPtr(p.UpdatedAt)
	return p, err
}

func (s directoryStore) SavePreferences(ctx context.Context, p identity.Preferences) (err error) {
	defer sqlutil.Wrap(&err, "directory: save preferences")
	// Selecting from users keeps a deleted person from getting a row and
	// takes the organisation from the user.
	tag, err := s.db.conn(ctx).Exec(ctx, `INSERT INTO user_preferences (user_id, organization_id, locale, theme, updated_at)
		SELECT user_id, organization_id, $2, $3, $4 FROM users WHERE user_id = $1
		ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale, theme = excluded.theme, updated_at = excluded.updated_at`,
		p.UserID, p.Locale, p.Theme, p.UpdatedAt)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errs.NotFoundf("user not found")
	}
	return nil
}

func (s directoryStore) ReplacePasswordLink(ctx context.Context, vis auth.Visibility, email string,
	issue func(identity.User) (identity.SetPasswordLink, error)) (err error) {
	defer sqlutil.Wrap(&err, "directory: replace password link")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		// Locking the user serialises issuing with deleting the user, with
		// changing its scopes and with other issues for the same user.
		u, err := lockVisibleUser(ctx, tx, vis, email)
		if err != nil {
			return err
		}
		link, err := issue(u)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM set_password_links WHERE user_id = $1`, u.ID); err != nil {
			return err
		}
		return insertLink(ctx, tx, link)
	})
}

func (s directoryStore) PasswordLink(ctx context.Context, tokenHash string) (_ identity.SetPasswordLink, _ identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: password link")
	var l identity.SetPasswordLink
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT token_hash, user_id, organization_id, created_at, expires_at, used_at
		FROM set_password_links WHERE token_hash = $1`, tokenHash).
		Scan(&l.TokenHash, &l.UserID, &l.OrganizationID, &l.CreatedAt, &l.ExpiresAt, &l.UsedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.SetPasswordLink{}, identity.User{}, errs.NotFoundf("set-password link not found")
	}
	if err != nil {
		return identity.SetPasswordLink{}, identity.User{}, err
	}
	l.CreatedAt, l.ExpiresAt, l.UsedAt = sqlutil.UTC(l.CreatedAt), sqlutil.UTC(l.ExpiresAt), sqlutil.UTCPtr(l.UsedAt)
	u, err := s.UserByID(ctx, l.UserID)
	if err != nil {
		return identity.SetPasswordLink{}, identity.User{}, err
	}
	return l, u, nil
}

func (s directoryStore) ConsumePasswordLink(ctx context.Context, tokenHash string, now, updatedAt time.Time, passwordHash string) (_ identity.User, _ bool, err error) {
	defer sqlutil.Wrap(&err, "directory: consume password link")
	var u identity.User
	var consumed bool
	err = s.db.credentialTx(ctx, func(tx pgx.Tx, changed func(string) error) error {
		// Lock the user before the link, in the order in which deleting
		// the user (cascading to its links) and issuing a link take them.
		// Concurrent consumers queue on the user row; the first sets
		// used_at and the others then find the link used.
		var userID string
		err := tx.QueryRow(ctx, `SELECT u.user_id FROM set_password_links l JOIN users u ON u.user_id = l.user_id
			WHERE l.token_hash = $1`, tokenHash).Scan(&userID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE`, userID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE set_password_links SET used_at = $2
			WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`, tokenHash, now)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET password_hash = $2, status = 'active', updated_at = $3
			WHERE user_id = $1 RETURNING `+userColumns, userID, passwordHash, updatedAt))
		if err != nil {
			return err
		}
		if err := changed(userID); err != nil {
			return err
		}
		consumed = true
		return nil
	})
	return u, consumed, err
}
