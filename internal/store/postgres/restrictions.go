package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/restrictions"
	"atcp/internal/store/sqlutil"
)

// Restrictions returns the restrictions store.
func (db *DB) Restrictions() restrictions.Store { return restrictionStore{db} }

// restrictionStore serialises the interval writes and request decisions
// of one asset with a transaction-scoped advisory lock on the asset id
// (virtual asset ids have no asset row to lock).
type restrictionStore struct{ db *DB }

const (
	intervalColumns = `organization_id, asset_id, kind, start_time, end_time, upper_limit, lower_limit,
		reason, reason_description, created_at`
	requestColumns = `request_id::text, organization_id, asset_id, kind, action, status, start_time, end_time,
		upper_limit, lower_limit, reason, reason_description, requested_by, requested_at, decided_by, decided_at, decision_note`
	curtailmentColumns = `curtailment_id::text, organization_id, asset_id, start_time, end_time, max_curtailment, min_curtailment`
)

func lockRestrictedAsset(ctx context.Context, tx pgx.Tx, assetID string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('restrictions:' || $1, 0))`, assetID)
	return err
}

func scanInterval(row pgx.Row) (restrictions.Interval, error) {
	var iv restrictions.Interval
	var kind, reason string
	if err := row.Scan(&iv.OrganizationID, &iv.AssetID, &kind, &iv.Start, &iv.End, &iv.Upper, &iv.Lower,
		&reason, &iv.ReasonDescription, &iv.CreatedAt); err != nil {
		return restrictions.Interval{}, err
	}
	iv.Kind, iv.Reason = restrictions.Kind(kind), restrictions.Reason(reason)
	iv.Start, iv.End, iv.CreatedAt = sqlutil.UTC(iv.Start), sqlutil.UTCPtr(iv.End), sqlutil.UTC(iv.CreatedAt)
	return iv, nil
}

func collectIntervals(rows pgx.Rows, err error) ([]restrictions.Interval, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (restrictions.Interval, error) { return scanInterval(r) })
}

// windowArgs turns a zero bound into NULL (unbounded).
func windowArgs(w restrictions.Window) (from, to *time.Time) {
	if !w.From.IsZero() {
		from = &w.From
	}
	if !w.To.IsZero() {
		to = &w.To
	}
	return from, to
}

func (s restrictionStore) Intervals(ctx context.Context, v auth.Visibility, assetID string, kind restrictions.Kind, w restrictions.Window) (_ []restrictions.Interval, err error) {
	defer sqlutil.Wrap(&err, "restrictions: intervals")
	from, to := windowArgs(w)
	return collectIntervals(s.db.conn(ctx).Query(ctx, `SELECT `+intervalColumns+` FROM restriction_intervals
		WHERE ($1 OR organization_id = $2) AND asset_id = $3 AND ($4 = '' OR kind = $4)
		AND ($5::timestamptz IS NULL OR end_time IS NULL OR end_time > $5)
		AND ($6::timestamptz IS NULL OR start_time < $6)
		ORDER BY start_time, kind`, v.All, v.OrganizationID, assetID, string(kind), from, to))
}

func (s restrictionStore) ActiveAt(ctx context.Context, t time.Time) (_ []restrictions.Interval, err error) {
	defer sqlutil.Wrap(&err, "restrictions: active at")
	return collectIntervals(s.db.conn(ctx).Query(ctx, `SELECT `+intervalColumns+` FROM restriction_intervals
		WHERE (end_time IS NULL OR end_time > $1) AND start_time <= $1
		ORDER BY asset_id, kind`, t))
}

func kindIntervals(ctx context.Context, tx pgx.Tx, assetID string, kind restrictions.Kind) ([]restrictions.Interval, error) {
	return collectIntervals(tx.Query(ctx, `SELECT `+intervalColumns+` FROM restriction_intervals
		WHERE asset_id = $1 AND kind = $2 ORDER BY start_time`, assetID, string(kind)))
}

func applyChange(ctx context.Context, tx pgx.Tx, c restrictions.Change) error {
	iv := c.Interval
	var err error
	switch c.Op {
	case restrictions.OpNone:
	case restrictions.OpInsert:
		_, err = tx.Exec(ctx, `INSERT INTO restriction_intervals (`+intervalColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			iv.OrganizationID, iv.AssetID, string(iv.Kind), iv.Start, iv.End, iv.Upper, iv.Lower,
			string(iv.Reason), iv.ReasonDescription, iv.CreatedAt)
	case restrictions.OpSetEnd:
		_, err = tx.Exec(ctx, `UPDATE restriction_intervals SET end_time = $4 WHERE asset_id = $1 AND kind = $2 AND start_time = $3`,
			iv.AssetID, string(iv.Kind), iv.Start, iv.End)
	case restrictions.OpDelete:
		_, err = tx.Exec(ctx, `DELETE FROM restriction_intervals WHERE asset_id = $1 AND kind = $2 AND start_time = $3`,
			iv.AssetID, string(iv.Kind), iv.Start)
	default:
		err = fmt.Errorf("unknown interval change %d", c.Op)
	}
	return err
}

func (s restrictionStore) MutateIntervals(ctx context.Context, organizationID, assetID string, kind restrictions.Kind, plan func([]restrictions.Interval) (restrictions.Change, error)) (_ restrictions.Change, err error) {
	defer sqlutil.Wrap(&err, "restrictions: mutate intervals")
	var c restrictions.Change
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockRestrictedAsset(ctx, tx, assetID); err != nil {
			return err
		}
		existing, err := kindIntervals(ctx, tx, assetID, kind)
		if err != nil {
			return err
		}
		if c, err = plan(existing); err != nil {
			return err
		}
		return applyChange(ctx, tx, c)
	})
	return c, err
}

func scanRequest(row pgx.Row) (restrictions.Request, error) {
	var r restrictions.Request
	var kind, status, reason string
	if err := row.Scan(&r.ID, &r.OrganizationID, &r.AssetID, &kind, &r.Action, &status, &r.Start, &r.End,
		&r.Upper, &r.Lower, &reason, &r.ReasonDescription, &r.RequestedBy, &r.RequestedAt,
		&r.DecidedBy, &r.DecidedAt, &r.DecisionNote); err != nil {
		return restrictions.Request{}, err
	}
	r.Kind, r.Status, r.Reason = restrictions.Kind(kind), restrictions.Status(status), restrictions.Reason(reason)
	r.Start, r.End, r.RequestedAt, r.DecidedAt = sqlutil.UTC(r.Start), sqlutil.UTCPtr(r.End), sqlutil.UTC(r.RequestedAt), sqlutil.UTCPtr(r.DecidedAt)
	return r, nil
}

func requestNotFound(id string) error { return errs.NotFoundf("restriction request %q not found", id) }

func (s restrictionStore) CreateRequest(ctx context.Context, r restrictions.Request) (err error) {
	defer sqlutil.Wrap(&err, "restrictions: create request")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO restriction_requests (request_id, organization_id, asset_id, kind, action, status,
		start_time, end_time, upper_limit, lower_limit, reason, reason_description, requested_by, requested_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		r.ID, r.OrganizationID, r.AssetID, string(r.Kind), r.Action, string(r.Status), r.Start, r.End, r.Upper, r.Lower,
		string(r.Reason), r.ReasonDescription, r.RequestedBy, r.RequestedAt)
	return err
}

func (s restrictionStore) Requests(ctx context.Context, v auth.Visibility, f restrictions.RequestFilter) (_ []restrictions.Request, err error) {
	defer sqlutil.Wrap(&err, "restrictions: requests")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+requestColumns+` FROM restriction_requests
		WHERE ($1 OR organization_id = $2) AND ($3 = '' OR asset_id = $3) AND ($4 = '' OR kind = $4)
		ORDER BY requested_at DESC, request_id`, v.All, v.OrganizationID, f.AssetID, string(f.Kind))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (restrictions.Request, error) { return scanRequest(r) })
}

func (s restrictionStore) Request(ctx context.Context, v auth.Visibility, id string) (_ restrictions.Request, err error) {
	defer sqlutil.Wrap(&err, "restrictions: request")
	r, err := scanRequest(s.db.conn(ctx).QueryRow(ctx, `SELECT `+requestColumns+` FROM restriction_requests
		WHERE ($1 OR organization_id = $2) AND request_id = $3`, v.All, v.OrganizationID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, requestNotFound(id)
	}
	return r, err
}

func (s restrictionStore) DecideRequest(ctx context.Context, v auth.Visibility, id string, decide func(restrictions.Request, []restrictions.Interval) (restrictions.Request, *restrictions.Change, error)) (_ restrictions.Request, err error) {
	defer sqlutil.Wrap(&err, "restrictions: decide request")
	before, err := s.Request(ctx, v, id)
	if err != nil {
		return restrictions.Request{}, err
	}
	var decided restrictions.Request
	var decideErr error
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockRestrictedAsset(ctx, tx, before.AssetID); err != nil {
			return err
		}
		r, err := scanRequest(tx.QueryRow(ctx, `SELECT `+requestColumns+` FROM restriction_requests
			WHERE request_id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		existing, err := kindIntervals(ctx, tx, r.AssetID, r.Kind)
		if err != nil {
			return err
		}
		var change *restrictions.Change
		decided, change, decideErr = decide(r, existing)
		if decideErr != nil && decided.Status == r.Status {
			return decideErr
		}
		if change != nil {
			if err := applyChange(ctx, tx, *change); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE restriction_requests SET status = $2, decided_by = $3, decided_at = $4, decision_note = $5
			WHERE request_id = $1`, id, string(decided.Status), decided.DecidedBy, decided.DecidedAt, decided.DecisionNote)
		return err
	})
	if err != nil {
		return restrictions.Request{}, err
	}
	return decided, decideErr
}

func scanCurtailment(row pgx.Row) (restrictions.Curtailment, error) {
	var c restrictions.Curtailment
	if err := row.Scan(&c.ID, &c.OrganizationID, &c.AssetID, &c.Start, &c.End, &c.MaxCurtailment, &c.MinCurtailment); err != nil {
		return restrictions.Curtailment{}, err
	}
	c.Start, c.End = sqlutil.UTC(c.Start), sqlutil.UTCPtr(c.End)
	return c, nil
}

// OpenCurtailment reads the ongoing curtailment and inserts under the
// asset's restrictions lock, so no other opening comes between.
func (s restrictionStore) OpenCurtailment(ctx context.Context, c restrictions.Curtailment,
	allow func(ongoing *restrictions.Curtailment) error) (err error) {
	defer sqlutil.Wrap(&err, "restrictions: open curtailment")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockRestrictedAsset(ctx, tx, c.AssetID); err != nil {
			return fmt.Errorf("lock the asset: %w", err)
		}
		var ongoing *restrictions.Curtailment
		cur, err := scanCurtailment(tx.QueryRow(ctx, `SELECT `+curtailmentColumns+` FROM curtailments
			WHERE asset_id = $1 AND end_time IS NULL`, c.AssetID))
		switch {
		case err == nil:
			ongoing = &cur
		case !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("read the ongoing curtailment: %w", err)
		}
		if err := allow(ongoing); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO curtailments (curtailment_id, organization_id, asset_id, start_time, end_time, max_curtailment, min_curtailment)
			VALUES ($1, $2, $3, $4, NULL, $5, $6)`,
			c.ID, c.OrganizationID, c.AssetID, c.Start, c.MaxCurtailment, c.MinCurtailment)
		return err
	})
}

func (s restrictionStore) CloseCurtailment(ctx context.Context, assetID string, end time.Time) (_ restrictions.Curtailment, err error) {
	defer sqlutil.Wrap(&err, "restrictions: close curtailment")
	c, err := scanCurtailment(s.db.conn(ctx).QueryRow(ctx, `UPDATE curtailments SET end_time = $2
		WHERE asset_id = $1 AND end_time IS NULL RETURNING `+curtailmentColumns, assetID, end))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, errs.NotFoundf("asset %q has no ongoing curtailment", assetID)
	}
	return c, err
}

func (s restrictionStore) Curtailments(ctx context.Context, v auth.Visibility, assetID string, w restrictions.Window) (_ []restrictions.Curtailment, err error) {
	defer sqlutil.Wrap(&err, "restrictions: curtailments")
	from, to := windowArgs(w)
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT `+curtailmentColumns+` FROM curtailments
		WHERE ($1 OR organization_id = $2) AND asset_id = $3
		AND ($4::timestamptz IS NULL OR end_time IS NULL OR end_time > $4)
		AND ($5::timestamptz IS NULL OR start_time < $5)
		ORDER BY start_time, curtailment_id`, v.All, v.OrganizationID, assetID, from, to)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (restrictions.Curtailment, error) { return scanCurtailment(r) })
}
