package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"atcp/internal/errs"
	"atcp/internal/pools"
	"atcp/internal/store/sqlutil"
)

// Pools returns the pool store.
func (db *DB) Pools() pools.Store { return poolStore{db} }

// poolStore locks, in every write that names members, the listed asset
// rows (FOR NO KEY UPDATE, in asset_id order) before it reads their
// claims: writes claiming one asset, and the asset's deletion or
// offboarding (which lock it FOR UPDATE), apply one after the other, and
// the candidates a check sees stay true until the commit. A replace locks
// its pool row first, then the assets; deleting or offboarding an asset
// never locks a pool row, so no two writers wait for each other in
// opposite orders.
type poolStore struct{ db *DB }

// poolSelect reads pools joined with their members in order; the caller
// adds the WHERE clause (on p) and poolOrder.
const (
	poolSelect = `SELECT p.organization_id, p.pool_id, p.allow_internal_collateralisation, p.created_at, p.updated_at, m.asset_id
	FROM pools p LEFT JOIN pool_members m ON m.organization_id = p.organization_id AND m.pool_id = p.pool_id `
	poolOrder = ` ORDER BY p.organization_id, p.pool_id, m.position`
)

func (s poolStore) query(ctx context.Context, q querier, where string, args ...any) ([]pools.Pool, error) {
	rows, err := q.Query(ctx, poolSelect+where+poolOrder, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []pools.Pool{}
	for rows.Next() {
		var r sqlutil.PoolRow
		if err := rows.Scan(&r.OrganizationID, &r.PoolID, &r.AllowInternalCollateralisation, &r.CreatedAt, &r.UpdatedAt, &r.AssetID); err != nil {
			return nil, err
		}
		out = sqlutil.AppendPoolRow(out, r)
	}
	return out, rows.Err()
}

func poolNotFound(org, id string) error {
	return errs.NotFoundf("organisation %q has no pool %q", org, id)
}

func (s poolStore) List(ctx context.Context, org string) (_ []pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: list")
	return s.query(ctx, s.db.conn(ctx), `WHERE p.organization_id = $1`, org)
}

func (s poolStore) Get(ctx context.Context, org, id string) (_ pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: get")
	return s.one(ctx, s.db.conn(ctx), org, id)
}

func (s poolStore) one(ctx context.Context, q querier, org, id string) (pools.Pool, error) {
	list, err := s.query(ctx, q, `WHERE p.organization_id = $1 AND p.pool_id = $2`, org, id)
	if err != nil {
		return pools.Pool{}, err
	}
	if len(list) == 0 {
		return pools.Pool{}, poolNotFound(org, id)
	}
	return list[0], nil
}

func (s poolStore) All(ctx context.Context) (_ []pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: all")
	return s.query(ctx, s.db.conn(ctx), `WHERE true`)
}

func (s poolStore) PoolOf(ctx context.Context, assetID string) (_ pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: pool of")
	list, err := s.query(ctx, s.db.conn(ctx), `WHERE (p.organization_id, p.pool_id) =
		(SELECT organization_id, pool_id FROM pool_members WHERE asset_id = $1)`, assetID)
	if err != nil {
		return pools.Pool{}, err
	}
	if len(list) == 0 {
		return pools.Pool{}, errs.NotFoundf("asset %q is in no pool", assetID)
	}
	return list[0], nil
}

// candidates locks the listed assets of the organisation (physical, not
// deleted), then reads the pool each is in: after the locks, so that a
// claim committed while this transaction waited is seen.
func candidates(ctx context.Context, tx pgx.Tx, org string, ids []string) ([]pools.Candidate, error) {
	rows, err := tx.Query(ctx, `SELECT asset_id, asset_operational_status FROM assets
		WHERE organization_id = $1 AND deleted_at IS NULL AND asset_id = ANY($2)
		ORDER BY asset_id FOR NO KEY UPDATE`, org, ids)
	if err != nil {
		return nil, sqlutil.Wrapped("lock candidates", err)
	}
	found := make(map[string]pools.Candidate, len(ids))
	for rows.Next() {
		c := pools.Candidate{Found: true}
		if err := rows.Scan(&c.AssetID, &c.Status); err != nil {
			rows.Close()
			return nil, sqlutil.Wrapped("lock candidates", err)
		}
		found[c.AssetID] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, sqlutil.Wrapped("lock candidates", err)
	}
	rows, err = tx.Query(ctx, `SELECT asset_id, pool_id FROM pool_members WHERE asset_id = ANY($1)`, ids)
	if err != nil {
		return nil, sqlutil.Wrapped("read claims", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, pool string
		if err := rows.Scan(&id, &pool); err != nil {
			return nil, sqlutil.Wrapped("read claims", err)
		}
		if c, ok := found[id]; ok {
			c.PoolID = pool
			found[id] = c
		}
	}
	if err := rows.Err(); err != nil {
		return nil, sqlutil.Wrapped("read claims", err)
	}
	return sqlutil.Candidates(ids, found), nil
}

// insertMembers stores p's members in list order.
func insertMembers(ctx context.Context, tx pgx.Tx, p pools.Pool) error {
	_, err := tx.Exec(ctx, `INSERT INTO pool_members (asset_id, organization_id, pool_id, position)
		SELECT id, $1, $2, n - 1 FROM unnest($3::text[]) WITH ORDINALITY AS t (id, n)`, p.OrganizationID, p.ID, p.AssetIDs)
	if isUniqueViolation(err) {
		// Every claimer locks the asset before reading its claims: only
		// a bug gets here, and the database refuses it all the same.
		return errs.Conflictf(pools.CodeAssetInOtherPool, "an asset of pool %q is in another pool", p.ID)
	}
	return sqlutil.Wrapped("insert members", err)
}

func (s poolStore) Create(ctx context.Context, p pools.Pool, check func([]pools.Candidate) error) (_ pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: create")
	exists := func() error {
		return errs.Conflictf(pools.CodePoolExists, "organisation %q has a pool %q already; change it with PUT", p.OrganizationID, p.ID)
	}
	var out pools.Pool
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var found bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pools WHERE organization_id = $1 AND pool_id = $2)`,
			p.OrganizationID, p.ID).Scan(&found); err != nil {
			return sqlutil.Wrapped("find pool", err)
		}
		if found {
			return exists()
		}
		cands, err := candidates(ctx, tx, p.OrganizationID, p.AssetIDs)
		if err != nil {
			return err
		}
		if err := check(cands); err != nil {
			return err
		}
		// A concurrent create of the same pool_id that committed first
		// makes this insert fail on the primary key.
		if _, err := tx.Exec(ctx, `INSERT INTO pools (organization_id, pool_id, allow_internal_collateralisation, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5)`, p.OrganizationID, p.ID, p.AllowInternalCollateralisation, p.CreatedAt, p.UpdatedAt); err != nil {
			if isUniqueViolation(err) {
				return exists()
			}
			return sqlutil.Wrapped("insert pool", err)
		}
		if err := insertMembers(ctx, tx, p); err != nil {
			return err
		}
		out, err = s.one(ctx, tx, p.OrganizationID, p.ID)
		return err
	})
	return out, err
}

func (s poolStore) Replace(ctx context.Context, p pools.Pool, check func([]pools.Candidate) error) (_ pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: replace")
	var out pools.Pool
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM pools WHERE organization_id = $1 AND pool_id = $2 FOR UPDATE`, p.OrganizationID, p.ID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return poolNotFound(p.OrganizationID, p.ID)
		}
		if err != nil {
			return sqlutil.Wrapped("lock pool", err)
		}
		cands, err := candidates(ctx, tx, p.OrganizationID, p.AssetIDs)
		if err != nil {
			return err
		}
		if err := check(cands); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM pool_members WHERE organization_id = $1 AND pool_id = $2`, p.OrganizationID, p.ID); err != nil {
			return sqlutil.Wrapped("delete members", err)
		}
		if err := insertMembers(ctx, tx, p); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE pools SET allow_internal_collateralisation = $3, updated_at = $4
			WHERE organization_id = $1 AND pool_id = $2`, p.OrganizationID, p.ID, p.AllowInternalCollateralisation, p.UpdatedAt); err != nil {
			return sqlutil.Wrapped("update pool", err)
		}
		out, err = s.one(ctx, tx, p.OrganizationID, p.ID)
		return err
	})
	return out, err
}

func (s poolStore) Delete(ctx context.Context, org, id string) (err error) {
	defer sqlutil.Wrap(&err, "pools: delete")
	// The members go with the pool (ON DELETE CASCADE).
	tag, err := s.db.conn(ctx).Exec(ctx, `DELETE FROM pools WHERE organization_id = $1 AND pool_id = $2`, org, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return poolNotFound(org, id)
	}
	return nil
}
