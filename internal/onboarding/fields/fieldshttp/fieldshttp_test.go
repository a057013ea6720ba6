package fieldshttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields"
	"atcp/internal/onboarding/fields/fieldshttp"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type env struct {
	h   *testkit.Harness
	svc *onboarding.Service
	// ob is acme's workflow, other acme's second one, betaOb beta's.
	ob, other, betaOb onboarding.Onboarding
	// platform, acme (read and write), acmeRO (read), beta, none (no
	// onboarding scope).
	platform, acme, acmeRO, beta, none string
}

func (e env) session(role onboarding.TaskRole) string {
	return e.h.Token(auth.Principal{Subject: "c-1", OrganizationID: "acme",
		Task: &auth.TaskGrant{OnboardingID: e.ob.ID, ContactID: "c-1", Role: string(role), SessionID: "s-1"}})
}

// do sends a request with headers given as name, value pairs.
func (e env) do(method, path, token string, body any, headers ...string) *testkit.Response {
	e.h.T.Helper()
	b, _ := json.Marshal(body)
	if body == nil {
		b = nil
	}
	req, _ := http.NewRequest(method, e.h.URL+path, bytes.NewReader(b))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return e.h.Send(req)
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	ctx := context.Background()
	h := testkit.NewHarness(t, b)
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), h.Clock)
	for _, c := range []struct{ id, org string }{{"bess-1", "acme"}, {"bess-2", "acme"}, {"b-1", "beta"}} {
		a := assets.NewAsset(c.id, c.org, "Battery "+c.id, "Cottbus", assets.Standalone)
		it := assets.FullControl
		a.IntegrationType = &it
		if err := registry.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	svc := onboarding.NewService(b.Onboardings(), registry, h.Clock)
	values := fields.NewService(svc, b.OnboardingFields(), registry, h.Clock)
	e := env{h: h, svc: svc}
	platform := onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-p", Name: "ops", OrganizationID: auth.PlatformOrganization}
	var err error
	for _, p := range []struct {
		ob    *onboarding.Onboarding
		asset string
	}{{&e.ob, "bess-1"}, {&e.other, "bess-2"}, {&e.betaOb, "b-1"}} {
		if *p.ob, err = svc.Create(ctx, platform, onboarding.CreateRequest{AssetID: p.asset}); err != nil {
			t.Fatal(err)
		}
	}
	onboardinghttp.Register(h.Server, svc, registry, h.Clock, onboardinghttp.WithFields(values))
	fieldshttp.Register(h.Server, svc, values)
	user := func(id, org string, scopes ...auth.Scope) string {
		return h.Token(auth.Principal{Subject: id, OrganizationID: org, Email: id + "@example.com", Scopes: auth.NewScopeSet(scopes...)})
	}
	rw := []auth.Scope{auth.OnboardingRead, auth.OnboardingWrite}
	e.platform, e.acme = user("u-p", auth.PlatformOrganization, rw...), user("u-a", "acme", rw...)
	e.acmeRO, e.beta, e.none = user("u-ro", "acme", auth.OnboardingRead), user("u-b", "beta", rw...), user("u-n", "acme", auth.AssetRead)
	return e
}

type body struct {
	Definitions []struct {
		Key        string   `json:"key"`
		EditableBy []string `json:"editable_by"`
	} `json:"definitions"`
	Values struct {
		Fields        map[string]any `json:"fields"`
		UpdatedAt     *string        `json:"updated_at"`
		UpdatedByName *string        `json:"updated_by_name"`
	} `json:"values"`
}

func TestManagerFields(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	rfi := e.ob.Gates[0]
	path := "/v1/onboardings/" + e.ob.ID + "/gates/" + rfi.ID + "/fields"
	var b body
	res := e.do("GET", path, e.acmeRO, nil).Expect(t, 200, "")
	res.JSON(t, &b)
	etag := res.Header.Get("ETag")
	if len(b.Definitions) < 20 || len(b.Values.Fields) != 0 || b.Values.UpdatedAt != nil || etag == "" {
		t.Fatalf("empty read %+v, etag %q", b, etag)
	}
	// Save with the version read: every field is the manager's to set.
	res = e.do("PUT", path, e.acme, map[string]any{"fields": map[string]any{"ems_vendor": "EMS Co", "tso": "amprion"}}, "If-Match", etag).Expect(t, 200, "")
	res.JSON(t, &b)
	if b.Values.Fields["ems_vendor"] != "EMS Co" || b.Values.UpdatedByName == nil || *b.Values.UpdatedByName != "u-a@example.com" ||
		res.Header.Get("ETag") == etag {
		t.Fatalf("saved %+v", b)
	}
	e.do("PUT", path, e.platform, map[string]any{"fields": map[string]any{"tso": "tennet"}}, "If-Match", etag).Expect(t, 409, "edit_conflict")
	e.do("PUT", path, e.platform, map[string]any{"fields": map[string]any{"tso": "tennet"}}, "If-Match", res.Header.Get("ETag")).Expect(t, 200, "")
	// Refused saves name the field and store nothing.
	p := e.do("PUT", path, e.acme, map[string]any{"fields": map[string]any{"tso": "elsewhere", "usable_power_capacity_mw": 5, "nope": 1}}).
		Expect(t, 422, "validation_failed").Map(t)
	if errs := p["errors"].([]any); len(errs) != 2 || errs[0].(map[string]any)["location"] != "body.fields.nope" {
		t.Fatalf("errors %v", p)
	}
	e.do("GET", path, e.acme, nil).Expect(t, 200, "").JSON(t, &b)
	if b.Values.Fields["tso"] != "tennet" || b.Values.Fields["usable_power_capacity_mw"] != nil {
		t.Fatalf("after refused save %+v", b.Values)
	}
	e.h.Do("PUT", path, e.acme, `{"fields": {"tso": 5}`).Expect(t, 400, "")
	// The gate shows the values as structured_data and moved to in_progress;
	// the definition carries its fields.
	g := e.do("GET", "/v1/onboardings/"+e.ob.ID+"/gates/"+rfi.ID, e.acme, nil).Expect(t, 200, "").Map(t)
	if g["status"] != "in_progress" || g["structured_data"].(map[string]any)["tso"] != "tennet" {
		t.Fatalf("gate %v", g)
	}
	if g := e.do("GET", "/v1/onboardings/"+e.ob.ID+"/gates/"+e.ob.Gates[1].ID, e.acme, nil).Expect(t, 200, "").Map(t); g["structured_data"] != nil {
		t.Fatalf("dpl gate structured_data %v", g["structured_data"])
	}
	def := e.do("GET", "/v1/onboarding-gate-definitions/fc_rfi", e.acme, nil).Expect(t, 200, "").Map(t)
	if fs := def["fields"].([]any); len(fs) < 20 || fs[0].(map[string]any)["key"] != "asset_type" {
		t.Fatalf("definition fields %v", def["fields"])
	}
	// Not visible, not this workflow's gate, scopes.
	e.do("GET", path, e.beta, nil).Expect(t, 404, "onboarding_not_found")
	e.do("PUT", path, e.beta, map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 404, "onboarding_not_found")
	e.do("GET", "/v1/onboardings/"+e.ob.ID+"/gates/"+e.other.Gates[0].ID+"/fields", e.acme, nil).Expect(t, 404, "gate_not_found")
	e.do("GET", "/v1/onboardings/not-a-uuid/gates/"+rfi.ID+"/fields", e.acme, nil).Expect(t, 404, "onboarding_not_found")
	e.do("GET", path, e.none, nil).Expect(t, 403, "")
	e.do("PUT", path, e.acmeRO, map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 403, "")
	e.do("GET", path, e.session(onboarding.RoleAssetOwner), nil).Expect(t, 403, "magic_link_session_not_allowed")
	// A blocked gate still takes saves, a waived one is locked, and a
	// closed workflow is read-only.
	if _, err := e.svc.Act(context.Background(), onboarding.Actor{Kind: onboarding.ActorUser, OrganizationID: auth.PlatformOrganization},
		e.ob.ID, e.ob.Gates[1].ID, onboarding.ActionBlock, "wait"); err != nil {
		t.Fatal(err)
	}
	e.do("PUT", "/v1/onboardings/"+e.ob.ID+"/gates/"+e.ob.Gates[1].ID+"/fields", e.acme, map[string]any{"fields": map[string]any{}}).Expect(t, 200, "")
	e.do("POST", "/v1/onboardings/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/waive", e.platform, map[string]any{"note": "known"}).Expect(t, 200, "")
	e.do("PUT", "/v1/onboardings/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/fields", e.acme,
		map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 409, "gate_locked")
	e.do("POST", "/v1/onboardings/"+e.other.ID+"/cancel", e.platform, map[string]any{"reason": "sold"}).Expect(t, 200, "")
	e.do("PUT", "/v1/onboardings/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/fields", e.acme,
		map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 409, "onboarding_closed")
}

func TestTaskFields(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	rfi := e.ob.Gates[0]
	path := "/v1/onboarding-tasks/" + e.ob.ID + "/gates/" + rfi.ID + "/fields"
	epc := e.session(onboarding.RoleEPC)
	var b body
	e.do("GET", path, epc, nil).Expect(t, 200, "").JSON(t, &b)
	if len(b.Definitions) < 20 {
		t.Fatalf("definitions %+v", b)
	}
	// Only editable_by fields: the TSO is the owner's.
	p := e.do("PUT", path, epc, map[string]any{"fields": map[string]any{"tso": "amprion"}}).Expect(t, 422, "field_not_editable").Map(t)
	if p["errors"].([]any)[0].(map[string]any)["location"] != "body.fields.tso" {
		t.Fatalf("problem %v", p)
	}
	e.do("PUT", path, epc, map[string]any{"fields": map[string]any{"tso": "amprion", "usable_power_capacity_mw": "ten"}}).Expect(t, 422, "validation_failed")
	res := e.do("PUT", path, epc, map[string]any{"fields": map[string]any{"usable_power_capacity_mw": 8}}).Expect(t, 200, "")
	res.JSON(t, &b)
	if b.Values.Fields["usable_power_capacity_mw"] != 8.0 || *b.Values.UpdatedByName != "c-1" {
		t.Fatalf("task save %+v", b.Values)
	}
	e.do("PUT", path, epc, map[string]any{"fields": map[string]any{"usable_power_capacity_mw": 9}}, "If-Match", `"stale"`).Expect(t, 409, "edit_conflict")
	e.do("PUT", path, epc, map[string]any{"fields": map[string]any{"usable_power_capacity_mw": 9}}, "If-Match", res.Header.Get("ETag")).Expect(t, 200, "")
	// The prequalification gate is not among the EPC's gates; another
	// workflow is not the session's.
	e.do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/gates/"+e.ob.Gates[4].ID+"/fields", epc, nil).Expect(t, 404, "gate_not_found")
	e.do("GET", "/v1/onboarding-tasks/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/fields", epc, nil).Expect(t, 404, "task_not_found")
	e.do("GET", path+"?role=tso", epc, nil).Expect(t, 404, "task_not_found")
	e.do("GET", path+"?role=boss", epc, nil).Expect(t, 422, "validation_failed")
	// Preview: read with onboarding.read, save with onboarding.write, as the
	// role (audited with preview_as).
	e.do("GET", path, e.acmeRO, nil, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 200, "")
	e.do("PUT", path, e.acmeRO, map[string]any{"fields": map[string]any{"tso": "amprion"}}, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 403, "")
	e.do("PUT", path, e.platform, map[string]any{"fields": map[string]any{"ems_vendor": "X"}}, "X-Onboarding-Preview-Role", "asset_owner").
		Expect(t, 422, "field_not_editable")
	e.do("PUT", path, e.platform, map[string]any{"fields": map[string]any{"tso": "amprion"}}, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 200, "")
	e.do("GET", path, e.beta, nil, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 404, "task_not_found")
	e.do("GET", path, e.acme, nil, "X-Onboarding-Preview-Role", "owner").Expect(t, 422, "validation_failed")
	e.do("GET", path, e.none, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 403, "")
	entries, _, err := e.svc.AuditTrail(context.Background(), onboarding.Actor{Kind: onboarding.ActorUser, OrganizationID: auth.PlatformOrganization},
		e.ob.ID, onboarding.AuditFilter{ActionPrefix: "field.updated", Limit: 10})
	if err != nil || len(entries) != 3 || entries[0].Actor.PreviewAs != onboarding.RoleAssetOwner || entries[0].Changes["fields.tso"][1] != "amprion" ||
		entries[1].Changes["fields.usable_power_capacity_mw"][0] != 8.0 || entries[2].Actor.Kind != "contact" {
		t.Fatalf("audit %+v, %v", entries, err)
	}
}
