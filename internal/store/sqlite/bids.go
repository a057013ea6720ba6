package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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
	bidSelect = "SELECT " + strings.Join(sqlutil.BidFixed, ", ") + ", " + strings.Join(sqlutil.BidMutable, ", ") + " FROM bids"
	bidInsert = hotWrite("INSERT INTO bids (" + strings.Join(sqlutil.BidFixed, ", ") + ", " + strings.Join(sqlutil.BidMutable, ", ") +
		") VALUES (?" + strings.Repeat(", ?", len(sqlutil.BidFixed)-1+len(sqlutil.BidMutable)) + ")")
	bidUpdate = hotWrite("UPDATE bids SET (" + strings.Join(sqlutil.BidMutable, ", ") + ") = (?" + strings.Repeat(", ?", len(sqlutil.BidMutable)-1) +
		") WHERE bid_id = ? AND asset_id = ?")
	bidDelete    = hotWrite(`DELETE FROM bids WHERE bid_id = ? AND asset_id = ? AND status = 'PENDING'`)
	bidsInWindow = hotWrite(bidSelect + ` WHERE asset_id = ? AND market = ? AND end_time > ? AND start_time < ?`)
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
	return scanBids(q.QueryContext(ctx, query, args...))
}

func scanBids(rows *sql.Rows, err error) ([]bids.Bid, error) {
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
	decide func(assets.Asset, []bids.Bid) (bids.Changes, error)) (err error) {
	defer sqlutil.Wrap(&err, "bids: apply")
	return s.apply(ctx, v, asset, market, window, nil, func(a assets.Asset, existing, _ []bids.Bid) (bids.Changes, error) {
		return decide(a, existing)
	})
}

func (s bidStore) ApplyAcross(ctx context.Context, v auth.Visibility, asset assets.Asset, market bids.Market, window calendar.Interval,
	others []bids.Market, decide func(a assets.Asset, existing, others []bids.Bid) (bids.Changes, error)) (err error) {
	defer sqlutil.Wrap(&err, "bids: apply across markets")
	return s.apply(ctx, v, asset, market, window, others, decide)
}

// apply is Apply, whose decide also gets the committed bids of the
// asset's other markets in the window, read under the same lock.
func (s bidStore) apply(ctx context.Context, v auth.Visibility, asset assets.Asset, market bids.Market, window calendar.Interval,
	others []bids.Market, decide func(a assets.Asset, existing, others []bids.Bid) (bids.Changes, error)) error {
	assetID := asset.ID
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The single write connection serialises every Apply; reading the
		// physical row checks it is still visible and not deleted.
		physical := asset.PhysicalID()
		get, err := s.db.txStmt(ctx, tx, assetGet)
		if err != nil {
			return fmt.Errorf("read the asset: %w", err)
		}
		a, err := scanAsset(get.QueryRowContext(ctx, v.All, v.OrganizationID, physical))
		if errors.Is(err, sql.ErrNoRows) {
			return assetNotFound(assetID)
		}
		if err != nil {
			return fmt.Errorf("read the asset: %w", err)
		}
		if asset.IsVirtual() {
			a = asset
		}
		inWindow, err := s.db.txStmt(ctx, tx, bidsInWindow)
		if err != nil {
			return fmt.Errorf("read the bids of the window: %w", err)
		}
		existing, err := scanBids(inWindow.QueryContext(ctx, assetID, string(market), sqlutil.Micros(window.Start), sqlutil.Micros(window.End)))
		if err != nil {
			return fmt.Errorf("read the bids of the window: %w", err)
		}
		var across []bids.Bid
		for _, m := range others {
			list, err := scanBids(inWindow.QueryContext(ctx, assetID, string(m), sqlutil.Micros(window.Start), sqlutil.Micros(window.End)))
			if err != nil {
				return fmt.Errorf("read the bids of the other markets: %w", err)
			}
			across = append(across, slices.DeleteFunc(list, func(b bids.Bid) bool { return !b.Status.Committed() })...)
		}
		ch, err := decide(a, existing, across)
		if err != nil {
			return err
		}
		reuse, deletes, inserts := recycle(existing, ch)
		if err := execEach(ctx, s.db, tx, bidDelete, deletes,
			func(id string) []any { return []any{id, assetID} }); err != nil {
			return fmt.Errorf("delete bids: %w", err)
		}
		if err := execEach(ctx, s.db, tx, bidUpdate, ch.Update, func(b bids.Bid) []any { return append(bidValues(b), b.ID, assetID) }); err != nil {
			return sqlutil.Wrapped("update bids", err)
		}
		if err := reuseRows(ctx, s.db, tx, assetID, reuse); err != nil {
			return sqlutil.Wrapped("rewrite recycled bid rows", err)
		}
		return sqlutil.Wrapped("insert bids", insertBids(ctx, s.db, tx, a.OrganizationID, assetID, inserts))
	})
}

// insertBids inserts bids of the asset assetID of organisation org.
func insertBids(ctx context.Context, db *DB, tx *sql.Tx, org, assetID string, list []bids.Bid) error {
	return execEach(ctx, db, tx, bidInsert, list, func(b bids.Bid) []any {
		return append([]any{b.ID, org, assetID, string(b.Market), string(b.Product), string(b.Source.OrAPI()), sqlutil.Micros(b.CreatedAt)},
			bidValues(b)...)
	})
}

// A REPLACE deletes an asset's PENDING bids and inserts new ones, mostly
// for the same periods. SQLite rewrites only the indexes on the columns an
// UPDATE sets, so a new bid written over a deleted one of the same
// product, period, idempotency key and source (a new id, price, power and
// creation time in the same row) leaves the indexes on time, status and
// key alone. Inserted afresh, a day of energy bids put one entry per
// quarter-hour into the index the markets scan by time, among every other
// asset's bids of that quarter-hour: a hundred scattered pages a day, each
// written to the log at commit (docs/performance.md). What the store holds
// afterwards is the same either way.
type reused struct {
	old string   // the id of the deleted bid whose row is reused
	bid bids.Bid // the new bid
}

// recycleSet lists the columns a reused row takes from its new bid; it
// keeps the others (recycleKeep), which recycle pairs only rows that agree
// on: the slot (product, period, status, idempotency key and source) and nothing
// yet of what the market records (see untouched).
var recycleSet = []string{"bid_id", "created_at", "capacity_price_cents", "energy_price_cents", "offered_power_mw", "updated_at"}

var recycleKeep = []string{"idempotency_key", "start_time", "end_time", "status",
	"awarded_power_mw", "settlement_price_cents", "price_source", "source_day", "clearing_note", "submitted_at",
	"edit_type", "edit_status", "edit_attempted_at", "edit_offered_power_mw", "edit_capacity_price_cents",
	"edit_energy_price_cents", "edit_failure_reason", "edit_failure_detail"}

// untouched reports whether b holds none of what the market records: no
// award, settlement, clearing source, submission or edit (true of every
// new bid), so that its row and another such row differ only in
// recycleSet's columns and their slot.
func untouched(b bids.Bid) bool {
	return b.AwardedMW == nil && b.SettlementPrice == nil && b.PriceSource == nil && b.SourceDay == nil &&
		b.ClearingNote == nil && b.SubmittedAt == nil && b.LastEdit == nil
}

// recycleBatch is how many rows one recycling UPDATE rewrites. Each
// statement run costs about as much in the driver as the row it writes,
// so the UPDATE joins the rows with a VALUES list of new bids, one row of
// recycleSet's values and the old id each; the last batch is padded with
// rows whose NULL old id matches no bid, so that one prepared statement
// serves any count. 50 takes a delivery day of quarter-hours (92 to 100)
// in two runs.
const recycleBatch = 50

var bidRecycle = hotWrite(func() string {
	to := make([]string, len(recycleSet))
	for i := range recycleSet {
		to[i] = fmt.Sprintf("n.column%d", i+1)
	}
	row := "(?" + strings.Repeat(", ?", len(recycleSet)) + ")"
	return "UPDATE bids SET (" + strings.Join(recycleSet, ", ") + ") = (" + strings.Join(to, ", ") + ")" +
		" FROM (VALUES " + row + strings.Repeat(", "+row, recycleBatch-1) + ") AS n" +
		fmt.Sprintf(" WHERE bids.bid_id = n.column%d AND bids.asset_id = ? AND bids.status = 'PENDING'", len(recycleSet)+1)
}())

// recycledValues appends b's values of recycleSet's columns.
func recycledValues(out []any, b bids.Bid) []any {
	return append(out, b.ID, sqlutil.Micros(b.CreatedAt), sqlutil.Cents(b.CapacityPrice), sqlutil.Cents(b.EnergyPrice),
		b.OfferedMW, sqlutil.Micros(b.UpdatedAt))
}

// reuseRows writes each new bid over its deleted one. Every old row is
// PENDING: the transaction read it so, and only a write transaction,
// which waits for this one, changes a bid.
func reuseRows(ctx context.Context, db *DB, tx *sql.Tx, assetID string, reuse []reused) error {
	if len(reuse) == 0 {
		return nil
	}
	stmt, err := db.txStmt(ctx, tx, bidRecycle)
	if err != nil {
		return err
	}
	perRow := len(recycleSet) + 1
	args := make([]any, 0, recycleBatch*perRow+1)
	return inSlices(reuse, recycleBatch, func(batch []reused) error {
		args = args[:0]
		for _, r := range batch {
			args = append(recycledValues(args, r.bid), r.old)
		}
		for range (recycleBatch - len(batch)) * perRow {
			args = append(args, nil)
		}
		res, err := stmt.ExecContext(ctx, append(args, assetID)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != int64(len(batch)) {
			return fmt.Errorf("sqlite: recycling %d bids of asset %q rewrote %d rows", len(batch), assetID, n)
		}
		return nil
	})
}

// recycle pairs the bids ch inserts with bids it deletes of the same
// product, period, status, idempotency key and source (a column set once,
// which the reused row keeps); the rest are deleted and inserted.
func recycle(existing []bids.Bid, ch bids.Changes) (reuse []reused, deletes []string, inserts []bids.Bid) {
	if len(ch.Delete) == 0 || len(ch.Insert) == 0 {
		return nil, ch.Delete, ch.Insert
	}
	type slot struct {
		product    bids.Product
		start, end int64
		status     bids.Status
		key        string
		keyed      bool
		source     bids.Source
	}
	slotOf := func(b bids.Bid) slot {
		s := slot{product: b.Product, start: b.Start.UnixMicro(), end: b.End.UnixMicro(), status: b.Status, source: b.Source.OrAPI()}
		if b.IdempotencyKey != nil {
			s.key, s.keyed = *b.IdempotencyKey, true
		}
		return s
	}
	byID := make(map[string]*bids.Bid, len(existing))
	for i := range existing {
		byID[existing[i].ID] = &existing[i]
	}
	free := make(map[slot][]string, len(ch.Delete))
	for _, id := range ch.Delete {
		if b, ok := byID[id]; ok && untouched(*b) {
			free[slotOf(*b)] = append(free[slotOf(*b)], id)
		}
	}
	taken := make(map[string]bool, len(ch.Insert))
	reuse = make([]reused, 0, len(ch.Insert)) // a REPLACE usually reuses them all
	for _, b := range ch.Insert {
		s := slotOf(b)
		if ids := free[s]; len(ids) > 0 && untouched(b) {
			reuse = append(reuse, reused{old: ids[0], bid: b})
			taken[ids[0]] = true
			free[s] = ids[1:]
			continue
		}
		inserts = append(inserts, b)
	}
	for _, id := range ch.Delete {
		if !taken[id] {
			deletes = append(deletes, id)
		}
	}
	return reuse, deletes, inserts
}

// execEach runs query once per item with the arguments args gives, on one
// prepared statement; a unique violation of a bid is its idempotency key.
func execEach[T any](ctx context.Context, db *DB, tx *sql.Tx, query string, items []T, args func(T) []any) error {
	if len(items) == 0 {
		return nil
	}
	stmt, err := db.txStmt(ctx, tx, query)
	if err != nil {
		return err
	}
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
	return errs.Conflictf(bids.CodeIdempotencyKeyInUse, "another bid already uses this idempotency key for %s/%s",
		b.Start.Format(time.RFC3339), b.End.Format(time.RFC3339))
}

// visibleBid filters by the caller's visibility (all, organisation).
const visibleBid = " WHERE (? OR organization_id = ?) AND asset_id = ? AND market = ?"

func (s bidStore) List(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, f bids.Filter) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: list")
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

func (s bidStore) Get(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, id string) (_ bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: get")
	b, err := scanBid(s.db.read(ctx).QueryRowContext(ctx, bidSelect+visibleBid+" AND bid_id = ?", v.All, v.OrganizationID, assetID, string(market), id))
	if errors.Is(err, sql.ErrNoRows) {
		return b, errs.NotFoundf("bid %q not found", id)
	}
	return b, err
}

func (s bidStore) Due(ctx context.Context, market bids.Market, status bids.Status, startBefore time.Time, limit int) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: due")
	return queryBids(ctx, s.db.read(ctx), bidSelect+` WHERE market = ? AND status = ? AND start_time < ? ORDER BY start_time, bid_id LIMIT ?`,
		string(market), string(status), sqlutil.Micros(startBefore), limit)
}

func (s bidStore) Covering(ctx context.Context, market bids.Market, status bids.Status, at time.Time) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: covering")
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

func (s bidStore) MarkSubmitted(ctx context.Context, refs []bids.Ref, at time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: mark submitted")
	return s.moveStatus(ctx, refs, bids.Pending, bids.Submitted, at, true)
}

func (s bidStore) MarkFailed(ctx context.Context, refs []bids.Ref, at time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: mark failed")
	return s.moveStatus(ctx, refs, bids.Pending, bids.Failed, at, false)
}

func (s bidStore) RecordOutcomes(ctx context.Context, outcomes []bids.Outcome, at time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: record outcomes")
	return s.recordOutcomes(ctx, outcomes, at, nil)
}

func (s bidStore) RecordAwards(ctx context.Context, outcomes []bids.Outcome, at time.Time, then bids.FollowUp) (_ int, err error) {
	defer sqlutil.Wrap(&err, "bids: record awards")
	return s.recordOutcomes(ctx, outcomes, at, &then)
}

// recordOutcomes records outcomes and, with then, the bids the awards
// among them bring, in one transaction.
func (s bidStore) recordOutcomes(ctx context.Context, outcomes []bids.Outcome, at time.Time, then *bids.FollowUp) (int, error) {
	n := 0
	err := s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n = 0
		var awarded []bids.Ref
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
				return sqlutil.Wrapped("record an outcome", err)
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += int(k)
			if k > 0 && o.Status == bids.Successful {
				awarded = append(awarded, o.Ref)
			}
		}
		if then == nil || len(awarded) == 0 {
			return nil
		}
		return s.followUp(ctx, tx, awarded, *then)
	})
	return n, err
}

// followUp inserts the bids then creates for the awards, asset by asset.
func (s bidStore) followUp(ctx context.Context, tx *sql.Tx, awarded []bids.Ref, then bids.FollowUp) error {
	var order []string
	byAsset := map[string][]bids.Bid{}
	for _, r := range awarded {
		b, err := scanBid(tx.QueryRowContext(ctx, bidSelect+` WHERE bid_id = ? AND asset_id = ?`, r.ID, r.AssetID))
		if err != nil {
			return sqlutil.Wrapped("read an award", err)
		}
		if byAsset[r.AssetID] == nil {
			order = append(order, r.AssetID)
		}
		byAsset[r.AssetID] = append(byAsset[r.AssetID], b)
	}
	for _, assetID := range order {
		awards := byAsset[assetID]
		ivs := make([]calendar.Interval, len(awards))
		for i, b := range awards {
			ivs[i] = b.Interval()
		}
		w := bids.Hull(ivs...)
		existing, err := queryBids(ctx, tx, bidSelect+` WHERE asset_id = ? AND market = ? AND end_time > ? AND start_time < ?`,
			assetID, string(then.Market), sqlutil.Micros(w.Start), sqlutil.Micros(w.End))
		if err != nil {
			return sqlutil.Wrapped("read the bids of the awards", err)
		}
		if err := insertBids(ctx, s.db, tx, awards[0].OrganizationID, assetID, then.Create(awards, existing)); err != nil {
			return sqlutil.Wrapped("insert the bids of the awards", err)
		}
	}
	return nil
}

func (s bidStore) PendingEdits(ctx context.Context, market bids.Market, limit int) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "bids: pending edits")
	return queryBids(ctx, s.db.read(ctx), bidSelect+` WHERE market = ? AND edit_status = 'PENDING_RESYNC' ORDER BY edit_attempted_at, bid_id LIMIT ?`,
		string(market), limit)
}

func (s bidStore) ResolveEdit(ctx context.Context, ref bids.Ref, applied bool, reason, detail string, at time.Time) (err error) {
	defer sqlutil.Wrap(&err, "bids: resolve edit")
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
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
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

func (s bidStore) CommittedAfter(ctx context.Context, assetID string, t time.Time) (_ map[bids.Market]int, err error) {
	defer sqlutil.Wrap(&err, "bids: committed after")
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
