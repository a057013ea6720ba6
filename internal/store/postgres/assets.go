package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
)

// Assets returns the asset registry store.
func (db *DB) Assets() assets.Store { return assetStore{db} }

type assetStore struct{ db *DB }

var (
	assetSelect = "SELECT a.asset_id, a.organization_id, a.created_at, a." + strings.Join(sqlutil.AssetMutable, ", a.") +
		", o.name FROM assets a LEFT JOIN organizations o ON o.organization_id = a.optimizer_org_id"
	assetInsert = "INSERT INTO assets (asset_id, organization_id, created_at, " + strings.Join(sqlutil.AssetMutable, ", ") +
		") VALUES (" + placeholders(1, 3+len(sqlutil.AssetMutable)) + ")"
	assetUpdate = "UPDATE assets SET (" + strings.Join(sqlutil.AssetMutable, ", ") + ") = (" +
		placeholders(2, len(sqlutil.AssetMutable)) + ") WHERE asset_id = $1"
)

// visibleAsset filters by the caller's visibility ($1 all, $2 organisation)
// and hides deleted assets.
const visibleAsset = " WHERE a.deleted_at IS NULL AND ($1 OR a.organization_id = $2)"

func placeholders(from, n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = fmt.Sprintf("$%d", from+i)
	}
	return strings.Join(p, ", ")
}

// assetValues returns the values of the sqlutil.AssetMutable columns.
func assetValues(a assets.Asset) []any {
	return sqlutil.AssetValues(a, a.MaintenanceUntil, a.UpdatedAt)
}

func scanAsset(row pgx.Row) (assets.Asset, error) {
	var a assets.Asset
	var r sqlutil.AssetRow
	if err := row.Scan(r.Targets(&a, &a.CreatedAt, &a.MaintenanceUntil, &a.UpdatedAt)...); err != nil {
		return assets.Asset{}, err
	}
	if err := r.Finish(&a); err != nil {
		return assets.Asset{}, err
	}
	a.CreatedAt, a.UpdatedAt = sqlutil.UTC(a.CreatedAt), sqlutil.UTC(a.UpdatedAt)
	a.MaintenanceUntil = sqlutil.UTCPtr(a.MaintenanceUntil)
	return a, nil
}

func assetNotFound(id string) error { return errs.NotFoundf("asset %q not found", id) }

func (s assetStore) List(ctx context.Context, v auth.Visibility) (_ []assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: list")
	rows, err := s.db.conn(ctx).Query(ctx, assetSelect+visibleAsset+` ORDER BY a.asset_id COLLATE "C"`, v.All, v.OrganizationID)
	if err != nil {
		return nil, err
	}
	list := []assets.Asset{}
	for rows.Next() {
		workload.Yield(ctx, len(list))
		a, err := scanAsset(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, a)
	}
	return list, rows.Err()
}

func (s assetStore) Get(ctx context.Context, v auth.Visibility, id string) (_ assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: get")
	a, err := scanAsset(s.db.conn(ctx).QueryRow(ctx, assetSelect+visibleAsset+" AND a.asset_id = $3", v.All, v.OrganizationID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return assets.Asset{}, assetNotFound(id)
	}
	return a, err
}

// lockAsset reads a visible asset and locks its row until the transaction
// ends.
func lockAsset(ctx context.Context, tx pgx.Tx, v auth.Visibility, id string) (assets.Asset, error) {
	a, err := scanAsset(tx.QueryRow(ctx, assetSelect+visibleAsset+" AND a.asset_id = $3 FOR UPDATE OF a", v.All, v.OrganizationID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return assets.Asset{}, assetNotFound(id)
	}
	return a, err
}

// organizationName returns the name of a registered organisation and
// whether it is registered.
func organizationName(ctx context.Context, tx pgx.Tx, id string) (string, bool, error) {
	var name string
	err := tx.QueryRow(ctx, `SELECT name FROM organizations WHERE organization_id = $1`, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return name, err == nil, err
}

// optimizerName fills in the name of the asset's optimizer organisation
// and reports an unregistered one in v.
func optimizerName(ctx context.Context, tx pgx.Tx, a *assets.Asset, v *errs.Validation) error {
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

func (s assetStore) Create(ctx context.Context, a assets.Asset) (_ assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: create")
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
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
		args := append([]any{a.ID, a.OrganizationID, a.CreatedAt}, assetValues(a)...)
		if _, err := tx.Exec(ctx, assetInsert, args...); err != nil {
			if isUniqueViolation(err) {
				return errs.Conflictf(assets.CodeAssetExists, "asset id %q is taken (ids of deleted assets are never reused)", a.ID)
			}
			return err
		}
		return notifyAssetChanged(ctx, tx, a.ID)
	})
	if err != nil {
		return assets.Asset{}, err
	}
	return a, nil
}

func (s assetStore) Update(ctx context.Context, v auth.Visibility, id string, change func(context.Context, assets.Asset) (assets.Asset, bool, error)) (_ assets.Asset, err error) {
	defer sqlutil.Wrap(&err, "assets: update")
	var out assets.Asset
	err = s.db.join(ctx, func(ctx context.Context, tx pgx.Tx) error {
		cur, err := lockAsset(ctx, tx, v, id)
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
		if _, err := tx.Exec(ctx, assetUpdate, append([]any{id}, assetValues(next)...)...); err != nil {
			return err
		}
		if err := leavePoolIfOffboarded(ctx, tx, next); err != nil {
			return err
		}
		out = next
		return notifyAssetChanged(ctx, tx, id)
	})
	return out, err
}

func (s assetStore) Delete(ctx context.Context, v auth.Visibility, id string, at time.Time, check func(context.Context, assets.Asset) error) (err error) {
	defer sqlutil.Wrap(&err, "assets: delete")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		cur, err := lockAsset(ctx, tx, v, id)
		if err != nil {
			return err
		}
		if err := check(ctx, cur); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `UPDATE assets SET deleted_at = $2, updated_at = $2 WHERE asset_id = $1`, id, at); err != nil {
			return err
		}
		// The contact directory goes with the asset: nobody is to be told
		// about an asset that no longer exists.
		if _, err = tx.Exec(ctx, `DELETE FROM asset_contacts WHERE asset_id = $1`, id); err != nil {
			return sqlutil.Wrapped("delete contacts", err)
		}
		// So does its pool membership (docs/pools.md): a pool never
		// blocks a deletion. The pool's row is not locked: pool writes
		// lock it before the assets.
		if _, err = tx.Exec(ctx, `DELETE FROM pool_members WHERE asset_id = $1`, id); err != nil {
			return sqlutil.Wrapped("leave pool", err)
		}
		return notifyAssetChanged(ctx, tx, id)
	})
}

// leavePoolIfOffboarded removes an asset updated to offboarded from its
// pool in the update's transaction (docs/pools.md): an offboarded asset
// is in no pool.
func leavePoolIfOffboarded(ctx context.Context, tx pgx.Tx, a assets.Asset) error {
	if a.OperationalStatus != assets.Offboarded {
		return nil
	}
	_, err := tx.Exec(ctx, `DELETE FROM pool_members WHERE asset_id = $1`, a.ID)
	return sqlutil.Wrapped("leave pool", err)
}
