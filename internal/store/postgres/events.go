package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/store/sqlutil"
)

// Events returns the event outbox.
func (db *DB) Events() events.Store { return eventStore{db} }

// eventStore claims with FOR UPDATE SKIP LOCKED: deliverers of several
// instances claiming at once lock disjoint rows, and each marks its rows
// with its claim before the locks go, so no event is taken twice.
type eventStore struct{ db *DB }

const outboxColumns = `organization_id, event_id, asset_id, type, channel, recipient, idempotency_key, subject, body,
	payload, created_at, status, attempts, next_attempt_at, last_error, sent_at, published_at, finished_at, mail_parts`

func (s eventStore) Enqueue(ctx context.Context, list []events.Event, due time.Time) (err error) {
	defer sqlutil.Wrap(&err, "events: enqueue")
	// Joins the transaction ctx carries: a producer enqueues with the
	// change its events are about (onboarding mails inside Mutate).
	return s.db.join(ctx, func(ctx context.Context, tx pgx.Tx) error {
		for _, e := range list {
			parts, err := sqlutil.MailParts(e.Mail)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO event_outbox (organization_id, event_id, asset_id, type, channel, recipient,
				idempotency_key, subject, body, payload, created_at, enqueued_at, status, attempts, next_attempt_at, last_error, mail_parts)
				VALUES ($1, $2, NULLIF($3, ''), $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', 0, $12, '', $13)`,
				e.OrganizationID, e.ID, e.AssetID, e.Type, e.Channel, e.Recipient, e.IdempotencyKey, e.Subject, e.Body,
				nullPayload(e.Payload), e.CreatedAt, due, parts); err != nil {
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
	rows, err := s.db.conn(ctx).Query(ctx, `WITH due AS (
			SELECT organization_id AS due_org, event_id AS due_id FROM event_outbox
			WHERE status = 'pending' AND next_attempt_at <= $1
			ORDER BY next_attempt_at, event_id LIMIT $2
			FOR UPDATE SKIP LOCKED)
		UPDATE event_outbox o SET claim_id = $3, next_attempt_at = $4
		FROM due WHERE o.organization_id = due.due_org AND o.event_id = due.due_id
		RETURNING `+outboxColumns, now, limit, claim, now.Add(hold))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (events.Delivery, error) { return scanDelivery(row) })
}

func (s eventStore) Settle(ctx context.Context, o events.Outcome) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "events: settle")
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE event_outbox SET
			attempts = attempts + 1,
			status = $4,
			next_attempt_at = CASE WHEN $4 = 'pending' THEN $5 ELSE next_attempt_at END,
			last_error = $6,
			sent_at = CASE WHEN $7::boolean AND sent_at IS NULL THEN $9 ELSE sent_at END,
			published_at = CASE WHEN $8::boolean AND published_at IS NULL THEN $9 ELSE published_at END,
			finished_at = CASE WHEN $4 = 'pending' THEN NULL ELSE $9 END,
			body = CASE WHEN $10::boolean THEN '' ELSE body END,
			mail_parts = CASE WHEN $10::boolean THEN NULL ELSE mail_parts END,
			claim_id = NULL
		WHERE organization_id = $1 AND event_id = $2 AND claim_id = $3 AND status = 'pending'`,
		o.OrganizationID, o.EventID, o.Claim, string(o.Status), o.NextAttemptAt, o.Error, o.Sent, o.Published, o.At, o.ClearBody)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (s eventStore) Release(ctx context.Context, claim uuid.UUID, now time.Time) (err error) {
	defer sqlutil.Wrap(&err, "events: release")
	_, err = s.db.conn(ctx).Exec(ctx, `UPDATE event_outbox SET next_attempt_at = $2, claim_id = NULL
		WHERE status = 'pending' AND claim_id = $1`, claim, now)
	return err
}

func (s eventStore) Delivery(ctx context.Context, organizationID string, id uuid.UUID) (_ events.Delivery, err error) {
	defer sqlutil.Wrap(&err, "events: delivery")
	d, err := scanDelivery(s.db.conn(ctx).QueryRow(ctx, `SELECT `+outboxColumns+` FROM event_outbox
		WHERE organization_id = $1 AND event_id = $2`, organizationID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return events.Delivery{}, errs.NotFoundf("event %s not found", id)
	}
	return d, err
}

func scanDelivery(row pgx.Row) (events.Delivery, error) {
	var d events.Delivery
	var asset, payload, parts *string
	var status string
	if err := row.Scan(&d.OrganizationID, &d.ID, &asset, &d.Type, &d.Channel, &d.Recipient, &d.IdempotencyKey, &d.Subject,
		&d.Body, &payload, &d.CreatedAt, &status, &d.Attempts, &d.NextAttemptAt, &d.LastError, &d.SentAt, &d.PublishedAt,
		&d.FinishedAt, &parts); err != nil {
		return events.Delivery{}, err
	}
	var err error
	if d.Mail, err = sqlutil.ParseMailParts(parts); err != nil {
		return events.Delivery{}, err
	}
	if asset != nil {
		d.AssetID = *asset
	}
	if payload != nil {
		d.Payload = json.RawMessage(*payload)
	}
	d.Status = events.Status(status)
	d.CreatedAt, d.NextAttemptAt = d.CreatedAt.UTC(), d.NextAttemptAt.UTC()
	d.SentAt, d.PublishedAt, d.FinishedAt = sqlutil.UTCPtr(d.SentAt), sqlutil.UTCPtr(d.PublishedAt), sqlutil.UTCPtr(d.FinishedAt)
	return d, nil
}
