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
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
)

// Assets returns the asset registry store.
func (db *DB) Assets() assets.Store { return &assetStore{db: db} }

// assetStore runs every read-check-write in one write transaction: the
// single write connection serialises concurrent updates of an asset.
type assetStore struct{ db *DB }

var (
	assetSelect = "SELECT a.asset_id, a.organization_id, a.created_at, a." + strings.Join(sqlutil.AssetMutable, ", a.") +
		", o.name FROM assets a LEFT JOIN organizations o ON o.organization_id = a.optimizer_org_id"
	assetInsert = "INSERT INTO assets (asset_id, organization_id, created_at, " + strings.Join(sqlutil.AssetMutable, ", ") +
		") VALUES (?" + strings.Repeat(", ?", 2+len(sqlutil.AssetMutable)) + ")"
	assetUpdate = "UPDATE assets SET (" + strings.Join(sqlutil.AssetMutable, ", ") + ") = (?" +
		strings.Repeat(", ?", len(sqlutil.AssetMutable)-1) + ") WHERE asset_id = ?"
)

// visibleAsset filters by the caller's visibility (all, organisation) and
// hides deleted assets.
const visibleAsset = " WHERE a.deleted_at IS NULL AND (? OR a.organization_id = ?)"

// assetValues returns the values of the sqlutil.AssetMutable columns.
func assetValues(a assets.Asset) []any {
	return sqlutil.AssetValues(a, sqlutil.NullMicros(a.MaintenanceUntil), sqlutil.Micros(a.UpdatedAt))
}

type assetRow interface{ Scan(dest ...any) error }

func scanAsset(row assetRow) (assets.Asset, error) {
	var a assets.Asset
	var r sqlutil.AssetRow
	var created, updated int64
	var maintenance *int64
	if err := row.Scan(r.Targets(&a, &created, &maintenance, &updated)...); err != nil {
		return assets.Asset{}, err
	}
	if err := r.Finish(&a); err != nil {
		return assets.Asset{}, err
	}
	a.CreatedAt, a.UpdatedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(updated)
	a.MaintenanceUntil = sqlutil.FromNullMicros(maintenance)
	return a, nil
}

func assetNotFound(id string) error { return errs.NotFoundf("asset %q not found", id) }

func (s *assetStore) List(ctx context.Context, v auth.Visibility) (_ []assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: list")
	rows, err := s.db.read(ctx).QueryContext(ctx, assetSelect+visibleAsset+" ORDER BY a.asset_id", v.All, v.OrganizationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []assets.Asset{}
	for rows.Next() {
		workload.Yield(ctx, len(list))
		a, err := scanAsset(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, a)
	}
	return list, rows.Err()
}

func (s *assetStore) Get(ctx context.Context, v auth.Visibility, id string) (_ assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: get")
	stmt, err := s.db.stmt(ctx, assetGet)
	if err != nil {
		return assets.Asset{}, err
	}
	a, err := scanAsset(stmt.QueryRowContext(ctx, v.All, v.OrganizationID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return assets.Asset{}, assetNotFound(id)
	}
	return a, err
}

// assetGet reads one visible asset (all, organisation, id): the query
// every area runs to resolve assets.
var assetGet = hotWrite(assetSelect + visibleAsset + " AND a.asset_id = ?")

// currentAsset reads a visible asset inside a write transaction, which
// holds the database's write lock until it ends.
func currentAsset(ctx context.Context, tx *sql.Tx, v auth.Visibility, id string) (assets.Asset, error) {
	a, err := scanAsset(tx.QueryRowContext(ctx, assetGet, v.All, v.OrganizationID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return assets.Asset{}, assetNotFound(id)
	}
	return a, err
}

// organizationName returns the name of a registered organisation and
// whether it is registered.
func organizationName(ctx context.Context, tx *sql.Tx, id string) (string, bool, error) {
	var name string
	err := tx.QueryRowContext(ctx, `SELECT name FROM organizations WHERE organization_id = ?`, id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return name, err == nil, err
}

// optimizerName fills in the name of the asset's optimizer organisation
// and reports an unregistered one in v.
func optimizerName(ctx context.Context, tx *sql.Tx, a *assets.Asset, v *errs.Validation) error {
	a.OptimizerOrgName = nil
	if a.OptimizerOrgID == nil {
		return nil
	}
	name, ok, err := organizationName(ctx, tx, *a.OptimizerOrgID)
	switch {
	case err != nil:
		return err
	case !ok:
		v.Add("optimizer_org_id", "is not a registered organisation", *a.OptimizerOrgID)
	default:
		a.OptimizerOrgName = &name
	}
	return nil
}

func (s *assetStore) Create(ctx context.Context, a assets.Asset) (_ assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: create")
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var v errs.Validation
		_, known, err := organizationName(ctx, tx, a.OrganizationID)
		if err != nil {
			return err
		}
		if !known {
			v.Add("organisation_id", "is not a registered organisation", a.OrganizationID)
		}
		if err := optimizerName(ctx, tx, &a, &v); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		args := append([]any{a.ID, a.OrganizationID, sqlutil.Micros(a.CreatedAt)}, assetValues(a)...)
		if _, err := tx.ExecContext(ctx, assetInsert, args...); err != nil {
			if isUniqueViolation(err) {
				return errs.Conflictf(assets.CodeAssetExists, "asset id %q is taken (ids of deleted assets are never reused)", a.ID)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return assets.Asset{}, err
	}
	return a, nil
}

func (s *assetStore) Update(ctx context.Context, v auth.Visibility, id string, change func(context.Context, assets.Asset) (assets.Asset, bool, error)) (_ assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: update")
	var out assets.Asset
	err = s.db.join(ctx, func(ctx context.Context, tx *sql.Tx) error {
		cur, err := currentAsset(ctx, tx, v, id)
		if err != nil {
			return err
		}
		next, changed, err := change(ctx, cur)
		if err != nil {
			return err
		}
		if !changed {
			out = cur
			return nil
		}
		var inv errs.Validation
		if err := optimizerName(ctx, tx, &next, &inv); err != nil {
			return err
		}
		if err := inv.Err(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, assetUpdate, append(assetValues(next), id)...); err != nil {
			return err
		}
		out = next
		return leavePoolIfOffboarded(ctx, tx, next)
	})
	return out, err
}

// Delete reads, checks and marks the asset in one write transaction; check
// reads other areas' stores inside it through its context.
func (s *assetStore) Delete(ctx context.Context, v auth.Visibility, id string, at time.Time, check func(context.Context, assets.Asset) error) (err error) {
	defer sqlutil.Wrap(&err, "assets: delete")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		cur, err := currentAsset(ctx, tx, v, id)
		if err != nil {
			return err
		}
		if err := check(ctx, cur); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `UPDATE assets SET deleted_at = ?, updated_at = ? WHERE asset_id = ?`,
			sqlutil.Micros(at), sqlutil.Micros(at), id); err != nil {
			return err
		}
		// The contact directory goes with the asset: nobody is to be told
		// about an asset that no longer exists.
		if _, err = tx.ExecContext(ctx, `DELETE FROM asset_contacts WHERE asset_id = ?`, id); err != nil {
			return sqlutil.Wrapped("delete contacts", err)
		}
		// So does its pool membership (docs/pools.md): a pool never
		// blocks a deletion.
		_, err = tx.ExecContext(ctx, `DELETE FROM pool_members WHERE asset_id = ?`, id)
		return sqlutil.Wrapped("leave pool", err)
	})
}

// leavePoolIfOffboarded removes an asset updated to offboarded from its
// pool in the update's transaction (docs/pools.md): an offboarded asset
// is in no pool.
func leavePoolIfOffboarded(ctx context.Context, tx *sql.Tx, a assets.Asset) error {
	if a.OperationalStatus != assets.Offboarded {
		return nil
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM pool_members WHERE asset_id = ?`, a.ID)
	return sqlutil.Wrapped("leave pool", err)
}
