package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/store/sqlutil"
)

// Events returns the event outbox.
func (db *DB) Events() events.Store { return eventStore{db} }

// eventStore claims in one write statement: the single write connection
// serialises deliverers, so no event is taken twice.
type eventStore struct{ db *DB }

const outboxColumns = `organization_id, event_id, asset_id, type, channel, recipient, idempotency_key, subject, body,
	payload, created_at, status, attempts, next_attempt_at, last_error, sent_at, published_at, finished_at, mail_parts`

func (s eventStore) Enqueue(ctx context.Context, list []events.Event, due time.Time) (err error) {
	defer sqlutil.Wrap(&err, "events: enqueue")
	// Joins the transaction ctx carries: a producer enqueues with the
	// change its events are about (onboarding mails inside Mutate).
	return s.db.join(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, e := range list {
			parts, err := sqlutil.MailParts(e.Mail)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO event_outbox (organization_id, event_id, asset_id, type, channel, recipient,
				idempotency_key, subject, body, payload, created_at, enqueued_at, status, attempts, next_attempt_at, last_error, mail_parts)
				VALUES (?1, ?2, NULLIF(?3, ''), ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'pending', 0, ?12, '', ?13)`,
				e.OrganizationID, e.ID.String(), e.AssetID, e.Type, e.Channel, e.Recipient, e.IdempotencyKey, e.Subject, e.Body,
				nullPayload(e.Payload), sqlutil.Micros(e.CreatedAt), sqlutil.Micros(due), parts); err != nil {
				return sqlutil.Wrapped("insert event "+e.ID.String(), err)
			}
		}
		return nil
	})
}

func nullPayload(p json.RawMessage) any {
	if len(p) == 0 {
		return nil
	}
	return string(p)
}

func (s eventStore) Claim(ctx context.Context, claim uuid.UUID, now time.Time, limit int, hold time.Duration) (_ []events.Delivery, err error) {
	defer sqlutil.Wrap(&err, "events: claim")
	// Most runs find nothing due: a look on the read pool spares them the
	// write connection every other writer waits for.
	var due bool
	if err := s.db.read(ctx).QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM event_outbox
		WHERE status = 'pending' AND next_attempt_at <= ?)`, sqlutil.Micros(now)).Scan(&due); err != nil || !due {
		return nil, err
	}
	var out []events.Delivery
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE event_outbox SET claim_id = ?1, next_attempt_at = ?2
			WHERE (organization_id, event_id) IN (SELECT organization_id, event_id FROM event_outbox
				WHERE status = 'pending' AND next_attempt_at <= ?3 ORDER BY next_attempt_at, event_id LIMIT ?4)
			RETURNING `+outboxColumns, claim.String(), sqlutil.Micros(now.Add(hold)), sqlutil.Micros(now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDelivery(rows)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return rows.Err()
	})
	return out, err
}

func (s eventStore) Settle(ctx context.Context, o events.Outcome) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "events: settle")
	var n int64
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE event_outbox SET
				attempts = attempts + 1,
				status = ?4,
				next_attempt_at = CASE WHEN ?4 = 'pending' THEN ?5 ELSE next_attempt_at END,
				last_error = ?6,
				sent_at = CASE WHEN ?7 AND sent_at IS NULL THEN ?9 ELSE sent_at END,
				published_at = CASE WHEN ?8 AND published_at IS NULL THEN ?9 ELSE published_at END,
				finished_at = CASE WHEN ?4 = 'pending' THEN NULL ELSE ?9 END,
				body = CASE WHEN ?10 THEN '' ELSE body END,
				mail_parts = CASE WHEN ?10 THEN NULL ELSE mail_parts END,
				claim_id = NULL
			WHERE organization_id = ?1 AND event_id = ?2 AND claim_id = ?3 AND status = 'pending'`,
			o.OrganizationID, o.EventID.String(), o.Claim.String(), string(o.Status), sqlutil.Micros(o.NextAttemptAt), o.Error,
			o.Sent, o.Published, sqlutil.Micros(o.At), o.ClearBody)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

func (s eventStore) Release(ctx context.Context, claim uuid.UUID, now time.Time) (err error) {
	defer sqlutil.Wrap(&err, "events: release")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE event_outbox SET next_attempt_at = ?, claim_id = NULL
			WHERE status = 'pending' AND claim_id = ?`, sqlutil.Micros(now), claim.String())
		return err
	})
}

func (s eventStore) Delivery(ctx context.Context, organizationID string, id uuid.UUID) (_ events.Delivery, err error) {
	defer sqlutil.Wrap(&err, "events: delivery")
	d, err := scanDelivery(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+outboxColumns+` FROM event_outbox
		WHERE organization_id = ? AND event_id = ?`, organizationID, id.String()))
	if errors.Is(err, sql.ErrNoRows) {
		return events.Delivery{}, errs.NotFoundf("event %s not found", id)
	}
	return d, err
}

func scanDelivery(row interface{ Scan(dest ...any) error }) (events.Delivery, error) {
	var d events.Delivery
	var id, status string
	var asset, payload, parts *string
	var created, next int64
	var sent, published, finished *int64
	if err := row.Scan(&d.OrganizationID, &id, &asset, &d.Type, &d.Channel, &d.Recipient, &d.IdempotencyKey, &d.Subject,
		&d.Body, &payload, &created, &status, &d.Attempts, &next, &d.LastError, &sent, &published, &finished, &parts); err != nil {
		return events.Delivery{}, err
	}
	var err error
	if d.Mail, err = sqlutil.ParseMailParts(parts); err != nil {
		return events.Delivery{}, err
	}
	if d.ID, err = uuid.Parse(id); err != nil {
		return events.Delivery{}, err
	}
	if asset != nil {
		d.AssetID = *asset
	}
	if payload != nil {
		d.Payload = json.RawMessage(*payload)
	}
	d.Status = events.Status(status)
	d.CreatedAt, d.NextAttemptAt = sqlutil.FromMicros(created), sqlutil.FromMicros(next)
	d.SentAt, d.PublishedAt, d.FinishedAt = sqlutil.FromNullMicros(sent), sqlutil.FromNullMicros(published), sqlutil.FromNullMicros(finished)
	return d, nil
}
