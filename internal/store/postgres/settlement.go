package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store/sqlutil"
)

// Settlements returns the settlement figures' store.
func (db *DB) Settlements() settlement.Store { return settlementStore{db} }

// settlementStore rewrites a quarter-hour in one transaction under a
// transaction-scoped advisory lock on the quarter-hour, so that two
// writers of it (a job whose lease lapsed and its successor) apply one
// after the other, each comparing with what the other stored.
type settlementStore struct{ db *DB }

// Amounts are read as text: NUMERIC to decimal without a float between.
const settlementColumns = `organization_id, asset_id, block_start, product, revenue_total::text, backup_fee_total::text,
	penalty_total::text, processed_at`

// deliveryBidsQuery reads the bids a quarter-hour settles from. Capacity
// blocks last at most 5 hours (the fall-back day's first block), so the
// start bound keeps the scan of the (market, status, start_time) index to
// the hours before the quarter-hour.
var deliveryBidsQuery = bidSelect + ` WHERE market IN ('fcr', 'afrr_capacity') AND status = 'SUCCESSFUL'
		AND start_time > $1 AND start_time <= $2 AND end_time > $2
	UNION ALL ` + bidSelect + ` WHERE market = 'afrr_energy' AND status IN ('PENDING', 'SUBMITTED', 'SUCCESSFUL', 'REJECTED', 'FALLBACK')
		AND start_time = $2
	ORDER BY asset_id, bid_id`

// settlementBlockReach bounds how long before a quarter-hour a capacity
// award covering it can start.
const settlementBlockReach = 6 * time.Hour

func (s settlementStore) DeliveryBids(ctx context.Context, q time.Time) (_ []bids.Bid, err error) {
	defer sqlutil.Wrap(&err, "settlement: delivery bids")
	return queryBids(ctx, s.db.conn(ctx), deliveryBidsQuery, q.Add(-settlementBlockReach), q)
}

func scanSettlementRows(rows pgx.Rows, err error) ([]sqlutil.SettlementRow, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (sqlutil.SettlementRow, error) {
		var r sqlutil.SettlementRow
		var product, revenue, fee, penalty string
		if err := row.Scan(&r.OrganizationID, &r.AssetID, &r.BlockStart, &product, &revenue, &fee, &penalty, &r.ProcessedAt); err != nil {
			return r, err
		}
		r.BlockStart, r.ProcessedAt, r.Product = sqlutil.UTC(r.BlockStart), sqlutil.UTC(r.ProcessedAt), settlement.ProductKey(product)
		var errs [3]error
		r.Figure.Revenue, errs[0] = decimal.NewFromString(revenue)
		r.Figure.BackupFee, errs[1] = decimal.NewFromString(fee)
		r.Figure.Penalty, errs[2] = decimal.NewFromString(penalty)
		return r, errors.Join(errs[:]...)
	})
}

func (s settlementStore) Save(ctx context.Context, q time.Time, blocks []settlement.Block, at time.Time) (n int, err error) {
	defer sqlutil.Wrap(&err, "settlement: save")
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		// The lock is on the quarter-hour's delivery day: Save renders the
		// day again from its figures, which a writer of another
		// quarter-hour of the day may be changing.
		day := calendar.DayOf(q)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('settlement:' || $1::text, 0))`,
			day.String()); err != nil {
			return sqlutil.Wrapped("lock the delivery day", err)
		}
		rows, err := scanSettlementRows(tx.Query(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
			WHERE block_start = $1 ORDER BY asset_id, block_start`, q))
		if err != nil {
			return sqlutil.Wrapped("read stored figures", err)
		}
		write, drop, err := settlement.Changes(q, sqlutil.SettlementBlocks(rows), blocks)
		if err != nil {
			return err
		}
		n = len(write) + len(drop)
		if n == 0 {
			return nil
		}
		ids := make([]string, 0, n)
		for _, b := range append(write, drop...) {
			ids = append(ids, b.AssetID)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM settlement_figures WHERE block_start = $1 AND asset_id = ANY($2)`, q, ids); err != nil {
			return sqlutil.Wrapped("delete figures", err)
		}
		var orgs, assets, products, revenues, fees, penalties []string
		var starts, processed []time.Time
		for _, r := range sqlutil.SettlementRows(write, at) {
			orgs, assets, products = append(orgs, r.OrganizationID), append(assets, r.AssetID), append(products, string(r.Product))
			starts, processed = append(starts, r.BlockStart), append(processed, r.ProcessedAt)
			revenues, fees = append(revenues, r.Figure.Revenue.StringFixed(2)), append(fees, r.Figure.BackupFee.StringFixed(2))
			penalties = append(penalties, r.Figure.Penalty.StringFixed(2))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO settlement_figures (organization_id, asset_id, block_start, product,
				revenue_total, backup_fee_total, penalty_total, processed_at)
			SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[], $8::timestamptz[])`,
			orgs, assets, starts, products, revenues, fees, penalties, processed); err != nil {
			return sqlutil.Wrapped("insert figures", err)
		}
		return s.renderDays(ctx, tx, day, append(write, drop...))
	})
	return n, err
}

// renderDays renders the day d of the assets of changed again from its
// figures: the day of an asset left without figures is deleted.
func (s settlementStore) renderDays(ctx context.Context, tx pgx.Tx, d calendar.Day, changed []settlement.Block) error {
	if len(changed) == 0 {
		return nil
	}
	orgs, ids := make([]string, len(changed)), make([]string, len(changed))
	for i, b := range changed {
		orgs[i], ids[i] = b.OrganizationID, b.AssetID
	}
	span := d.Span()
	rows, err := scanSettlementRows(tx.Query(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
		WHERE block_start >= $1 AND block_start < $2 AND asset_id = ANY($3)
		ORDER BY organization_id, asset_id, block_start`, span.Start, span.End, ids))
	if err != nil {
		return sqlutil.Wrapped("read the day's figures", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM settlement_days WHERE (organization_id, asset_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
		AND delivery_day = $3::text::date`, orgs, ids, d.String()); err != nil {
		return sqlutil.Wrapped("delete days", err)
	}
	return writeDays(ctx, tx, settlement.RenderDays(sqlutil.SettlementBlocks(rows)))
}

// writeDays stores days, replacing those stored.
func writeDays(ctx context.Context, tx pgx.Tx, days []settlement.Day) error {
	if len(days) == 0 {
		return nil
	}
	n := len(days)
	orgs, ids, dates, totals := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	counts, blobs := make([]int32, n), make([][]byte, n)
	for i, x := range days {
		orgs[i], ids[i], dates[i], totals[i], counts[i], blobs[i] = x.OrganizationID, x.AssetID, x.Day.String(), x.Totals.String(),
			int32(x.Blocks), x.JSON
	}
	if _, err := tx.Exec(ctx, `INSERT INTO settlement_days (organization_id, asset_id, delivery_day, block_count, totals_cents, blocks)
		SELECT o, a, d::date, c, t, b FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::bytea[]) AS x(o, a, d, c, t, b)
		ON CONFLICT (organization_id, asset_id, delivery_day) DO UPDATE SET block_count = excluded.block_count,
			totals_cents = excluded.totals_cents, blocks = excluded.blocks`,
		orgs, ids, dates, counts, totals, blobs); err != nil {
		return sqlutil.Wrapped("write days", err)
	}
	return nil
}

func (s settlementStore) Days(ctx context.Context, v auth.Visibility, organizationID string, assetIDs []string, from, to calendar.Day) (_ []settlement.Day, err error) {
	defer sqlutil.Wrap(&err, "settlement: days")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT organization_id, asset_id, delivery_day::text, block_count, totals_cents, blocks
		FROM settlement_days WHERE ($1 OR organization_id = $2) AND organization_id = $3 AND ($4::text[] IS NULL OR asset_id = ANY($4))
		AND delivery_day >= $5::text::date AND delivery_day < $6::text::date
		ORDER BY asset_id, delivery_day`, v.All, v.OrganizationID, organizationID, assetIDs, from.String(), to.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []settlement.Day
	var arena sqlutil.Arena
	for rows.Next() {
		var x settlement.Day
		var day, totals string
		var count int32
		var blocks pgtype.DriverBytes
		if err := rows.Scan(&x.OrganizationID, &x.AssetID, &day, &count, &totals, &blocks); err != nil {
			return nil, err
		}
		x.JSON = arena.Copy(blocks)
		x.Blocks = int(count)
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
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		// Taken by one run at a time: a second waits and then finds no row.
		var from time.Time
		err := tx.QueryRow(ctx, `SELECT next_block FROM settlement_progress WHERE job = $1 FOR UPDATE`, settlement.DaysJob).Scan(&from)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		list, err := tx.Query(ctx, `SELECT DISTINCT organization_id, asset_id FROM settlement_figures ORDER BY 1, 2`)
		if err != nil {
			return err
		}
		pairs, err := pgx.CollectRows(list, func(row pgx.CollectableRow) ([2]string, error) {
			var p [2]string
			return p, row.Scan(&p[0], &p[1])
		})
		if err != nil {
			return err
		}
		// An asset at a time bounds what is held in memory.
		for _, p := range pairs {
			rows, err := scanSettlementRows(tx.Query(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
				WHERE organization_id = $1 AND asset_id = $2 AND block_start >= $3 ORDER BY block_start`, p[0], p[1], from))
			if err != nil {
				return err
			}
			days := settlement.RenderDays(sqlutil.SettlementBlocks(rows))
			if err := writeDays(ctx, tx, days); err != nil {
				return err
			}
			n += len(days)
		}
		_, err = tx.Exec(ctx, `DELETE FROM settlement_progress WHERE job = $1`, settlement.DaysJob)
		return err
	})
	return n, err
}

func (s settlementStore) Blocks(ctx context.Context, v auth.Visibility, organizationID string, assetIDs []string, w calendar.Interval) (_ []settlement.Block, err error) {
	defer sqlutil.Wrap(&err, "settlement: blocks")
	// A nil array reads the whole organisation.
	rows, err := scanSettlementRows(s.db.conn(ctx).Query(ctx, `SELECT `+settlementColumns+` FROM settlement_figures
		WHERE ($1 OR organization_id = $2) AND organization_id = $3 AND ($4::text[] IS NULL OR asset_id = ANY($4))
		AND block_start >= $5 AND block_start < $6
		ORDER BY asset_id, block_start, product`, v.All, v.OrganizationID, organizationID, assetIDs, w.Start, w.End))
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
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT DISTINCT asset_id, start_time FROM bids
		WHERE market = 'afrr_energy' AND status IN ('PENDING', 'SUBMITTED') AND start_time >= $1 AND start_time < $2
		AND ($3 OR organization_id = $4) AND organization_id = $5
		ORDER BY asset_id, start_time`, w.Start, w.End, v.All, v.OrganizationID, organizationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []settlement.AssetQuarter
	for rows.Next() {
		var q settlement.AssetQuarter
		if err := rows.Scan(&q.AssetID, &q.Start); err != nil {
			return nil, err
		}
		q.Start = q.Start.UTC()
		out = append(out, q)
	}
	return out, rows.Err()
}

func (s settlementStore) Progress(ctx context.Context) (_ time.Time, _ bool, err error) {
	defer sqlutil.Wrap(&err, "settlement: progress")
	var next time.Time
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT next_block FROM settlement_progress WHERE job = $1`, settlement.JobName).Scan(&next)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return next.UTC(), true, nil
}

func (s settlementStore) SetProgress(ctx context.Context, next time.Time) (err error) {
	defer sqlutil.Wrap(&err, "settlement: set progress")
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO settlement_progress (job, next_block) VALUES ($1, $2)
		ON CONFLICT (job) DO UPDATE SET next_block = excluded.next_block`, settlement.JobName, next)
	return err
}
