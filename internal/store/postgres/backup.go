package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/calendar"
	"atcp/internal/store/sqlutil"
)

// BackupMarket returns the aFRR backup-market store.
func (db *DB) BackupMarket() afrr.BackupStore { return backupStore{db} }

// backupStore serialises the writes of one asset by locking the asset row
// first, so that the overlap check and the insert hold across instances.
type backupStore struct{ db *DB }

// Reads hide the rows of a deleted physical asset (a virtual asset's rows
// have no asset row of their own: its id resolves only while its parent's
// segmentation is active, checked before the read), and filter by the caller's visibility ($1 all, $2 organisation, $3 asset).
const (
	overrideSelect = `SELECT o.override_id::text, o.organization_id, o.asset_id, o.product, o.start_time, o.end_time,
		o.price_cents, o.max_capacity_mw, o.note, o.created_at
		FROM backup_overrides o
		WHERE NOT EXISTS (SELECT 1 FROM assets a WHERE a.asset_id = o.asset_id AND a.deleted_at IS NOT NULL) AND ($1 OR o.organization_id = $2) AND o.asset_id = $3`
	defaultSelect = `SELECT d.organization_id, d.asset_id, d.product, d.effective_from, d.price_cents, d.max_capacity_mw, d.updated_at
		FROM backup_defaults d
		WHERE NOT EXISTS (SELECT 1 FROM assets a WHERE a.asset_id = d.asset_id AND a.deleted_at IS NOT NULL) AND ($1 OR d.organization_id = $2) AND d.asset_id = $3 AND d.product = $4`
)

func scanOverride(row pgx.Row) (afrr.Override, error) {
	var o afrr.Override
	var product string
	var cents *int64
	if err := row.Scan(&o.ID, &o.OrganizationID, &o.AssetID, &product, &o.Start, &o.End, &cents, &o.MaxCapacityMW, &o.Note, &o.CreatedAt); err != nil {
		return afrr.Override{}, err
	}
	o.Product = afrr.Product(product)
	o.Start, o.End, o.CreatedAt = sqlutil.UTC(o.Start), sqlutil.UTC(o.End), sqlutil.UTC(o.CreatedAt)
	if cents != nil {
		p := afrr.PriceFromCents(*cents)
		o.Price = &p
	}
	return o, nil
}

func scanDefault(row pgx.Row) (afrr.Default, error) {
	var d afrr.Default
	var product string
	var cents int64
	if err := row.Scan(&d.OrganizationID, &d.AssetID, &product, &d.EffectiveFrom, &cents, &d.MaxCapacityMW, &d.UpdatedAt); err != nil {
		return afrr.Default{}, err
	}
	d.Product = afrr.Product(product)
	d.EffectiveFrom, d.UpdatedAt = sqlutil.UTC(d.EffectiveFrom), sqlutil.UTC(d.UpdatedAt)
	d.Price = afrr.PriceFromCents(cents)
	return d, nil
}

// lockBackupAsset locks the physical row behind a visible asset (the
// parent's for a virtual asset) until the transaction ends and returns its
// organisation. FOR NO KEY UPDATE conflicts with itself, so backup-market
// writes of one battery run one after the other, without blocking plain
// reads of the asset.
func lockBackupAsset(ctx context.Context, tx pgx.Tx, v auth.Visibility, a assets.Asset) (string, error) {
	var org string
	err := tx.QueryRow(ctx, `SELECT organization_id FROM assets
		WHERE deleted_at IS NULL AND ($1 OR organization_id = $2) AND asset_id = $3 FOR NO KEY UPDATE`,
		v.All, v.OrganizationID, a.PhysicalID()).Scan(&org)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", assetNotFound(a.ID)
	}
	return org, err
}

func (s backupStore) CreateOverride(ctx context.Context, v auth.Visibility, a assets.Asset, o afrr.Override) (_ afrr.Override, err error) {
	defer sqlutil.Wrap(&err, "backup: create override")
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		org, err := lockBackupAsset(ctx, tx, v, a)
		if err != nil {
			return err
		}
		o.OrganizationID = org
		rows, err := tx.Query(ctx, `SELECT override_id::text FROM backup_overrides
			WHERE asset_id = $1 AND product = $2 AND start_time < $3 AND end_time > $4 ORDER BY start_time LIMIT 5`,
			o.AssetID, string(o.Product), o.End, o.Start)
		if err != nil {
			return err
		}
		clash, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(clash) > 0 {
			return afrr.OverlapConflict(o, clash)
		}
		var cents *int64
		if o.Price != nil {
			c := afrr.PriceCents(*o.Price)
			cents = &c
		}
		_, err = tx.Exec(ctx, `INSERT INTO backup_overrides (override_id, organization_id, asset_id, product,
			start_time, end_time, price_cents, max_capacity_mw, note, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			o.ID, o.OrganizationID, o.AssetID, string(o.Product), o.Start, o.End, cents, o.MaxCapacityMW, o.Note, o.CreatedAt)
		return err
	})
	if err != nil {
		return afrr.Override{}, err
	}
	return o, nil
}

func (s backupStore) Overrides(ctx context.Context, v auth.Visibility, assetID string, f afrr.OverrideFilter) (_ []afrr.Override, err error) {
	defer sqlutil.Wrap(&err, "backup: overrides")
	var q strings.Builder
	q.WriteString(overrideSelect)
	args := []any{v.All, v.OrganizationID, assetID}
	arg := func(cond string, val any) {
		args = append(args, val)
		q.WriteString(" AND " + cond + " $" + strconv.Itoa(len(args)))
	}
	if f.Product != "" {
		arg("o.product =", string(f.Product))
	}
	if !f.From.IsZero() {
		arg("o.end_time >", f.From)
	}
	if !f.To.IsZero() {
		arg("o.start_time <", f.To)
	}
	q.WriteString(" ORDER BY o.start_time, o.product, o.override_id")
	rows, err := s.db.conn(ctx).Query(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (afrr.Override, error) { return scanOverride(r) })
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []afrr.Override{}
	}
	return list, nil
}

func (s backupStore) DeleteOverride(ctx context.Context, v auth.Visibility, assetID, id string, check func(afrr.Override) error) (err error) {
	defer sqlutil.Wrap(&err, "backup: delete override")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		o, err := scanOverride(tx.QueryRow(ctx, overrideSelect+" AND o.override_id = $4 FOR UPDATE OF o", v.All, v.OrganizationID, assetID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return afrr.OverrideNotFound(id)
		}
		if err != nil {
			return err
		}
		if err := check(o); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM backup_overrides WHERE override_id = $1`, id)
		return err
	})
}

func (s backupStore) PutDefault(ctx context.Context, v auth.Visibility, a assets.Asset, d afrr.Default) (_ afrr.Default, err error) {
	defer sqlutil.Wrap(&err, "backup: put default")
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		org, err := lockBackupAsset(ctx, tx, v, a)
		if err != nil {
			return err
		}
		d.OrganizationID = org
		if _, err := tx.Exec(ctx, `DELETE FROM backup_defaults WHERE asset_id = $1 AND product = $2 AND effective_from >= $3`,
			d.AssetID, string(d.Product), d.EffectiveFrom); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO backup_defaults (organization_id, asset_id, product, effective_from,
			price_cents, max_capacity_mw, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			d.OrganizationID, d.AssetID, string(d.Product), d.EffectiveFrom, afrr.PriceCents(d.Price), d.MaxCapacityMW, d.UpdatedAt)
		return err
	})
	if err != nil {
		return afrr.Default{}, err
	}
	return d, nil
}

func (s backupStore) LatestDefault(ctx context.Context, v auth.Visibility, assetID string, p afrr.Product) (_ afrr.Default, err error) {
	defer sqlutil.Wrap(&err, "backup: latest default")
	d, err := scanDefault(s.db.conn(ctx).QueryRow(ctx, defaultSelect+" ORDER BY d.effective_from DESC LIMIT 1",
		v.All, v.OrganizationID, assetID, string(p)))
	if errors.Is(err, pgx.ErrNoRows) {
		return afrr.Default{}, afrr.NoDefault(assetID, p)
	}
	return d, err
}

func (s backupStore) DefaultVersions(ctx context.Context, v auth.Visibility, assetID string, p afrr.Product, w calendar.Interval) (_ []afrr.Default, err error) {
	defer sqlutil.Wrap(&err, "backup: default versions")
	rows, err := s.db.conn(ctx).Query(ctx, defaultSelect+` AND d.effective_from < $5
		AND d.effective_from >= COALESCE((SELECT max(effective_from) FROM backup_defaults
			WHERE asset_id = d.asset_id AND product = d.product AND effective_from <= $6), $6)
		ORDER BY d.effective_from`,
		v.All, v.OrganizationID, assetID, string(p), w.End, w.Start)
	if err != nil {
		return nil, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (afrr.Default, error) { return scanDefault(r) })
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []afrr.Default{}
	}
	return list, nil
}
