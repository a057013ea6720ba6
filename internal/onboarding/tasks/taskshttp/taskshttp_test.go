package taskshttp_test

import (
	"context"
	"encoding/json"
	"testing"

	"atcp/internal/auth"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields/fieldshttp"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/onboarding/tasks"
	"atcp/internal/onboarding/tasks/taskshttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// contacts stands in for the contacts group: the roles of users on
// workflows and the names of contacts.
type contacts map[string]map[string][]onboarding.TaskRole // user -> onboarding -> roles

func (c contacts) RolesOfUser(_ context.Context, _, onboardingID, userID string) ([]onboarding.TaskRole, error) {
	return c[userID][onboardingID], nil
}

func (c contacts) TasksOfUser(_ context.Context, userID string) ([]tasks.UserTask, error) {
	var out []tasks.UserTask
	for ob, roles := range c[userID] {
		out = append(out, tasks.UserTask{OrganizationID: "acme", OnboardingID: ob, Roles: roles})
	}
	return out, nil
}

func (contacts) ContactViewer(_ context.Context, _, _, contactID string) (string, string, error) {
	return "Contact " + contactID, "en", nil
}

type env struct {
	*onboardingtest.Kit
	// ob is acme's workflow of bess-1, ob2 of bess-2, betaOb beta's of b-1.
	ob, ob2, betaOb onboarding.Onboarding
	// holder is an acme user who is the EPC contact on ob and the asset
	// owner contact on ob2.
	holder string
}

func (e env) session(ob onboarding.Onboarding, role onboarding.TaskRole) string {
	return e.Session(ob, "c-"+string(role), role)
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	k := onboardingtest.New(t, b, onboardingtest.Config{Fields: true, Assets: []onboardingtest.Asset{{ID: "bess-1", Org: "acme", Name: "Zeta"},
		{ID: "bess-2", Org: "acme", Name: "Alpha"}, {ID: "b-1", Org: "beta", Name: "Beta"}}})
	e := env{Kit: k, ob: k.Start("bess-1", nil), ob2: k.Start("bess-2", nil), betaOb: k.Start("b-1", nil),
		holder: k.User("u-holder", "acme", auth.OnboardingRead, auth.OnboardingWrite)}
	c := contacts{"u-holder": {e.ob.ID: {onboarding.RoleEPC}, e.ob2.ID: {onboarding.RoleAssetOwner}}}
	k.Core.SetContactRoles(c)
	fieldshttp.Register(k.Server, k.Core, k.Fields)
	taskshttp.Register(k.Server, k.Core, tasks.NewService(tasks.Deps{Onboarding: k.Core, Assets: k.Assets, Fields: k.Fields, Contacts: c, Users: c,
		Tests: latestTests{e.ob.ID: json.RawMessage(`{"status":"passed"}`)}}))
	return e
}

type taskList struct {
	Tasks []struct {
		OnboardingID     string  `json:"onboarding_id"`
		AssetName        string  `json:"asset_name"`
		Role             string  `json:"role"`
		GateDefinitionID string  `json:"gate_definition_id"`
		GateStatus       string  `json:"gate_status"`
		Deadline         *string `json:"deadline"`
		Ready            bool    `json:"ready"`
	} `json:"tasks"`
}

func TestTaskList(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	var l taskList
	// A session sees its one task; the EPC's current gate is the
	// installation, not ready while the RfI and DPL are open.
	e.Do("GET", "/v1/onboarding-tasks", e.session(e.ob, onboarding.RoleEPC), nil).Expect(t, 200, "").JSON(t, &l)
	if len(l.Tasks) != 1 || l.Tasks[0].OnboardingID != e.ob.ID || l.Tasks[0].Role != "epc" || l.Tasks[0].GateDefinitionID != "fc_installation" ||
		l.Tasks[0].Ready || l.Tasks[0].GateStatus != "pending" || l.Tasks[0].AssetName != "Zeta" {
		t.Fatalf("session tasks %+v", l)
	}
	// The TSO owns no gate: its current gate is the first it contributes to.
	e.Do("GET", "/v1/onboarding-tasks", e.session(e.ob, onboarding.RoleTSO), nil).Expect(t, 200, "").JSON(t, &l)
	if len(l.Tasks) != 1 || l.Tasks[0].GateDefinitionID != "fc_prequalification" {
		t.Fatalf("tso tasks %+v", l)
	}
	// A user who is a contact on two workflows: ordered by the current
	// gate's deadline (the asset owner's RfI is due before the EPC's
	// installation).
	e.Do("GET", "/v1/onboarding-tasks", e.holder, nil).Expect(t, 200, "").JSON(t, &l)
	if len(l.Tasks) != 2 || l.Tasks[0].OnboardingID != e.ob2.ID || l.Tasks[0].Role != "asset_owner" || l.Tasks[0].GateDefinitionID != "fc_rfi" ||
		!l.Tasks[0].Ready || l.Tasks[1].Role != "epc" {
		t.Fatalf("holder tasks %+v", l)
	}
	// Users without contacts, integrations and other organisations: none.
	for _, tok := range []string{e.Acme, e.Platform, e.Beta, e.None, e.TokenFor("acme", auth.OnboardingRead)} {
		e.Do("GET", "/v1/onboarding-tasks", tok, nil).Expect(t, 200, "").JSON(t, &l)
		if len(l.Tasks) != 0 {
			t.Fatalf("tasks of a caller without contacts: %+v", l)
		}
	}
	e.Do("GET", "/v1/onboarding-tasks", "", nil).Expect(t, 401, "")
}

type detail struct {
	OnboardingID      string   `json:"onboarding_id"`
	Role              string   `json:"role"`
	ViewerContactName *string  `json:"viewer_contact_name"`
	Language          string   `json:"language"`
	TaskGateIDs       []string `json:"task_gate_ids"`
	Gates             []struct {
		ID             string         `json:"id"`
		DefinitionID   string         `json:"definition_id"`
		Status         string         `json:"status"`
		StructuredData map[string]any `json:"structured_data"`
	} `json:"gates"`
	GateDefinitions []struct {
		DefinitionID string           `json:"definition_id"`
		Fields       []map[string]any `json:"fields"`
	} `json:"gate_definitions"`
	ProcessDocumentSlots []struct {
		GateDefinitionID string `json:"gate_definition_id"`
		DocumentType     string `json:"document_type"`
	} `json:"process_document_slots"`
	Documents []any `json:"documents"`
	Branding  struct {
		DisplayName *string `json:"display_name"`
	} `json:"branding"`
}

// latestTests answers the latest communication test of the workflows it names.
type latestTests map[string]json.RawMessage

func (l latestTests) Latest(_ context.Context, _, onboardingID string) (json.RawMessage, error) {
	return l[onboardingID], nil
}

func TestTaskDetail(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	path := "/v1/onboarding-tasks/" + e.ob.ID
	// A manager's RfI value shows to the EPC, a contributor of the RfI
	// gate; the gates the EPC does not work on have null structured_data.
	e.Do("PUT", "/v1/onboardings/"+e.ob.ID+"/gates/"+e.ob.Gates[0].ID+"/fields", e.Acme,
		map[string]any{"fields": map[string]any{"usable_power_capacity_mw": 10}}).Expect(t, 200, "")
	var d detail
	epc := e.session(e.ob, onboarding.RoleEPC)
	e.Do("GET", path, epc, nil).Expect(t, 200, "").JSON(t, &d)
	if d.OnboardingID != e.ob.ID || d.Role != "epc" || d.ViewerContactName == nil || *d.ViewerContactName != "Contact c-epc" || d.Language != "en" ||
		len(d.Gates) != 6 || len(d.GateDefinitions) != 6 || len(d.GateDefinitions[0].Fields) == 0 || d.Documents == nil {
		t.Fatalf("epc detail %+v", d)
	}
	// epc owns the installation and contributes to the RfI, DPL and communication test.
	if len(d.TaskGateIDs) != 4 || d.TaskGateIDs[0] != e.ob.Gates[0].ID || d.TaskGateIDs[2] != e.ob.Gates[2].ID {
		t.Fatalf("task gates %v", d.TaskGateIDs)
	}
	if d.Gates[0].StructuredData["usable_power_capacity_mw"] != 10.0 || d.Gates[0].Status != "in_progress" ||
		d.Gates[4].StructuredData != nil || d.Gates[5].StructuredData != nil {
		t.Fatalf("structured data %+v", d.Gates)
	}
	// The latest communication test shows on the comm-test gate, which the
	// EPC contributes to.
	if test, _ := d.Gates[3].StructuredData["communication_test"].(map[string]any); test["status"] != "passed" {
		t.Fatalf("communication test %+v", d.Gates[3].StructuredData)
	}
	if len(d.ProcessDocumentSlots) == 0 || d.ProcessDocumentSlots[0].GateDefinitionID != "fc_dpl" ||
		d.ProcessDocumentSlots[1].DocumentType != "installation_photo_mdevice" {
		t.Fatalf("slots %+v", d.ProcessDocumentSlots)
	}
	// The session reaches its role on its onboarding only.
	e.Do("GET", path+"?role=asset_owner", epc, nil).Expect(t, 404, "task_not_found")
	e.Do("GET", path+"?role=epc", epc, nil).Expect(t, 200, "")
	e.Do("GET", "/v1/onboarding-tasks/"+e.ob2.ID, epc, nil).Expect(t, 404, "task_not_found")
	e.Do("GET", "/v1/onboarding-tasks/"+e.betaOb.ID, epc, nil).Expect(t, 404, "task_not_found")
	e.Do("GET", path+"?role=platform", epc, nil).Expect(t, 422, "validation_failed")
	e.Do("GET", path, epc, nil, "X-Onboarding-Preview-Role", "tso").Expect(t, 422, "validation_failed")
	// A user holding the role through a contact; the role query picks it.
	e.Do("GET", path, e.holder, nil).Expect(t, 200, "").JSON(t, &d)
	if d.Role != "epc" || d.ViewerContactName != nil || d.Language != "de" {
		t.Fatalf("holder detail %+v", d)
	}
	e.Do("GET", path+"?role=tso", e.holder, nil).Expect(t, 404, "task_not_found")
	// Preview: platform and the asset's organisation, read scope suffices.
	e.Do("GET", path, e.Platform, nil, "X-Onboarding-Preview-Role", "asset_owner").Expect(t, 200, "").JSON(t, &d)
	if d.Role != "asset_owner" || len(d.TaskGateIDs) != 2 || d.Gates[1].StructuredData != nil || d.Gates[3].StructuredData != nil {
		t.Fatalf("preview detail %+v", d)
	}
	e.Do("GET", path, e.AcmeRO, nil, "X-Onboarding-Preview-Role", "tso").Expect(t, 200, "")
	e.Do("GET", path, e.AcmeRO, nil, "X-Onboarding-Preview-Role", "nobody").Expect(t, 422, "validation_failed")
	e.Do("GET", path, e.Beta, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 404, "task_not_found")
	e.Do("GET", path, e.Acme, nil).Expect(t, 404, "task_not_found") // no contact, no preview
	e.Do("GET", path, e.None, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 403, "")
	e.Do("GET", "/v1/onboarding-tasks/not-a-uuid", e.Platform, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 404, "task_not_found")
}

func TestTaskSubmit(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	rfi, install := e.ob.Gates[0], e.ob.Gates[2]
	submit := func(g onboarding.Gate) string {
		return "/v1/onboarding-tasks/" + e.ob.ID + "/gates/" + g.ID + "/submit"
	}
	owner, epc := e.session(e.ob, onboarding.RoleAssetOwner), e.session(e.ob, onboarding.RoleEPC)
	// Not the role's own gate: 404, also for a gate of another workflow.
	e.Do("POST", submit(rfi), epc, nil).Expect(t, 404, "gate_not_found")
	e.Do("POST", "/v1/onboarding-tasks/"+e.ob.ID+"/gates/"+e.ob2.Gates[0].ID+"/submit", owner, nil).Expect(t, 404, "gate_not_found")
	// The RfI's required fields are unmet.
	res := e.Do("POST", submit(rfi), owner, map[string]any{"note": "done"}).Expect(t, 422, "gate_requirements_unmet").Map(t)
	if errs, _ := res["errors"].([]any); len(errs) != 19 {
		t.Fatalf("unmet %v", res)
	}
	// Dependencies open: 409 gate_not_ready; for a user holding the role
	// too (it reaches the gate's rules, not 403), while a preview of an
	// organisation user stays within what it may do on the manager side.
	e.Do("POST", submit(install), epc, nil).Expect(t, 409, "gate_not_ready")
	e.Do("POST", submit(install), e.holder, nil).Expect(t, 409, "gate_not_ready")
	e.Do("POST", submit(install), e.Acme, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 403, "not_gate_owner")
	e.Do("POST", submit(install), e.Platform, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 409, "gate_not_ready")
	e.Do("POST", submit(install), e.AcmeRO, nil, "X-Onboarding-Preview-Role", "epc").Expect(t, 403, "")
	e.Do("POST", submit(install), e.Platform, nil, "X-Onboarding-Preview-Role", "bad").Expect(t, 422, "validation_failed")
	// Fill the RfI as the owner, submit: 200 task detail.
	e.Do("PUT", "/v1/onboarding-tasks/"+e.ob.ID+"/gates/"+rfi.ID+"/fields", owner, map[string]any{"fields": completeRfI()}).Expect(t, 200, "")
	// The EMS fields are the EMS provider's (a contributor of the RfI gate).
	e.Do("PUT", "/v1/onboarding-tasks/"+e.ob.ID+"/gates/"+rfi.ID+"/fields", owner,
		map[string]any{"fields": map[string]any{"ems_vendor": "EMS Co"}}).Expect(t, 422, "field_not_editable")
	e.Do("PUT", "/v1/onboarding-tasks/"+e.ob.ID+"/gates/"+rfi.ID+"/fields", e.session(e.ob, onboarding.RoleEMSProvider),
		map[string]any{"fields": map[string]any{"ems_vendor": "EMS Co", "ems_protocols": []string{"iec104"}, "remote_access_available": true}}).
		Expect(t, 200, "")
	var d detail
	e.Do("POST", submit(rfi), owner, map[string]any{"note": "done"}).Expect(t, 200, "").JSON(t, &d)
	if d.Role != "asset_owner" || d.Gates[0].Status != "submitted" {
		t.Fatalf("after submit %+v", d)
	}
	e.Do("POST", submit(rfi), owner, nil).Expect(t, 409, "gate_transition_not_allowed")
	entries, _, err := e.Core.AuditTrail(context.Background(), onboarding.Actor{Kind: onboarding.ActorUser, OrganizationID: auth.PlatformOrganization},
		e.ob.ID, onboarding.AuditFilter{ActionPrefix: "gate.submitted", Limit: 5})
	if err != nil || len(entries) != 1 || entries[0].Actor.Kind != "contact" || entries[0].Actor.Role != onboarding.RoleAssetOwner {
		t.Fatalf("audit %+v, %v", entries, err)
	}
	// A closed workflow is read-only.
	e.Do("POST", "/v1/onboardings/"+e.ob2.ID+"/cancel", e.Platform, map[string]any{"reason": "sold"}).Expect(t, 200, "")
	e.Do("POST", "/v1/onboarding-tasks/"+e.ob2.ID+"/gates/"+e.ob2.Gates[0].ID+"/submit", e.holder, nil).Expect(t, 409, "onboarding_closed")
	e.Do("GET", "/v1/onboarding-tasks/"+e.ob2.ID, e.holder, nil).Expect(t, 200, "")
}

// completeRfI is a valid value of every required fc_rfi field.
func completeRfI() map[string]any {
	return map[string]any{
		"asset_type": "standalone", "usable_power_capacity_mw": 12.5, "usable_energy_capacity_mwh": 25, "grid_connection_power_mw": 15,
		"voltage_level_kv": 20, "tso": "50hertz", "grid_operator": "Stadtwerke", "market_location_id": "12345678901",
		"site_coordinates": map[string]any{"latitude": 51.76, "longitude": 14.33}, "commissioning_date": "2026-05-01",
		"battery_manufacturer": "Cells AG", "inverter_manufacturer": "Inv GmbH", "site_contact_name": "Jan",
		"site_contact_phone": "+4935512345", "site_contact_email": "jan@example.com", "planned_products": []string{"fcr"},
	}
}
