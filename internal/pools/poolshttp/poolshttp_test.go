package poolshttp_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/pools"
	"atcp/internal/pools/poolshttp"
	"atcp/internal/restrictions"
	"atcp/internal/segmentation"
	"atcp/internal/segmentation/segmentationhttp"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

type env struct {
	h        *testkit.Harness
	b        store.Backend
	registry *assets.Service
	// acme may read and write pools, acmeRO only read them, beta is
	// another organisation, none holds every scope but the pool ones.
	acme, acmeRO, beta, none, admin string
}

// staleAfter is the state's staleness age in the tests.
const staleAfter = 5 * time.Second

// setup registers acme's bess-1, bess-2 (segmented into the virtual assets
// bess-2.a and bess-2.b), bess-3 and bess-off (offboarded), and beta's
// b-1.
func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), h.Clock)
	seg := segmentation.NewService(b.Segmentations(), registry, b.Bids(), h.Clock)
	registry.SetVirtualResolver(seg)
	registry.AddDeletionGuard(seg)
	assetshttp.Register(h.Server, registry)
	segmentationhttp.Register(h.Server, seg)
	poolshttp.Register(h.Server, pools.NewService(pools.Deps{
		Store: b.Pools(), Assets: registry, Organizations: b.Directory(), Latest: b.Telemetry(), Reservations: b.Bids(),
		Restrictions: b.Restrictions(), Clock: h.Clock, StaleAfter: staleAfter,
	}))
	var others []auth.Scope
	for _, sc := range auth.AllScopes {
		if sc != auth.PoolRead && sc != auth.PoolWrite {
			others = append(others, sc)
		}
	}
	e := env{h: h, b: b, registry: registry,
		acme:   h.TokenFor("acme", auth.PoolRead, auth.PoolWrite),
		acmeRO: h.TokenFor("acme", auth.PoolRead),
		beta:   h.TokenFor("beta", auth.PoolRead, auth.PoolWrite),
		none:   h.TokenFor("acme", others...),
		admin:  h.AdminToken(),
	}
	for _, a := range []struct{ id, org, status string }{
		{"bess-1", "acme", "maintenance"}, {"bess-2", "acme", "live"}, {"bess-3", "acme", "live"},
		{"bess-off", "acme", "offboarded"}, {"b-1", "beta", "live"},
	} {
		h.Do("POST", "/v1/assets", e.admin, map[string]any{
			"asset_id": a.id, "asset_name": "Battery " + a.id, "asset_type": "standalone", "location": "Cottbus",
			"organisation_id": a.org, "asset_operational_status": a.status, "fcr_prequalified_capacity_mw": 10,
			"afrr_prequalified_capacity_pos_mw": 10, "afrr_prequalified_capacity_neg_mw": 10,
		}).Expect(t, 201, "")
	}
	h.Do("PUT", "/v1/assets/bess-2/segmentation", e.admin, map[string]any{"mode": "proportional", "segments": []any{
		map[string]any{"segment_id": "a", "name": "A", "share": 0.5}, map[string]any{"segment_id": "b", "name": "B", "share": 0.5},
	}}).Expect(t, 200, "")
	h.Do("POST", "/v1/assets/bess-2/segmentation/activate", e.admin, nil).Expect(t, 200, "")
	return e
}

type poolBody struct {
	OrganizationID                 string    `json:"organization_id"`
	PoolID                         string    `json:"pool_id"`
	ListAssetIDs                   []string  `json:"list_asset_ids"`
	AllowInternalCollateralisation bool      `json:"allow_internal_collateralisation"`
	CreatedAt                      time.Time `json:"created_at"`
	UpdatedAt                      time.Time `json:"updated_at"`
}

func (e env) pools(t *testing.T, token, query string) []poolBody {
	t.Helper()
	var list struct {
		Pools []poolBody `json:"pools"`
	}
	e.h.Do("GET", "/v1/pools"+query, token, nil).Expect(t, 200, "").JSON(t, &list)
	return list.Pools
}

// problem returns the code and the error locations of a problem.
func problem(t *testing.T, r *testkit.Response) (string, []string) {
	t.Helper()
	var p struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
		Errors []struct {
			Location string `json:"location"`
		} `json:"errors"`
	}
	r.JSON(t, &p)
	var locs []string
	for _, e := range p.Errors {
		locs = append(locs, e.Location)
	}
	return p.Code, locs
}

func TestPoolLifecycle(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		if list := e.pools(t, e.acme, ""); list == nil || len(list) != 0 {
			t.Fatalf("no pools: %#v", list)
		}
		r := e.h.Do("POST", "/v1/pools", e.acme, map[string]any{"pool_id": "nord", "list_asset_ids": []string{"bess-2", "bess-1"},
			"allow_internal_collateralisation": true}).Expect(t, 201, "")
		var created poolBody
		r.JSON(t, &created)
		want := poolBody{OrganizationID: "acme", PoolID: "nord", ListAssetIDs: []string{"bess-2", "bess-1"},
			AllowInternalCollateralisation: true, CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
		if !reflect.DeepEqual(created, want) || r.Header.Get("Location") != "/v1/pools/nord" {
			t.Fatalf("created %+v at %q", created, r.Header.Get("Location"))
		}
		// Only pool_id is required: no members, no collateralisation.
		var bare poolBody
		e.h.Do("POST", "/v1/pools", e.acme, `{"pool_id":"A.reserve_1"}`).Expect(t, 201, "").JSON(t, &bare)
		if bare.ListAssetIDs == nil || len(bare.ListAssetIDs) != 0 || bare.AllowInternalCollateralisation {
			t.Fatalf("defaults %+v", bare)
		}
		// null is the default too; the pool goes again.
		e.h.Do("POST", "/v1/pools", e.acme, `{"pool_id":"z","list_asset_ids":null}`).Expect(t, 201, "").JSON(t, &bare)
		if bare.ListAssetIDs == nil || len(bare.ListAssetIDs) != 0 {
			t.Fatalf("null members %+v", bare)
		}
		e.h.Do("DELETE", "/v1/pools/z", e.acme, nil).Expect(t, 204, "")
		e.h.Do("POST", "/v1/pools", e.acme, `{"pool_id":"A.reserve_1"}`).Expect(t, 409, "pool_exists")
		if list := e.pools(t, e.acmeRO, ""); len(list) != 2 || list[0].PoolID != "A.reserve_1" || !reflect.DeepEqual(list[1], want) {
			t.Fatalf("list %+v", list)
		}
		var got poolBody
		e.h.Do("GET", "/v1/pools/nord", e.acmeRO, nil).Expect(t, 200, "").JSON(t, &got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("get %+v", got)
		}

		// PUT replaces both fields; a pool read with GET can be sent back.
		e.h.Clock.Advance(time.Minute)
		sendBack := map[string]any{"organization_id": "whatever", "pool_id": "ignored", "created_at": "x", "updated_at": 1,
			"list_asset_ids": []string{"bess-3"}, "allow_internal_collateralisation": false}
		e.h.Do("PUT", "/v1/pools/nord", e.acme, sendBack).Expect(t, 200, "").JSON(t, &got)
		want.ListAssetIDs, want.AllowInternalCollateralisation, want.UpdatedAt = []string{"bess-3"}, false, testkit.Start.Add(time.Minute)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("replaced %+v", got)
		}
		// bess-1 and bess-2 left nord: another pool may take them.
		e.h.Do("PUT", "/v1/pools/A.reserve_1", e.acme, map[string]any{"list_asset_ids": []string{"bess-1", "bess-2"},
			"allow_internal_collateralisation": true}).Expect(t, 200, "")
		e.h.Do("PUT", "/v1/pools/nord", e.acme, map[string]any{"list_asset_ids": []string{}, "allow_internal_collateralisation": false}).
			Expect(t, 200, "").JSON(t, &got)
		if got.ListAssetIDs == nil || len(got.ListAssetIDs) != 0 {
			t.Fatalf("emptied %+v", got)
		}

		r = e.h.Do("DELETE", "/v1/pools/nord", e.acme, nil).Expect(t, 204, "")
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
		for _, method := range []string{"GET", "DELETE"} {
			e.h.Do(method, "/v1/pools/nord", e.acme, nil).Expect(t, 404, "not_found")
		}
		e.h.Do("GET", "/v1/pools/nord/state", e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("PUT", "/v1/pools/nord", e.acme, map[string]any{"list_asset_ids": []string{}, "allow_internal_collateralisation": false}).
			Expect(t, 404, "not_found")
		// A path that cannot be a pool_id names no pool.
		e.h.Do("GET", "/v1/pools/"+strings.Repeat("p", 65), e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/pools/-x", e.acme, nil).Expect(t, 404, "not_found")
	})
}

func TestPoolWritesRefused(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.h.Do("POST", "/v1/pools", e.acme, map[string]any{"pool_id": "nord", "list_asset_ids": []string{"bess-1"}}).Expect(t, 201, "")
		before := e.pools(t, e.acme, "")
		many := make([]string, pools.MaxMembers+1)
		for i := range many {
			many[i] = fmt.Sprintf("bess-%d", i)
		}
		for _, c := range []struct {
			name   string
			method string
			path   string
			body   any
			status int
			code   string
			locs   []string
			says   []string
		}{
			{"no pool_id", "POST", "/v1/pools", `{"list_asset_ids":[]}`, 422, "validation_failed", []string{"body.pool_id"}, nil},
			{"pool_id of a bad shape", "POST", "/v1/pools", `{"pool_id":".."}`, 422, "validation_failed", []string{"body.pool_id"}, nil},
			{"pool_id too long", "POST", "/v1/pools", map[string]any{"pool_id": strings.Repeat("p", 65)}, 422, "validation_failed", []string{"body.pool_id"}, nil},
			{"pool_id taken", "POST", "/v1/pools", `{"pool_id":"nord"}`, 409, "pool_exists", nil, []string{`\"nord\"`}},
			{"unknown asset", "POST", "/v1/pools", `{"pool_id":"sued","list_asset_ids":["bess-3","nope"]}`, 422, "validation_failed",
				[]string{"body.list_asset_ids[1]"}, []string{`not an asset of organisation \"acme\"`}},
			{"another organisation's asset: the same answer", "POST", "/v1/pools", `{"pool_id":"sued","list_asset_ids":["b-1"]}`, 422,
				"validation_failed", []string{"body.list_asset_ids[0]"}, []string{`not an asset of organisation \"acme\"`}},
			{"virtual asset", "POST", "/v1/pools", `{"pool_id":"sued","list_asset_ids":["bess-2.a"]}`, 422, "validation_failed",
				[]string{"body.list_asset_ids[0]"}, []string{"virtual", `\"bess-2\"`}},
			{"offboarded asset", "POST", "/v1/pools", `{"pool_id":"sued","list_asset_ids":["bess-off"]}`, 422, "validation_failed",
				[]string{"body.list_asset_ids[0]"}, []string{"offboarded"}},
			{"repeated asset", "POST", "/v1/pools", `{"pool_id":"sued","list_asset_ids":["bess-3","bess-2","bess-3"]}`, 422,
				"validation_failed", []string{"body.list_asset_ids[2]"}, []string{"list_asset_ids[0]"}},
			{"too many", "POST", "/v1/pools", map[string]any{"pool_id": "sued", "list_asset_ids": many}, 422, "validation_failed",
				[]string{"body.list_asset_ids"}, nil},
			{"every problem at once", "POST", "/v1/pools", `{"pool_id":"-","list_asset_ids":["nope","bess-2.b","bess-off"]}`, 422,
				"validation_failed", []string{"body.list_asset_ids[0]", "body.list_asset_ids[1]", "body.list_asset_ids[2]", "body.pool_id"}, nil},
			{"asset in another pool", "POST", "/v1/pools", `{"pool_id":"sued","list_asset_ids":["bess-3","bess-1"]}`, 409,
				"asset_in_other_pool", nil, []string{`asset \"bess-1\" is in pool \"nord\"`}},
			{"PUT with members null", "PUT", "/v1/pools/nord", `{"list_asset_ids":null,"allow_internal_collateralisation":true}`, 422,
				"validation_failed", []string{"body.list_asset_ids"}, nil},
			{"a member that is not a string", "POST", "/v1/pools", `{"pool_id":"sued","list_asset_ids":[1]}`, 422, "validation_failed",
				[]string{"body.list_asset_ids[0]"}, nil},
			{"an unknown field", "POST", "/v1/pools", `{"pool_id":"sued","members":[]}`, 422, "validation_failed", []string{"body.members"}, nil},
			{"malformed JSON", "POST", "/v1/pools", `{"pool_id":`, 400, "malformed_request", []string{"body"}, nil},
			{"PUT without members", "PUT", "/v1/pools/nord", `{"allow_internal_collateralisation":true}`, 422, "validation_failed",
				[]string{"body.list_asset_ids"}, nil},
			{"PUT without allow_internal_collateralisation", "PUT", "/v1/pools/nord", `{"list_asset_ids":[]}`, 422, "validation_failed",
				[]string{"body.allow_internal_collateralisation"}, nil},
			{"PUT with a virtual asset", "PUT", "/v1/pools/nord", `{"list_asset_ids":["bess-1","bess-2.a"],"allow_internal_collateralisation":true}`,
				422, "validation_failed", []string{"body.list_asset_ids[1]"}, nil},
			{"PUT of an unknown pool", "PUT", "/v1/pools/sued", `{"list_asset_ids":[],"allow_internal_collateralisation":true}`, 404,
				"not_found", nil, nil},
			{"PUT of an unknown pool, whatever the members", "PUT", "/v1/pools/sued", `{"list_asset_ids":["nope","nope"],
				"allow_internal_collateralisation":true}`, 404, "not_found", nil, nil},
			{"organisation of another", "POST", "/v1/pools?organization_id=beta", `{"pool_id":"sued"}`, 422, "organization_not_accessible",
				[]string{"query.organization_id"}, nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := e.h.Do(c.method, c.path, e.acme, c.body).Expect(t, c.status, "")
				code, locs := problem(t, r)
				slices.Sort(locs)
				if (c.code != "" && code != c.code) || !slices.Equal(locs, c.locs) {
					t.Fatalf("code %q at %v, want %q at %v: %s", code, locs, c.code, c.locs, r.Body)
				}
				for _, w := range c.says {
					if !strings.Contains(string(r.Body), w) {
						t.Errorf("the problem does not say %s: %s", w, r.Body)
					}
				}
				if after := e.pools(t, e.acme, ""); !reflect.DeepEqual(after, before) {
					t.Fatalf("a refused request changed the pools: %+v", after)
				}
			})
		}
	})
}

// TestPoolAccess: the scopes, organisation isolation (another
// organisation's pool is not found), and query organization_id (platform
// administrators only).
func TestPoolAccess(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.h.Do("POST", "/v1/pools", e.acme, `{"pool_id":"nord","list_asset_ids":["bess-1"]}`).Expect(t, 201, "")
		replace := `{"list_asset_ids":[],"allow_internal_collateralisation":false}`
		ops := []struct {
			method, path string
			body         any
			write        bool
		}{
			{"GET", "/v1/pools", nil, false},
			{"POST", "/v1/pools", `{"pool_id":"sued"}`, true},
			{"GET", "/v1/pools/nord", nil, false},
			{"PUT", "/v1/pools/nord", replace, true},
			{"DELETE", "/v1/pools/nord", nil, true},
			{"GET", "/v1/pools/nord/state", nil, false},
		}
		for _, op := range ops {
			e.h.Do(op.method, op.path, "", op.body).Expect(t, 401, "invalid_token")
			// pool.read and pool.write are their own: no other scope opens them.
			e.h.Do(op.method, op.path, e.none, op.body).Expect(t, 403, "insufficient_scope")
			if op.write {
				e.h.Do(op.method, op.path, e.acmeRO, op.body).Expect(t, 403, "insufficient_scope")
			}
			// Another organisation: naming acme is refused, acme's pool
			// is not found in its own.
			sep := "?"
			if strings.Contains(op.path, "?") {
				sep = "&"
			}
			r := e.h.Do(op.method, op.path+sep+"organization_id=acme", e.beta, op.body).Expect(t, 422, "organization_not_accessible")
			if _, locs := problem(t, r); !slices.Equal(locs, []string{"query.organization_id"}) || strings.Contains(string(r.Body), "bess-1") {
				t.Fatalf("%s %s: %s", op.method, op.path, r.Body)
			}
			// An organisation that does not exist gets the same answer.
			e.h.Do(op.method, op.path+sep+"organization_id=nobody", e.beta, op.body).Expect(t, 422, "organization_not_accessible")
			if strings.Contains(op.path, "nord") {
				e.h.Do(op.method, op.path, e.beta, op.body).Expect(t, 404, "not_found")
			}
		}
		if list := e.pools(t, e.beta, ""); len(list) != 0 {
			t.Fatalf("beta lists %+v", list)
		}
		// Naming one's own organisation is the default.
		if list := e.pools(t, e.acme, "?organization_id=acme"); len(list) != 1 || !reflect.DeepEqual(list[0].ListAssetIDs, []string{"bess-1"}) {
			t.Fatalf("acme lists %+v", list)
		}

		// A platform administrator acts on its own organisation by
		// default and on any registered one it names.
		if list := e.pools(t, e.admin, ""); len(list) != 0 {
			t.Fatalf("the platform's pools %+v", list)
		}
		if list := e.pools(t, e.admin, "?organization_id=acme"); len(list) != 1 {
			t.Fatalf("the administrator lists acme's %+v", list)
		}
		e.h.Do("GET", "/v1/pools/nord", e.admin, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/pools?organization_id=nobody", e.admin, nil).Expect(t, 422, "organization_not_accessible")
		r := e.h.Do("POST", "/v1/pools?organization_id=beta", e.admin, `{"pool_id":"nord","list_asset_ids":["b-1"]}`).Expect(t, 201, "")
		if loc := r.Header.Get("Location"); loc != "/v1/pools/nord?organization_id=beta" {
			t.Fatalf("Location %q", loc)
		}
		// Members are the named organisation's assets only.
		e.h.Do("POST", "/v1/pools?organization_id=beta", e.admin, `{"pool_id":"x","list_asset_ids":["bess-3"]}`).Expect(t, 422, "validation_failed")
		e.h.Do("PUT", "/v1/pools/nord?organization_id=beta", e.admin, replace).Expect(t, 200, "")
		e.h.Do("GET", "/v1/pools/nord/state?organization_id=beta", e.admin, nil).Expect(t, 200, "")
		e.h.Do("DELETE", "/v1/pools/nord?organization_id=beta", e.admin, nil).Expect(t, 204, "")
		// acme's pool of the same id was never touched.
		if list := e.pools(t, e.acme, ""); len(list) != 1 || len(list[0].ListAssetIDs) != 1 {
			t.Fatalf("acme's pools %+v", list)
		}
	})
}

// TestDeletedAssetLeavesItsPool: deleting an asset (never blocked by its
// pool) and offboarding one take it out of its pool.
func TestDeletedAssetLeavesItsPool(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.h.Do("POST", "/v1/pools", e.acme, `{"pool_id":"nord","list_asset_ids":["bess-1","bess-2","bess-3"]}`).Expect(t, 201, "")
		e.h.Do("DELETE", "/v1/assets/bess-1", e.admin, nil).Expect(t, 204, "")
		e.h.Do("PUT", "/v1/assets/bess-3", e.admin, `{"asset_operational_status":"offboarded"}`).Expect(t, 200, "")
		var got poolBody
		e.h.Do("GET", "/v1/pools/nord", e.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if !reflect.DeepEqual(got.ListAssetIDs, []string{"bess-2"}) || !got.UpdatedAt.Equal(testkit.Start) {
			t.Fatalf("pool %+v", got)
		}
		e.h.Do("GET", "/v1/pools/nord/state", e.acme, nil).Expect(t, 200, "")
	})
}

type stateBody struct {
	PoolID                    string    `json:"pool_id"`
	PoolStatus                bool      `json:"pool_status"`
	FCRPoolStatus             bool      `json:"fcr_pool_status"`
	AFRRPoolStatus            bool      `json:"afrr_pool_status"`
	PowerActualAC             float64   `json:"power_actual_ac"`
	OperatingPoint            float64   `json:"operating_point"`
	FCRPowerActual            float64   `json:"fcr_power_actual"`
	FCRCurrentReservationPos  float64   `json:"fcr_current_reservation_pos"`
	FCRCurrentReservationNeg  float64   `json:"fcr_current_reservation_neg"`
	AFRRSetpoint              float64   `json:"afrr_setpoint"`
	AFRRPowerActual           float64   `json:"afrr_power_actual"`
	AFRRCurrentReservationPos float64   `json:"afrr_current_reservation_pos"`
	AFRRCurrentReservationNeg float64   `json:"afrr_current_reservation_neg"`
	AsOf                      time.Time `json:"as_of"`
	Members                   []struct {
		AssetID    string     `json:"asset_id"`
		MeasuredAt *time.Time `json:"measured_at"`
		Fresh      bool       `json:"fresh"`
		Available  bool       `json:"available"`
		FCR        float64    `json:"fcr_current_reservation"`
	} `json:"members"`
}

// addBid stores a bid of market on assetID over [from, to) after the
// harness start, in status st, offering 5 MW (3 MW awarded when
// SUCCESSFUL).
func (e env) addBid(t *testing.T, assetID string, market bids.Market, product bids.Product, from, to time.Duration, st bids.Status) {
	t.Helper()
	ctx := context.Background()
	all := auth.Visibility{All: true}
	a, err := e.registry.Get(ctx, all, assetID)
	if err != nil {
		t.Fatal(err)
	}
	price, cp, awarded := bids.EUR(12), bids.Price(1250), 3.0
	bid := bids.Bid{ID: uuid.NewString(), OrganizationID: a.OrganizationID, AssetID: a.ID, Market: market, Product: product,
		Start: testkit.Start.Add(from), End: testkit.Start.Add(to), CapacityPrice: &cp, OfferedMW: 5, Status: st,
		CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
	if market == bids.AFRRCapacity {
		bid.EnergyPrice = &price
	}
	if st == bids.Successful {
		bid.AwardedMW = &awarded
	}
	if err := e.b.Bids().Apply(ctx, all, a, market, calendar.Interval{Start: bid.Start, End: bid.End},
		func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Insert: []bids.Bid{bid}}, nil
		}); err != nil {
		t.Fatal(err)
	}
}

func TestPoolState(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		e.h.Do("POST", "/v1/pools", e.acme, `{"pool_id":"nord","list_asset_ids":["bess-1","bess-2","bess-3"]}`).Expect(t, 201, "")
		now := testkit.Start.Add(30 * time.Minute)
		// bess-1 and bess-2 report; bess-3 never did.
		if err := b.Telemetry().SaveLatest(ctx, []telemetry.Snapshot{
			{AssetID: "bess-1", Measurements: telemetry.Measurements{Timestamp: now.Add(-time.Second), AssetStatus: 1,
				BatteryPowerActualAC: 2.5, DispatchSetpoint: 2, FCRPowerActual: 0.5, AFRRSetpoint: -1, AFRRPowerActual: -1}},
			{AssetID: "bess-2", Measurements: telemetry.Measurements{Timestamp: now, AssetStatus: 1, BatteryPowerActualAC: -1,
				DispatchSetpoint: -1}},
			{AssetID: "b-1", Measurements: telemetry.Measurements{Timestamp: now, AssetStatus: 1, BatteryPowerActualAC: 100}},
		}); err != nil {
			t.Fatal(err)
		}
		// In force at now: SUCCESSFUL FCR on bess-1 and on bess-2's
		// segment, a SUCCESSFUL negative aFRR award on bess-1. Not in
		// force: a SUBMITTED bid, a bid that ended at now, beta's award.
		e.addBid(t, "bess-1", bids.FCR, bids.Sym, 0, time.Hour, bids.Successful)
		e.addBid(t, "bess-2.a", bids.FCR, bids.Sym, 0, time.Hour, bids.Successful)
		e.addBid(t, "bess-1", bids.AFRRCapacity, bids.Neg, 0, time.Hour, bids.Successful)
		e.addBid(t, "bess-3", bids.FCR, bids.Sym, 0, time.Hour, bids.Submitted)
		e.addBid(t, "bess-3", bids.AFRRCapacity, bids.Pos, -time.Hour, 30*time.Minute, bids.Successful)
		e.addBid(t, "b-1", bids.FCR, bids.Sym, 0, time.Hour, bids.Successful)
		e.h.Clock.Set(now)

		var st stateBody
		e.h.Do("GET", "/v1/pools/nord/state", e.acmeRO, nil).Expect(t, 200, "").JSON(t, &st)
		if st.PoolID != "nord" || !st.AsOf.Equal(now) || st.PoolStatus || !st.FCRPoolStatus || !st.AFRRPoolStatus {
			t.Fatalf("flags %+v", st)
		}
		if st.PowerActualAC != 1.5 || st.OperatingPoint != 1 || st.FCRPowerActual != 0.5 || st.AFRRSetpoint != -1 ||
			st.AFRRPowerActual != -1 || st.FCRCurrentReservationPos != 6 || st.FCRCurrentReservationNeg != 6 ||
			st.AFRRCurrentReservationPos != 0 || st.AFRRCurrentReservationNeg != 3 {
			t.Fatalf("sums %+v", st)
		}
		if len(st.Members) != 3 || st.Members[1].FCR != 3 || st.Members[2].MeasuredAt != nil || st.Members[2].Available ||
			!st.Members[0].Available || !st.Members[0].MeasuredAt.Equal(now.Add(-time.Second)) {
			t.Fatalf("members %+v", st.Members)
		}

		// Without bess-3 every member is ready; under a full
		// unavailability bess-2 is not (beta's unavailability of b-1 is
		// none of the pool's business).
		e.h.Do("PUT", "/v1/pools/nord", e.acme, `{"list_asset_ids":["bess-1","bess-2"],"allow_internal_collateralisation":true}`).Expect(t, 200, "")
		e.h.Do("GET", "/v1/pools/nord/state", e.acme, nil).Expect(t, 200, "").JSON(t, &st)
		if !st.PoolStatus || !st.FCRPoolStatus || st.PowerActualAC != 1.5 {
			t.Fatalf("ready %+v", st)
		}
		restr := restrictions.NewService(b.Restrictions(), e.registry, e.h.Clock)
		end := now.Add(time.Minute)
		for _, id := range []string{"b-1", "bess-2"} {
			if _, err := restr.Create(ctx, auth.Visibility{All: true}, id, restrictions.Unavailability,
				restrictions.Draft{Start: now, End: &end, Reason: "maintenance"}); err != nil {
				t.Fatal(err)
			}
			e.h.Do("GET", "/v1/pools/nord/state", e.acme, nil).Expect(t, 200, "").JSON(t, &st)
			if st.PoolStatus != (id == "b-1") || st.FCRPoolStatus != (id == "b-1") || st.Members[1].Available != (id == "b-1") ||
				st.PowerActualAC != 1.5 {
				t.Fatalf("after an unavailability of %s: %+v", id, st)
			}
		}
		// 5 s after the unavailability (and bess-2's snapshot) ended,
		// bess-1's snapshot is stale and FCR is at risk.
		now = end
		if err := b.Telemetry().SaveLatest(ctx, []telemetry.Snapshot{{AssetID: "bess-2", Measurements: telemetry.Measurements{
			Timestamp: now, AssetStatus: 1, BatteryPowerActualAC: -1}}}); err != nil {
			t.Fatal(err)
		}
		e.h.Clock.Set(now.Add(staleAfter))
		e.h.Do("GET", "/v1/pools/nord/state", e.acme, nil).Expect(t, 200, "").JSON(t, &st)
		if st.PoolStatus || st.FCRPoolStatus || st.AFRRPoolStatus || st.PowerActualAC != -1 || st.FCRCurrentReservationPos != 6 ||
			st.Members[0].Fresh || !st.Members[1].Fresh || !st.Members[1].Available {
			t.Fatalf("stale %+v", st)
		}
	})
}
