package onboardinghttp_test

import (
	"net/http"
	"strings"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// setup registers acme's full-control assets bess-1 and bess-2, the live
// asset bess-live and beta's b-1.
func setup(t *testing.T, b store.Backend) *onboardingtest.Kit {
	live := func(a *assets.Asset) { a.OperationalStatus = assets.Live }
	return onboardingtest.New(t, b, onboardingtest.Config{Assets: []onboardingtest.Asset{{ID: "bess-1", Org: "acme"}, {ID: "bess-2", Org: "acme"},
		{ID: "bess-live", Org: "acme", Adjust: live}, {ID: "b-1", Org: "beta"}}})
}

func TestTemplates(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	var list struct {
		Templates []struct {
			TemplateID        string   `json:"template_id"`
			GateDefinitionIDs []string `json:"gate_definition_ids"`
		} `json:"templates"`
	}
	h.Do("GET", "/v1/onboarding-templates", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
	if len(list.Templates) != 2 || list.Templates[0].TemplateID != "fc_v1" || len(list.Templates[0].GateDefinitionIDs) != 6 {
		t.Fatalf("templates %+v", list)
	}
	h.Do("GET", "/v1/onboarding-templates?integration_type=monitoring_only", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
	if len(list.Templates) != 1 || list.Templates[0].TemplateID != "mon_v1" {
		t.Fatalf("filtered %+v", list)
	}
	h.Do("GET", "/v1/onboarding-templates?integration_type=other", e.AcmeRO, nil).Expect(t, 422, "validation_failed")
	m := h.Do("GET", "/v1/onboarding-templates/mon_v1", e.AcmeRO, nil).Expect(t, 200, "").Map(t)
	if defs := m["gate_definitions"].([]any); len(defs) != 5 || defs[4].(map[string]any)["definition_id"] != "mon_go_live" {
		t.Fatalf("template %v", m)
	}
	h.Do("GET", "/v1/onboarding-templates/fc_v9", e.AcmeRO, nil).Expect(t, 404, "template_not_found")
	var defs struct {
		GateDefinitions []map[string]any `json:"gate_definitions"`
	}
	h.Do("GET", "/v1/onboarding-gate-definitions", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &defs)
	if len(defs.GateDefinitions) != 11 {
		t.Fatalf("%d definitions", len(defs.GateDefinitions))
	}
	h.Do("GET", "/v1/onboarding-gate-definitions?template_id=fc_v1", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &defs)
	if len(defs.GateDefinitions) != 6 {
		t.Fatalf("%d fc definitions", len(defs.GateDefinitions))
	}
	h.Do("GET", "/v1/onboarding-gate-definitions?template_id=nope", e.AcmeRO, nil).Expect(t, 422, "validation_failed")
	d := h.Do("GET", "/v1/onboarding-gate-definitions/fc_installation", e.AcmeRO, nil).Expect(t, 200, "").Map(t)
	if d["owner_role"] != "epc" || d["on_pass"].(map[string]any)["asset_operational_status"] != "onboarding_testing" ||
		len(d["document_slots"].([]any)) != 3 || d["depends_on"].([]any)[0] != "fc_dpl" {
		t.Fatalf("definition %v", d)
	}
	h.Do("GET", "/v1/onboarding-gate-definitions/fc_nope", e.AcmeRO, nil).Expect(t, 404, "gate_definition_not_found")
	for _, p := range []string{"/v1/onboarding-templates", "/v1/onboarding-templates/fc_v1", "/v1/onboarding-gate-definitions", "/v1/onboarding-gate-definitions/fc_rfi"} {
		h.Do("GET", p, e.None, nil).Expect(t, 403, "insufficient_scope")
	}
}

// create starts bess-1's workflow and returns it.
func create(t *testing.T, e *onboardingtest.Kit) map[string]any {
	t.Helper()
	r := e.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "bess-1", "target_hc_date": "2026-04-01", "notes": "n"}).Expect(t, 201, "")
	m := r.Map(t)
	if r.Header.Get("Location") != "/v1/onboardings/"+m["onboarding_id"].(string) {
		t.Fatalf("location %q", r.Header.Get("Location"))
	}
	return m
}

func gateIDs(ob map[string]any) []string {
	var ids []string
	for _, g := range ob["gates"].([]any) {
		ids = append(ids, g.(map[string]any)["id"].(string))
	}
	return ids
}

func TestWorkflows(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		h.Do("POST", "/v1/onboardings", e.Acme, map[string]any{"asset_id": "bess-1"}).Expect(t, 403, "platform_only")
		h.Do("POST", "/v1/onboardings", e.AcmeRO, map[string]any{"asset_id": "bess-1"}).Expect(t, 403, "insufficient_scope")
		h.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "nope"}).Expect(t, 404, "asset_not_found")
		h.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "bess-live"}).Expect(t, 409, "asset_not_onboarding")
		h.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "bess-1", "template_id": "mon_v1"}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "bess-1", "started_on": "2026-13-01"}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "bess-1", "gate_overrides": map[string]any{"fc_go_live": map[string]any{"waived": true, "note": "x"}}}).
			Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/onboardings", e.Platform, map[string]any{}).Expect(t, 422, "")

		ob := create(t, e)
		id := ob["onboarding_id"].(string)
		if ob["asset_name"] != "Battery bess-1" || ob["template_id"] != "fc_v1" || ob["integration_type"] != "full_control" ||
			ob["overall_status"] != "in_progress" || ob["started_on"] != "2026-02-01" || ob["next_deadline"] != "2026-02-15" ||
			ob["created_by_user_name"] != "platform@example.com" || len(ob["gates"].([]any)) != 6 {
			t.Fatalf("created %v", ob)
		}
		if g := ob["gates"].([]any)[5].(map[string]any); g["deadline"] != "2026-04-01" || g["ready"] != false ||
			len(g["requirements_unmet"].([]any)) != 5 {
			t.Fatalf("go-live %v", g)
		}
		h.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "bess-1"}).Expect(t, 409, "onboarding_exists")

		// Reads: acme and the platform see it; beta does not.
		h.Do("GET", "/v1/onboardings/"+id, e.AcmeRO, nil).Expect(t, 200, "")
		h.Do("GET", "/v1/onboardings/"+id, e.Beta, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("GET", "/v1/onboardings/not-a-uuid", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("GET", "/v1/onboardings/"+id, e.None, nil).Expect(t, 403, "insufficient_scope")
		var list struct {
			Onboardings []map[string]any `json:"onboardings"`
			Total       int              `json:"total"`
		}
		h.Do("GET", "/v1/onboardings", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 1 || list.Onboardings[0]["onboarding_id"] != id || list.Onboardings[0]["gates"] != nil {
			t.Fatalf("acme's list %+v", list)
		}
		h.Do("GET", "/v1/onboardings", e.Beta, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 0 || list.Onboardings == nil {
			t.Fatalf("beta's list %+v", list)
		}
		h.Do("GET", "/v1/onboardings?blocked=true", e.Platform, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 0 {
			t.Fatalf("blocked %+v", list)
		}
		h.Do("GET", "/v1/onboardings?blocked=false&overdue=false&overall_status=in_progress&asset_id=bess-1&organization_id=acme&integration_type=full_control",
			e.Platform, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 1 {
			t.Fatalf("filtered %+v", list)
		}
		h.Do("GET", "/v1/onboardings?limit=0", e.Platform, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", "/v1/onboardings?overdue=yes", e.Platform, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", "/v1/onboardings", e.None, nil).Expect(t, 403, "insufficient_scope")

		// PATCH.
		m := h.Do("PATCH", "/v1/onboardings/"+id, e.Acme, map[string]any{"target_hc_date": "2026-03-20", "notes": "later"}).Expect(t, 200, "").Map(t)
		if m["target_hc_date"] != "2026-03-20" || m["notes"] != "later" || m["gates"].([]any)[5].(map[string]any)["deadline"] != "2026-03-20" {
			t.Fatalf("patched %v", m)
		}
		m = h.Do("PATCH", "/v1/onboardings/"+id, e.Acme, map[string]any{"target_hc_date": nil}).Expect(t, 200, "").Map(t)
		if m["target_hc_date"] != nil || m["notes"] != "later" {
			t.Fatalf("cleared %v", m)
		}
		h.Do("PATCH", "/v1/onboardings/"+id, e.Acme, map[string]any{"target_hc_date": "2026-01-01"}).Expect(t, 422, "validation_failed")
		h.Do("PATCH", "/v1/onboardings/"+id, e.Acme, map[string]any{"notes": strings.Repeat("x", 4001)}).Expect(t, 422, "validation_failed")
		h.Do("PATCH", "/v1/onboardings/"+id, e.Beta, map[string]any{"notes": "x"}).Expect(t, 404, "onboarding_not_found")
		h.Do("PATCH", "/v1/onboardings/"+id, e.AcmeRO, map[string]any{"notes": "x"}).Expect(t, 403, "insufficient_scope")

		// Cancel.
		h.Do("POST", "/v1/onboardings/"+id+"/cancel", e.Acme, map[string]any{"reason": "sold"}).Expect(t, 403, "platform_only")
		h.Do("POST", "/v1/onboardings/"+id+"/cancel", e.Beta, map[string]any{"reason": "sold"}).Expect(t, 404, "onboarding_not_found")
		h.Do("POST", "/v1/onboardings/"+id+"/cancel", e.Platform, map[string]any{"reason": ""}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/onboardings/"+id+"/cancel", e.AcmeRO, map[string]any{"reason": "sold"}).Expect(t, 403, "insufficient_scope")
		m = h.Do("POST", "/v1/onboardings/"+id+"/cancel", e.Platform, map[string]any{"reason": "sold"}).Expect(t, 200, "").Map(t)
		if m["overall_status"] != "cancelled" || m["cancel_reason"] != "sold" || m["cancelled_at"] == nil {
			t.Fatalf("cancelled %v", m)
		}
		h.Do("POST", "/v1/onboardings/"+id+"/cancel", e.Platform, map[string]any{"reason": "sold"}).Expect(t, 409, "onboarding_closed")
		h.Do("PATCH", "/v1/onboardings/"+id, e.Acme, map[string]any{"notes": "x"}).Expect(t, 409, "onboarding_closed")
		create(t, e)
	})
}

func TestGates(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	ob := create(t, e)
	id := ob["onboarding_id"].(string)
	gates := gateIDs(ob)
	gate := func(i int) string { return "/v1/onboardings/" + id + "/gates/" + gates[i] }

	var list struct {
		Gates []map[string]any `json:"gates"`
	}
	h.Do("GET", "/v1/onboardings/"+id+"/gates", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
	if len(list.Gates) != 6 || list.Gates[0]["definition_id"] != "fc_rfi" || list.Gates[0]["ready"] != true || list.Gates[0]["owner_role"] != "asset_owner" {
		t.Fatalf("gates %v", list)
	}
	h.Do("GET", "/v1/onboardings/"+id+"/gates", e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	h.Do("GET", "/v1/onboardings/"+id+"/gates", e.None, nil).Expect(t, 403, "insufficient_scope")
	if g := h.Do("GET", gate(2), e.AcmeRO, nil).Expect(t, 200, "").Map(t); g["title"].(map[string]any)["en"] != "Installation" {
		t.Fatalf("gate %v", g)
	}
	h.Do("GET", "/v1/onboardings/"+id+"/gates/nope", e.Acme, nil).Expect(t, 404, "gate_not_found")
	h.Do("GET", gate(0), e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	h.Do("GET", gate(0), e.None, nil).Expect(t, 403, "insufficient_scope")

	// PATCH the deadline.
	if g := h.Do("PATCH", gate(0), e.Acme, map[string]any{"deadline": "2026-02-20"}).Expect(t, 200, "").Map(t); g["deadline"] != "2026-02-20" {
		t.Fatalf("deadline %v", g)
	}
	h.Do("PATCH", gate(0), e.Acme, map[string]any{"deadline": "2026-02-30"}).Expect(t, 422, "validation_failed")
	h.Do("PATCH", gate(0), e.Acme, map[string]any{"deadline": "2026-01-01"}).Expect(t, 422, "validation_failed")
	h.Do("PATCH", gate(0), e.Beta, map[string]any{"deadline": "2026-02-20"}).Expect(t, 404, "onboarding_not_found")
	h.Do("PATCH", "/v1/onboardings/"+id+"/gates/nope", e.Acme, map[string]any{"deadline": "2026-02-20"}).Expect(t, 404, "gate_not_found")
	h.Do("PATCH", gate(0), e.AcmeRO, map[string]any{"deadline": "2026-02-20"}).Expect(t, 403, "insufficient_scope")

	post := func(i int, action, token string, body any) *testkit.Response {
		return h.Do("POST", gate(i)+"/"+action, token, body)
	}
	note := map[string]any{"note": "please add the phone"}
	post(1, "submit", e.Acme, nil).Expect(t, 403, "not_gate_owner")
	post(1, "submit", e.Platform, nil).Expect(t, 409, "gate_not_ready")
	post(0, "submit", e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	post(0, "submit", e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
	post(0, "pass", e.Platform, nil).Expect(t, 409, "gate_transition_not_allowed")
	if g := post(0, "submit", e.Acme, map[string]any{}).Expect(t, 200, "").Map(t); g["status"] != "submitted" || g["submitted_by_name"] != "acme@example.com" {
		t.Fatalf("submitted %v", g)
	}
	post(0, "request-changes", e.Acme, note).Expect(t, 403, "platform_only")
	post(0, "request-changes", e.Platform, map[string]any{}).Expect(t, 422, "validation_failed")
	post(0, "request-changes", e.Beta, note).Expect(t, 404, "onboarding_not_found")
	post(0, "request-changes", e.AcmeRO, note).Expect(t, 403, "insufficient_scope")
	if g := post(0, "request-changes", e.Platform, note).Expect(t, 200, "").Map(t); g["status"] != "changes_requested" || g["last_note"] != "please add the phone" {
		t.Fatalf("changes requested %v", g)
	}
	post(0, "block", e.Acme, map[string]any{}).Expect(t, 422, "validation_failed")
	post(0, "block", e.Beta, map[string]any{"reason": "x"}).Expect(t, 404, "onboarding_not_found")
	post(0, "block", e.AcmeRO, map[string]any{"reason": "x"}).Expect(t, 403, "insufficient_scope")
	if g := post(0, "block", e.Acme, map[string]any{"reason": "DSO"}).Expect(t, 200, "").Map(t); g["status"] != "blocked" || g["blocked_from"] != "changes_requested" {
		t.Fatalf("blocked %v", g)
	}
	post(0, "block", e.Acme, map[string]any{"reason": "DSO"}).Expect(t, 409, "gate_transition_not_allowed")
	other := h.Token(auth.Principal{Subject: "u-other", OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.OnboardingWrite)})
	post(0, "unblock", other, nil).Expect(t, 403, "platform_only")
	post(0, "unblock", e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	post(0, "unblock", e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
	if g := post(0, "unblock", e.Acme, nil).Expect(t, 200, "").Map(t); g["status"] != "changes_requested" || g["blocked_from"] != nil {
		t.Fatalf("unblocked %v", g)
	}
	post(0, "unblock", e.Platform, nil).Expect(t, 409, "gate_transition_not_allowed")
	post(0, "submit", e.Acme, nil).Expect(t, 200, "")
	post(0, "pass", e.Acme, nil).Expect(t, 403, "platform_only")
	post(0, "pass", e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	post(0, "pass", e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
	if g := post(0, "pass", e.Platform, map[string]any{"note": "fine"}).Expect(t, 200, "").Map(t); g["status"] != "passed" || g["passed_by_user_name"] != "platform@example.com" {
		t.Fatalf("passed %v", g)
	}
	post(0, "reopen", e.Acme, note).Expect(t, 403, "platform_only")
	post(0, "reopen", e.Platform, map[string]any{}).Expect(t, 422, "validation_failed")
	post(0, "reopen", e.Beta, note).Expect(t, 404, "onboarding_not_found")
	post(0, "reopen", e.AcmeRO, note).Expect(t, 403, "insufficient_scope")
	if g := post(0, "reopen", e.Platform, note).Expect(t, 200, "").Map(t); g["status"] != "in_progress" {
		t.Fatalf("reopened %v", g)
	}
	post(5, "waive", e.Platform, note).Expect(t, 422, "gate_not_waivable")
	post(0, "waive", e.Acme, note).Expect(t, 403, "platform_only")
	post(0, "waive", e.Platform, map[string]any{"note": ""}).Expect(t, 422, "validation_failed")
	post(0, "waive", e.Beta, note).Expect(t, 404, "onboarding_not_found")
	post(0, "waive", e.AcmeRO, note).Expect(t, 403, "insufficient_scope")
	for i := range 5 {
		post(i, "waive", e.Platform, note).Expect(t, 200, "")
	}
	post(5, "reopen", e.Platform, note).Expect(t, 409, "gate_transition_not_allowed")
	post(5, "submit", e.Platform, nil).Expect(t, 200, "")
	post(5, "pass", e.Platform, nil).Expect(t, 200, "")
	m := h.Do("GET", "/v1/onboardings/"+id, e.Acme, nil).Expect(t, 200, "").Map(t)
	if m["overall_status"] != "completed" || m["completed_at"] == nil || m["next_deadline"] != nil {
		t.Fatalf("completed %v", m)
	}
	post(5, "reopen", e.Platform, note).Expect(t, 409, "onboarding_closed")
	post(0, "submit", e.Acme, nil).Expect(t, 409, "onboarding_closed")
	h.Do("PATCH", gate(0), e.Acme, map[string]any{"deadline": "2026-02-21"}).Expect(t, 409, "onboarding_closed")
}

func TestAudit(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	ob := create(t, e)
	id := ob["onboarding_id"].(string)
	h.Do("POST", "/v1/onboardings/"+id+"/gates/"+gateIDs(ob)[0]+"/submit", e.Acme, nil).Expect(t, 200, "")
	var list struct {
		Entries []map[string]any `json:"entries"`
		Total   int              `json:"total"`
	}
	h.Do("GET", "/v1/onboardings/"+id+"/audit", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
	if list.Total != 2 || list.Entries[0]["action"] != "gate.submitted" || list.Entries[1]["action"] != "onboarding.created" ||
		list.Entries[0]["actor"].(map[string]any)["name"] != "acme@example.com" || list.Entries[0]["request_id"] == nil {
		t.Fatalf("audit %+v", list)
	}
	if c := list.Entries[0]["changes"].(map[string]any)["status"].([]any); c[0] != "pending" || c[1] != "submitted" {
		t.Fatalf("changes %v", c)
	}
	h.Do("GET", "/v1/onboardings/"+id+"/audit?action=onboarding.&actor_kind=user&target_type=onboarding&target_id="+id, e.AcmeRO, nil).
		Expect(t, 200, "").JSON(t, &list)
	if list.Total != 1 || list.Entries[0]["action"] != "onboarding.created" {
		t.Fatalf("filtered %+v", list)
	}
	req, _ := http.NewRequest("GET", h.URL+"/v1/onboardings/"+id+"/audit", nil)
	req.Header.Set("Authorization", "Bearer "+e.AcmeRO)
	req.Header.Set("Accept", "text/csv")
	r := h.Send(req).Expect(t, 200, "")
	lines := strings.Split(strings.TrimSpace(string(r.Body)), "\r\n")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") || len(lines) != 3 || !strings.HasPrefix(lines[0], "entry_id,onboarding_id,at,") ||
		!strings.Contains(lines[1], "gate.submitted") {
		t.Fatalf("csv %s", r.Body)
	}
	h.Do("GET", "/v1/onboardings/"+id+"/audit", e.Beta, nil).Expect(t, 404, "onboarding_not_found")
	h.Do("GET", "/v1/onboardings/"+id+"/audit", e.None, nil).Expect(t, 403, "insufficient_scope")
	h.Do("GET", "/v1/onboardings/"+id+"/audit?start_time=2026-02-02T00:00:00Z&end_time=2026-02-01T00:00:00Z", e.Acme, nil).Expect(t, 422, "validation_failed")
	h.Do("GET", "/v1/onboardings/"+id+"/audit?actor_kind=robot", e.Acme, nil).Expect(t, 422, "validation_failed")
}
