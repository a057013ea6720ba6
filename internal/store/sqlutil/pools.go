package sqlutil

import (
	"time"

	"atcp/internal/pools"
)

// PoolRow is one row of a pool joined with one of its members, read in
// (organisation, pool_id, position) order; AssetID is nil for a pool
// without members.
type PoolRow struct {
	OrganizationID, PoolID         string
	AllowInternalCollateralisation bool
	CreatedAt, UpdatedAt           time.Time
	AssetID                        *string
}

// AppendPoolRow adds r to list: a member of the last pool, or a new pool.
// Every pool's AssetIDs is non-nil.
func AppendPoolRow(list []pools.Pool, r PoolRow) []pools.Pool {
	if n := len(list); n > 0 && list[n-1].OrganizationID == r.OrganizationID && list[n-1].ID == r.PoolID {
		if r.AssetID != nil {
			list[n-1].AssetIDs = append(list[n-1].AssetIDs, *r.AssetID)
		}
		return list
	}
	p := pools.Pool{OrganizationID: r.OrganizationID, ID: r.PoolID, AssetIDs: []string{},
		AllowInternalCollateralisation: r.AllowInternalCollateralisation, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.AssetID != nil {
		p.AssetIDs = append(p.AssetIDs, *r.AssetID)
	}
	return append(list, p)
}

// Candidates orders what a store read of the listed assets (found, keyed
// by asset id) as the candidates of ids, in the order of ids.
func Candidates(ids []string, found map[string]pools.Candidate) []pools.Candidate {
	out := make([]pools.Candidate, len(ids))
	for i, id := range ids {
		c, ok := found[id]
		if !ok {
			c = pools.Candidate{AssetID: id}
		}
		out[i] = c
	}
	return out
}
