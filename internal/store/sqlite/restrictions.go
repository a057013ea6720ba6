package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/restrictions"
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
)

// Restrictions returns the restrictions store.
func (db *DB) Restrictions() restrictions.Store { return restrictionStore{db} }

// restrictionStore runs every read-check-write in one write transaction:
// the single write connection serialises interval writes and decisions.
type restrictionStore struct{ db *DB }

const (
	intervalColumns = `organization_id, asset_id, kind, start_time, end_time, upper_limit, lower_limit,
		reason, reason_description, created_at`
	requestColumns = `request_id, organization_id, asset_id, kind, action, status, start_time, end_time,
		upper_limit, lower_limit, reason, reason_description, requested_by, requested_at, decided_by, decided_at, decision_note`
	curtailmentColumns = `curtailment_id, organization_id, asset_id, start_time, end_time, max_curtailment, min_curtailment`
)

type restrictionRow interface{ Scan(dest ...any) error }

// queryer is what both the read pool and a write transaction offer.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func scanInterval(row restrictionRow) (restrictions.Interval, error) {
	var iv restrictions.Interval
	var kind, reason string
	var start, created int64
	var end *int64
	if err := row.Scan(&iv.OrganizationID, &iv.AssetID, &kind, &start, &end, &iv.Upper, &iv.Lower,
		&reason, &iv.ReasonDescription, &created); err != nil {
		return restrictions.Interval{}, err
	}
	iv.Kind, iv.Reason = restrictions.Kind(kind), restrictions.Reason(reason)
	iv.Start, iv.End, iv.CreatedAt = sqlutil.FromMicros(start), sqlutil.FromNullMicros(end), sqlutil.FromMicros(created)
	return iv, nil
}

// collect returns a function that scans every row of a query with scan,
// so that it takes a QueryContext call's two results directly. Background
// work yields its processor every few dozen rows (workload.Yield).
func collect[T any](ctx context.Context, scan func(restrictionRow) (T, error)) func(*sql.Rows, error) ([]T, error) {
	return func(rows *sql.Rows, err error) ([]T, error) {
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := []T{}
		for rows.Next() {
			workload.Yield(ctx, len(out))
			x, err := scan(rows)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, rows.Err()
	}
}

// windowArgs turns a zero bound into NULL (unbounded).
func windowArgs(w restrictions.Window) (from, to any) {
	if !w.From.IsZero() {
		from = sqlutil.Micros(w.From)
	}
	if !w.To.IsZero() {
		to = sqlutil.Micros(w.To)
	}
	return from, to
}

func (s restrictionStore) Intervals(ctx context.Context, v auth.Visibility, assetID string, kind restrictions.Kind, w restrictions.Window) (_ []restrictions.Interval, err error) {
	defer sqlutil.Wrap(&err, "restrictions: intervals")
	from, to := windowArgs(w)
	stmt, err := s.db.stmt(ctx, intervalsSelect)
	if err != nil {
		return nil, err
	}
	return collect(ctx, scanInterval)(stmt.QueryContext(ctx, v.All, v.OrganizationID, assetID, string(kind), from, to))
}

// intervalsSelect is the read of Intervals, prepared once per connection:
// every GET state runs it (FullyRestricted), and parsing it cost more
// than running it.
const intervalsSelect = `SELECT ` + intervalColumns + ` FROM restriction_intervals
		WHERE (?1 OR organization_id = ?2) AND asset_id = ?3 AND (?4 = '' OR kind = ?4)
		AND (?5 IS NULL OR end_time IS NULL OR end_time > ?5)
		AND (?6 IS NULL OR start_time < ?6)
		ORDER BY start_time, kind`

func (s restrictionStore) ActiveAt(ctx context.Context, t time.Time) (_ []restrictions.Interval, err error) {
	defer sqlutil.Wrap(&err, "restrictions: active at")
	return collect(ctx, scanInterval)(s.db.read(ctx).QueryContext(ctx, `SELECT `+intervalColumns+` FROM restriction_intervals
		WHERE (end_time IS NULL OR end_time > ?1) AND start_time <= ?1
		ORDER BY asset_id, kind`, sqlutil.Micros(t)))
}

func kindIntervals(ctx context.Context, q queryer, assetID string, kind restrictions.Kind) ([]restrictions.Interval, error) {
	return collect(ctx, scanInterval)(q.QueryContext(ctx, `SELECT `+intervalColumns+` FROM restriction_intervals
		WHERE asset_id = ? AND kind = ? ORDER BY start_time`, assetID, string(kind)))
}

func applyChange(ctx context.Context, tx *sql.Tx, c restrictions.Change) error {
	iv := c.Interval
	var err error
	switch c.Op {
	case restrictions.OpNone:
	case restrictions.OpInsert:
		_, err = tx.ExecContext(ctx, `INSERT INTO restriction_intervals (`+intervalColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			iv.OrganizationID, iv.AssetID, string(iv.Kind), sqlutil.Micros(iv.Start), sqlutil.NullMicros(iv.End), iv.Upper, iv.Lower,
			string(iv.Reason), iv.ReasonDescription, sqlutil.Micros(iv.CreatedAt))
	case restrictions.OpSetEnd:
		_, err = tx.ExecContext(ctx, `UPDATE restriction_intervals SET end_time = ? WHERE asset_id = ? AND kind = ? AND start_time = ?`,
			sqlutil.NullMicros(iv.End), iv.AssetID, string(iv.Kind), sqlutil.Micros(iv.Start))
	case restrictions.OpDelete:
		_, err = tx.ExecContext(ctx, `DELETE FROM restriction_intervals WHERE asset_id = ? AND kind = ? AND start_time = ?`,
			iv.AssetID, string(iv.Kind), sqlutil.Micros(iv.Start))
	default:
		err = fmt.Errorf("unknown interval change %d", c.Op)
	}
	return err
}

func (s restrictionStore) MutateIntervals(ctx context.Context, organizationID, assetID string, kind restrictions.Kind, plan func([]restrictions.Interval) (restrictions.Change, error)) (_ restrictions.Change, err error) {
	defer sqlutil.Wrap(&err, "restrictions: mutate intervals")
	var c restrictions.Change
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
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

func scanRequest(row restrictionRow) (restrictions.Request, error) {
	var r restrictions.Request
	var kind, status, reason string
	var start, requested int64
	var end, decided *int64
	if err := row.Scan(&r.ID, &r.OrganizationID, &r.AssetID, &kind, &r.Action, &status, &start, &end,
		&r.Upper, &r.Lower, &reason, &r.ReasonDescription, &r.RequestedBy, &requested,
		&r.DecidedBy, &decided, &r.DecisionNote); err != nil {
		return restrictions.Request{}, err
	}
	r.Kind, r.Status, r.Reason = restrictions.Kind(kind), restrictions.Status(status), restrictions.Reason(reason)
	r.Start, r.End = sqlutil.FromMicros(start), sqlutil.FromNullMicros(end)
	r.RequestedAt, r.DecidedAt = sqlutil.FromMicros(requested), sqlutil.FromNullMicros(decided)
	return r, nil
}

func requestNotFound(id string) error { return errs.NotFoundf("restriction request %q not found", id) }

func (s restrictionStore) CreateRequest(ctx context.Context, r restrictions.Request) (err error) {
	defer sqlutil.Wrap(&err, "restrictions: create request")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO restriction_requests (request_id, organization_id, asset_id, kind, action, status,
			start_time, end_time, upper_limit, lower_limit, reason, reason_description, requested_by, requested_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.OrganizationID, r.AssetID, string(r.Kind), r.Action, string(r.Status), sqlutil.Micros(r.Start), sqlutil.NullMicros(r.End),
			r.Upper, r.Lower, string(r.Reason), r.ReasonDescription, r.RequestedBy, sqlutil.Micros(r.RequestedAt))
		return err
	})
}

func (s restrictionStore) Requests(ctx context.Context, v auth.Visibility, f restrictions.RequestFilter) (_ []restrictions.Request, err error) {
	defer sqlutil.Wrap(&err, "restrictions: requests")
	return collect(ctx, scanRequest)(s.db.read(ctx).QueryContext(ctx, `SELECT `+requestColumns+` FROM restriction_requests
		WHERE (?1 OR organization_id = ?2) AND (?3 = '' OR asset_id = ?3) AND (?4 = '' OR kind = ?4)
		ORDER BY requested_at DESC, request_id`, v.All, v.OrganizationID, f.AssetID, string(f.Kind)))
}

func (s restrictionStore) Request(ctx context.Context, v auth.Visibility, id string) (_ restrictions.Request, err error) {
	defer sqlutil.Wrap(&err, "restrictions: request")
	r, err := scanRequest(s.db.read(ctx).QueryRowContext(ctx, `SELECT `+requestColumns+` FROM restriction_requests
		WHERE (? OR organization_id = ?) AND request_id = ?`, v.All, v.OrganizationID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, requestNotFound(id)
	}
	return r, err
}

func (s restrictionStore) DecideRequest(ctx context.Context, v auth.Visibility, id string, decide func(restrictions.Request, []restrictions.Interval) (restrictions.Request, *restrictions.Change, error)) (_ restrictions.Request, err error) {
	defer sqlutil.Wrap(&err, "restrictions: decide request")
	var decided restrictions.Request
	var decideErr error
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		r, err := scanRequest(tx.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM restriction_requests
			WHERE (? OR organization_id = ?) AND request_id = ?`, v.All, v.OrganizationID, id))
		if errors.Is(err, sql.ErrNoRows) {
			return requestNotFound(id)
		}
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
		_, err = tx.ExecContext(ctx, `UPDATE restriction_requests SET status = ?, decided_by = ?, decided_at = ?, decision_note = ?
			WHERE request_id = ?`, string(decided.Status), decided.DecidedBy, sqlutil.NullMicros(decided.DecidedAt), decided.DecisionNote, id)
		return err
	})
	if err != nil {
		return restrictions.Request{}, err
	}
	return decided, decideErr
}

func scanCurtailment(row restrictionRow) (restrictions.Curtailment, error) {
	var c restrictions.Curtailment
	var start int64
	var end *int64
	if err := row.Scan(&c.ID, &c.OrganizationID, &c.AssetID, &start, &end, &c.MaxCurtailment, &c.MinCurtailment); err != nil {
		return restrictions.Curtailment{}, err
	}
	c.Start, c.End = sqlutil.FromMicros(start), sqlutil.FromNullMicros(end)
	return c, nil
}

// OpenCurtailment reads the ongoing curtailment and inserts on the single
// write connection, so no other opening comes between.
func (s restrictionStore) OpenCurtailment(ctx context.Context, c restrictions.Curtailment,
	allow func(ongoing *restrictions.Curtailment) error) (err error) {
	defer sqlutil.Wrap(&err, "restrictions: open curtailment")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var ongoing *restrictions.Curtailment
		cur, err := scanCurtailment(tx.QueryRowContext(ctx, `SELECT `+curtailmentColumns+` FROM curtailments
			WHERE asset_id = ? AND end_time IS NULL`, c.AssetID))
		switch {
		case err == nil:
			ongoing = &cur
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("read the ongoing curtailment: %w", err)
		}
		if err := allow(ongoing); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO curtailments (`+curtailmentColumns+`) VALUES (?, ?, ?, ?, NULL, ?, ?)`,
			c.ID, c.OrganizationID, c.AssetID, sqlutil.Micros(c.Start), c.MaxCurtailment, c.MinCurtailment)
		return err
	})
}

func (s restrictionStore) CloseCurtailment(ctx context.Context, assetID string, end time.Time) (_ restrictions.Curtailment, err error) {
	defer sqlutil.Wrap(&err, "restrictions: close curtailment")
	var c restrictions.Curtailment
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		c, err = scanCurtailment(tx.QueryRowContext(ctx, `UPDATE curtailments SET end_time = ?
			WHERE asset_id = ? AND end_time IS NULL RETURNING `+curtailmentColumns, sqlutil.Micros(end), assetID))
		if errors.Is(err, sql.ErrNoRows) {
			return errs.NotFoundf("asset %q has no ongoing curtailment", assetID)
		}
		return err
	})
	return c, err
}

func (s restrictionStore) Curtailments(ctx context.Context, v auth.Visibility, assetID string, w restrictions.Window) (_ []restrictions.Curtailment, err error) {
	defer sqlutil.Wrap(&err, "restrictions: curtailments")
	from, to := windowArgs(w)
	return collect(ctx, scanCurtailment)(s.db.read(ctx).QueryContext(ctx, `SELECT `+curtailmentColumns+` FROM curtailments
		WHERE (?1 OR organization_id = ?2) AND asset_id = ?3
		AND (?4 IS NULL OR end_time IS NULL OR end_time > ?4)
		AND (?5 IS NULL OR start_time < ?5)
		ORDER BY start_time, curtailment_id`, v.All, v.OrganizationID, assetID, from, to))
}
