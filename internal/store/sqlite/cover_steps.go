package sqlite

import (
	"context"
	"database/sql"
	"time"

	"atcp/internal/auth"
	"atcp/internal/portfolio"
	"atcp/internal/store/sqlutil"
)

// CoverSteps returns the store of the pool cover steps.
func (db *DB) CoverSteps() portfolio.Store { return coverStore{db} }

type coverStore struct{ db *DB }

const coverColumns = `organization_id, step_id, pool_id, quarter_hour, product, failing_asset_id, covering_asset_id, mw,
	obligation_mw, price_cents, price_source, from_time, to_time, created_at`

const coverOrder = ` ORDER BY from_time, failing_asset_id, product, coalesce(covering_asset_id, ''), step_id`

func scanCover(row restrictionRow) (portfolio.Step, error) {
	var s portfolio.Step
	var pool, covering, source sql.NullString
	var product string
	var qh, from, to, created int64
	var cents *int64
	if err := row.Scan(&s.OrganizationID, &s.ID, &pool, &qh, &product, &s.Failing, &covering, &s.MW, &s.ObligationMW,
		&cents, &source, &from, &to, &created); err != nil {
		return portfolio.Step{}, err
	}
	s.PoolID, s.Covering, s.PriceSource = pool.String, covering.String, source.String
	s.Product, s.Price = portfolio.Product(product), portfolio.PriceFromCents(cents)
	s.QuarterHour, s.From, s.To, s.CreatedAt = sqlutil.FromMicros(qh), sqlutil.FromMicros(from), sqlutil.FromMicros(to), sqlutil.FromMicros(created)
	return s, nil
}

func (s coverStore) OpenAt(ctx context.Context, t time.Time) (_ []portfolio.Step, err error) {
	defer sqlutil.Wrap(&err, "cover steps: in force")
	at := sqlutil.Micros(t)
	// A step lies inside its quarter-hour: only the quarter-hour of t can
	// hold steps in force at t, which keeps the read on the index.
	qh := sqlutil.Micros(t.Truncate(15 * time.Minute))
	return collect(ctx, scanCover)(s.db.read(ctx).QueryContext(ctx, `SELECT `+coverColumns+` FROM cover_steps
		WHERE quarter_hour = ?1 AND to_time > ?2 AND from_time <= ?2`+coverOrder, qh, at))
}

func (s coverStore) Supersede(ctx context.Context, t time.Time, closing, opening []portfolio.Step) (err error) {
	defer sqlutil.Wrap(&err, "cover steps: supersede")
	at := sqlutil.Micros(t)
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, c := range closing {
			if _, err := tx.ExecContext(ctx, `DELETE FROM cover_steps WHERE organization_id = ? AND step_id = ? AND from_time >= ?`,
				c.OrganizationID, c.ID, at); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE cover_steps SET to_time = ?3 WHERE organization_id = ?1 AND step_id = ?2 AND to_time > ?3`,
				c.OrganizationID, c.ID, at); err != nil {
				return err
			}
		}
		for _, o := range opening {
			if _, err := tx.ExecContext(ctx, `INSERT INTO cover_steps (`+coverColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				o.OrganizationID, o.ID, sqlutil.NullIfEmpty(o.PoolID), sqlutil.Micros(o.QuarterHour), string(o.Product), o.Failing,
				sqlutil.NullIfEmpty(o.Covering), o.MW, o.ObligationMW, portfolio.PriceCents(o.Price), sqlutil.NullIfEmpty(o.PriceSource),
				sqlutil.Micros(o.From), sqlutil.Micros(o.To), sqlutil.Micros(o.CreatedAt)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s coverStore) StepsIn(ctx context.Context, quarterHour time.Time) (_ []portfolio.Step, err error) {
	defer sqlutil.Wrap(&err, "cover steps: of a quarter-hour")
	return collect(ctx, scanCover)(s.db.read(ctx).QueryContext(ctx, `SELECT `+coverColumns+` FROM cover_steps
		WHERE quarter_hour = ?`+coverOrder, sqlutil.Micros(quarterHour)))
}

func (s coverStore) List(ctx context.Context, v auth.Visibility, f portfolio.Filter) (_ []portfolio.Step, err error) {
	defer sqlutil.Wrap(&err, "cover steps: list")
	return collect(ctx, scanCover)(s.db.read(ctx).QueryContext(ctx, `SELECT `+coverColumns+` FROM cover_steps
		WHERE (?1 OR organization_id = ?2) AND organization_id = ?3 AND (?4 = '' OR pool_id = ?4)
		AND (?8 = '' OR failing_asset_id = ?8 OR covering_asset_id = ?8)
		AND to_time > ?5 AND from_time < ?6`+coverOrder+` LIMIT ?7`,
		v.All, v.OrganizationID, f.OrganizationID, f.PoolID, sqlutil.Micros(f.Start), sqlutil.Micros(f.End), f.Limit, f.AssetID))
}
