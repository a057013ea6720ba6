package assetshttp_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type env struct {
	h   *testkit.Harness
	svc *assets.Service
	// Tokens: platform administrator; acme read-write and read-only; beta
	// read-write; acme without asset scopes.
	admin, acme, acmeRO, beta, market string
}

// setup serves the asset endpoints with the organisations acme, beta and
// optico registered.
func setup(t testing.TB, b store.Backend) env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for id, name := range map[string]string{"acme": "Acme Storage", "beta": "Beta Energie", "optico": "Optico GmbH"} {
		if err := dir.EnsureOrganization(context.Background(), id, name); err != nil {
			t.Fatal(err)
		}
	}
	svc := assets.NewService(b.Assets(), h.Clock)
	assetshttp.Register(h.Server, svc)
	return env{
		h: h, svc: svc, admin: h.AdminToken(),
		acme:   h.TokenFor("acme", auth.AssetRead, auth.AssetWrite),
		acmeRO: h.TokenFor("acme", auth.AssetRead),
		beta:   h.TokenFor("beta", auth.AssetRead, auth.AssetWrite),
		market: h.TokenFor("acme", auth.MarketRead, auth.MarketWrite),
	}
}

func minimal(id, org string) map[string]any {
	return map[string]any{"asset_id": id, "asset_name": "Battery " + id, "asset_type": "standalone", "location": "Leipzig", "organisation_id": org}
}

func with(body map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// create registers an asset and returns its record.
func (e env) create(t *testing.T, token string, body map[string]any) map[string]any {
	t.Helper()
	return e.h.Do("POST", "/v1/assets", token, body).Expect(t, 201, "").Map(t)
}

// errorLocations returns the locations a 422 names.
func errorLocations(t *testing.T, r *testkit.Response) []string {
	t.Helper()
	var p struct {
		Errors []struct {
			Location string `json:"location"`
		} `json:"errors"`
	}
	r.JSON(t, &p)
	out := []string{}
	for _, e := range p.Errors {
		out = append(out, e.Location)
	}
	slices.Sort(out)
	return out
}

func expectInvalid(t *testing.T, r *testkit.Response, want ...string) {
	t.Helper()
	r.Expect(t, 422, "validation_failed")
	slices.Sort(want)
	if got := errorLocations(t, r); !slices.Equal(got, want) {
		t.Fatalf("offending fields %v, want %v: %s", got, want, r.Body)
	}
}

// expectMissing checks a 422 for absent required fields. The schema
// validation reports each at location "body" and names the property in
// the message.
func expectMissing(t *testing.T, r *testkit.Response, fields ...string) {
	t.Helper()
	r.Expect(t, 422, "validation_failed")
	var p struct {
		Errors []struct {
			Location string `json:"location"`
			Message  string `json:"message"`
		} `json:"errors"`
	}
	r.JSON(t, &p)
	if len(p.Errors) != len(fields) {
		t.Fatalf("want %d errors: %s", len(fields), r.Body)
	}
	for _, f := range fields {
		found := false
		for _, e := range p.Errors {
			found = found || e.Location == "body."+f || e.Location == "body" && strings.Contains(e.Message, " "+f+" ")
		}
		if !found {
			t.Fatalf("missing %s not named: %s", f, r.Body)
		}
	}
}

func TestCreateAppliesDefaultsAndReadsBack(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		r := e.h.Do("POST", "/v1/assets", e.acme, minimal("bess-1", "acme")).Expect(t, 201, "")
		if loc := r.Header.Get("Location"); loc != "/v1/assets/bess-1" {
			t.Fatalf("Location %q", loc)
		}
		got := r.Map(t)
		now := testkit.Start.Format(time.RFC3339)
		want := map[string]any{
			"asset_id": "bess-1", "asset_name": "Battery bess-1", "asset_type": "standalone", "description": nil,
			"location": "Leipzig", "organisation_id": "acme", "optimizer_org_id": nil, "optimizer_org_name": nil,
			"charge_efficiency": nil, "discharge_efficiency": nil, "country": nil, "tso": nil,
			"max_pos_ramp_rate_mw_per_sec": nil, "min_neg_ramp_rate_mw_per_sec": nil,
			"usable_energy_capacity_mwh": nil, "usable_power_capacity_mw": nil,
			"afrr_prequalified_capacity_pos_mw": 0.0, "afrr_prequalified_capacity_neg_mw": 0.0, "fcr_prequalified_capacity_mw": 0.0,
			"tso_pool_id": nil, "ioa_middle": nil, "latitude": nil, "longitude": nil,
			"disable_pq_capacity_check": false, "strict_validation": false, "tso_connected": true,
			"fcr_enabled": false, "afrr_enabled": false, "wholesale_enabled": false, "control_enabled": false, "pv_active": false,
			"grid_connection_power_mw": nil, "bess_priority": nil, "poc_export_limit_mw": nil,
			"grid_import_zero": nil, "grid_import_allowed": nil, "bess_control_enabled": nil, "pv_control_enabled": nil,
			"asset_integration_type": nil, "asset_operational_status": "onboarding", "operational_status_reason": nil,
			"maintenance_until": nil, "production_critical": false, "is_virtual": false, "parent_asset_id": nil,
			"adapter": "simulator", "adapter_topic_prefix": "atcp/bess-1",
			"created_at": now, "updated_at": now,
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("created\n%v\nwant\n%v", got, want)
		}
		read := e.h.Do("GET", "/v1/assets/bess-1", e.acmeRO, nil).Expect(t, 200, "").Map(t)
		if !reflect.DeepEqual(read, got) {
			t.Fatalf("read back\n%v\nwant\n%v", read, got)
		}

		green := e.create(t, e.acme, with(minimal("green-1", "acme"), "asset_type", "green_colocation"))
		if green["grid_import_allowed"] != false || green["grid_import_zero"] != true {
			t.Fatalf("green co-location must default to no grid import: %v", green)
		}
		full := e.create(t, e.admin, with(minimal("full-1", "beta"),
			"description", "two strings", "optimizer_org_id", "optico", "charge_efficiency", 0.95, "discharge_efficiency", 0.96,
			"country", "DE", "tso", "TNBW", "usable_power_capacity_mw", 10, "usable_energy_capacity_mwh", 20,
			"afrr_prequalified_capacity_neg_mw", 10, "fcr_prequalified_capacity_mw", 4, "tso_pool_id", 12, "ioa_middle", 0,
			"latitude", 48.1, "longitude", 9.2, "grid_import_zero", true, "poc_export_limit_mw", 9,
			"asset_integration_type", "full_control", "asset_operational_status", "live", "afrr_enabled", true,
			"maintenance_until", "2026-03-01T02:00:00+01:00"))
		for k, v := range map[string]any{
			"optimizer_org_name": "Optico GmbH", "grid_import_allowed": false, "grid_import_zero": true, "poc_export_limit_mw": nil,
			"production_critical": true, "tso": "TNBW", "ioa_middle": 0.0, "maintenance_until": "2026-03-01T01:00:00Z",
			"organisation_id": "beta",
		} {
			if full[k] != v {
				t.Fatalf("%s = %v, want %v", k, full[k], v)
			}
		}
	})
}

func TestListIsOrderedAndIsolated(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.create(t, e.acme, minimal("b-acme", "acme"))
		e.create(t, e.beta, minimal("a-beta", "beta"))
		e.create(t, e.admin, minimal("C-acme", "acme"))
		ids := func(token string) []string {
			var body struct {
				Assets []struct {
					AssetID string `json:"asset_id"`
				} `json:"assets"`
			}
			e.h.Do("GET", "/v1/assets", token, nil).Expect(t, 200, "").JSON(t, &body)
			out := []string{}
			for _, a := range body.Assets {
				out = append(out, a.AssetID)
			}
			return out
		}
		if got := ids(e.admin); !slices.Equal(got, []string{"C-acme", "a-beta", "b-acme"}) {
			t.Fatalf("admin sees %v", got)
		}
		if got := ids(e.acmeRO); !slices.Equal(got, []string{"C-acme", "b-acme"}) {
			t.Fatalf("acme sees %v", got)
		}
		if got := ids(e.beta); !slices.Equal(got, []string{"a-beta"}) {
			t.Fatalf("beta sees %v", got)
		}
		empty := e.h.Do("GET", "/v1/assets", e.h.TokenFor("optico", auth.AssetRead), nil).Expect(t, 200, "")
		if string(empty.Body) != `{"assets":[]}`+"\n" {
			t.Fatalf("empty list %s", empty.Body)
		}
		e.h.Do("GET", "/v1/assets", "", nil).Expect(t, 401, "invalid_token")
		e.h.Do("GET", "/v1/assets", e.market, nil).Expect(t, 403, "insufficient_scope")
	})
}

func TestGetIsolationAndErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.create(t, e.acme, minimal("bess-1", "acme"))
		e.h.Do("GET", "/v1/assets/bess-1", e.beta, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/unknown", e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/bad%00id", e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/bess-1", e.admin, nil).Expect(t, 200, "")
		e.h.Do("GET", "/v1/assets/bess-1", "", nil).Expect(t, 401, "invalid_token")
		e.h.Do("GET", "/v1/assets/bess-1", e.market, nil).Expect(t, 403, "insufficient_scope")
		// Another area resolving the asset for the caller gets the same answer.
		if _, err := e.svc.Get(context.Background(), auth.Visibility{OrganizationID: "beta"}, "bess-1"); err == nil {
			t.Fatal("service shows acme's asset to beta")
		}
	})
}

func TestCreateErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.create(t, e.acme, minimal("taken", "acme"))
		ok := minimal("new-1", "acme")

		e.h.Do("POST", "/v1/assets", "", ok).Expect(t, 401, "invalid_token")
		e.h.Do("POST", "/v1/assets", e.acmeRO, ok).Expect(t, 403, "insufficient_scope")
		e.h.Do("POST", "/v1/assets", e.acme, minimal("new-1", "beta")).Expect(t, 403, "organisation_not_permitted")
		e.h.Do("POST", "/v1/assets", e.acme, minimal("new-1", "ghost")).Expect(t, 403, "organisation_not_permitted")
		expectInvalid(t, e.h.Do("POST", "/v1/assets", e.admin, minimal("new-1", "ghost")), "body.organisation_id")
		expectInvalid(t, e.h.Do("POST", "/v1/assets", e.acme, with(ok, "optimizer_org_id", "ghost")), "body.optimizer_org_id")
		e.h.Do("POST", "/v1/assets", e.acme, minimal("taken", "acme")).Expect(t, 409, "asset_exists")
		// Ids are global: another organisation cannot take the id either.
		e.h.Do("POST", "/v1/assets", e.beta, minimal("taken", "beta")).Expect(t, 409, "asset_exists")
		e.h.Do("POST", "/v1/assets", e.acme, `{"asset_id": "x",`).Expect(t, 400, "")
		e.h.Do("POST", "/v1/assets", e.acme, `"a string"`).Expect(t, 422, "validation_failed")
		e.h.Do("POST", "/v1/assets", e.acme, with(ok, "latitude", "north", "longitude", 1)).Expect(t, 422, "validation_failed")

		missing := map[string]any{"description": "no required fields"}
		expectMissing(t, e.h.Do("POST", "/v1/assets", e.acme, missing),
			"asset_id", "asset_name", "asset_type", "location")
		// The organisation is required under either spelling: the schema
		// cannot say so, the domain does.
		noOrg := minimal("new-1", "acme")
		delete(noOrg, "organisation_id")
		expectInvalid(t, e.h.Do("POST", "/v1/assets", e.acme, noOrg), "body.organisation_id")
		for _, c := range []struct {
			name string
			body map[string]any
			want []string
		}{
			{"id with colon", with(ok, "asset_id", "bess:1"), []string{"body.asset_id"}},
			{"id too long", with(ok, "asset_id", fmt.Sprintf("%065d", 1)), []string{"body.asset_id"}},
			{"empty name", with(ok, "asset_name", ""), []string{"body.asset_name"}},
			{"blank name", with(ok, "asset_name", "   "), []string{"body.asset_name"}},
			{"unknown type", with(ok, "asset_type", "hybrid"), []string{"body.asset_type"}},
			{"null name", with(ok, "asset_name", nil), []string{"body.asset_name"}},
			{"null on a defaulted field", with(ok, "tso_connected", nil), []string{"body.tso_connected"}},
			{"efficiency 0", with(ok, "charge_efficiency", 0), []string{"body.charge_efficiency"}},
			{"efficiency above 1", with(ok, "discharge_efficiency", 1.2), []string{"body.discharge_efficiency"}},
			{"country lower case", with(ok, "country", "de"), []string{"body.country"}},
			{"country unassigned", with(ok, "country", "XX"), []string{"body.country"}},
			{"unknown TSO", with(ok, "tso", "RTE"), []string{"body.tso"}},
			{"negative capacity", with(ok, "usable_power_capacity_mw", -1), []string{"body.usable_power_capacity_mw"}},
			{"ioa out of octet", with(ok, "ioa_middle", 256), []string{"body.ioa_middle"}},
			{"ioa fractional", with(ok, "ioa_middle", 1.5), []string{"body.ioa_middle"}},
			{"negative pool", with(ok, "tso_pool_id", -1), []string{"body.tso_pool_id"}},
			{"latitude beyond", with(ok, "latitude", 91, "longitude", 0), []string{"body.latitude"}},
			{"latitude alone", with(ok, "latitude", 50), []string{"body.longitude"}},
			{"prequalified above usable", with(ok, "usable_power_capacity_mw", 5, "fcr_prequalified_capacity_mw", 6),
				[]string{"body.fcr_prequalified_capacity_mw"}},
			{"green with grid import", with(ok, "asset_type", "green_colocation", "grid_import_allowed", true),
				[]string{"body.grid_import_allowed"}},
			{"contradicting aliases", with(ok, "grid_import_allowed", true, "grid_import_zero", true), []string{"body.grid_import_zero"}},
			{"unknown status", with(ok, "asset_operational_status", "retired"), []string{"body.asset_operational_status"}},
			{"bad maintenance instant", with(ok, "maintenance_until", "tomorrow"), []string{"body.maintenance_until"}},
			{"maintenance beyond year 9999 in UTC", with(ok, "maintenance_until", "9999-12-31T23:59:59-23:59"), []string{"body.maintenance_until"}},
			{"name with NUL", with(ok, "asset_name", "a\u0000b"), []string{"body.asset_name"}},
			{"unknown field", with(ok, "asset_nmae", "typo"), []string{"body.asset_nmae"}},
			{"several at once", with(ok, "charge_efficiency", 2, "ioa_middle", -1, "tso", "x"),
				[]string{"body.charge_efficiency", "body.ioa_middle", "body.tso"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				expectInvalid(t, e.h.Do("POST", "/v1/assets", e.acme, c.body), c.want...)
			})
		}
		// Nothing of the refused requests was stored.
		var list struct{ Assets []any }
		e.h.Do("GET", "/v1/assets", e.admin, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Assets) != 1 {
			t.Fatalf("refused creates stored assets: %d", len(list.Assets))
		}
	})
}

func TestCreateIgnoresResponseOnlyFields(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		got := e.create(t, e.acme, with(minimal("copy", "acme"), "is_virtual", true, "parent_asset_id", "other",
			"production_critical", true, "optimizer_org_name", "Fake", "created_at", "2020-01-01T00:00:00Z", "updated_at", 5))
		if got["is_virtual"] != false || got["parent_asset_id"] != nil || got["production_critical"] != false ||
			got["optimizer_org_name"] != nil || got["created_at"] != testkit.Start.Format(time.RFC3339) {
			t.Fatalf("response-only input was used: %v", got)
		}
	})
}

func TestPartialUpdate(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		before := e.create(t, e.acme, with(minimal("bess-1", "acme"), "description", "old", "usable_power_capacity_mw", 10,
			"afrr_prequalified_capacity_neg_mw", 8, "latitude", 51, "longitude", 12, "tso", "50HZ"))
		e.h.Clock.Advance(time.Minute)

		got := e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"asset_name": "Renamed", "description": nil,
			"fcr_enabled": true, "optimizer_org_id": "optico", "tso": nil}).Expect(t, 200, "").Map(t)
		want := with(before, "asset_name", "Renamed", "description", nil, "fcr_enabled", true, "optimizer_org_id", "optico",
			"optimizer_org_name", "Optico GmbH", "tso", nil, "updated_at", testkit.Start.Add(time.Minute).Format(time.RFC3339))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("updated\n%v\nwant\n%v", got, want)
		}
		if read := e.h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Map(t); !reflect.DeepEqual(read, got) {
			t.Fatalf("stored\n%v\nreturned\n%v", read, got)
		}

		// asset_id equal to the path and organisation_id unchanged are accepted.
		e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"asset_id": "bess-1", "organisation_id": "acme"}).Expect(t, 200, "")
		// The deprecated alias works and both are returned.
		alias := e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"grid_import_zero": true}).Expect(t, 200, "").Map(t)
		if alias["grid_import_allowed"] != false || alias["grid_import_zero"] != true {
			t.Fatalf("alias: %v", alias)
		}
		cleared := e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"grid_import_allowed": nil, "optimizer_org_id": nil}).Expect(t, 200, "").Map(t)
		if cleared["grid_import_allowed"] != nil || cleared["grid_import_zero"] != nil || cleared["optimizer_org_name"] != nil {
			t.Fatalf("clear: %v", cleared)
		}
		// Lowering usable power together with the prequalified capacity is fine.
		lowered := e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"usable_power_capacity_mw": 5,
			"afrr_prequalified_capacity_neg_mw": 5}).Expect(t, 200, "").Map(t)
		if lowered["usable_power_capacity_mw"] != 5.0 {
			t.Fatalf("lowered: %v", lowered)
		}
		// A platform administrator may update any organisation's asset.
		e.h.Do("PUT", "/v1/assets/bess-1", e.admin, map[string]any{"asset_operational_status": "live"}).Expect(t, 200, "")
	})
}

// TestOrganizationIDAlias: asset writes accept organization_id, the
// spelling of every other resource, as an alias of organisation_id
// (document 1's); both with different values is 422; responses keep
// organisation_id.
func TestOrganizationIDAlias(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		alias := minimal("bess-alias", "acme")
		delete(alias, "organisation_id")
		alias["organization_id"] = "acme"
		got := e.create(t, e.acme, alias)
		if got["organisation_id"] != "acme" {
			t.Fatalf("created %v", got)
		}
		if _, ok := got["organization_id"]; ok {
			t.Fatalf("the response has one spelling: %v", got)
		}
		e.create(t, e.acme, with(minimal("bess-both", "acme"), "organization_id", "acme"))
		expectInvalid(t, e.h.Do("POST", "/v1/assets", e.admin, with(minimal("bess-x", "acme"), "organization_id", "beta")), "body.organization_id")
		expectInvalid(t, e.h.Do("POST", "/v1/assets", e.admin, with(minimal("bess-x", "acme"), "organization_id", nil)), "body.organization_id")
		// The alias is checked against the caller's organisation as the
		// canonical field is.
		betaAlias := with(alias, "asset_id", "bess-x", "organization_id", "beta")
		e.h.Do("POST", "/v1/assets", e.acme, betaAlias).Expect(t, 403, "organisation_not_permitted")
		if got := e.create(t, e.admin, betaAlias); got["organisation_id"] != "beta" {
			t.Fatalf("admin created %v", got)
		}

		// Updates: the alias with the current value is accepted, another
		// value is 422, as for organisation_id; nothing changes.
		e.h.Do("PUT", "/v1/assets/bess-alias", e.acme, map[string]any{"organization_id": "acme", "asset_name": "Renamed"}).Expect(t, 200, "")
		e.h.Do("PUT", "/v1/assets/bess-alias", e.acme, map[string]any{"organization_id": "acme", "organisation_id": "acme"}).Expect(t, 200, "")
		expectInvalid(t, e.h.Do("PUT", "/v1/assets/bess-alias", e.admin, map[string]any{"organization_id": "beta"}), "body.organization_id")
		expectInvalid(t, e.h.Do("PUT", "/v1/assets/bess-alias", e.admin, map[string]any{"organization_id": "acme", "organisation_id": "beta"}),
			"body.organization_id")
		if got := e.h.Do("GET", "/v1/assets/bess-alias", e.acme, nil).Map(t); got["organisation_id"] != "acme" || got["asset_name"] != "Renamed" {
			t.Fatalf("stored %v", got)
		}
	})
}

func TestUpdateErrorsChangeNothing(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.create(t, e.acme, with(minimal("bess-1", "acme"), "usable_power_capacity_mw", 10, "afrr_prequalified_capacity_pos_mw", 10))
		e.create(t, e.beta, minimal("beta-1", "beta"))
		before := e.h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Map(t)
		put := func(token, id string, body any) *testkit.Response {
			return e.h.Do("PUT", "/v1/assets/"+id, token, body)
		}

		put("", "bess-1", map[string]any{"asset_name": "x"}).Expect(t, 401, "invalid_token")
		put(e.acmeRO, "bess-1", map[string]any{"asset_name": "x"}).Expect(t, 403, "insufficient_scope")
		put(e.acme, "unknown", map[string]any{"asset_name": "x"}).Expect(t, 404, "not_found")
		put(e.acme, "beta-1", map[string]any{"asset_name": "x"}).Expect(t, 404, "not_found")
		put(e.beta, "bess-1", map[string]any{"asset_name": "x"}).Expect(t, 404, "not_found")
		put(e.acme, "bess-1", `{"asset_name": `).Expect(t, 400, "")
		put(e.acme, "bess-1", `[]`).Expect(t, 422, "validation_failed")

		for _, c := range []struct {
			name string
			body map[string]any
			want []string
		}{
			{"null on non-nullable fields", map[string]any{"asset_name": nil, "asset_type": nil, "location": nil, "tso_connected": nil,
				"fcr_prequalified_capacity_mw": nil, "asset_operational_status": nil, "pv_active": nil},
				[]string{"body.asset_name", "body.asset_type", "body.location", "body.tso_connected", "body.fcr_prequalified_capacity_mw",
					"body.asset_operational_status", "body.pv_active"}},
			{"organisation changed", map[string]any{"organisation_id": "beta"}, []string{"body.organisation_id"}},
			{"organisation cleared", map[string]any{"organisation_id": nil}, []string{"body.organisation_id"}},
			{"asset id differs", map[string]any{"asset_id": "bess-2"}, []string{"body.asset_id"}},
			{"unknown optimizer", map[string]any{"optimizer_org_id": "ghost"}, []string{"body.optimizer_org_id"}},
			{"usable power below prequalified", map[string]any{"usable_power_capacity_mw": 9.5}, []string{"body.afrr_prequalified_capacity_pos_mw"}},
			{"prequalified above usable", map[string]any{"afrr_prequalified_capacity_neg_mw": 11}, []string{"body.afrr_prequalified_capacity_neg_mw"}},
			{"green with grid import", map[string]any{"asset_type": "green_colocation", "grid_import_zero": false}, []string{"body.grid_import_allowed"}},
			{"contradicting aliases", map[string]any{"grid_import_allowed": false, "grid_import_zero": false}, []string{"body.grid_import_zero"}},
			{"one coordinate", map[string]any{"latitude": 50}, []string{"body.longitude"}},
			{"schema violations", map[string]any{"ioa_middle": 300, "country": "Germany", "asset_name": ""},
				[]string{"body.ioa_middle", "body.country", "body.asset_name"}},
			{"unknown field", map[string]any{"colour": "red"}, []string{"body.colour"}},
		} {
			t.Run(c.name, func(t *testing.T) { expectInvalid(t, put(e.acme, "bess-1", c.body), c.want...) })
		}
		if after := e.h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Map(t); !reflect.DeepEqual(after, before) {
			t.Fatalf("refused updates changed the asset\n%v\nwas\n%v", after, before)
		}
	})
}

// A record read with GET can be sent back unchanged: response-only fields
// are ignored, asset_id and organisation_id match, and nothing changes,
// not even updated_at.
func TestGetPutRoundTrip(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.create(t, e.acme, with(minimal("bess-1", "acme"), "optimizer_org_id", "optico", "grid_import_allowed", true,
			"tso", "AMP", "maintenance_until", "2026-02-03T04:05:06.789Z", "asset_integration_type", "monitoring_only"))
		e.create(t, e.acme, minimal("bare", "acme"))
		e.h.Clock.Advance(30 * time.Minute)
		for _, id := range []string{"bess-1", "bare"} {
			read := e.h.Do("GET", "/v1/assets/"+id, e.acme, nil).Expect(t, 200, "")
			back := e.h.Do("PUT", "/v1/assets/"+id, e.acme, read.Body).Expect(t, 200, "")
			if !reflect.DeepEqual(back.Map(t), read.Map(t)) {
				t.Fatalf("round trip changed the asset\n%s\n%s", back.Body, read.Body)
			}
		}
		// Response-only fields with other values are ignored as well.
		got := e.h.Do("PUT", "/v1/assets/bare", e.acme, map[string]any{"is_virtual": true, "production_critical": true,
			"parent_asset_id": "x", "optimizer_org_name": "Fake", "created_at": "2020-01-01T00:00:00Z", "updated_at": nil}).Expect(t, 200, "").Map(t)
		if got["is_virtual"] != false || got["parent_asset_id"] != nil || got["optimizer_org_name"] != nil ||
			got["updated_at"] != testkit.Start.Format(time.RFC3339) {
			t.Fatalf("response-only input was used: %v", got)
		}
	})
}

// Concurrent partial updates of different fields all survive.
func TestConcurrentPartialUpdates(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.create(t, e.acme, minimal("bess-1", "acme"))
		changes := []map[string]any{
			{"fcr_enabled": true}, {"afrr_enabled": true}, {"wholesale_enabled": true}, {"control_enabled": true},
			{"pv_active": true}, {"strict_validation": true}, {"description": "set"}, {"country": "DE"},
			{"tso": "TNNT"}, {"ioa_middle": 7}, {"usable_power_capacity_mw": 10}, {"asset_name": "Renamed"},
		}
		var wg sync.WaitGroup
		for _, c := range changes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if r := e.h.Do("PUT", "/v1/assets/bess-1", e.acme, c); r.Status != 200 {
					t.Errorf("update %v: %s", c, r)
				}
			}()
		}
		wg.Wait()
		got := e.h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Map(t)
		for _, c := range changes {
			for k, v := range c {
				if n, ok := v.(int); ok {
					v = float64(n)
				}
				if got[k] != v {
					t.Fatalf("lost update %s=%v: %v", k, v, got)
				}
			}
		}
	})
}

type guardFunc func(ctx context.Context, assetID string, now time.Time) ([]string, error)

func (g guardFunc) AssetDeletionBlockers(ctx context.Context, assetID string, now time.Time) ([]string, error) {
	return g(ctx, assetID, now)
}

func TestDelete(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		var mu sync.Mutex
		busy := map[string][]string{"busy": {"2 committed aFRR capacity bids for 2026-02-02", "an active immediate dispatch"}}
		var asked []string
		e.svc.AddDeletionGuard(guardFunc(func(ctx context.Context, id string, now time.Time) ([]string, error) {
			mu.Lock()
			defer mu.Unlock()
			if !now.Equal(e.h.Clock.Now()) {
				t.Errorf("guard got %v, clock says %v", now, e.h.Clock.Now())
			}
			asked = append(asked, id)
			return busy[id], nil
		}))
		e.create(t, e.acme, minimal("old", "acme"))
		e.create(t, e.acme, with(minimal("running", "acme"), "asset_operational_status", "live"))
		e.create(t, e.acme, minimal("busy", "acme"))
		e.create(t, e.beta, minimal("beta-1", "beta"))

		e.h.Do("DELETE", "/v1/assets/old", "", nil).Expect(t, 401, "invalid_token")
		e.h.Do("DELETE", "/v1/assets/old", e.acmeRO, nil).Expect(t, 403, "insufficient_scope")
		e.h.Do("DELETE", "/v1/assets/unknown", e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("DELETE", "/v1/assets/beta-1", e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("DELETE", "/v1/assets/running", e.acme, nil).Expect(t, 409, "asset_live")
		r := e.h.Do("DELETE", "/v1/assets/busy", e.acme, nil).Expect(t, 409, "asset_in_use")
		for _, blocker := range busy["busy"] {
			if detail := r.Map(t)["detail"].(string); !strings.Contains(detail, blocker) {
				t.Fatalf("detail does not list %q: %s", blocker, detail)
			}
		}
		for _, id := range []string{"running", "busy", "beta-1"} {
			e.h.Do("GET", "/v1/assets/"+id, e.admin, nil).Expect(t, 200, "")
		}

		r = e.h.Do("DELETE", "/v1/assets/old", e.acme, nil).Expect(t, 204, "")
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
		e.h.Do("GET", "/v1/assets/old", e.admin, nil).Expect(t, 404, "not_found")
		e.h.Do("PUT", "/v1/assets/old", e.acme, map[string]any{"asset_name": "x"}).Expect(t, 404, "not_found")
		e.h.Do("DELETE", "/v1/assets/old", e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("POST", "/v1/assets", e.acme, minimal("old", "acme")).Expect(t, 409, "asset_exists")

		// A live asset is deleted once taken out of service; the admin may
		// delete any organisation's asset.
		e.h.Do("PUT", "/v1/assets/running", e.acme, map[string]any{"asset_operational_status": "offboarded"}).Expect(t, 200, "")
		e.h.Do("DELETE", "/v1/assets/running", e.admin, nil).Expect(t, 204, "")
		e.h.Do("DELETE", "/v1/assets/beta-1", e.admin, nil).Expect(t, 204, "")

		var list struct {
			Assets []struct {
				AssetID string `json:"asset_id"`
			} `json:"assets"`
		}
		e.h.Do("GET", "/v1/assets", e.admin, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Assets) != 1 || list.Assets[0].AssetID != "busy" {
			t.Fatalf("list after deletions: %+v", list)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(asked, []string{"busy", "old", "running", "beta-1"}) {
			t.Fatalf("guard consulted for %v", asked)
		}
	})
}

func TestDeleteGuardFailureIsNotADeletion(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.svc.AddDeletionGuard(guardFunc(func(context.Context, string, time.Time) ([]string, error) {
			return nil, errors.New("bid store unreachable")
		}))
		e.create(t, e.acme, minimal("bess-1", "acme"))
		e.h.Do("DELETE", "/v1/assets/bess-1", e.acme, nil).Expect(t, 500, "internal_error")
		e.h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Expect(t, 200, "")
	})
}

// TestAdapterFields: adapter and adapter_topic_prefix default to the
// simulator under atcp/<asset_id>, are writable on create and update, and
// come back on every read.
func TestAdapterFields(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		got := e.create(t, e.acme, with(minimal("bess-mqtt", "acme"), "adapter", "mqtt", "adapter_topic_prefix", "site-7/bess/ü"))
		if got["adapter"] != "mqtt" || got["adapter_topic_prefix"] != "site-7/bess/ü" {
			t.Fatalf("created %v", got)
		}
		// A prefix of the longest allowed length.
		long := strings.Repeat("a", assets.MaxTopicPrefixLength)
		e.create(t, e.acme, with(minimal("bess-long", "acme"), "adapter_topic_prefix", long))

		def := e.create(t, e.acme, minimal("bess-sim", "acme"))
		if def["adapter"] != "simulator" || def["adapter_topic_prefix"] != "atcp/bess-sim" {
			t.Fatalf("defaults %v", def)
		}
		e.h.Clock.Advance(time.Minute)
		put := e.h.Do("PUT", "/v1/assets/bess-sim", e.acme, map[string]any{"adapter": "mqtt"}).Expect(t, 200, "").Map(t)
		if put["adapter"] != "mqtt" || put["adapter_topic_prefix"] != "atcp/bess-sim" || put["updated_at"] == def["updated_at"] {
			t.Fatalf("adapter changed: %v", put)
		}
		put = e.h.Do("PUT", "/v1/assets/bess-sim", e.acme, map[string]any{"adapter_topic_prefix": "plant/north"}).Expect(t, 200, "").Map(t)
		if put["adapter"] != "mqtt" || put["adapter_topic_prefix"] != "plant/north" {
			t.Fatalf("prefix changed: %v", put)
		}
		if read := e.h.Do("GET", "/v1/assets/bess-sim", e.acmeRO, nil).Expect(t, 200, "").Map(t); !reflect.DeepEqual(read, put) {
			t.Fatalf("read back\n%v\nwant\n%v", read, put)
		}
		var list struct{ Assets []map[string]any }
		e.h.Do("GET", "/v1/assets", e.acme, nil).Expect(t, 200, "").JSON(t, &list)
		for _, a := range list.Assets {
			if a["adapter"] == nil || a["adapter_topic_prefix"] == nil {
				t.Fatalf("listed without adapter fields: %v", a)
			}
		}

		for _, c := range []struct {
			name  string
			field string
			value any
		}{
			{"unknown adapter", "adapter", "iec104"},
			{"adapter in upper case", "adapter", "MQTT"},
			{"null adapter", "adapter", nil},
			{"adapter not a string", "adapter", 1},
			{"empty prefix", "adapter_topic_prefix", ""},
			{"null prefix", "adapter_topic_prefix", nil},
			{"prefix too long", "adapter_topic_prefix", long + "b"},
			{"prefix too long in bytes", "adapter_topic_prefix", strings.Repeat("ü", 101)},
			{"prefix with NUL", "adapter_topic_prefix", "site\x00a"},
			{"prefix with a control character", "adapter_topic_prefix", "site\na"},
			{"single-level wildcard", "adapter_topic_prefix", "site/+/bess"},
			{"multi-level wildcard", "adapter_topic_prefix", "site/#"},
			{"broker topic", "adapter_topic_prefix", "$SYS/bess"},
			{"leading slash", "adapter_topic_prefix", "/site/bess"},
			{"trailing slash", "adapter_topic_prefix", "site/bess/"},
			{"only a slash", "adapter_topic_prefix", "/"},
			{"empty level", "adapter_topic_prefix", "site//bess"},
		} {
			t.Run(c.name, func(t *testing.T) {
				expectInvalid(t, e.h.Do("POST", "/v1/assets", e.acme, with(minimal("bess-bad", "acme"), c.field, c.value)), "body."+c.field)
				expectInvalid(t, e.h.Do("PUT", "/v1/assets/bess-sim", e.acme, map[string]any{c.field: c.value}), "body."+c.field)
			})
		}
		e.h.Do("GET", "/v1/assets/bess-bad", e.acme, nil).Expect(t, 404, "")
		if after := e.h.Do("GET", "/v1/assets/bess-sim", e.acme, nil).Map(t); !reflect.DeepEqual(after, put) {
			t.Fatalf("refused updates changed the asset\n%v\nwas\n%v", after, put)
		}
	})
}

func TestOpenAPISchema(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	doc := e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").Map(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	props := func(name string) map[string]any {
		return schemas[name].(map[string]any)["properties"].(map[string]any)
	}
	typeOf := func(p any) any { return p.(map[string]any)["type"] }

	update := props("AssetUpdateRequest")
	if typeOf(update["asset_name"]) != "string" || typeOf(update["fcr_enabled"]) != "boolean" {
		t.Fatalf("non-nullable update fields must have non-nullable schemas: %v %v", update["asset_name"], update["fcr_enabled"])
	}
	if !reflect.DeepEqual(typeOf(update["description"]), []any{"string", "null"}) {
		t.Fatalf("description must be nullable: %v", update["description"])
	}
	tso := update["tso"].(map[string]any)
	if !reflect.DeepEqual(tso["enum"], []any{"50HZ", "TNNT", "AMP", "TNBW", nil}) {
		t.Fatalf("tso enum %v", tso["enum"])
	}
	if req, _ := schemas["AssetUpdateRequest"].(map[string]any)["required"]; req != nil {
		t.Fatalf("update fields must be optional: %v", req)
	}
	if update["created_at"].(map[string]any)["readOnly"] != true {
		t.Fatalf("response-only fields must be marked read-only: %v", update["created_at"])
	}

	create := schemas["AssetCreateRequest"].(map[string]any)
	required := []string{}
	for _, r := range create["required"].([]any) {
		required = append(required, r.(string))
	}
	slices.Sort(required)
	if !slices.Equal(required, []string{"asset_id", "asset_name", "asset_type", "location"}) {
		t.Fatalf("create requires %v", required)
	}
	// Both spellings of the organisation, on both writes.
	for _, name := range []string{"AssetCreateRequest", "AssetUpdateRequest"} {
		for _, field := range []string{"organisation_id", "organization_id"} {
			if p, ok := props(name)[field].(map[string]any); !ok || typeOf(p) != "string" {
				t.Fatalf("%s.%s: %v", name, field, props(name)[field])
			}
		}
	}

	asset := props("Asset")
	if !reflect.DeepEqual(asset["tso"].(map[string]any)["enum"], []any{"50HZ", "TNNT", "AMP", "TNBW", nil}) ||
		!reflect.DeepEqual(typeOf(asset["tso"]), []any{"string", "null"}) {
		t.Fatalf("response tso %v", asset["tso"])
	}
	if typeOf(asset["asset_type"]) != "string" || typeOf(asset["tso_connected"]) != "boolean" {
		t.Fatal("response fields with values must not be nullable")
	}
	for _, name := range []string{"Asset", "AssetCreateRequest", "AssetUpdateRequest"} {
		adapter, prefix := props(name)["adapter"].(map[string]any), props(name)["adapter_topic_prefix"].(map[string]any)
		if !reflect.DeepEqual(adapter["enum"], []any{"simulator", "mqtt"}) || adapter["description"] == nil || adapter["examples"] == nil {
			t.Fatalf("%s.adapter %v", name, adapter)
		}
		if typeOf(prefix) != "string" || prefix["description"] == nil || prefix["examples"] == nil {
			t.Fatalf("%s.adapter_topic_prefix %v", name, prefix)
		}
	}
	paths := doc["paths"].(map[string]any)
	for path, methods := range map[string][]string{"/v1/assets": {"get", "post"}, "/v1/assets/{asset_id}": {"get", "put", "delete"}} {
		for _, m := range methods {
			op := paths[path].(map[string]any)[m].(map[string]any)
			if tags := op["tags"].([]any); len(tags) != 1 || tags[0] != "Assets" {
				t.Fatalf("%s %s tags %v", m, path, tags)
			}
		}
	}
	if _, ok := paths["/v1/assets/{asset_id}"].(map[string]any)["delete"].(map[string]any)["responses"].(map[string]any)["204"]; !ok {
		t.Fatal("delete does not document 204")
	}
}

// TestControlCharactersAreRefused: a NUL or another control character in
// an asset's id, name, location or organisation, and a NUL in its free
// text, are 422 naming the field on both stores; nothing is stored or
// changed.
func TestControlCharactersAreRefused(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ok := minimal("bess-1", "acme")
		for _, c := range []struct {
			field, value string
		}{
			{"asset_id", "bess\x00"},
			{"asset_id", "bess\x1b"},
			{"asset_name", "Battery\x00"},
			{"asset_name", "\x1b[2JBattery"},
			{"location", "Leipzig\x00"},
			{"location", "Leip\u009bzig"},
			{"organisation_id", "acme\x00"},
			{"optimizer_org_id", "optico\x07"},
			{"description", "a\x00b"},
			{"operational_status_reason", "a\x1bb"},
		} {
			// A platform administrator, who may name any organisation.
			expectInvalid(t, e.h.Do("POST", "/v1/assets", e.admin, with(ok, c.field, c.value)), "body."+c.field)
		}
		e.h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Expect(t, 404, "")

		before := e.create(t, e.acme, with(ok, "description", "line one\r\n\tline two"))
		for _, c := range []struct{ field, value string }{{"asset_name", "Battery\x00"}, {"description", "\x00"}} {
			expectInvalid(t, e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{c.field: c.value}), "body."+c.field)
		}
		if after := e.h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Expect(t, 200, "").Map(t); !reflect.DeepEqual(after, before) {
			t.Fatalf("a refused update changed the asset:\n%v\n%v", before, after)
		}
	})
}
