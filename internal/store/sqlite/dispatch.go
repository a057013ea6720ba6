package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"atcp/internal/auth"
	"atcp/internal/dispatch"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/telemetry"
)

// Dispatch returns the dispatch store.
func (db *DB) Dispatch() dispatch.Store { return dispatchStore{db} }

// dispatchStore runs each asset's read-check-write in one write
// transaction: the single write connection serialises them, which is the
// asset row lock of this backend.
type dispatchStore struct{ db *DB }

const (
	immediateColumns = `dispatch_id, organization_id, asset_id, start_time, end_time, set_power_mw, created_at`
	eventColumns     = `organization_id, asset_id, set_time, delivery_time, control_mode, bess_power_mw, poc_power_mw,
		request_id, source_id, created_at`
	outcomeColumns = `o.organization_id, o.asset_id, o.set_time, o.delivery_time, o.control_mode, o.requested_power_mw,
		o.poc_power_mw, o.effective_power_mw, o.status, o.reason, o.emitted_at, COALESCE(e.request_id, ''), COALESCE(e.source_id, '')`
)

func scanImmediate(row restrictionRow) (dispatch.Immediate, error) {
	var im dispatch.Immediate
	var start, end, created int64
	if err := row.Scan(&im.ID, &im.OrganizationID, &im.AssetID, &start, &end, &im.SetPowerMW, &created); err != nil {
		return dispatch.Immediate{}, err
	}
	im.Start, im.End, im.CreatedAt = sqlutil.FromMicros(start), sqlutil.FromMicros(end), sqlutil.FromMicros(created)
	return im, nil
}

func scanEvent(row restrictionRow) (dispatch.Event, error) {
	var e dispatch.Event
	var set, delivery, created int64
	var mode string
	if err := row.Scan(&e.OrganizationID, &e.AssetID, &set, &delivery, &mode, &e.BESSPowerMW, &e.PoCPowerMW,
		&e.RequestID, &e.SourceID, &created); err != nil {
		return dispatch.Event{}, err
	}
	e.ControlMode = telemetry.ControlMode(mode)
	e.SetTime, e.DeliveryTime, e.CreatedAt = sqlutil.FromMicros(set), sqlutil.FromMicros(delivery), sqlutil.FromMicros(created)
	return e, nil
}

func scanOutcome(row restrictionRow) (dispatch.Outcome, error) {
	var o dispatch.Outcome
	var set, delivery, emitted int64
	var mode, status string
	if err := row.Scan(&o.OrganizationID, &o.AssetID, &set, &delivery, &mode, &o.RequestedPowerMW, &o.PoCPowerMW,
		&o.EffectivePowerMW, &status, &o.Reason, &emitted, &o.RequestID, &o.SourceID); err != nil {
		return dispatch.Outcome{}, err
	}
	o.ControlMode, o.Status = telemetry.ControlMode(mode), dispatch.Status(status)
	o.SetTime, o.DeliveryTime, o.EmittedAt = sqlutil.FromMicros(set), sqlutil.FromMicros(delivery), sqlutil.FromMicros(emitted)
	return o, nil
}

// lockDispatchAsset checks, inside the write transaction, that the asset
// row exists (the transaction itself is the lock).
func lockDispatchAsset(ctx context.Context, tx *sql.Tx, assetID string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM assets WHERE asset_id = ? AND deleted_at IS NULL`, assetID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return errs.NotFoundf("asset %q not found", assetID)
	}
	return err
}

func (s dispatchStore) StartImmediate(ctx context.Context, im dispatch.Immediate) (_ []dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: start immediate")
	var replaced []dispatch.Immediate
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := lockDispatchAsset(ctx, tx, im.AssetID); err != nil {
			return err
		}
		var err error
		replaced, err = collect(ctx, scanImmediate)(tx.QueryContext(ctx, `SELECT `+immediateColumns+` FROM immediate_dispatches
			WHERE asset_id = ? AND end_time > ? ORDER BY start_time`, im.AssetID, sqlutil.Micros(im.Start)))
		if err != nil {
			return err
		}
		for _, old := range replaced {
			cut, remove := dispatch.Replacement(old, im.Start)
			if remove {
				_, err = tx.ExecContext(ctx, `DELETE FROM immediate_dispatches WHERE asset_id = ? AND start_time = ?`,
					old.AssetID, sqlutil.Micros(old.Start))
			} else {
				_, err = tx.ExecContext(ctx, `UPDATE immediate_dispatches SET end_time = ? WHERE asset_id = ? AND start_time = ?`,
					sqlutil.Micros(cut.End), old.AssetID, sqlutil.Micros(old.Start))
			}
			if err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO immediate_dispatches (`+immediateColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			im.ID, im.OrganizationID, im.AssetID, sqlutil.Micros(im.Start), sqlutil.Micros(im.End), im.SetPowerMW, sqlutil.Micros(im.CreatedAt))
		return err
	})
	return replaced, err
}

func (s dispatchStore) EndImmediate(ctx context.Context, assetID string, at time.Time) (_ dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: end immediate")
	var im dispatch.Immediate
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := lockDispatchAsset(ctx, tx, assetID); err != nil {
			return err
		}
		var err error
		im, err = scanImmediate(tx.QueryRowContext(ctx, `UPDATE immediate_dispatches SET end_time = ?1
			WHERE asset_id = ?2 AND start_time < ?1 AND end_time > ?1 RETURNING `+immediateColumns, sqlutil.Micros(at), assetID))
		if errors.Is(err, sql.ErrNoRows) {
			// One that started at this very instant ends before it ran: removed.
			im, err = scanImmediate(tx.QueryRowContext(ctx, `DELETE FROM immediate_dispatches
				WHERE asset_id = ?2 AND start_time = ?1 AND end_time > ?1 RETURNING `+immediateColumns, sqlutil.Micros(at), assetID))
			im.End = at
		}
		if errors.Is(err, sql.ErrNoRows) {
			return errs.NotFoundf("asset %q has no active immediate dispatch", assetID)
		}
		return err
	})
	return im, err
}

func (s dispatchStore) Immediates(ctx context.Context, v auth.Visibility, assetID string, w dispatch.Window) (_ []dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: immediates")
	var from, to any
	if !w.From.IsZero() {
		from = sqlutil.Micros(w.From)
	}
	if !w.To.IsZero() {
		to = sqlutil.Micros(w.To)
	}
	return collect(ctx, scanImmediate)(s.db.read(ctx).QueryContext(ctx, `SELECT `+immediateColumns+` FROM immediate_dispatches
		WHERE (?1 OR organization_id = ?2) AND asset_id = ?3
		AND (?4 IS NULL OR end_time > ?4) AND (?5 IS NULL OR start_time < ?5)
		ORDER BY start_time`, v.All, v.OrganizationID, assetID, from, to))
}

func (s dispatchStore) ActiveImmediate(ctx context.Context, at time.Time) (_ []dispatch.Immediate, err error) {
	defer sqlutil.Wrap(&err, "dispatch: active immediate")
	return collect(ctx, scanImmediate)(s.db.read(ctx).QueryContext(ctx, `SELECT `+immediateColumns+` FROM immediate_dispatches
		WHERE end_time > ?1 AND start_time <= ?1 ORDER BY asset_id`, sqlutil.Micros(at)))
}

func (s dispatchStore) ReplaceEvents(ctx context.Context, assetID string, from, to time.Time, events []dispatch.Event) (err error) {
	defer sqlutil.Wrap(&err, "dispatch: replace events")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := lockDispatchAsset(ctx, tx, assetID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dispatch_events WHERE asset_id = ? AND set_time >= ? AND set_time < ?`,
			assetID, sqlutil.Micros(from), sqlutil.Micros(to)); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO dispatch_events (`+eventColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, e := range events {
			if _, err := stmt.ExecContext(ctx, e.OrganizationID, e.AssetID, sqlutil.Micros(e.SetTime), sqlutil.Micros(e.DeliveryTime),
				string(e.ControlMode), e.BESSPowerMW, e.PoCPowerMW, e.RequestID, e.SourceID, sqlutil.Micros(e.CreatedAt)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s dispatchStore) Events(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) (_ []dispatch.Event, err error) {
	defer sqlutil.Wrap(&err, "dispatch: events")
	return collect(ctx, scanEvent)(s.db.read(ctx).QueryContext(ctx, `SELECT `+eventColumns+` FROM dispatch_events
		WHERE (? OR organization_id = ?) AND asset_id = ? AND set_time >= ? AND set_time < ? ORDER BY set_time`,
		v.All, v.OrganizationID, assetID, sqlutil.Micros(from), sqlutil.Micros(to)))
}

func (s dispatchStore) EventsBetween(ctx context.Context, from, to time.Time) (_ []dispatch.Event, err error) {
	defer sqlutil.Wrap(&err, "dispatch: events between")
	return collect(ctx, scanEvent)(s.db.read(ctx).QueryContext(ctx, `SELECT `+eventColumns+` FROM dispatch_events
		WHERE set_time > ? AND set_time <= ? ORDER BY set_time, asset_id`, sqlutil.Micros(from), sqlutil.Micros(to)))
}

func (s dispatchStore) CurrentEvents(ctx context.Context, at time.Time) (_ []dispatch.Event, err error) {
	defer sqlutil.Wrap(&err, "dispatch: current events")
	// Each candidate probes the primary key for a later event of its asset.
	return collect(ctx, scanEvent)(s.db.read(ctx).QueryContext(ctx, `SELECT `+eventColumns+` FROM dispatch_events e
		WHERE set_time >= ?1 AND set_time <= ?2 AND NOT EXISTS (SELECT 1 FROM dispatch_events n
			WHERE n.asset_id = e.asset_id AND n.set_time > e.set_time AND n.set_time <= ?2)
		ORDER BY asset_id`, sqlutil.Micros(dispatch.BlockOf(at)), sqlutil.Micros(at)))
}

func (s dispatchStore) RecordOutcomes(ctx context.Context, outcomes []dispatch.Outcome) (err error) {
	defer sqlutil.Wrap(&err, "dispatch: record outcomes")
	if len(outcomes) == 0 {
		return nil
	}
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO dispatch_outcomes (organization_id, asset_id, set_time, delivery_time,
			control_mode, requested_power_mw, poc_power_mw, effective_power_mw, status, reason, emitted_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (asset_id, set_time) DO UPDATE SET delivery_time = excluded.delivery_time,
			control_mode = excluded.control_mode, requested_power_mw = excluded.requested_power_mw,
			poc_power_mw = excluded.poc_power_mw, effective_power_mw = excluded.effective_power_mw,
			status = excluded.status, reason = excluded.reason, emitted_at = excluded.emitted_at`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, o := range outcomes {
			if _, err := stmt.ExecContext(ctx, o.OrganizationID, o.AssetID, sqlutil.Micros(o.SetTime), sqlutil.Micros(o.DeliveryTime),
				string(o.ControlMode), o.RequestedPowerMW, o.PoCPowerMW, o.EffectivePowerMW, string(o.Status), o.Reason,
				sqlutil.Micros(o.EmittedAt)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s dispatchStore) Outcomes(ctx context.Context, v auth.Visibility, assetID string, from, to time.Time) (_ []dispatch.Outcome, err error) {
	defer sqlutil.Wrap(&err, "dispatch: outcomes")
	return collect(ctx, scanOutcome)(s.db.read(ctx).QueryContext(ctx, `SELECT `+outcomeColumns+` FROM dispatch_outcomes o
		LEFT JOIN dispatch_events e ON e.asset_id = o.asset_id AND e.set_time = o.set_time
		WHERE (? OR o.organization_id = ?) AND o.asset_id = ? AND o.set_time >= ? AND o.set_time < ? ORDER BY o.set_time`,
		v.All, v.OrganizationID, assetID, sqlutil.Micros(from), sqlutil.Micros(to)))
}

func (s dispatchStore) Prune(ctx context.Context, before time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "dispatch: prune")
	total := 0
	cut := sqlutil.Micros(before)
	// Small transactions, so that the single writer is never held long.
	for _, q := range []string{
		`DELETE FROM immediate_dispatches WHERE rowid IN (SELECT rowid FROM immediate_dispatches WHERE end_time <= ? LIMIT ?)`,
		`DELETE FROM dispatch_events WHERE rowid IN (SELECT rowid FROM dispatch_events WHERE set_time < ? LIMIT ?)`,
		`DELETE FROM dispatch_outcomes WHERE rowid IN (SELECT rowid FROM dispatch_outcomes WHERE set_time < ? LIMIT ?)`,
	} {
		for {
			var n int64
			err := s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
				res, err := tx.ExecContext(ctx, q, cut, pruneBatch)
				if err != nil {
					return err
				}
				n, err = res.RowsAffected()
				return err
			})
			total += int(n)
			if err != nil {
				return total, err
			}
			if n < pruneBatch {
				break
			}
		}
	}
	return total, nil
}
