// Package pools owns the pools of an organisation (beta): named groups of
// its physical batteries that the platform may steer together, covering
// one member's obligation by dispatching another (with
// allow_internal_collateralisation). It holds the Pool record, the pool_id
// shape, the membership rules (an asset is in at most one pool, members
// are physical, not offboarded assets of the pool's organisation, at most
// MaxMembers, no repetition), the organisation a request acts on (Target),
// the store interface, and the pool state: a pure aggregation (Aggregate)
// of the members' latest measurements and reservations in force. It is
// plain Go: errors name fields, not request paths; the endpoints live in
// poolshttp, docs/pools.md records the decisions.
package pools
