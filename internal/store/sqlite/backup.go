package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/calendar"
	"atcp/internal/store/sqlutil"
)

// BackupMarket returns the aFRR backup-market store.
func (db *DB) BackupMarket() afrr.BackupStore { return backupStore{db} }

// backupStore runs every read-check-write in one write transaction: the
// single write connection serialises the overlap check and the insert.
type backupStore struct{ db *DB }

// Reads hide the rows of a deleted physical asset (a virtual asset's rows
// have no asset row of their own: its id resolves only while its parent's
// segmentation is active, checked before the read), and filter by the
// caller's visibility (? all, ? organisation).
const (
	overrideSelect = `SELECT o.override_id, o.organization_id, o.asset_id, o.product, o.start_time, o.end_time,
		o.price_cents, o.max_capacity_mw, o.note, o.created_at
		FROM backup_overrides o
		WHERE NOT EXISTS (SELECT 1 FROM assets a WHERE a.asset_id = o.asset_id AND a.deleted_at IS NOT NULL) AND (? OR o.organization_id = ?) AND o.asset_id = ?`
	defaultSelect = `SELECT d.organization_id, d.asset_id, d.product, d.effective_from, d.price_cents, d.max_capacity_mw, d.updated_at
		FROM backup_defaults d
		WHERE NOT EXISTS (SELECT 1 FROM assets a WHERE a.asset_id = d.asset_id AND a.deleted_at IS NOT NULL) AND (? OR d.organization_id = ?) AND d.asset_id = ? AND d.product = ?`
)

type backupRow interface{ Scan(dest ...any) error }

func scanOverride(row backupRow) (afrr.Override, error) {
	var o afrr.Override
	var product string
	var start, end, created int64
	var cents *int64
	if err := row.Scan(&o.ID, &o.OrganizationID, &o.AssetID, &product, &start, &end, &cents, &o.MaxCapacityMW, &o.Note, &created); err != nil {
		return afrr.Override{}, err
	}
	o.Product = afrr.Product(product)
	o.Start, o.End, o.CreatedAt = sqlutil.FromMicros(start), sqlutil.FromMicros(end), sqlutil.FromMicros(created)
	if cents != nil {
		p := afrr.PriceFromCents(*cents)
		o.Price = &p
	}
	return o, nil
}

func scanDefault(row backupRow) (afrr.Default, error) {
	var d afrr.Default
	var product string
	var from, updated, cents int64
	if err := row.Scan(&d.OrganizationID, &d.AssetID, &product, &from, &cents, &d.MaxCapacityMW, &updated); err != nil {
		return afrr.Default{}, err
	}
	d.Product = afrr.Product(product)
	d.EffectiveFrom, d.UpdatedAt = sqlutil.FromMicros(from), sqlutil.FromMicros(updated)
	d.Price = afrr.PriceFromCents(cents)
	return d, nil
}

// backupAsset returns the organisation of the physical row behind a
// visible asset (the parent's for a virtual asset) inside a write
// transaction, which holds the database's write lock until it ends.
func backupAsset(ctx context.Context, tx *sql.Tx, v auth.Visibility, a assets.Asset) (string, error) {
	var org string
	err := tx.QueryRowContext(ctx, `SELECT organization_id FROM assets WHERE deleted_at IS NULL AND (? OR organization_id = ?) AND asset_id = ?`,
		v.All, v.OrganizationID, a.PhysicalID()).Scan(&org)
	if errors.Is(err, sql.ErrNoRows) {
		return "", assetNotFound(a.ID)
	}
	return org, err
}

func (s backupStore) CreateOverride(ctx context.Context, v auth.Visibility, a assets.Asset, o afrr.Override) (_ afrr.Override, err error) {
	defer sqlutil.Wrap(&err, "backup: create override")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		org, err := backupAsset(ctx, tx, v, a)
		if err != nil {
			return err
		}
		o.OrganizationID = org
		rows, err := tx.QueryContext(ctx, `SELECT override_id FROM backup_overrides
			WHERE asset_id = ? AND product = ? AND start_time < ? AND end_time > ? ORDER BY start_time LIMIT 5`,
			o.AssetID, string(o.Product), sqlutil.Micros(o.End), sqlutil.Micros(o.Start))
		if err != nil {
			return err
		}
		var clash []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			clash = append(clash, id)
		}
		if err := rows.Err(); err != nil {
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
		_, err = tx.ExecContext(ctx, `INSERT INTO backup_overrides (override_id, organization_id, asset_id, product,
			start_time, end_time, price_cents, max_capacity_mw, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			o.ID, o.OrganizationID, o.AssetID, string(o.Product), sqlutil.Micros(o.Start), sqlutil.Micros(o.End),
			cents, o.MaxCapacityMW, o.Note, sqlutil.Micros(o.CreatedAt))
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
	if f.Product != "" {
		q.WriteString(" AND o.product = ?")
		args = append(args, string(f.Product))
	}
	if !f.From.IsZero() {
		q.WriteString(" AND o.end_time > ?")
		args = append(args, sqlutil.Micros(f.From))
	}
	if !f.To.IsZero() {
		q.WriteString(" AND o.start_time < ?")
		args = append(args, sqlutil.Micros(f.To))
	}
	q.WriteString(" ORDER BY o.start_time, o.product, o.override_id")
	rows, err := s.db.read(ctx).QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []afrr.Override{}
	for rows.Next() {
		o, err := scanOverride(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, o)
	}
	return list, rows.Err()
}

func (s backupStore) DeleteOverride(ctx context.Context, v auth.Visibility, assetID, id string, check func(afrr.Override) error) (err error) {
	defer sqlutil.Wrap(&err, "backup: delete override")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		o, err := scanOverride(tx.QueryRowContext(ctx, overrideSelect+" AND o.override_id = ?", v.All, v.OrganizationID, assetID, id))
		if errors.Is(err, sql.ErrNoRows) {
			return afrr.OverrideNotFound(id)
		}
		if err != nil {
			return err
		}
		if err := check(o); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM backup_overrides WHERE override_id = ?`, id)
		return err
	})
}

func (s backupStore) PutDefault(ctx context.Context, v auth.Visibility, a assets.Asset, d afrr.Default) (_ afrr.Default, err error) {
	defer sqlutil.Wrap(&err, "backup: put default")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		org, err := backupAsset(ctx, tx, v, a)
		if err != nil {
			return err
		}
		d.OrganizationID = org
		if _, err := tx.ExecContext(ctx, `DELETE FROM backup_defaults WHERE asset_id = ? AND product = ? AND effective_from >= ?`,
			d.AssetID, string(d.Product), sqlutil.Micros(d.EffectiveFrom)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO backup_defaults (organization_id, asset_id, product, effective_from,
			price_cents, max_capacity_mw, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			d.OrganizationID, d.AssetID, string(d.Product), sqlutil.Micros(d.EffectiveFrom),
			afrr.PriceCents(d.Price), d.MaxCapacityMW, sqlutil.Micros(d.UpdatedAt))
		return err
	})
	if err != nil {
		return afrr.Default{}, err
	}
	return d, nil
}

func (s backupStore) LatestDefault(ctx context.Context, v auth.Visibility, assetID string, p afrr.Product) (_ afrr.Default, err error) {
	defer sqlutil.Wrap(&err, "backup: latest default")
	d, err := scanDefault(s.db.read(ctx).QueryRowContext(ctx, defaultSelect+" ORDER BY d.effective_from DESC LIMIT 1",
		v.All, v.OrganizationID, assetID, string(p)))
	if errors.Is(err, sql.ErrNoRows) {
		return afrr.Default{}, afrr.NoDefault(assetID, p)
	}
	return d, err
}

func (s backupStore) DefaultVersions(ctx context.Context, v auth.Visibility, assetID string, p afrr.Product, w calendar.Interval) (_ []afrr.Default, err error) {
	defer sqlutil.Wrap(&err, "backup: default versions")
	rows, err := s.db.read(ctx).QueryContext(ctx, defaultSelect+` AND d.effective_from < ?
		AND d.effective_from >= COALESCE((SELECT max(effective_from) FROM backup_defaults
			WHERE asset_id = d.asset_id AND product = d.product AND effective_from <= ?), ?)
		ORDER BY d.effective_from`,
		v.All, v.OrganizationID, assetID, string(p), sqlutil.Micros(w.End), sqlutil.Micros(w.Start), sqlutil.Micros(w.Start))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []afrr.Default{}
	for rows.Next() {
		d, err := scanDefault(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, d)
	}
	return list, rows.Err()
}
