package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/dispatch"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
	"atcp/internal/telemetry"
)

// Dispatch returns the dispatch store.
func (db *DB) Dispatch() dispatch.Store { return dispatchStore{db} }

// dispatchStore serialises the writes of one asset on its asset row (FOR
// NO KEY UPDATE: it conflicts with itself and with the bid and asset
// writes' FOR UPDATE, not with foreign-key checks).
type dispatchStore struct{ db *DB }

const (
	immediateColumns = `dispatch_id::text, organization_id, asset_id, start_time, end_time, set_power_mw, created_at`
	eventColumns     = `organization_id, asset_id, set_time, delivery_time, control_mode, bess_power_mw, poc_power_mw,
		request_id, source_id, created_at`
	outcomeColumns = `o.organization_id, o.asset_id, o.set_time, o.delivery_time, o.control_mode, o.requested_power_mw,
		o.poc_power_mw, o.effective_power_mw, o.status, o.reason, o.emitted_at, COALESCE(e.request_id, ''), COALESCE(e.source_id, '')`
)

func scanImmediate(row pgx.Row) (dispatch.Immediate, error) {
	var im dispatch.Immediate
	if err := row.Scan(&im.ID, &im.OrganizationID, &im.AssetID, &im.Start, &im.End, &im.SetPowerMW, &im.CreatedAt); err != nil {
		return dispatch.Immediate{}, err
	}
	im.Start, im.End, im.CreatedAt = im.Start.UTC(), im.End.UTC(), im.CreatedAt.UTC()
	return im, nil
}

func scanEvent(row pgx.Row) (dispatch.Event, error) {
	var e dispatch.Event
	var mode string
	if err := row.Scan(&e.OrganizationID, &e.AssetID, &e.SetTime, &e.DeliveryTime, &mode, &e.BESSPowerMW, &e.PoCPowerMW,
		&e.RequestID, &e.SourceID, &e.CreatedAt); err != nil {
		return dispatch.Event{}, err
	}
	e.ControlMode = telemetry.ControlMode(mode)
	e.SetTime, e.DeliveryTime, e.CreatedAt = e.SetTime.UTC(), e.DeliveryTime.UTC(), e.CreatedAt.UTC()
	return e, nil
}

func scanOutcome(row pgx.Row) (dispatch.Outcome, error) {
	var o dispatch.Outcome
	var mode, status string
	if err := row.Scan(&o.OrganizationID, &o.AssetID, &o.SetTime, &o.DeliveryTime, &mode, &o.RequestedPowerMW, &o.PoCPowerMW,
		&o.EffectivePowerMW, &status, &o.Reason, &o.EmittedAt, &o.RequestID, &o.SourceID); err != nil {
		return dispatch.Outcome{}, err
	}
	o.ControlMode, o.Status = telemetry.ControlMode(mode), dispatch.Status(status)
	o.SetTime, o.DeliveryTime, o.EmittedAt = o.SetTime.UTC(), o.DeliveryTime.UTC(), o.EmittedAt.UTC()
	return o, nil
}

// collectDispatch scans every row of a query with scan. Background work
// yields its processor every few dozen rows (workload.Yield).
func collectDispatch[T any](ctx context.Context, scan func(pgx.Row) (T, error)) func(pgx.Rows, error) ([]T, error) {
	return func(rows pgx.Rows, err error) ([]T, error) {
		if err != nil {
			return nil, err
		}
		i := 0
		return pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) {
			workload.Yield(ctx, i)
			i++
			return scan(r)
		})
	}
}

// lockDispatchAsset takes the asset's row lock until the transaction ends.
func lockDispatchAsset(ctx context.Context, tx pgx.Tx, assetID string) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM assets WHERE asset_id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE`, assetID).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return errs.NotFoundf("asset %q not found", assetID)
	}
	return err
}

func (s dispatchStore) StartImmediate(ctx context.Context, im dispatch.Immediate) (_ []dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: start immediate")
	var replaced []dispatch.Immediate
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockDispatchAsset(ctx, tx, im.AssetID); err != nil {
			return err
		}
		var err error
		replaced, err = collectDispatch(ctx, scanImmediate)(tx.Query(ctx, `SELECT `+immediateColumns+` FROM immediate_dispatches
			WHERE asset_id = $1 AND end_time > $2 ORDER BY start_time`, im.AssetID, im.Start))
		if err != nil {
			return err
		}
		for _, old := range replaced {
			cut, remove := dispatch.Replacement(old, im.Start)
			if remove {
				_, err = tx.Exec(ctx, `DELETE FROM immediate_dispatches WHERE asset_id = $1 AND start_time = $2`, old.AssetID, old.Start)
			} else {
				_, err = tx.Exec(ctx, `UPDATE immediate_dispatches SET end_time = $3 WHERE asset_id = $1 AND start_time = $2`,
					old.AssetID, old.Start, cut.End)
			}
			if err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO immediate_dispatches (dispatch_id, organization_id, asset_id, start_time, end_time,
			set_power_mw, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			im.ID, im.OrganizationID, im.AssetID, im.Start, im.End, im.SetPowerMW, im.CreatedAt)
		return err
	})
	return replaced, err
}

func (s dispatchStore) EndImmediate(ctx context.Context, assetID string, at time.Time) (_ dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: end immediate")
	var im dispatch.Immediate
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockDispatchAsset(ctx, tx, assetID); err != nil {
			return err
		}
		var err error
		im, err = scanImmediate(tx.QueryRow(ctx, `UPDATE immediate_dispatches SET end_time = $2
			WHERE asset_id = $1 AND start_time < $2 AND end_time > $2 RETURNING `+immediateColumns, assetID, at))
		if errors.Is(err, pgx.ErrNoRows) {
			// One that started at this very instant ends before it ran: removed.
			im, err = scanImmediate(tx.QueryRow(ctx, `DELETE FROM immediate_dispatches
				WHERE asset_id = $1 AND start_time = $2 AND end_time > $2 RETURNING `+immediateColumns, assetID, at))
			im.End = at
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return errs.NotFoundf("asset %q has no active immediate dispatch", assetID)
		}
		return err
	})
	return im, err
}

func (s dispatchStore) Immediates(ctx context.Context, v auth.Visibility, assetID string, w dispatch.Window) (_ []dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: immediates")
	var from, to *time.Time
	if !w.From.IsZero() {
		from = &w.From
	}
	if !w.To.IsZero() {
		to = &w.To
	}
	return collectDispatch(ctx, scanImmediate)(s.db.conn(ctx).Query(ctx, `SELECT `+immediateColumns+` FROM immediate_dispatches
		WHERE ($1 OR organization_id = $2) AND asset_id = $3
		AND ($4::timestamptz IS NULL OR end_time > $4) AND ($5::timestamptz IS NULL OR start_time < $5)
		ORDER BY start_time`, v.All, v.OrganizationID, assetID, from, to))
}

func (s dispatchStore) ActiveImmediate(ctx context.Context, at time.Time) (_ []dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: active immediate")
	return collectDispatch(ctx, scanImmediate)(s.db.conn(ctx).Query(ctx, `SELECT `+immediateColumns+` FROM immediate_dispatches
		WHERE end_time > $1 AND start_time <= $1 ORDER BY asset_id`, at))
}

func (s dispatchStore) ReplaceEvents(ctx context.Context, assetID string, from, to time.Time, events []dispatch.Event) (err error) {
	defer sqlutil.Wrap(&err, "dispatch: replace events")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := lockDispatchAsset(ctx, tx, assetID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM dispatch_events WHERE asset_id = $1 AND set_time >= $2 AND set_time < $3`,
			assetID, from, to); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for _, e := range events {
			batch.Queue(`INSERT INTO dispatch_events (`+eventColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
				e.OrganizationID, e.AssetID, e.SetTime, e.DeliveryTime, string(e.ControlMode), e.BESSPowerMW, e.PoCPowerMW,
				e.RequestID, e.SourceID, e.CreatedAt)
		}
		return tx.SendBatch(ctx, batch).Close()
	})
}

func (s dispatchStore) Events(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) (_ []dispatch.Event, err error) {
	defer sqlutil.Wrap(&err, "dispatch: events")
	return collectDispatch(ctx, scanEvent)(s.db.conn(ctx).Query(ctx, `SELECT `+eventColumns+` FROM dispatch_events
		WHERE ($1 OR organization_id = $2) AND asset_id = $3 AND set_time >= $4 AND set_time < $5 ORDER BY set_time`,
		v.All, v.OrganizationID, assetID, from, to))
}

func (s dispatchStore) EventsBetween(ctx context.Context, from, to time.Time) (_ []dispatch.Event, err error) {
	defer sqlutil.Wrap(&err, "dispatch: events between")
	return collectDispatch(ctx, scanEvent)(s.db.conn(ctx).Query(ctx, `SELECT `+eventColumns+` FROM dispatch_events
		WHERE set_time > $1 AND set_time <= $2 ORDER BY set_time, asset_id`, from, to))
}

func (s dispatchStore) CurrentEvents(ctx context.Context, at time.Time) (_ []dispatch.Event, err error) {
	defer sqlutil.Wrap(&err, "dispatch: current events")
	return collectDispatch(ctx, scanEvent)(s.db.conn(ctx).Query(ctx, `SELECT DISTINCT ON (asset_id) `+eventColumns+` FROM dispatch_events
		WHERE set_time >= $1 AND set_time <= $2 ORDER BY asset_id, set_time DESC`, dispatch.BlockOf(at), at))
}

func (s dispatchStore) RecordOutcomes(ctx context.Context, outcomes []dispatch.Outcome) (err error) {
	defer sqlutil.Wrap(&err, "dispatch: record outcomes")
	if len(outcomes) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, o := range outcomes {
		batch.Queue(`INSERT INTO dispatch_outcomes (organization_id, asset_id, set_time, delivery_time, control_mode,
			requested_power_mw, poc_power_mw, effective_power_mw, status, reason, emitted_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (asset_id, set_time) DO UPDATE SET delivery_time = excluded.delivery_time,
			control_mode = excluded.control_mode, requested_power_mw = excluded.requested_power_mw,
			poc_power_mw = excluded.poc_power_mw, effective_power_mw = excluded.effective_power_mw,
			status = excluded.status, reason = excluded.reason, emitted_at = excluded.emitted_at`,
			o.OrganizationID, o.AssetID, o.SetTime, o.DeliveryTime, string(o.ControlMode), o.RequestedPowerMW, o.PoCPowerMW,
			o.EffectivePowerMW, string(o.Status), o.Reason, o.EmittedAt)
	}
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error { return tx.SendBatch(ctx, batch).Close() })
}

func (s dispatchStore) Outcomes(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) (_ []dispatch.Outcome, err error) {
	defer sqlutil.Wrap(&err, "dispatch: outcomes")
	return collectDispatch(ctx, scanOutcome)(s.db.conn(ctx).Query(ctx, `SELECT `+outcomeColumns+` FROM dispatch_outcomes o
		LEFT JOIN dispatch_events e ON e.asset_id = o.asset_id AND e.set_time = o.set_time
		WHERE ($1 OR o.organization_id = $2) AND o.asset_id = $3 AND o.set_time >= $4 AND o.set_time < $5 ORDER BY o.set_time`,
		v.All, v.OrganizationID, assetID, from, to))
}

func (s dispatchStore) Prune(ctx context.Context, before time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "dispatch: prune")
	total := 0
	for _, q := range []string{
		`DELETE FROM immediate_dispatches WHERE end_time <= $1`,
		`DELETE FROM dispatch_events WHERE set_time < $1`,
		`DELETE FROM dispatch_outcomes WHERE set_time < $1`,
	} {
		tag, err := s.db.conn(ctx).Exec(ctx, q, before)
		total += int(tag.RowsAffected())
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
