package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"atcp/internal/errs"
	"atcp/internal/pools"
	"atcp/internal/store/sqlutil"
)

// Pools returns the pool store.
func (db *DB) Pools() pools.Store { return poolStore{db} }

// poolStore checks and writes in one write transaction: the single write
// connection serialises every write that claims an asset, so that the
// candidates a check sees stay true until the commit.
type poolStore struct{ db *DB }

// poolSelect reads pools joined with their members in order; the caller
// adds the WHERE clause (on p) and poolOrder.
const (
	poolSelect = `SELECT p.organization_id, p.pool_id, p.allow_internal_collateralisation, p.created_at, p.updated_at, m.asset_id
	FROM pools p LEFT JOIN pool_members m ON m.organization_id = p.organization_id AND m.pool_id = p.pool_id `
	poolOrder = ` ORDER BY p.organization_id, p.pool_id, m.position`
)

func (s poolStore) query(ctx context.Context, q querier, where string, args ...any) ([]pools.Pool, error) {
	rows, err := q.QueryContext(ctx, poolSelect+where+poolOrder, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []pools.Pool{}
	for rows.Next() {
		var r sqlutil.PoolRow
		var created, updated int64
		if err := rows.Scan(&r.OrganizationID, &r.PoolID, &r.AllowInternalCollateralisation, &created, &updated, &r.AssetID); err != nil {
			return nil, err
		}
		r.CreatedAt, r.UpdatedAt = sqlutil.FromMicros(created), sqlutil.FromMicros(updated)
		out = sqlutil.AppendPoolRow(out, r)
	}
	return out, rows.Err()
}

func poolNotFound(org, id string) error {
	return errs.NotFoundf("organisation %q has no pool %q", org, id)
}

func (s poolStore) List(ctx context.Context, org string) (_ []pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: list")
	return s.query(ctx, s.db.read(ctx), `WHERE p.organization_id = ?`, org)
}

func (s poolStore) Get(ctx context.Context, org, id string) (_ pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: get")
	return s.one(ctx, s.db.read(ctx), org, id)
}

func (s poolStore) one(ctx context.Context, q querier, org, id string) (pools.Pool, error) {
	list, err := s.query(ctx, q, `WHERE p.organization_id = ? AND p.pool_id = ?`, org, id)
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
	return s.query(ctx, s.db.read(ctx), `WHERE true`)
}

func (s poolStore) PoolOf(ctx context.Context, assetID string) (_ pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: pool of")
	list, err := s.query(ctx, s.db.read(ctx), `WHERE (p.organization_id, p.pool_id) =
		(SELECT organization_id, pool_id FROM pool_members WHERE asset_id = ?)`, assetID)
	if err != nil {
		return pools.Pool{}, err
	}
	if len(list) == 0 {
		return pools.Pool{}, errs.NotFoundf("asset %q is in no pool", assetID)
	}
	return list[0], nil
}

// candidates reads the listed assets of the organisation (physical, not
// deleted) with the pool each is in, inside the write transaction.
func candidates(ctx context.Context, tx *sql.Tx, org string, ids []string) ([]pools.Candidate, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT a.asset_id, a.asset_operational_status, coalesce(m.pool_id, '')
		FROM assets a LEFT JOIN pool_members m ON m.asset_id = a.asset_id
		WHERE a.organization_id = ? AND a.deleted_at IS NULL AND a.asset_id IN (SELECT value FROM json_each(?))`, org, string(list))
	if err != nil {
		return nil, sqlutil.Wrapped("read candidates", err)
	}
	defer rows.Close()
	found := make(map[string]pools.Candidate, len(ids))
	for rows.Next() {
		c := pools.Candidate{Found: true}
		if err := rows.Scan(&c.AssetID, &c.Status, &c.PoolID); err != nil {
			return nil, sqlutil.Wrapped("read candidates", err)
		}
		found[c.AssetID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, sqlutil.Wrapped("read candidates", err)
	}
	return sqlutil.Candidates(ids, found), nil
}

// insertMembers stores p's members in list order.
func insertMembers(ctx context.Context, tx *sql.Tx, p pools.Pool) error {
	list, err := json.Marshal(p.AssetIDs)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO pool_members (asset_id, organization_id, pool_id, position)
		SELECT value, ?, ?, key FROM json_each(?)`, p.OrganizationID, p.ID, string(list))
	if isUniqueViolation(err) {
		// The check saw every claim under the write lock: only a bug
		// gets here, and the database refuses it all the same.
		return errs.Conflictf(pools.CodeAssetInOtherPool, "an asset of pool %q is in another pool", p.ID)
	}
	return sqlutil.Wrapped("insert members", err)
}

func (s poolStore) Create(ctx context.Context, p pools.Pool, check func([]pools.Candidate) error) (_ pools.Pool, err error) {
	defer sqlutil.Wrap(&err, "pools: create")
	var out pools.Pool
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pools WHERE organization_id = ? AND pool_id = ?)`,
			p.OrganizationID, p.ID).Scan(&exists); err != nil {
			return sqlutil.Wrapped("find pool", err)
		}
		if exists {
			return errs.Conflictf(pools.CodePoolExists, "organisation %q has a pool %q already; change it with PUT", p.OrganizationID, p.ID)
		}
		cands, err := candidates(ctx, tx, p.OrganizationID, p.AssetIDs)
		if err != nil {
			return err
		}
		if err := check(cands); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO pools (organization_id, pool_id, allow_internal_collateralisation, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?)`, p.OrganizationID, p.ID, p.AllowInternalCollateralisation,
			sqlutil.Micros(p.CreatedAt), sqlutil.Micros(p.UpdatedAt)); err != nil {
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
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pools WHERE organization_id = ? AND pool_id = ?)`,
			p.OrganizationID, p.ID).Scan(&exists); err != nil {
			return sqlutil.Wrapped("find pool", err)
		}
		if !exists {
			return poolNotFound(p.OrganizationID, p.ID)
		}
		cands, err := candidates(ctx, tx, p.OrganizationID, p.AssetIDs)
		if err != nil {
			return err
		}
		if err := check(cands); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM pool_members WHERE organization_id = ? AND pool_id = ?`, p.OrganizationID, p.ID); err != nil {
			return sqlutil.Wrapped("delete members", err)
		}
		if err := insertMembers(ctx, tx, p); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE pools SET allow_internal_collateralisation = ?, updated_at = ?
			WHERE organization_id = ? AND pool_id = ?`, p.AllowInternalCollateralisation, sqlutil.Micros(p.UpdatedAt),
			p.OrganizationID, p.ID); err != nil {
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
	res, err := s.db.write(ctx).ExecContext(ctx, `DELETE FROM pools WHERE organization_id = ? AND pool_id = ?`, org, id)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return poolNotFound(org, id)
	}
	return nil
}
