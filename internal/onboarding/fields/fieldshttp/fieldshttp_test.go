package fieldshttp_test

import (
	"context"
	"testing"

	"atcp/internal/auth"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields/fieldshttp"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type env struct {
	*onboardingtest.Kit
	// ob is acme's workflow, other acme's second one, betaOb beta's.
	ob, other, betaOb onboarding.Onboarding
}

func (e env) session(role onboarding.TaskRole) string { return e.Session(e.ob, "c-1", role) }

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	k := onboardingtest.New(t, b, onboardingtest.Config{Fields: true})
	fieldshttp.Register(k.Server, k.Core, k.Fields)
	return env{Kit: k, ob: k.Start("bess-1", nil), other: k.Start("bess-2", nil), betaOb: k.Start("b-1", nil)}
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
	res := e.Do("GET", path, e.AcmeRO, nil).Expect(t, 200, "")
	res.JSON(t, &b)
	etag := res.Header.Get("ETag")
	if len(b.Definitions) < 20 || len(b.Values.Fields) != 0 || b.Values.UpdatedAt != nil || etag == "" {
		t.Fatalf("empty read %+v, etag %q", b, etag)
	}
	// Save with the version read: every field is the manager's to set.
	res = e.Do("PUT", path, e.Acme, map[string]any{"fields": map[string]any{"ems_vendor": "EMS Co", "tso": "amprion"}}, "If-Match", etag).Expect(t, 200, "")
	res.JSON(t, &b)
	if b.Values.Fields["ems_vendor"] != "EMS Co" || b.Values.UpdatedByName == nil || *b.Values.UpdatedByName != "acme@example.com" ||
		res.Header.Get("ETag") == etag {
		t.Fatalf("saved %+v", b)
	}
	e.Do("PUT", path, e.Platform, map[string]any{"fields": map[string]any{"tso": "tennet"}}, "If-Match", etag).Expect(t, 409, "edit_conflict")
	e.Do("PUT", path, e.Platform, map[string]any{"fields": map[string]any{"tso": "tennet"}}, "If-Match", res.Header.Get("ETag")).Expect(t, 200, "")
	// Refused saves name the field and store nothing.
	p := e.Do("PUT", path, e.Acme, map[string]any{"fields": map[string]any{"tso": "elsewhere", "usable_power_capacity_mw": 5, "nope": 1}}).
		Expect(t, 422, "validation_failed").Map(t)
	if errs := p["errors"].([]any); len(errs) != 2 || errs[0].(map[string]any)["location"] != "body.fields.nope" {
		t.Fatalf("errors %v", p)
	}
	e.Do("GET", path, e.Acme, nil).Expect(t, 200, "").JSON(t, &b)
	if b.Values.Fields["tso"] != "tennet" || b.Values.Fields["usable_power_capacity_mw"] != nil {
		t.Fatalf("after refused save %+v", b.Values)
	}
	e.Do("PUT", path, e.Acme, `{"fields": {"tso": 5}`).Expect(t, 400, "")
	// The gate shows the values as structured_data and moved to in_progress;
	// the definition carries its fields.
	g := e.Do("GET", "/v1/onboardings/"+e.ob.ID+"/gates/"+rfi.ID, e.Acme, nil).Expect(t, 200, "").Map(t)
	if g["status"] != "in_progress" || g["structured_data"].(map[string]any)["tso"] != "tennet" {
		t.Fatalf("gate %v", g)
	}
	if g := e.Do("GET", "/v1/onboardings/"+e.ob.ID+"/gates/"+e.ob.Gates[1].ID, e.Acme, nil).Expect(t, 200, "").Map(t); g["structured_data"] != nil {
		t.Fatalf("dpl gate structured_data %v", g["structured_data"])
	}
	def := e.Do("GET", "/v1/onboarding-gate-definitions/fc_rfi", e.Acme, nil).Expect(t, 200, "").Map(t)
	if fs := def["fields"].([]any); len(fs) < 20 || fs[0].(map[string]any)["key"] != "asset_type" {
		t.Fatalf("definition fields %v", def["fields"])
	}
	// Not visible, not this workflow's gate, scopes.
	e.Do("GET", path, e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	e.Do("PUT", path, e.Beta, map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 404, "onboarding_not_found")
	e.Do("GET", "/v1/onboardings/"+e.ob.ID+"/gates/"+e.other.Gates[0].ID+"/fields", e.Acme, nil).Expect(t, 404, "gate_not_found")
	e.Do("GET", "/v1/onboardings/not-a-uuid/gates/"+rfi.ID+"/fields", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
	e.Do("GET", path, e.None, nil).Expect(t, 403, "")
	e.Do("PUT", path, e.AcmeRO, map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 403, "")
	e.Do("GET", path, e.session(onboarding.RoleAssetOwner), nil).Expect(t, 403, "magic_link_session_not_allowed")
	// A blocked gate still takes saves, a waived one is locked, and a
	// closed workflow is read-only.
	if _, err := e.Core.Act(context.Background(), onboarding.Actor{Kind: onboarding.ActorUser, OrganizationID: auth.PlatformOrganization},
		e.ob.ID, e.ob.Gates[1].ID, onboarding.ActionBlock, "wait"); err != nil {
		t.Fatal(err)
	}
	e.Do("PUT", "/v1/onboardings/"+e.ob.ID+"/gates/"+e.ob.Gates[1].ID+"/fields", e.Acme, map[string]any{"fields": map[string]any{}}).Expect(t, 200, "")
	e.Do("POST", "/v1/onboardings/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/waive", e.Platform, map[string]any{"note": "known"}).Expect(t, 200, "")
	e.Do("PUT", "/v1/onboardings/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/fields", e.Acme,
		map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 409, "gate_locked")
	e.Do("POST", "/v1/onboardings/"+e.other.ID+"/cancel", e.Platform, map[string]any{"reason": "sold"}).Expect(t, 200, "")
	e.Do("PUT", "/v1/onboardings/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/fields", e.Acme,
		map[string]any{"fields": map[string]any{"tso": "tennet"}}).Expect(t, 409, "onboarding_closed")
}

func TestTaskFields(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	rfi := e.ob.Gates[0]
	path := "/v1/onboarding-tasks/" + e.ob.ID + "/gates/" + rfi.ID + "/fields"
	epc := e.session(onboarding.RoleEPC)
	var b body
	e.Do("GET", path, epc, nil).Expect(t, 200, "").JSON(t, &b)
	if len(b.Definitions) < 20 {
		t.Fatalf("definitions %+v", b)
	}
	// Only editable_by fields: the TSO is the owner's.
	p := e.Do("PUT", path, epc, map[string]any{"fields": map[string]any{"tso": "amprion"}}).Expect(t, 422, "field_not_editable").Map(t)
	if p["errors"].([]any)[0].(map[string]any)["location"] != "body.fields.tso" {
		t.Fatalf("problem %v", p)
	}
	e.Do("PUT", path, epc, map[string]any{"fields": map[string]any{"tso": "amprion", "usable_power_capacity_mw": "ten"}}).Expect(t, 422, "validation_failed")
	res := e.Do("PUT", path, epc, map[string]any{"fields": map[string]any{"usable_power_capacity_mw": 8}}).Expect(t, 200, "")
	res.JSON(t, &b)
	if b.Values.Fields["usable_power_capacity_mw"] != 8.0 || *b.Values.UpdatedByName != "c-1" {
		t.Fatalf("task save %+v", b.Values)
	}
	e.Do("PUT", path, epc, map[string]any{"fields": map[string]any{"usable_power_capacity_mw": 9}}, "If-Match", `"stale"`).Expect(t, 409, "edit_conflict")
	e.Do("PUT", path, epc, map[string]any{"fields": map[string]any{"usable_power_capacity_mw": 9}}, "If-Match", res.Header.Get("ETag")).Expect(t, 200, "")
	// The prequalification gate is not among the EPC's gates; another
	// workflow is not the session's.
	e.Do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/gates/"+e.ob.Gates[4].ID+"/fields", epc, nil).Expect(t, 404, "gate_not_found")
	e.Do("GET", "/v1/onboarding-tasks/"+e.other.ID+"/gates/"+e.other.Gates[0].ID+"/fields", epc, nil).Expect(t, 404, "task_not_found")
	e.Do("GET", path+"?role=tso", epc, nil).Expect(t, 404, "task_not_found")
	e.Do("GET", path+"?role=boss", epc, nil).Expect(t, 422, "validation_failed")
	// Preview: read with onboarding.read, save with onboarding.write, as the
	// role (audited with preview_as).
	e.Do("GET", path, e.AcmeRO, nil, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 200, "")
	e.Do("PUT", path, e.AcmeRO, map[string]any{"fields": map[string]any{"tso": "amprion"}}, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 403, "")
	e.Do("PUT", path, e.Platform, map[string]any{"fields": map[string]any{"ems_vendor": "X"}}, "X-Onboarding-Preview-Role", "asset_owner").
		Expect(t, 422, "field_not_editable")
	e.Do("PUT", path, e.Platform, map[string]any{"fields": map[string]any{"tso": "amprion"}}, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 200, "")
	e.Do("GET", path, e.Beta, nil, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 404, "task_not_found")
	e.Do("GET", path, e.Acme, nil, "X-Onboarding-Preview-Role", "owner").Expect(t, 422, "validation_failed")
	e.Do("GET", path, e.None, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 403, "")
	entries, _, err := e.Core.AuditTrail(context.Background(), onboarding.Actor{Kind: onboarding.ActorUser, OrganizationID: auth.PlatformOrganization},
		e.ob.ID, onboarding.AuditFilter{ActionPrefix: "field.updated", Limit: 10})
	if err != nil || len(entries) != 3 || entries[0].Actor.PreviewAs != onboarding.RoleAssetOwner || entries[0].Changes["fields.tso"][1] != "amprion" ||
		entries[1].Changes["fields.usable_power_capacity_mw"][0] != 8.0 || entries[2].Actor.Kind != "contact" {
		t.Fatalf("audit %+v, %v", entries, err)
	}
}
