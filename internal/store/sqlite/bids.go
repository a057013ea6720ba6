package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/store/sqlutil"
)

// Bids returns the bid store of every market.
func (db *DB) Bids() bids.Store { return bidStore{db} }

// bidStore runs every change of an asset's bids in one write transaction:
// the single write connection is the per-asset lock (and more).
type bidStore struct{ db *DB }

var (
	bidSelect = "SELECT bid_id, organization_id, asset_id, market, product, created_at, " + strings.Join(sqlutil.BidMutable, ", ") + " FROM bids"
	bidInsert = "INSERT INTO bids (bid_id, organization_id, asset_id, market, product, created_at, " + strings.Join(sqlutil.BidMutable, ", ") +
		") VALUES (?" + strings.Repeat(", ?", 5+len(sqlutil.BidMutable)) + ")"
	bidUpdate = "UPDATE bids SET (" + strings.Join(sqlutil.BidMutable, ", ") + ") = (?" + strings.Repeat(", ?", len(sqlutil.BidMutable)-1) +
		") WHERE bid_id = ? AND asset_id = ?"
)

func bidValues(b bids.Bid) []any {
	var editAt any
	if b.LastEdit != nil {
		editAt = sqlutil.Micros(b.LastEdit.AttemptedAt)
	}
	return sqlutil.BidValues(b, sqlutil.BidInstants{Start: sqlutil.Micros(b.Start), End: sqlutil.Micros(b.End),
		SubmittedAt: sqlutil.NullMicros(b.SubmittedAt), EditAttemptedAt: editAt, UpdatedAt: sqlutil.Micros(b.UpdatedAt)})
}

func scanBid(row interface{ Scan(...any) error }) (bids.Bid, error) {
	var b bids.Bid
	var r sqlutil.BidRow
	var created, start, end, updated int64
	var submitted, editAt *int64
	if err := row.Scan(r.Targets(&b, &created, &start, &end, &submitted, &editAt, &updated)...); err != nil {
		return b, err
	}
	b.CreatedAt, b.UpdatedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(updated)
	b.Start, b.End = sqlutil.FromMicros(start), sqlutil.FromMicros(end)
	b.SubmittedAt = sqlutil.FromNullMicros(submitted)
	r.Finish(&b, sqlutil.FromNullMicros(editAt))
	return b, nil
}

type bidQuerier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func queryBids(ctx context.Context, q bidQuerier, query string, args ...any) ([]bids.Bid, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []bids.Bid{}
	for rows.Next() {
		b, err := scanBid(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func (s bidStore) Apply(ctx context.Context, v auth.Visibility, asset assets.Asset, market bids.Market, window calendar.Interval,
	decide func(assets.Asset, []bids.Bid) (bids.Changes, error)) error {
	assetID := asset.ID
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The single write connection serialises every Apply; reading the
		// physical row checks it is still visible and not deleted.
		physical := asset.PhysicalID()
		a, err := scanAsset(tx.QueryRowContext(ctx, assetSelect+visibleAsset+" AND a.asset_id = ?", v.All, v.OrganizationID, physical))
		if errors.Is(err, sql.ErrNoRows) {
			return assetNotFound(assetID)
		}
		if err != nil {
			return err
		}
		if asset.IsVirtual() {
			a = asset
		}
		existing, err := queryBids(ctx, tx, bidSelect+` WHERE asset_id = ? AND market = ? AND end_time > ? AND start_time < ?`,
			assetID, string(market), sqlutil.Micros(window.Start), sqlutil.Micros(window.End))
		if err != nil {
			return err
		}
		ch, err := decide(a, existing)
		if err != nil {
			return err
		}
		// A day of energy bids is a hundred rows: each statement is parsed
		// once per transaction, not once per row.
		if err := execEach(ctx, tx, `DELETE FROM bids WHERE bid_id = ? AND asset_id = ? AND status = 'PENDING'`, ch.Delete,
			func(id string) []any { return []any{id, assetID} }); err != nil {
			return err
		}
		if err := execEach(ctx, tx, bidUpdate, ch.Update, func(b bids.Bid) []any { return append(bidValues(b), b.ID, assetID) }); err != nil {
			return err
		}
		return execEach(ctx, tx, bidInsert, ch.Insert, func(b bids.Bid) []any {
			return append([]any{b.ID, a.OrganizationID, assetID, string(b.Market), string(b.Product), sqlutil.Micros(b.CreatedAt)}, bidValues(b)...)
		})
	})
}

// execEach runs query once per item with the arguments args gives, on one
// prepared statement; a unique violation of a bid is its idempotency key.
func execEach[T any](ctx context.Context, tx *sql.Tx, query string, items []T, args func(T) []any) error {
	if len(items) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, it := range items {
		if _, err := stmt.ExecContext(ctx, args(it)...); err != nil {
			if b, ok := any(it).(bids.Bid); ok && isUniqueViolation(err) {
				return keyInUse(b)
			}
			return err
		}
	}
	return nil
}

func keyInUse(b bids.Bid) error {
	return errs.Conflictf("idempotency_key_in_use", "another bid already uses this idempotency key for %s/%s",
		b.Start.Format(time.RFC3339), b.End.Format(time.RFC3339))
}

// visibleBid filters by the caller's visibility (all, organisation).
const visibleBid = " WHERE (? OR organization_id = ?) AND asset_id = ? AND market = ?"

func (s bidStore) List(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, f bids.Filter) ([]bids.Bid, error) {
	q := bidSelect + visibleBid + " AND end_time > ?"
	args := []any{v.All, v.OrganizationID, assetID, string(market), sqlutil.Micros(f.EndAfter)}
	if f.Start != nil {
		q += " AND end_time > ?"
		args = append(args, sqlutil.Micros(*f.Start))
	}
	if f.End != nil {
		q += " AND start_time < ?"
		args = append(args, sqlutil.Micros(*f.End))
	}
	if f.Product != nil {
		q += " AND product = ?"
		args = append(args, string(*f.Product))
	}
	return queryBids(ctx, s.db.read(ctx), q+" ORDER BY start_time, product, created_at, bid_id", args...)
}

func (s bidStore) Get(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, id string) (bids.Bid, error) {
	b, err := scanBid(s.db.read(ctx).QueryRowContext(ctx, bidSelect+visibleBid+" AND bid_id = ?", v.All, v.OrganizationID, assetID, string(market), id))
	if errors.Is(err, sql.ErrNoRows) {
		return b, errs.NotFoundf("bid %q not found", id)
	}
	return b, err
}

func (s bidStore) Due(ctx context.Context, market bids.Market, status bids.Status, startBefore time.Time, limit int) ([]bids.Bid, error) {
	return queryBids(ctx, s.db.read(ctx), bidSelect+` WHERE market = ? AND status = ? AND start_time < ? ORDER BY start_time, bid_id LIMIT ?`,
		string(market), string(status), sqlutil.Micros(startBefore), limit)
}

func (s bidStore) Covering(ctx context.Context, market bids.Market, status bids.Status, at time.Time) ([]bids.Bid, error) {
	return queryBids(ctx, s.db.read(ctx), bidSelect+` WHERE market = ? AND status = ? AND start_time <= ?3 AND end_time > ?3 ORDER BY asset_id, bid_id`,
		string(market), string(status), sqlutil.Micros(at))
}

// moveStatus moves bids from one status to another in one transaction.
func (s bidStore) moveStatus(ctx context.Context, refs []bids.Ref, from, to bids.Status, at time.Time, submitted bool) (int, error) {
	n := 0
	err := s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n = 0
		q := `UPDATE bids SET status = ?1, updated_at = ?2 WHERE bid_id = ?3 AND asset_id = ?4 AND status = ?5`
		if submitted {
			q = `UPDATE bids SET status = ?1, updated_at = ?2, submitted_at = ?2 WHERE bid_id = ?3 AND asset_id = ?4 AND status = ?5`
		}
		for _, r := range refs {
			res, err := tx.ExecContext(ctx, q, string(to), sqlutil.Micros(at), r.ID, r.AssetID, string(from))
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += int(k)
		}
		return nil
	})
	return n, err
}

func (s bidStore) MarkSubmitted(ctx context.Context, refs []bids.Ref, at time.Time) (int, error) {
	return s.moveStatus(ctx, refs, bids.Pending, bids.Submitted, at, true)
}

func (s bidStore) MarkFailed(ctx context.Context, refs []bids.Ref, at time.Time) (int, error) {
	return s.moveStatus(ctx, refs, bids.Pending, bids.Failed, at, false)
}

func (s bidStore) RecordOutcomes(ctx context.Context, outcomes []bids.Outcome, at time.Time) (int, error) {
	n := 0
	err := s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n = 0
		for _, o := range outcomes {
			from := "status = 'SUBMITTED'"
			if o.Status == bids.Fallback {
				from = "status IN ('SUBMITTED', 'PENDING')"
			}
			res, err := tx.ExecContext(ctx, `UPDATE bids SET status = ?, awarded_power_mw = ?, settlement_price_cents = ?, price_source = ?,
				source_day = ?, clearing_note = ?, updated_at = ?
				WHERE bid_id = ? AND asset_id = ? AND `+from,
				string(o.Status), o.AwardedMW, sqlutil.Cents(o.SettlementPrice), o.PriceSource, o.SourceDay, o.ClearingNote,
				sqlutil.Micros(at), o.ID, o.AssetID)
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += int(k)
		}
		return nil
	})
	return n, err
}

func (s bidStore) PendingEdits(ctx context.Context, market bids.Market, limit int) ([]bids.Bid, error) {
	return queryBids(ctx, s.db.read(ctx), bidSelect+` WHERE market = ? AND edit_status = 'PENDING_RESYNC' ORDER BY edit_attempted_at, bid_id LIMIT ?`,
		string(market), limit)
}

func (s bidStore) ResolveEdit(ctx context.Context, ref bids.Ref, applied bool, reason, detail string, at time.Time) error {
	q := `UPDATE bids SET edit_status = 'FAILED_LATE_EDIT', edit_failure_reason = ?, edit_failure_detail = ?, updated_at = ?
		WHERE bid_id = ? AND asset_id = ? AND edit_status = 'PENDING_RESYNC'`
	args := []any{reason, detail, sqlutil.Micros(at), ref.ID, ref.AssetID}
	if applied {
		q = `UPDATE bids SET offered_power_mw = edit_offered_power_mw, capacity_price_cents = edit_capacity_price_cents,
			energy_price_cents = edit_energy_price_cents, edit_status = 'APPLIED', updated_at = ?
			WHERE bid_id = ? AND asset_id = ? AND edit_status = 'PENDING_RESYNC'`
		args = []any{sqlutil.Micros(at), ref.ID, ref.AssetID}
	}
	var n int64
	err := s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return errs.NotFoundf("bid %q has no pending edit", ref.ID)
	}
	return nil
}

func (s bidStore) CommittedAfter(ctx context.Context, assetID string, t time.Time) (map[bids.Market]int, error) {
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT market, count(*) FROM bids WHERE asset_id = ? AND end_time > ?
		AND status IN ('PENDING', 'SUBMITTED', 'SUCCESSFUL', 'FALLBACK') GROUP BY market`, assetID, sqlutil.Micros(t))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[bids.Market]int{}
	for rows.Next() {
		var m string
		var n int
		if err := rows.Scan(&m, &n); err != nil {
			return nil, err
		}
		out[bids.Market(m)] = n
	}
	return out, rows.Err()
}
