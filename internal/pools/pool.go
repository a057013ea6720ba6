package pools

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
)

// Pool is a named group of an organisation's physical batteries.
type Pool struct {
	OrganizationID string
	ID             string // pool_id, chosen by the customer; unique within the organisation
	// AssetIDs are the members in the order the customer gave them; each
	// is a physical asset of OrganizationID and in no other pool.
	AssetIDs []string
	// AllowInternalCollateralisation lets members cover each other's FCR
	// obligation (collateralisation); aFRR cover needs only the members'
	// backup configuration (docs/portfolio.md).
	AllowInternalCollateralisation bool

	CreatedAt, UpdatedAt time.Time // platform clock
}

// MaxMembers bounds a pool: a balancing portfolio of batteries of one
// organisation, each write checks and locks every member in one
// transaction, and the state reads them all on every request.
const MaxMembers = 500

// IDPattern is the shape of a pool_id: that of an asset id (1 to 64
// characters of letters, digits, '.', '_' and '-', a letter or digit
// first), so that it is a plain path segment, never "." or "..".
const IDPattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`

var idRE = regexp.MustCompile(IDPattern)

// ValidID reports whether id has the shape of a pool_id; one that does not
// names no pool.
func ValidID(id string) bool { return idRE.MatchString(id) }

// memberLocation is where list_asset_ids[i] sits in a request body.
func memberLocation(i int) string { return fmt.Sprintf("list_asset_ids[%d]", i) }

// checkList records what is wrong with a member list on its own: too
// long, or an id repeated (named at each repetition). It reports whether
// the list is fine.
func checkList(v *errs.Validation, ids []string) bool {
	if len(ids) > MaxMembers {
		v.Add("list_asset_ids", fmt.Sprintf("must hold at most %d assets", MaxMembers), len(ids))
		return false
	}
	ok := true
	first := make(map[string]int, len(ids))
	for i, id := range ids {
		if j, seen := first[id]; seen {
			v.Add(memberLocation(i), fmt.Sprintf("repeats list_asset_ids[%d]; list each asset once", j), id)
			ok = false
			continue
		}
		first[id] = i
	}
	return ok
}

// Candidate is what the store read of one listed asset under the write's
// lock: whether it is a physical asset of the pool's organisation, its
// operational status and the pool it is in now.
type Candidate struct {
	AssetID string
	// Found: a physical asset of the pool's organisation, not deleted. An
	// unknown id, a deleted asset, another organisation's asset and a
	// virtual asset id are all not found.
	Found  bool
	Status assets.OperationalStatus
	// PoolID is the organisation's pool holding the asset now, "" for none.
	PoolID string
}

// checkMember records why candidate i cannot be a member; a virtual asset
// is reported by the service, which resolves virtual ids, before the
// store is asked.
func checkMember(v *errs.Validation, org string, i int, c Candidate) {
	switch {
	case !c.Found:
		// The same words whether the asset is unknown, deleted or another
		// organisation's: nothing about other organisations leaks.
		v.Add(memberLocation(i), fmt.Sprintf("is not an asset of organisation %q", org), c.AssetID)
	case c.Status == assets.Offboarded:
		v.Add(memberLocation(i), "is offboarded; an offboarded asset belongs to no pool", c.AssetID)
	}
}

// CheckCandidates is the membership rule a write of pool poolID applies
// to its candidates, in the order of list_asset_ids: 422 naming each
// member that is not a physical, not offboarded asset of org, otherwise
// 409 asset_in_other_pool naming every asset another pool holds, and
// that pool.
func CheckCandidates(org, poolID string, candidates []Candidate) error {
	var v errs.Validation
	for i, c := range candidates {
		checkMember(&v, org, i, c)
	}
	if err := v.Err(); err != nil {
		return err
	}
	var taken []string
	for _, c := range candidates {
		if c.PoolID != "" && c.PoolID != poolID {
			taken = append(taken, fmt.Sprintf("asset %q is in pool %q", c.AssetID, c.PoolID))
		}
	}
	if len(taken) > 0 {
		return errs.Conflictf(CodeAssetInOtherPool, "an asset is in at most one pool: %s; remove it there first",
			strings.Join(taken, ", "))
	}
	return nil
}
