package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store/sqlutil"
)

// Settlements returns the settlement figures' store.
func (db *DB) Settlements() settlement.Store { return settlementStore{db} }

// settlementStore rewrites a quarter-hour in one write transaction: the
// single write connection serialises two writers of the same quarter-hour.
type settlementStore struct{ db *DB }

const settlementColumns = `organization_id, asset_id, block_start, product, revenue_total_cents, backup_fee_total_cents,
	penalty_total_cents, processed_at`

// settlementBatch is how many rows one INSERT writes: a statement per row
// costs the pure-Go driver more than the row (a quarter-hour of 1,000
// assets is some 4,000 rows).
const settlementBatch = 100

var (
	settlementInsert      = `INSERT INTO settlement_figures (` + settlementColumns + `) VALUES `
	settlementInsertBatch = hotWrite(settlementInsert + "(?, ?, ?, ?, ?, ?, ?, ?)" + strings.Repeat(", (?, ?, ?, ?, ?, ?, ?, ?)", settlementBatch-1))
)

const settlementDelete = `DELETE FROM settlement_figures WHERE block_start = ? AND asset_id IN (SELECT value FROM json_each(?))`

// deliveryBidsQuery reads the bids a quarter-hour settles from. Capacity
// blocks last at most 5 hours (the fall-back day's first block), so the
// start bound keeps the scan of the (market, status, start_time) index to
// the hours before the quarter-hour.
var deliveryBidsQuery = bidSelect + ` WHERE market IN ('fcr', 'afrr_capacity') AND status = 'SUCCESSFUL'
		AND start_time > ?1 AND start_time <= ?2 AND end_time > ?2
	UNION ALL ` + bidSelect + ` WHERE market = 'afrr_energy' AND status IN ('PENDING', 'SUBMITTED', 'SUCCESSFUL', 'REJECTED', 'FALLBACK')
		AND start_time = ?2
	ORDER BY asset_id, bid_id`

func (s settlementStore) DeliveryBids(ctx context.Context, q time.Time) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "settlement: delivery bids")
	return queryBids(ctx, s.db.read(ctx), deliveryBidsQuery, sqlutil.Micros(q.Add(-settlementBlockReach)), sqlutil.Micros(q))
}

// settlementBlockReach bounds how long before a quarter-hour a capacity
// award covering it can start.
const settlementBlockReach = 6 * time.Hour

func scanSettlementRows(rows *sql.Rows, err error) ([]sqlutil.SettlementRow, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sqlutil.SettlementRow
	for rows.Next() {
		var r sqlutil.SettlementRow
		var start, processed, revenue, fee, penalty int64
		var product string
		if err := rows.Scan(&r.OrganizationID, &r.AssetID, &start, &product, &revenue, &fee, &penalty, &processed); err != nil {
			return nil, err
		}
		r.BlockStart, r.ProcessedAt, r.Product = sqlutil.FromMicros(start), sqlutil.FromMicros(processed), settlement.ProductKey(product)
		r.Figure = settlement.Figure{Revenue: decimal.New(revenue, -2), BackupFee: decimal.New(fee, -2), Penalty: decimal.New(penalty, -2)}
		out = append(out, r)
	}
	return out, rows.Err()
}

// cents is an amount of EUR (two decimals) as integer cents.
func cents(d decimal.Decimal) int64 { return d.Shift(2).IntPart() }

func (s settlementStore) Save(ctx context.Context, q time.Time, blocks []settlement.Block, at time.Time) (n int, err error) {
	defer sqlutil.Wrap(&err, "settlement: save")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		rows, err := scanSettlementRows(tx.QueryContext(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
			WHERE block_start = ? ORDER BY asset_id, block_start`, sqlutil.Micros(q)))
		if err != nil {
			return sqlutil.Wrapped("read stored figures", err)
		}
		stored := sqlutil.SettlementBlocks(rows)
		write, drop, err := settlement.Changes(q, stored, blocks)
		if err != nil {
			return err
		}
		had := make(map[string]bool, len(stored))
		for _, b := range stored {
			had[b.AssetID] = true
		}
		var gone []string
		for _, b := range append(write, drop...) {
			if had[b.AssetID] {
				gone = append(gone, b.AssetID)
			}
		}
		if len(gone) > 0 {
			ids, err := json.Marshal(gone)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, settlementDelete, sqlutil.Micros(q), string(ids)); err != nil {
				return sqlutil.Wrapped("delete figures", err)
			}
		}
		rows = sqlutil.SettlementRows(write, at)
		for len(rows) > 0 {
			batch := rows[:min(len(rows), settlementBatch)]
			rows = rows[len(batch):]
			args := make([]any, 0, 8*len(batch))
			for _, r := range batch {
				args = append(args, r.OrganizationID, r.AssetID, sqlutil.Micros(r.BlockStart), string(r.Product),
					cents(r.Figure.Revenue), cents(r.Figure.BackupFee), cents(r.Figure.Penalty), sqlutil.Micros(r.ProcessedAt))
			}
			q := settlementInsertBatch
			if len(batch) < settlementBatch {
				q = settlementInsert + "(?, ?, ?, ?, ?, ?, ?, ?)" + strings.Repeat(", (?, ?, ?, ?, ?, ?, ?, ?)", len(batch)-1)
			}
			ins, err := s.db.txStmt(ctx, tx, q)
			if err != nil {
				return err
			}
			if _, err := ins.ExecContext(ctx, args...); err != nil {
				return sqlutil.Wrapped("insert figures", err)
			}
		}
		n = len(write) + len(drop)
		return s.renderDays(ctx, tx, calendar.DayOf(q), append(write, drop...))
	})
	return n, err
}

// settlementDaysBatch is how many days one upsert writes.
const settlementDaysBatch = 50

const settlementDaysUpsert = `INSERT INTO settlement_days (organization_id, asset_id, delivery_day, block_count, totals_cents, blocks)
	VALUES `

const settlementDaysConflict = ` ON CONFLICT (organization_id, asset_id, delivery_day) DO UPDATE SET block_count = excluded.block_count,
	totals_cents = excluded.totals_cents, blocks = excluded.blocks`

// renderDays renders the day d of the assets of changed again from its
// figures: the day of an asset left without figures is deleted.
func (s settlementStore) renderDays(ctx context.Context, tx *sql.Tx, d calendar.Day, changed []settlement.Block) error {
	if len(changed) == 0 {
		return nil
	}
	ids := make([]string, len(changed))
	for i, b := range changed {
		ids[i] = b.AssetID
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	// In the block_start index's order, grouped by asset here: a sort by
	// asset in SQL cost the pure-Go engine more than the scan.
	span := d.Span()
	rows, err := scanSettlementRows(tx.QueryContext(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
		WHERE block_start >= ? AND block_start < ? AND asset_id IN (SELECT value FROM json_each(?))
		ORDER BY block_start`, sqlutil.Micros(span.Start), sqlutil.Micros(span.End), string(js)))
	if err != nil {
		return sqlutil.Wrapped("read the day's figures", err)
	}
	slices.SortStableFunc(rows, func(a, b sqlutil.SettlementRow) int {
		return cmp.Or(strings.Compare(a.OrganizationID, b.OrganizationID), strings.Compare(a.AssetID, b.AssetID))
	})
	days := settlement.RenderDays(sqlutil.SettlementBlocks(rows))
	kept := make(map[[2]string]bool, len(days))
	for _, x := range days {
		kept[[2]string{x.OrganizationID, x.AssetID}] = true
	}
	for _, b := range changed {
		if kept[[2]string{b.OrganizationID, b.AssetID}] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM settlement_days WHERE organization_id = ? AND asset_id = ? AND delivery_day = ?`,
			b.OrganizationID, b.AssetID, d.String()); err != nil {
			return sqlutil.Wrapped("delete a day", err)
		}
	}
	return s.writeDays(ctx, tx, days)
}

// writeDays stores days, replacing those stored.
func (s settlementStore) writeDays(ctx context.Context, tx *sql.Tx, days []settlement.Day) error {
	for len(days) > 0 {
		batch := days[:min(len(days), settlementDaysBatch)]
		days = days[len(batch):]
		args := make([]any, 0, 6*len(batch))
		for _, x := range batch {
			args = append(args, x.OrganizationID, x.AssetID, x.Day.String(), x.Blocks, x.Totals.String(), x.JSON)
		}
		q := settlementDaysUpsert + "(?, ?, ?, ?, ?, ?)" + strings.Repeat(", (?, ?, ?, ?, ?, ?)", len(batch)-1) + settlementDaysConflict
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return sqlutil.Wrapped("write days", err)
		}
	}
	return nil
}

func (s settlementStore) Days(ctx context.Context, v auth.Visibility, organizationID string, assetIDs []string, from, to calendar.Day) (_ []settlement.Day, err error) {
	defer sqlutil.Wrap(&err, "settlement: days")
	filter, args := "", []any{v.All, v.OrganizationID, organizationID, from.String(), to.String()}
	if assetIDs != nil {
		ids, err := json.Marshal(assetIDs)
		if err != nil {
			return nil, err
		}
		filter, args = ` AND asset_id IN (SELECT value FROM json_each(?))`, append(args, string(ids))
	}
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT organization_id, asset_id, delivery_day, block_count, totals_cents, blocks
		FROM settlement_days WHERE (? OR organization_id = ?) AND organization_id = ? AND delivery_day >= ? AND delivery_day < ?`+filter+`
		ORDER BY asset_id, delivery_day`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []settlement.Day
	var arena sqlutil.Arena
	for rows.Next() {
		var x settlement.Day
		var day, totals string
		var blocks sql.RawBytes
		if err := rows.Scan(&x.OrganizationID, &x.AssetID, &day, &x.Blocks, &totals, &blocks); err != nil {
			return nil, err
		}
		x.JSON = arena.Copy(blocks)
		if x.Day, err = calendar.ParseDay(day); err != nil {
			return nil, err
		}
		if x.Totals, err = settlement.ParseCents(totals); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

func (s settlementStore) RenderPendingDays(ctx context.Context) (n int, err error) {
	defer sqlutil.Wrap(&err, "settlement: render pending days")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var from int64
		err := tx.QueryRowContext(ctx, `SELECT next_block FROM settlement_progress WHERE job = ?`, settlement.DaysJob).Scan(&from)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		assets, err := tx.QueryContext(ctx, `SELECT DISTINCT organization_id, asset_id FROM settlement_figures ORDER BY 1, 2`)
		if err != nil {
			return err
		}
		var pairs [][2]string
		for assets.Next() {
			var p [2]string
			if err := assets.Scan(&p[0], &p[1]); err != nil {
				assets.Close()
				return err
			}
			pairs = append(pairs, p)
		}
		if err := errors.Join(assets.Err(), assets.Close()); err != nil {
			return err
		}
		// An asset at a time bounds what is held in memory.
		for _, p := range pairs {
			rows, err := scanSettlementRows(tx.QueryContext(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
				WHERE organization_id = ? AND asset_id = ? AND block_start >= ? ORDER BY block_start`, p[0], p[1], from))
			if err != nil {
				return err
			}
			days := settlement.RenderDays(sqlutil.SettlementBlocks(rows))
			if err := s.writeDays(ctx, tx, days); err != nil {
				return err
			}
			n += len(days)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM settlement_progress WHERE job = ?`, settlement.DaysJob)
		return err
	})
	return n, err
}

func (s settlementStore) Blocks(ctx context.Context, v auth.Visibility, organizationID string, assetIDs []string, w calendar.Interval) (_ []settlement.Block, err error) {
	defer sqlutil.Wrap(&err, "settlement: blocks")
	// Without assets the (organization_id, asset_id, block_start, product)
	// key is read for the whole organisation.
	filter, args := "", []any{v.All, v.OrganizationID, organizationID, sqlutil.Micros(w.Start), sqlutil.Micros(w.End)}
	if assetIDs != nil {
		ids, err := json.Marshal(assetIDs)
		if err != nil {
			return nil, err
		}
		filter, args = ` AND asset_id IN (SELECT value FROM json_each(?))`, append(args, string(ids))
	}
	rows, err := scanSettlementRows(s.db.read(ctx).QueryContext(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
		WHERE (? OR organization_id = ?) AND organization_id = ? AND block_start >= ? AND block_start < ?`+filter+`
		ORDER BY asset_id, block_start, product`, args...))
	if err != nil {
		return nil, err
	}
	out := sqlutil.SettlementBlocks(rows)
	if out == nil {
		out = []settlement.Block{}
	}
	return out, nil
}

func (s settlementStore) PendingEnergy(ctx context.Context, v auth.Visibility, organizationID string, w calendar.Interval) (_ []settlement.AssetQuarter, err error) {
	defer sqlutil.Wrap(&err, "settlement: pending energy")
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT DISTINCT asset_id, start_time FROM bids
		WHERE market = 'afrr_energy' AND status IN ('PENDING', 'SUBMITTED') AND start_time >= ? AND start_time < ?
		AND (? OR organization_id = ?) AND organization_id = ?
		ORDER BY asset_id, start_time`, sqlutil.Micros(w.Start), sqlutil.Micros(w.End), v.All, v.OrganizationID, organizationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []settlement.AssetQuarter
	for rows.Next() {
		var q settlement.AssetQuarter
		var start int64
		if err := rows.Scan(&q.AssetID, &start); err != nil {
			return nil, err
		}
		q.Start = sqlutil.FromMicros(start)
		out = append(out, q)
	}
	return out, rows.Err()
}

func (s settlementStore) Progress(ctx context.Context) (_ time.Time, _ bool, err error) {
	defer sqlutil.Wrap(&err, "settlement: progress")
	var next int64
	err = s.db.read(ctx).QueryRowContext(ctx, `SELECT next_block FROM settlement_progress WHERE job = ?`, settlement.JobName).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return sqlutil.FromMicros(next), true, nil
}

func (s settlementStore) SetProgress(ctx context.Context, next time.Time) (err error) {
	defer sqlutil.Wrap(&err, "settlement: set progress")
	_, err = s.db.write(ctx).ExecContext(ctx, `INSERT INTO settlement_progress (job, next_block) VALUES (?, ?)
		ON CONFLICT (job) DO UPDATE SET next_block = excluded.next_block`, settlement.JobName, sqlutil.Micros(next))
	return err
}
