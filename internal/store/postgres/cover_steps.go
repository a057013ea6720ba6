package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/portfolio"
	"atcp/internal/store/sqlutil"
)

// CoverSteps returns the store of the pool cover steps.
func (db *DB) CoverSteps() portfolio.Store { return coverStore{db} }

type coverStore struct{ db *DB }

const coverColumns = `organization_id, step_id::text, coalesce(pool_id, ''), quarter_hour, product, failing_asset_id,
	coalesce(covering_asset_id, ''), mw, obligation_mw, price_cents, coalesce(price_source, ''), from_time, to_time, created_at`

const coverOrder = ` ORDER BY from_time, failing_asset_id, product, coalesce(covering_asset_id, ''), step_id`

func scanCover(row pgx.Row) (portfolio.Step, error) {
	var s portfolio.Step
	var product string
	var cents *int64
	if err := row.Scan(&s.OrganizationID, &s.ID, &s.PoolID, &s.QuarterHour, &product, &s.Failing, &s.Covering, &s.MW,
		&s.ObligationMW, &cents, &s.PriceSource, &s.From, &s.To, &s.CreatedAt); err != nil {
		return portfolio.Step{}, err
	}
	s.Product, s.Price = portfolio.Product(product), portfolio.PriceFromCents(cents)
	s.QuarterHour, s.From, s.To, s.CreatedAt = s.QuarterHour.UTC(), s.From.UTC(), s.To.UTC(), s.CreatedAt.UTC()
	return s, nil
}

func (s coverStore) OpenAt(ctx context.Context, t time.Time) (_ []portfolio.Step, err error) {
	defer sqlutil.Wrap(&err, "cover steps: in force")
	// A step lies inside its quarter-hour: only the quarter-hour of t can
	// hold steps in force at t, which keeps the read on the index.
	return collectDispatch(ctx, scanCover)(s.db.conn(ctx).Query(ctx, `SELECT `+coverColumns+` FROM cover_steps
		WHERE quarter_hour = $1 AND to_time > $2 AND from_time <= $2`+coverOrder, t.Truncate(15*time.Minute), t))
}

func (s coverStore) Supersede(ctx context.Context, t time.Time, closing, opening []portfolio.Step) (err error) {
	defer sqlutil.Wrap(&err, "cover steps: supersede")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		for _, c := range closing {
			if _, err := tx.Exec(ctx, `DELETE FROM cover_steps WHERE organization_id = $1 AND step_id = $2 AND from_time >= $3`,
				c.OrganizationID, c.ID, t); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE cover_steps SET to_time = $3 WHERE organization_id = $1 AND step_id = $2 AND to_time > $3`,
				c.OrganizationID, c.ID, t); err != nil {
				return err
			}
		}
		for _, o := range opening {
			if _, err := tx.Exec(ctx, `INSERT INTO cover_steps (organization_id, step_id, pool_id, quarter_hour, product,
				failing_asset_id, covering_asset_id, mw, obligation_mw, price_cents, price_source, from_time, to_time, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
				o.OrganizationID, o.ID, sqlutil.NullIfEmpty(o.PoolID), o.QuarterHour, string(o.Product), o.Failing,
				sqlutil.NullIfEmpty(o.Covering), o.MW, o.ObligationMW, portfolio.PriceCents(o.Price),
				sqlutil.NullIfEmpty(o.PriceSource), o.From, o.To, o.CreatedAt); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s coverStore) StepsIn(ctx context.Context, quarterHour time.Time) (_ []portfolio.Step, err error) {
	defer sqlutil.Wrap(&err, "cover steps: of a quarter-hour")
	return collectDispatch(ctx, scanCover)(s.db.conn(ctx).Query(ctx, `SELECT `+coverColumns+` FROM cover_steps WHERE quarter_hour = $1`+coverOrder, quarterHour))
}

func (s coverStore) List(ctx context.Context, v auth.Visibility, f portfolio.Filter) (_ []portfolio.Step, err error) {
	defer sqlutil.Wrap(&err, "cover steps: list")
	return collectDispatch(ctx, scanCover)(s.db.conn(ctx).Query(ctx, `SELECT `+coverColumns+` FROM cover_steps
		WHERE ($1 OR organization_id = $2) AND organization_id = $3 AND ($4 = '' OR pool_id = $4)
		AND ($8 = '' OR failing_asset_id = $8 OR covering_asset_id = $8)
		AND to_time > $5 AND from_time < $6`+coverOrder+` LIMIT $7`,
		v.All, v.OrganizationID, f.OrganizationID, f.PoolID, f.Start, f.End, f.Limit, f.AssetID))
}
