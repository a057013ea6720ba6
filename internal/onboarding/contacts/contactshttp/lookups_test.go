package contactshttp_test

import (
	"context"
	"testing"

	"atcp/internal/onboarding"
	"atcp/internal/testkit"
)

// TestLookups: the contact name of the task detail, the workflows a user
// is a contact on, and whom a gate's reminder goes to (active links and
// the assignee).
func TestLookups(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	ctx := context.Background()
	epc := h.Do("POST", "/v1/onboardings/"+e.ob+"/contacts", e.Acme, map[string]any{"name": "Erika", "email": "erika@epc.example",
		"roles": []string{"epc", "asset_owner"}, "user_id": "u-acme"}).Expect(t, 201, "").Map(t)["contact_id"].(string)
	ems := e.contact(t, "Emil", "emil@ems.example", "ems_provider")
	if n, lang, err := e.svc.ContactViewer(ctx, "acme", e.ob, epc); err != nil || n != "Erika" || lang != "" {
		t.Fatalf("name %q, language %q, %v", n, lang, err)
	}
	en := h.Do("POST", "/v1/onboardings/"+e.ob+"/contacts", e.Acme, map[string]any{"name": "Eve", "email": "eve@epc.example",
		"roles": []string{"epc"}, "language": "en"}).Expect(t, 201, "").Map(t)["contact_id"].(string)
	if n, lang, err := e.svc.ContactViewer(ctx, "acme", e.ob, en); err != nil || n != "Eve" || lang != "en" {
		t.Fatalf("name %q, language %q, %v", n, lang, err)
	}
	if _, _, err := e.svc.ContactViewer(ctx, "beta", e.ob, epc); err == nil {
		t.Fatal("another organisation's contact named")
	}
	tasks, err := e.svc.TasksOfUser(ctx, "u-acme")
	if err != nil || len(tasks) != 1 || tasks[0].OnboardingID != e.ob || len(tasks[0].Roles) != 2 {
		t.Fatalf("tasks %+v, %v", tasks, err)
	}
	if tasks, _ := e.svc.TasksOfUser(ctx, ""); len(tasks) != 0 {
		t.Fatalf("tasks of no user %+v", tasks)
	}

	ob, err := e.Core.Get(ctx, onboarding.SystemActor, e.ob)
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.Core.GateForKind(ctx, ob, onboarding.KindInstallation)
	if err != nil {
		t.Fatal(err)
	}
	roles := []onboarding.TaskRole{onboarding.RoleEPC}
	if got, _ := e.svc.ForGate(ctx, ob, g, roles); len(got) != 0 {
		t.Fatalf("recipients without links %+v", got)
	}
	h.Do("POST", "/v1/onboardings/"+e.ob+"/access-links", e.Acme, map[string]any{"contact_id": epc, "role": "epc"}).Expect(t, 201, "")
	h.Do("PATCH", "/v1/onboardings/"+e.ob+"/gates/"+g.ID, e.Acme, map[string]any{"assignee_contact_id": ems}).Expect(t, 200, "")
	ob, _ = e.Core.Get(ctx, onboarding.SystemActor, e.ob)
	g, _ = e.Core.GateForKind(ctx, ob, onboarding.KindInstallation)
	got, err := e.svc.ForGate(ctx, ob, g, roles)
	if err != nil || len(got) != 2 || got[0].Contact.ID != epc || got[0].Role != onboarding.RoleEPC || got[1].Contact.ID != ems ||
		got[1].Role != onboarding.RoleEMSProvider {
		t.Fatalf("recipients %+v, %v", got, err)
	}
}
