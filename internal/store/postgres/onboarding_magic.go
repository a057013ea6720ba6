package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/errs"
	"atcp/internal/onboarding/magic"
	"atcp/internal/store/sqlutil"
)

// OnboardingMagic returns the store of onboarding access links and
// magic-link sessions.
func (db *DB) OnboardingMagic() magic.Store { return magicStore{db} }

// magicStore serialises the exchanges of one link by locking its row
// (FOR UPDATE in LinkByToken), so that the count of its open sessions
// and the insert of one more are one step.
type magicStore struct{ db *DB }

func (s magicStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.db.inTx(ctx) != nil {
		return fn(ctx)
	}
	return s.db.tx(ctx, func(ctx context.Context, _ pgx.Tx) error { return fn(ctx) })
}

const linkColumns = `l.organization_id, l.onboarding_id, l.link_id, l.contact_id, l.role, coalesce(l.language, ''), l.token_hash,
	l.prior_token_hash, l.created_at, l.created_by, l.expires_at, l.revoked_at, coalesce(l.revoke_reason, ''), l.last_used_at,
	l.use_count, l.send_count, l.last_sent_at`

// openCount counts the link's sessions open at parameter $1.
const openCount = `(SELECT count(*) FROM onboarding_sessions s WHERE s.organization_id = l.organization_id
	AND s.onboarding_id = l.onboarding_id AND s.link_id = l.link_id AND s.ended_at IS NULL AND s.expires_at > $1)`

func scanLink(row pgx.Row, withCount bool) (magic.Link, error) {
	var l magic.Link
	dest := []any{&l.OrganizationID, &l.OnboardingID, &l.ID, &l.ContactID, &l.Role, &l.Language, &l.TokenHash, &l.PriorTokenHash,
		&l.CreatedAt, &l.CreatedBy, &l.ExpiresAt, &l.RevokedAt, &l.RevokeReason, &l.LastUsedAt, &l.UseCount, &l.SendCount, &l.LastSentAt}
	if withCount {
		dest = append(dest, &l.OpenSessions)
	}
	if err := row.Scan(dest...); err != nil {
		return magic.Link{}, err
	}
	l.CreatedAt, l.ExpiresAt = l.CreatedAt.UTC(), l.ExpiresAt.UTC()
	l.RevokedAt, l.LastUsedAt, l.LastSentAt = sqlutil.UTCPtr(l.RevokedAt), sqlutil.UTCPtr(l.LastUsedAt), sqlutil.UTCPtr(l.LastSentAt)
	return l, nil
}

func linkNotFound(linkID string) error { return errs.NotFoundf("no access link %q", linkID) }

func (s magicStore) InsertLink(ctx context.Context, l magic.Link) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: insert link")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_links (organization_id, onboarding_id, link_id, contact_id, role,
			language, token_hash, prior_token_hash, created_at, created_by, expires_at, revoked_at, revoke_reason, last_used_at,
			use_count, send_count, last_sent_at)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), $7, $8, $9, $10, $11, $12, NULLIF($13, ''), $14, $15, $16, $17)`,
		l.OrganizationID, l.OnboardingID, l.ID, l.ContactID, l.Role, l.Language, l.TokenHash, l.PriorTokenHash,
		l.CreatedAt, l.CreatedBy, l.ExpiresAt, l.RevokedAt, l.RevokeReason, l.LastUsedAt, l.UseCount, l.SendCount, l.LastSentAt)
	return err
}

func (s magicStore) UpdateLink(ctx context.Context, l magic.Link) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: update link")
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_links SET language = NULLIF($1, ''), token_hash = $2,
			prior_token_hash = $3, expires_at = $4, revoked_at = $5, revoke_reason = NULLIF($6, ''), last_used_at = $7, use_count = $8,
			send_count = $9, last_sent_at = $10
		WHERE organization_id = $11 AND onboarding_id = $12 AND link_id = $13`,
		l.Language, l.TokenHash, l.PriorTokenHash, l.ExpiresAt, l.RevokedAt, l.RevokeReason, l.LastUsedAt, l.UseCount, l.SendCount,
		l.LastSentAt, l.OrganizationID, l.OnboardingID, l.ID)
	if err == nil && tag.RowsAffected() == 0 {
		err = linkNotFound(l.ID)
	}
	return err
}

func (s magicStore) Link(ctx context.Context, org, onboardingID, linkID string, now time.Time, lock bool) (_ magic.Link, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: link")
	q := `SELECT ` + linkColumns + `, ` + openCount + ` FROM onboarding_links l
		WHERE l.organization_id = $2 AND l.onboarding_id = $3 AND l.link_id = $4`
	if lock {
		q += ` FOR UPDATE OF l`
	}
	l, err := scanLink(s.db.conn(ctx).QueryRow(ctx, q, now, org, onboardingID, linkID), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return magic.Link{}, linkNotFound(linkID)
	}
	return l, err
}

func (s magicStore) LinkByToken(ctx context.Context, h magic.TokenHash) (_ magic.Link, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: link by token")
	for _, column := range []string{"token_hash", "prior_token_hash"} {
		l, err := scanLink(s.db.conn(ctx).QueryRow(ctx, `SELECT `+linkColumns+` FROM onboarding_links l WHERE l.`+column+` = $1
			FOR UPDATE OF l`, h[:]), false)
		if !errors.Is(err, pgx.ErrNoRows) {
			return l, err
		}
	}
	return magic.Link{}, errs.NotFoundf("no access link with this token")
}

func (s magicStore) Links(ctx context.Context, org, onboardingID string, f magic.LinkFilter, now time.Time) (_ []magic.Link, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: links")
	q := `SELECT ` + linkColumns + `, ` + openCount + ` FROM onboarding_links l WHERE l.organization_id = $2 AND l.onboarding_id = $3`
	args := []any{now, org, onboardingID}
	if f.ContactID != "" {
		args = append(args, f.ContactID)
		q += ` AND l.contact_id = $` + strconv.Itoa(len(args))
	}
	if f.Role != "" {
		args = append(args, f.Role)
		q += ` AND l.role = $` + strconv.Itoa(len(args))
	}
	rows, err := s.db.conn(ctx).Query(ctx, q+` ORDER BY l.created_at, l.link_id`, args...)
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
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT count(*) FROM onboarding_sessions
		WHERE organization_id = $1 AND onboarding_id = $2 AND link_id = $3 AND ended_at IS NULL AND expires_at > $4`,
		org, onboardingID, linkID, now).Scan(&n)
	return n, err
}

func (s magicStore) InsertSession(ctx context.Context, x magic.Session) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: insert session")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO onboarding_sessions (organization_id, session_id, onboarding_id, link_id,
			contact_id, role, language, refresh_hash, refresh_generation, auth_time, expires_at, created_at, last_seen_at, ended_at,
			end_reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, NULLIF($15, ''))`,
		x.OrganizationID, x.ID, x.OnboardingID, x.LinkID, x.ContactID, x.Role, x.Language, x.RefreshHash, x.Generation,
		x.AuthTime, x.ExpiresAt, x.CreatedAt, x.LastSeenAt, x.EndedAt, x.EndReason)
	return err
}

const sessionSelect = `SELECT s.organization_id, s.session_id, s.onboarding_id, s.link_id, s.contact_id, s.role, s.language,
	s.refresh_hash, s.refresh_generation, s.auth_time, s.expires_at, s.created_at, s.last_seen_at, s.ended_at,
	coalesce(s.end_reason, ''), l.expires_at
	FROM onboarding_sessions s JOIN onboarding_links l
	ON l.organization_id = s.organization_id AND l.onboarding_id = s.onboarding_id AND l.link_id = s.link_id`

func scanSession(row pgx.Row) (magic.Session, error) {
	var x magic.Session
	if err := row.Scan(&x.OrganizationID, &x.ID, &x.OnboardingID, &x.LinkID, &x.ContactID, &x.Role, &x.Language, &x.RefreshHash,
		&x.Generation, &x.AuthTime, &x.ExpiresAt, &x.CreatedAt, &x.LastSeenAt, &x.EndedAt, &x.EndReason, &x.LinkExpiresAt); err != nil {
		return magic.Session{}, err
	}
	x.AuthTime, x.ExpiresAt, x.CreatedAt = x.AuthTime.UTC(), x.ExpiresAt.UTC(), x.CreatedAt.UTC()
	x.LastSeenAt, x.LinkExpiresAt, x.EndedAt = x.LastSeenAt.UTC(), x.LinkExpiresAt.UTC(), sqlutil.UTCPtr(x.EndedAt)
	return x, nil
}

func sessionNotFound(id string) error { return errs.NotFoundf("no magic-link session %q", id) }

func (s magicStore) Session(ctx context.Context, org, sessionID string, lock bool) (_ magic.Session, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: session")
	q := sessionSelect + ` WHERE s.organization_id = $1 AND s.session_id = $2`
	if lock {
		q += ` FOR UPDATE OF s`
	}
	x, err := scanSession(s.db.conn(ctx).QueryRow(ctx, q, org, sessionID))
	if errors.Is(err, pgx.ErrNoRows) {
		return magic.Session{}, sessionNotFound(sessionID)
	}
	return x, err
}

func (s magicStore) SessionByID(ctx context.Context, sessionID string) (_ magic.Session, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: session by id")
	x, err := scanSession(s.db.conn(ctx).QueryRow(ctx, sessionSelect+` WHERE s.session_id = $1 FOR UPDATE OF s`, sessionID))
	if errors.Is(err, pgx.ErrNoRows) {
		return magic.Session{}, sessionNotFound(sessionID)
	}
	return x, err
}

func (s magicStore) UpdateSession(ctx context.Context, x magic.Session) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: update session")
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_sessions SET refresh_hash = $1, refresh_generation = $2,
			last_seen_at = $3, expires_at = $4, ended_at = $5, end_reason = NULLIF($6, '')
		WHERE organization_id = $7 AND session_id = $8`,
		x.RefreshHash, x.Generation, x.LastSeenAt, x.ExpiresAt, x.EndedAt, x.EndReason, x.OrganizationID, x.ID)
	if err == nil && tag.RowsAffected() == 0 {
		err = sessionNotFound(x.ID)
	}
	return err
}

func (s magicStore) EndSessions(ctx context.Context, org, onboardingID string, f magic.SessionFilter, at, now time.Time, reason string) (_ []string, err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: end sessions")
	var where strings.Builder
	args := []any{at, reason, now, org, onboardingID}
	for _, c := range []struct{ column, value string }{{"contact_id", f.ContactID}, {"role", f.Role}, {"link_id", f.LinkID}} {
		if c.value != "" {
			args = append(args, c.value)
			where.WriteString(` AND ` + c.column + ` = $` + strconv.Itoa(len(args)))
		}
	}
	rows, err := s.db.conn(ctx).Query(ctx, `UPDATE onboarding_sessions SET ended_at = $1, end_reason = $2, expires_at = least(expires_at, $3)
		WHERE organization_id = $4 AND onboarding_id = $5 AND ended_at IS NULL`+where.String()+` RETURNING session_id`, args...)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if ids == nil {
		ids = []string{}
	}
	return ids, err
}

func (s magicStore) DeleteSessions(ctx context.Context, org, onboardingID, linkID string, cutoff time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: delete sessions")
	_, err = s.db.conn(ctx).Exec(ctx, `DELETE FROM onboarding_sessions
		WHERE organization_id = $1 AND onboarding_id = $2 AND link_id = $3 AND expires_at < $4`, org, onboardingID, linkID, cutoff)
	return err
}

func (s magicStore) CapSessions(ctx context.Context, org, onboardingID, linkID string, expires time.Time) (err error) {
	defer sqlutil.Wrap(&err, "onboarding magic: cap sessions")
	_, err = s.db.conn(ctx).Exec(ctx, `UPDATE onboarding_sessions SET expires_at = $4
		WHERE organization_id = $1 AND onboarding_id = $2 AND link_id = $3 AND expires_at > $4`, org, onboardingID, linkID, expires)
	return err
}
