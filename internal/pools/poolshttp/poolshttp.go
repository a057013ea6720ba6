// Package poolshttp serves the pools of an organisation (beta) under
// /v1/pools: list, create, read, replace, delete and the live pool state.
package poolshttp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/pools"
)

// beta opens the description of every pool operation (document 1,
// Versioning rule 3).
const beta = "**Beta**: request, response and behaviour may change without notice. "

// Pool is the pool resource of document 1, with its timestamps.
type Pool struct {
	OrganizationID                 string    `json:"organization_id" doc:"The organisation the pool belongs to."`
	PoolID                         string    `json:"pool_id" doc:"Chosen by the organisation; unique within it."`
	ListAssetIDs                   []string  `json:"list_asset_ids" nullable:"false" doc:"The members, physical assets of the organisation, in the order given; an asset is in at most one pool."`
	AllowInternalCollateralisation bool      `json:"allow_internal_collateralisation" doc:"Whether the platform may cover one member's obligation by dispatching another member."`
	CreatedAt                      time.Time `json:"created_at" doc:"When the pool was created (platform clock)."`
	UpdatedAt                      time.Time `json:"updated_at" doc:"When the pool was last written through these endpoints (platform clock); an asset leaving it because it was deleted or offboarded does not change it."`
}

// PoolList is the body of GET /v1/pools.
type PoolList struct {
	Pools []Pool `json:"pools" nullable:"false" doc:"Ordered by pool_id."`
}

// PoolCreateRequest is the body of POST /v1/pools.
type PoolCreateRequest struct {
	PoolID                         string   `json:"pool_id" doc:"1 to 64 letters, digits, '.', '_' or '-', a letter or digit first; case-sensitive. Checked with the members, so that one answer names every problem."`
	ListAssetIDs                   []string `json:"list_asset_ids,omitempty" required:"false" nullable:"false" maxItems:"500" doc:"The members: physical, not offboarded assets of the organisation, each once and in no other pool. Default (also for null): none."`
	AllowInternalCollateralisation *bool    `json:"allow_internal_collateralisation,omitempty" required:"false" doc:"Default false."`
}

// PoolReplaceRequest is the body of PUT /v1/pools/{pool_id}: both fields
// are required. The response-only fields are accepted and ignored, so
// that a pool read with GET can be sent back.
type PoolReplaceRequest struct {
	ListAssetIDs                   []string `json:"list_asset_ids" nullable:"false" maxItems:"500" doc:"The complete new member list: physical, not offboarded assets of the organisation, each once and in no other pool; [] empties the pool."`
	AllowInternalCollateralisation bool     `json:"allow_internal_collateralisation"`
	OrganizationID                 any      `json:"organization_id,omitempty" readOnly:"true" doc:"Response only; ignored on input (query organization_id names the organisation)."`
	PoolID                         any      `json:"pool_id,omitempty" readOnly:"true" doc:"Response only; ignored on input (the path names the pool)."`
	CreatedAt                      any      `json:"created_at,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	UpdatedAt                      any      `json:"updated_at,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
}

// PoolState is the pool state of document 1 with the instant it describes
// and each member's part.
type PoolState struct {
	PoolID                    string            `json:"pool_id"`
	PoolStatus                bool              `json:"pool_status" doc:"The pool has members and every one is available: fresh telemetry, a non-zero asset_status, no full restriction now."`
	FCRPoolStatus             bool              `json:"fcr_pool_status" doc:"The pool holds FCR capacity now and every member holding some is available."`
	AFRRPoolStatus            bool              `json:"afrr_pool_status" doc:"The pool holds aFRR capacity (either direction) now and every member holding some is available."`
	PowerActualAC             float64           `json:"power_actual_ac" doc:"Sum of the fresh members' battery_power_actual_ac (MW; positive discharges)."`
	OperatingPoint            float64           `json:"operating_point" doc:"Sum of the fresh members' dispatch_setpoint: the scheduled power the balancing activations deviate from (MW)."`
	FCRPowerActual            float64           `json:"fcr_power_actual" doc:"Sum of the fresh members' fcr_power_actual (MW)."`
	FCRCurrentReservationPos  float64           `json:"fcr_current_reservation_pos" doc:"FCR capacity held now: the power of the members' SUCCESSFUL FCR bids covering as_of (MW; FCR is symmetric)."`
	FCRCurrentReservationNeg  float64           `json:"fcr_current_reservation_neg" doc:"The same figure for the negative direction (MW)."`
	AFRRSetpoint              float64           `json:"afrr_setpoint" doc:"Sum of the fresh members' afrr_setpoint (MW, signed)."`
	AFRRPowerActual           float64           `json:"afrr_power_actual" doc:"Sum of the fresh members' afrr_power_actual (MW)."`
	AFRRCurrentReservationPos float64           `json:"afrr_current_reservation_pos" doc:"Positive aFRR capacity held now: the power of the members' SUCCESSFUL pos capacity bids covering as_of (MW)."`
	AFRRCurrentReservationNeg float64           `json:"afrr_current_reservation_neg" doc:"Negative aFRR capacity held now (MW, a magnitude)."`
	AsOf                      time.Time         `json:"as_of" doc:"The platform-clock instant the state describes (an addition to document 1)."`
	Members                   []PoolMemberState `json:"members" nullable:"false" doc:"Each member's part, in member order (an addition to document 1)."`
}

// PoolMemberState is one member's part of the pool state.
type PoolMemberState struct {
	AssetID                   string     `json:"asset_id"`
	MeasuredAt                *time.Time `json:"measured_at" nullable:"true" doc:"The instant of the member's latest measurements; null when it never reported."`
	Fresh                     bool       `json:"fresh" doc:"The latest measurements are at most 5 s of real time old; only then do they count in the sums."`
	Available                 bool       `json:"available" doc:"Fresh, a non-zero asset_status, and no full restriction now."`
	PowerActualAC             float64    `json:"power_actual_ac" doc:"battery_power_actual_ac (MW); 0 unless fresh."`
	OperatingPoint            float64    `json:"operating_point" doc:"dispatch_setpoint (MW); 0 unless fresh."`
	FCRPowerActual            float64    `json:"fcr_power_actual" doc:"MW; 0 unless fresh."`
	AFRRSetpoint              float64    `json:"afrr_setpoint" doc:"MW; 0 unless fresh."`
	AFRRPowerActual           float64    `json:"afrr_power_actual" doc:"MW; 0 unless fresh."`
	FCRCurrentReservation     float64    `json:"fcr_current_reservation" doc:"FCR capacity the member holds now, its virtual assets' included (MW, each direction)."`
	AFRRCurrentReservationPos float64    `json:"afrr_current_reservation_pos" doc:"MW."`
	AFRRCurrentReservationNeg float64    `json:"afrr_current_reservation_neg" doc:"MW, a magnitude."`
}

func toPool(p pools.Pool) Pool {
	return Pool{OrganizationID: p.OrganizationID, PoolID: p.ID, ListAssetIDs: p.AssetIDs,
		AllowInternalCollateralisation: p.AllowInternalCollateralisation, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

func toState(st pools.State) PoolState {
	out := PoolState{
		PoolID: st.PoolID, PoolStatus: st.PoolStatus, FCRPoolStatus: st.FCRPoolStatus, AFRRPoolStatus: st.AFRRPoolStatus,
		PowerActualAC: st.PowerActualAC, OperatingPoint: st.OperatingPoint, FCRPowerActual: st.FCRPowerActual,
		FCRCurrentReservationPos: st.FCRReservationPos, FCRCurrentReservationNeg: st.FCRReservationNeg,
		AFRRSetpoint: st.AFRRSetpoint, AFRRPowerActual: st.AFRRPowerActual,
		AFRRCurrentReservationPos: st.AFRRReservationPos, AFRRCurrentReservationNeg: st.AFRRReservationNeg,
		AsOf: st.AsOf.UTC(), Members: make([]PoolMemberState, len(st.Members)),
	}
	for i, m := range st.Members {
		out.Members[i] = PoolMemberState{AssetID: m.AssetID, MeasuredAt: m.MeasuredAt, Fresh: m.Fresh, Available: m.Available,
			PowerActualAC: m.PowerActualAC, OperatingPoint: m.OperatingPoint, FCRPowerActual: m.FCRPowerActual,
			AFRRSetpoint: m.AFRRSetpoint, AFRRPowerActual: m.AFRRPowerActual, FCRCurrentReservation: m.FCRReservation,
			AFRRCurrentReservationPos: m.AFRRReservationPos, AFRRCurrentReservationNeg: m.AFRRReservationNeg}
	}
	return out
}

type listInput struct {
	OrganizationID string `query:"organization_id" maxLength:"64" doc:"The organisation whose pools to act on: platform administrators may name any registered one; others may leave it out or name their own (422 organization_not_accessible otherwise). Default: the caller's."`
}

type poolInput struct {
	PoolID         string `path:"pool_id" doc:"The pool_id."`
	OrganizationID string `query:"organization_id" maxLength:"64" doc:"The organisation whose pools to act on: platform administrators may name any registered one; others may leave it out or name their own (422 organization_not_accessible otherwise). Default: the caller's."`
}

type createInput struct {
	OrganizationID string `query:"organization_id" maxLength:"64" doc:"The organisation whose pools to act on: platform administrators may name any registered one; others may leave it out or name their own (422 organization_not_accessible otherwise). Default: the caller's."`
	Body           PoolCreateRequest
}

type replaceInput struct {
	PoolID         string `path:"pool_id" doc:"The pool_id."`
	OrganizationID string `query:"organization_id" maxLength:"64" doc:"The organisation whose pools to act on: platform administrators may name any registered one; others may leave it out or name their own (422 organization_not_accessible otherwise). Default: the caller's."`
	Body           PoolReplaceRequest
}

type listOutput struct{ Body PoolList }

type poolOutput struct{ Body Pool }

type createOutput struct {
	Location string `header:"Location" doc:"Path of the new pool."`
	Body     Pool
}

type stateOutput struct{ Body PoolState }

// target resolves the organisation a request acts on; its errors name
// the query parameter.
func target(ctx context.Context, svc *pools.Service, named string) (pools.Target, error) {
	t, err := svc.Target(ctx, httpapi.Principal(ctx), named)
	return t, errs.Within("query.", err)
}

// Register adds the pool endpoints to s.
func Register(s *httpapi.Server, svc *pools.Service) {
	tags := []string{s.Tag("Pools (beta)", beta+"Named groups of an organisation's physical batteries that the platform may steer "+
		"together, and their live state. Scopes pool.read and pool.write are internal: they cannot be granted to integrations.")}
	const (
		list = "/v1/pools"
		one  = list + "/{pool_id}"
	)
	members := fmt.Sprintf("422 names each list_asset_ids[i] that is not an asset of the organisation (unknown, deleted or "+
		"another organisation's: the same answer), a virtual asset (list its parent), offboarded, or repeated, and a list of more "+
		"than %d; 409 asset_in_other_pool names each asset another pool holds, and that pool.", pools.MaxMembers)
	org := " 422 organization_not_accessible for an organization_id the caller cannot act on."

	httpapi.Register(s, huma.Operation{
		OperationID: "list-pools", Method: http.MethodGet, Path: list, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:     "List the organisation's pools",
		Description: beta + "Ordered by pool_id, each with its members." + org,
		Errors:      []int{http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.PoolRead), func(ctx context.Context, in *listInput) (*listOutput, error) {
		t, err := target(ctx, svc, in.OrganizationID)
		if err != nil {
			return nil, err
		}
		list, err := svc.List(ctx, t)
		if err != nil {
			return nil, err
		}
		out := &listOutput{Body: PoolList{Pools: make([]Pool, len(list))}}
		for i, p := range list {
			out.Body.Pools[i] = toPool(p)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create-pool", Method: http.MethodPost, Path: list, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, examplePool),
		Summary:     "Create a pool",
		Description: beta + "422 for an invalid pool_id; " + members + " 409 pool_exists when the organisation has the pool_id already." + org,
		Errors:      []int{http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.PoolWrite), func(ctx context.Context, in *createInput) (*createOutput, error) {
		t, err := target(ctx, svc, in.OrganizationID)
		if err != nil {
			return nil, err
		}
		p := pools.Pool{ID: in.Body.PoolID, AssetIDs: in.Body.ListAssetIDs}
		if in.Body.AllowInternalCollateralisation != nil {
			p.AllowInternalCollateralisation = *in.Body.AllowInternalCollateralisation
		}
		p, err = svc.Create(ctx, t, p)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &createOutput{Location: location(ctx, p), Body: toPool(p)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-pool", Method: http.MethodGet, Path: one, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, examplePool),
		Summary:     "Read a pool",
		Description: beta + "404 when the organisation has no such pool." + org,
		Errors:      []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.PoolRead), func(ctx context.Context, in *poolInput) (*poolOutput, error) {
		t, err := target(ctx, svc, in.OrganizationID)
		if err != nil {
			return nil, err
		}
		p, err := svc.Get(ctx, t, in.PoolID)
		if err != nil {
			return nil, err
		}
		return &poolOutput{Body: toPool(p)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "replace-pool", Method: http.MethodPut, Path: one, Tags: tags,
		RequestBody: httpapi.RequestExample(exampleReplace), Responses: httpapi.ResponseExample(http.StatusOK, exampleReplaced),
		Summary: "Replace a pool's members and settings",
		Description: beta + "list_asset_ids and allow_internal_collateralisation are both required; the list replaces the members " +
			"([] empties the pool). Response-only fields are ignored, so a pool read with GET can be sent back. " +
			"404 when the organisation has no such pool; " + members + org,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.PoolWrite), func(ctx context.Context, in *replaceInput) (*poolOutput, error) {
		t, err := target(ctx, svc, in.OrganizationID)
		if err != nil {
			return nil, err
		}
		if in.Body.ListAssetIDs == nil {
			// Present (huma checks that) but null: a PUT states the
			// members, [] for none.
			return nil, errs.Invalidf("body.list_asset_ids", nil, "is required: the complete member list, [] for none")
		}
		p, err := svc.Replace(ctx, t, in.PoolID, in.Body.ListAssetIDs, in.Body.AllowInternalCollateralisation)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &poolOutput{Body: toPool(p)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-pool", Method: http.MethodDelete, Path: one, Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary:     "Delete a pool",
		Description: beta + "Its members stay assets of the organisation, in no pool. 404 when the organisation has no such pool." + org,
		Errors:      []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.PoolWrite), func(ctx context.Context, in *poolInput) (*struct{}, error) {
		t, err := target(ctx, svc, in.OrganizationID)
		if err != nil {
			return nil, err
		}
		return nil, svc.Delete(ctx, t, in.PoolID)
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-pool-state", Method: http.MethodGet, Path: one + "/state", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleState),
		Summary:   "Read a pool's live state",
		Description: beta + "Aggregated at the platform clock's now (as_of) from the members' latest measurements and the " +
			"capacity they hold (SUCCESSFUL FCR and aFRR capacity bids covering as_of, their virtual assets' included). " +
			"A member whose measurements are older than 5 s of real time, or that never reported, adds nothing to the measured " +
			"sums and makes pool_status false; its reservations still count. docs/pools.md defines every field. " +
			"404 when the organisation has no such pool." + org,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.PoolRead), func(ctx context.Context, in *poolInput) (*stateOutput, error) {
		t, err := target(ctx, svc, in.OrganizationID)
		if err != nil {
			return nil, err
		}
		st, err := svc.State(ctx, t, in.PoolID)
		if err != nil {
			return nil, err
		}
		return &stateOutput{Body: toState(st)}, nil
	})
}

// location is the path of pool p, naming its organisation when it is not
// the caller's (a platform administrator acting for another).
func location(ctx context.Context, p pools.Pool) string {
	loc := "/v1/pools/" + url.PathEscape(p.ID)
	if caller := httpapi.Principal(ctx); caller == nil || caller.OrganizationID != p.OrganizationID {
		loc += "?organization_id=" + url.QueryEscape(p.OrganizationID)
	}
	return loc
}
