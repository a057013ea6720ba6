package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"atcp/internal/errs"
	"atcp/internal/onboarding/magic"
	"atcp/internal/store/sqlutil"
)

// OnboardingMagic returns the store of onboarding access links and
// magic-link sessions.
func (db *DB) OnboardingMagic() magic.Store { return magicStore{db} }

// magicStore runs on the single write connection inside Tx, which
// serialises exchanges: the count of a link's open sessions and the insert
// of one more are one step.
type magicStore struct{ db *DB }

func (s magicStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.db.inTx(ctx) != nil {
		return fn(ctx)
	}
	return s.db.tx(ctx, func(ctx context.Context, _ *sql.Tx) error { return fn(ctx) })
}

const linkColumns = `l.organization_id, l.onboarding_id, l.link_id, l.contact_id, l.role, coalesce(l.language, ''), l.token_hash,
	l.prior_token_hash, l.created_at, l.created_by, l.expires_at, l.revoked_at, coalesce(l.revoke_reason, ''), l.last_used_at,
	l.use_count, l.send_count, l.last_sent_at`

// openCount counts the link's sessions open at the instant given as its
// one parameter.
const openCount = `(SELECT count(*) FROM onboarding_sessions s WHERE s.organization_id = l.organization_id
	AND s.onboarding_id = l.onboarding_id AND s.link_id = l.link_id AND s.ended_at IS NULL AND s.expires_at > ?)`

func scanLink(row scanner, withCount bool) (magic.Link, error) {
	var l magic.Link
	var created, expires int64
	var revoked, used, sent *int64
	dest := []any{&l.OrganizationID, &l.OnboardingID, &l.ID, &l.ContactID, &l.Role, &l.Language, &l.TokenHash, &l.PriorTokenHash,
		&created, &l.CreatedBy, &expires, &revoked, &l.RevokeReason, &used, &l.UseCount, &l.SendCount, &sent}
	if withCount {
		dest = append(dest, &l.OpenSessions)
	}
	if err := row.Scan(dest...); err != nil {
		return magic.Link{}, err
	}
	l.CreatedAt, l.ExpiresAt = sqlutil.FromMicros(created), sqlutil.FromMicros(expires)
	l.RevokedAt, l.LastUsedAt, l.LastSentAt = sqlutil.FromNullMicros(revoked), sqlutil.FromNullMicros(used), sqlutil.FromNullMicros(sent)
	return l, nil
}

func linkNotFound(linkID string) error { return errs.NotFoundf("no access link %q", linkID) }

func (s magicStore) InsertLink(ctx context.Context, l magic.Link) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: insert link")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_links (organization_id, onboarding_id, link_id, contact_id, role,
			language, token_hash, prior_token_hash, created_at, created_by, expires_at, revoked_at, revoke_reason, last_used_at,
			use_count, send_count, last_sent_at)
		VALUES (?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?)`,
		l.OrganizationID, l.OnboardingID, l.ID, l.ContactID, l.Role, l.Language, l.TokenHash, l.PriorTokenHash,
		sqlutil.Micros(l.CreatedAt), l.CreatedBy, sqlutil.Micros(l.ExpiresAt), sqlutil.NullMicros(l.RevokedAt), l.RevokeReason,
		sqlutil.NullMicros(l.LastUsedAt), l.UseCount, l.SendCount, sqlutil.NullMicros(l.LastSentAt))
	return err
}

func (s magicStore) UpdateLink(ctx context.Context, l magic.Link) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: update link")
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_links SET language = NULLIF(?, ''), token_hash = ?,
			prior_token_hash = ?, expires_at = ?, revoked_at = ?, revoke_reason = NULLIF(?, ''), last_used_at = ?, use_count = ?,
			send_count = ?, last_sent_at = ?
		WHERE organization_id = ? AND onboarding_id = ? AND link_id = ?`,
		l.Language, l.TokenHash, l.PriorTokenHash, sqlutil.Micros(l.ExpiresAt), sqlutil.NullMicros(l.RevokedAt), l.RevokeReason,
		sqlutil.NullMicros(l.LastUsedAt), l.UseCount, l.SendCount, sqlutil.NullMicros(l.LastSentAt),
		l.OrganizationID, l.OnboardingID, l.ID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		err = linkNotFound(l.ID)
	}
	return err
}

// Link ignores lock: inside Tx the single write connection already
// keeps other writers out.
func (s magicStore) Link(ctx context.Context, org, onboardingID, linkID string, now time.Time, _ bool) (_ magic.Link, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: link")
	l, err := scanLink(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+linkColumns+`, `+openCount+` FROM onboarding_links l
		WHERE l.organization_id = ? AND l.onboarding_id = ? AND l.link_id = ?`, sqlutil.Micros(now), org, onboardingID, linkID), true)
	if errors.Is(err, sql.ErrNoRows) {
		return magic.Link{}, linkNotFound(linkID)
	}
	return l, err
}

func (s magicStore) LinkByToken(ctx context.Context, h magic.TokenHash) (_ magic.Link, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: link by token")
	// Two lookups by unique index rather than one OR, which SQLite may
	// answer with a scan.
	for _, column := range []string{"token_hash", "prior_token_hash"} {
		l, err := scanLink(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+linkColumns+` FROM onboarding_links l WHERE l.`+column+` = ?`, h[:]), false)
		if !errors.Is(err, sql.ErrNoRows) {
			return l, err
		}
	}
	return magic.Link{}, errs.NotFoundf("no access link with this token")
}

func (s magicStore) Links(ctx context.Context, org, onboardingID string, f magic.LinkFilter, now time.Time) (_ []magic.Link, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: links")
	q := `SELECT ` + linkColumns + `, ` + openCount + ` FROM onboarding_links l WHERE l.organization_id = ? AND l.onboarding_id = ?`
	args := []any{sqlutil.Micros(now), org, onboardingID}
	if f.ContactID != "" {
		q += ` AND l.contact_id = ?`
		args = append(args, f.ContactID)
	}
	if f.Role != "" {
		q += ` AND l.role = ?`
		args = append(args, f.Role)
	}
	rows, err := s.db.read(ctx).QueryContext(ctx, q+` ORDER BY l.created_at, l.link_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []magic.Link{}
	for rows.Next() {
		l, err := scanLink(rows, true)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func (s magicStore) CountOpenSessions(ctx context.Context, org, onboardingID, linkID string, now time.Time) (n int, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: count open sessions")
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT count(*) FROM onboarding_sessions
		WHERE organization_id = ? AND onboarding_id = ? AND link_id = ? AND ended_at IS NULL AND expires_at > ?`,
		org, onboardingID, linkID, sqlutil.Micros(now)).Scan(&n)
	return n, err
}

func (s magicStore) InsertSession(ctx context.Context, x magic.Session) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: insert session")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO onboarding_sessions (organization_id, session_id, onboarding_id, link_id,
			contact_id, role, language, refresh_hash, refresh_generation, auth_time, expires_at, created_at, last_seen_at, ended_at,
			end_reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''))`,
		x.OrganizationID, x.ID, x.OnboardingID, x.LinkID, x.ContactID, x.Role, x.Language, x.RefreshHash, x.Generation,
		sqlutil.Micros(x.AuthTime), sqlutil.Micros(x.ExpiresAt), sqlutil.Micros(x.CreatedAt), sqlutil.Micros(x.LastSeenAt),
		sqlutil.NullMicros(x.EndedAt), x.EndReason)
	return err
}

const sessionSelect = `SELECT s.organization_id, s.session_id, s.onboarding_id, s.link_id, s.contact_id, s.role, s.language,
	s.refresh_hash, s.refresh_generation, s.auth_time, s.expires_at, s.created_at, s.last_seen_at, s.ended_at,
	coalesce(s.end_reason, ''), l.expires_at
	FROM onboarding_sessions s JOIN onboarding_links l
	ON l.organization_id = s.organization_id AND l.onboarding_id = s.onboarding_id AND l.link_id = s.link_id`

func scanSession(row scanner) (magic.Session, error) {
	var x magic.Session
	var auth, expires, created, seen, linkExpires int64
	var ended *int64
	if err := row.Scan(&x.OrganizationID, &x.ID, &x.OnboardingID, &x.LinkID, &x.ContactID, &x.Role, &x.Language, &x.RefreshHash,
		&x.Generation, &auth, &expires, &created, &seen, &ended, &x.EndReason, &linkExpires); err != nil {
		return magic.Session{}, err
	}
	x.AuthTime, x.ExpiresAt, x.CreatedAt = sqlutil.FromMicros(auth), sqlutil.FromMicros(expires), sqlutil.FromMicros(created)
	x.LastSeenAt, x.LinkExpiresAt, x.EndedAt = sqlutil.FromMicros(seen), sqlutil.FromMicros(linkExpires), sqlutil.FromNullMicros(ended)
	return x, nil
}

func sessionNotFound(id string) error { return errs.NotFoundf("no magic-link session %q", id) }

func (s magicStore) Session(ctx context.Context, org, sessionID string, _ bool) (_ magic.Session, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: session")
	x, err := scanSession(s.db.read(ctx).QueryRowContext(ctx, sessionSelect+` WHERE s.organization_id = ? AND s.session_id = ?`, org, sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return magic.Session{}, sessionNotFound(sessionID)
	}
	return x, err
}

func (s magicStore) SessionByID(ctx context.Context, sessionID string) (_ magic.Session, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: session by id")
	x, err := scanSession(s.db.read(ctx).QueryRowContext(ctx, sessionSelect+` WHERE s.session_id = ?`, sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return magic.Session{}, sessionNotFound(sessionID)
	}
	return x, err
}

func (s magicStore) UpdateSession(ctx context.Context, x magic.Session) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: update session")
	res, err := s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_sessions SET refresh_hash = ?, refresh_generation = ?,
			last_seen_at = ?, expires_at = ?, ended_at = ?, end_reason = NULLIF(?, '')
		WHERE organization_id = ? AND session_id = ?`,
		x.RefreshHash, x.Generation, sqlutil.Micros(x.LastSeenAt), sqlutil.Micros(x.ExpiresAt), sqlutil.NullMicros(x.EndedAt), x.EndReason,
		x.OrganizationID, x.ID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		err = sessionNotFound(x.ID)
	}
	return err
}

func (s magicStore) EndSessions(ctx context.Context, org, onboardingID string, f magic.SessionFilter, at, now time.Time, reason string) (_ []string, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: end sessions")
	var where strings.Builder
	args := []any{sqlutil.Micros(at), reason, sqlutil.Micros(now), org, onboardingID}
	for _, c := range []struct{ column, value string }{{"contact_id", f.ContactID}, {"role", f.Role}, {"link_id", f.LinkID}} {
		if c.value != "" {
			where.WriteString(` AND ` + c.column + ` = ?`)
			args = append(args, c.value)
		}
	}
	rows, err := s.db.write(ctx).QueryContext(ctx, `UPDATE onboarding_sessions SET ended_at = ?, end_reason = ?, expires_at = min(expires_at, ?)
		WHERE organization_id = ? AND onboarding_id = ? AND ended_at IS NULL`+where.String()+` RETURNING session_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (s magicStore) DeleteSessions(ctx context.Context, org, onboardingID, linkID string, cutoff time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: delete sessions")
	_, err = s.db.write(ctx).ExecContext(ctx, `DELETE FROM onboarding_sessions
		WHERE organization_id = ? AND onboarding_id = ? AND link_id = ? AND expires_at < ?`, org, onboardingID, linkID, sqlutil.Micros(cutoff))
	return err
}

func (s magicStore) CapSessions(ctx context.Context, org, onboardingID, linkID string, expires time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: cap sessions")
	_, err = s.db.write(ctx).ExecContext(ctx, `UPDATE onboarding_sessions SET expires_at = ?
		WHERE organization_id = ? AND onboarding_id = ? AND link_id = ? AND expires_at > ?`,
		sqlutil.Micros(expires), org, onboardingID, linkID, sqlutil.Micros(expires))
	return err
}
