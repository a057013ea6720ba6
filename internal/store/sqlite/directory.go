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

// Directory returns the store of organisations, users and preferences.
func (db *DB) Directory() identity.DirectoryStore { return directoryStore{db} }

type directoryStore struct{ db *DB }

var _ identity.DirectoryStore = directoryStore{}

const userColumns = `user_id, organization_id, email, scopes, status, enabled, password_hash, created_at, updated_at`

// userVisible is the organisation filter of user queries, bound to
// auth.Visibility's All and OrganizationID.
const userVisible = `(? OR organization_id = ?)`

type rowScanner interface{ Scan(dest ...any) error }

func scanUser(row rowScanner) (identity.User, error) {
	var u identity.User
	var scopes, status string
	var hash sql.NullString
	var created, updated int64
	err := row.Scan(&u.ID, &u.OrganizationID, &u.Email, &scopes, &status, &u.Enabled, &hash, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return identity.User{}, errs.NotFoundf("user not found")
	}
	if err != nil {
		return identity.User{}, err
	}
	u.Scopes = auth.ParseScopeString(scopes)
	u.Status = identity.UserStatus(status)
	u.PasswordHash = hash.String
	u.CreatedAt, u.UpdatedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(updated)
	return u, nil
}

func nullHash(h string) any {
	if h == "" {
		return nil
	}
	return h
}

func (s directoryStore) UserByEmail(ctx context.Context, email string) (_ identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: user by email")
	return scanUser(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, email))
}

func (s directoryStore) UserByID(ctx context.Context, userID string) (_ identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: user by id")
	return scanUser(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE user_id = ?`, userID))
}

func (s directoryStore) CreateOrganization(ctx context.Context, o identity.Organization) (err error) {
	defer sqlutil.Wrap(&err, "directory: create organization")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES (?, ?, ?)`,
			o.ID, o.Name, sqlutil.Micros(o.CreatedAt))
		if isUniqueViolation(err) {
			return errs.Conflictf(identity.CodeOrganizationExists, "organisation %q exists already", o.ID)
		}
		return err
	})
}

func (s directoryStore) EnsureOrganization(ctx context.Context, o identity.Organization) (err error) {
	defer sqlutil.Wrap(&err, "directory: ensure organization")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES (?, ?, ?)
			ON CONFLICT (organization_id) DO NOTHING`, o.ID, o.Name, sqlutil.Micros(o.CreatedAt))
		return err
	})
}

func (s directoryStore) Organization(ctx context.Context, id string) (_ identity.Organization, err error) {
	defer sqlutil.Wrap(&err, "directory: organization")
	var o identity.Organization
	var created int64
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT organization_id, name, created_at FROM organizations WHERE organization_id = ?`, id).
		Scan(&o.ID, &o.Name, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return identity.Organization{}, errs.NotFoundf("organisation %q not found", id)
	}
	o.CreatedAt = sqlutil.FromMicros(created)
	return o, err
}

func (s directoryStore) Organizations(ctx context.Context) (_ []identity.Organization, err error) {
	defer sqlutil.Wrap(&err, "directory: organizations")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT organization_id, name, created_at FROM organizations ORDER BY organization_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []identity.Organization{}
	for rows.Next() {
		var o identity.Organization
		var created int64
		if err := rows.Scan(&o.ID, &o.Name, &created); err != nil {
			return nil, err
		}
		o.CreatedAt = sqlutil.FromMicros(created)
		out = append(out, o)
	}
	return out, rows.Err()
}

func insertUser(ctx context.Context, tx *sql.Tx, u identity.User, onConflict string) (sql.Result, error) {
	return tx.ExecContext(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`+onConflict,
		u.ID, u.OrganizationID, u.Email, u.Scopes.String(), string(u.Status), u.Enabled, nullHash(u.PasswordHash),
		sqlutil.Micros(u.CreatedAt), sqlutil.Micros(u.UpdatedAt))
}

func insertLink(ctx context.Context, tx *sql.Tx, l identity.SetPasswordLink) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO set_password_links (token_hash, user_id, organization_id, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, l.TokenHash, l.UserID, l.OrganizationID, sqlutil.Micros(l.CreatedAt), sqlutil.Micros(l.ExpiresAt))
	return err
}

func (s directoryStore) CreateUser(ctx context.Context, u identity.User, link *identity.SetPasswordLink) (err error) {
	defer sqlutil.Wrap(&err, "directory: create user")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
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
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := insertUser(ctx, tx, u, " ON CONFLICT (email) DO NOTHING")
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		created = n == 1
		return err
	})
	return created, err
}

func (s directoryStore) Users(ctx context.Context, vis auth.Visibility, org string) (_ []identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: users")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT `+userColumns+` FROM users WHERE organization_id = ? AND `+userVisible+`
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

// visibleUserIn reads the visible user with this email in a write
// transaction; holding SQLite's single writer lock from BEGIN IMMEDIATE on,
// the read, the caller's decision and the write are not interleaved with
// another writer.
func visibleUserIn(ctx context.Context, tx *sql.Tx, vis auth.Visibility, email string) (identity.User, error) {
	return scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ? AND `+userVisible,
		email, vis.All, vis.OrganizationID))
}

func (s directoryStore) DeleteUser(ctx context.Context, vis auth.Visibility, email string, check func(identity.User) error) (err error) {
	defer sqlutil.Wrap(&err, "directory: delete user")
	return s.db.credentialTx(ctx, func(tx *sql.Tx, changed func(string)) error {
		u, err := visibleUserIn(ctx, tx, vis, email)
		if err != nil {
			return err
		}
		if err := check(u); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM users WHERE user_id = ?`, u.ID); err != nil {
			return err
		}
		changed(u.ID)
		return nil
	})
}

func (s directoryStore) UpdateUserScopes(ctx context.Context, vis auth.Visibility, email string, updatedAt time.Time,
	decide func(identity.User) (auth.ScopeSet, error)) (before, after identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: update user scopes")
	// The write transaction holds SQLite's single writer lock from BEGIN
	// IMMEDIATE on, so the read, decision and write are not interleaved
	// with another writer.
	err = s.db.credentialTx(ctx, func(tx *sql.Tx, changed func(string)) error {
		var err error
		before, err = visibleUserIn(ctx, tx, vis, email)
		if err != nil {
			return err
		}
		scopes, err := decide(before)
		if err != nil {
			return err
		}
		after, err = scanUser(tx.QueryRowContext(ctx, `UPDATE users SET scopes = ?, updated_at = ? WHERE user_id = ? RETURNING `+userColumns,
			scopes.String(), sqlutil.Micros(updatedAt), before.ID))
		changed(before.ID)
		return err
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
	var locale, theme sql.NullString
	var updated sql.NullInt64
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT u.user_id, p.locale, p.theme, p.updated_at
		FROM users u LEFT JOIN user_preferences p ON p.user_id = u.user_id WHERE u.user_id = ?`, userID).
		Scan(&found, &locale, &theme, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return identity.Preferences{}, errs.NotFoundf("user not found")
	}
	if err != nil {
		return identity.Preferences{}, err
	}
	if locale.Valid {
		p.Locale = &locale.String
	}
	if theme.Valid {
		p.Theme = &theme.String
	}
	if updated.Valid {
		p.UpdatedAt = sqlutil.FromNullMicros(&updated.Int64)
	}
	return p, nil
}

func (s directoryStore) SavePreferences(ctx context.Context, p identity.Preferences) (err error) {
	defer sqlutil.Wrap(&err, "directory: save preferences")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// Selecting from users keeps a deleted person from getting a row
		// and takes the organisation from the user. The WHERE true
		// resolves SQLite's parsing ambiguity of INSERT ... SELECT ... ON
		// CONFLICT.
		res, err := tx.ExecContext(ctx, `INSERT INTO user_preferences (user_id, organization_id, locale, theme, updated_at)
			SELECT user_id, organization_id, ?, ?, ? FROM users WHERE user_id = ? AND true
			ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale, theme = excluded.theme, updated_at = excluded.updated_at`,
			p.Locale, p.Theme, sqlutil.NullMicros(p.UpdatedAt), p.UserID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = errs.NotFoundf("user not found")
			}
			return err
		}
		return nil
	})
}

func (s directoryStore) ReplacePasswordLink(ctx context.Context, vis auth.Visibility, email string,
	issue func(identity.User) (identity.SetPasswordLink, error)) (err error) {
	defer sqlutil.Wrap(&err, "directory: replace password link")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		u, err := visibleUserIn(ctx, tx, vis, email)
		if err != nil {
			return err
		}
		link, err := issue(u)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM set_password_links WHERE user_id = ?`, u.ID); err != nil {
			return err
		}
		return insertLink(ctx, tx, link)
	})
}

func (s directoryStore) PasswordLink(ctx context.Context, tokenHash string) (_ identity.SetPasswordLink, _ identity.User, err error) {
	defer sqlutil.Wrap(&err, "directory: password link")
	var l identity.SetPasswordLink
	var created, expires int64
	var used sql.NullInt64
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT token_hash, user_id, organization_id, created_at, expires_at, used_at
		FROM set_password_links WHERE token_hash = ?`, tokenHash).
		Scan(&l.TokenHash, &l.UserID, &l.OrganizationID, &created, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return identity.SetPasswordLink{}, identity.User{}, errs.NotFoundf("set-password link not found")
	}
	if err != nil {
		return identity.SetPasswordLink{}, identity.User{}, err
	}
	l.CreatedAt, l.ExpiresAt = sqlutil.FromMicros(created), sqlutil.FromMicros(expires)
	if used.Valid {
		l.UsedAt = sqlutil.FromNullMicros(&used.Int64)
	}
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
	// SQLite's single writer serialises concurrent consumers: the first
	// sets used_at, the others then match no row.
	err = s.db.credentialTx(ctx, func(tx *sql.Tx, changed func(string)) error {
		var userID string
		err := tx.QueryRowContext(ctx, `UPDATE set_password_links SET used_at = ?
			WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id`,
			sqlutil.Micros(now), tokenHash, sqlutil.Micros(now)).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		u, err = scanUser(tx.QueryRowContext(ctx, `UPDATE users SET password_hash = ?, status = 'active', updated_at = ?
			WHERE user_id = ? RETURNING `+userColumns, passwordHash, sqlutil.Micros(updatedAt), userID))
		consumed = err == nil
		changed(userID)
		return err
	})
	return u, consumed, err
}
