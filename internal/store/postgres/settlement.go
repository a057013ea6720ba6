package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
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
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('settlement:' || $1::text, 0))`,
			q.UTC().Format(time.RFC3339)); err != nil {
			return sqlutil.Wrapped("lock the quarter-hour", err)
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
		return nil
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
