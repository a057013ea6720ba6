package contactshttp_test

import (
	"net/http"
	"testing"

	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestContacts(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		base := "/v1/onboardings/" + e.ob + "/contacts"
		r := h.Do("POST", base, e.Acme, map[string]any{"name": "Erika Muster", "email": "Erika@EPC.example", "roles": []string{"epc", "asset_owner"},
			"company": "EPC GmbH", "phone": "+4930123456", "language": "en", "user_id": "u-acme"}).Expect(t, 201, "")
		c := r.Map(t)
		id := c["contact_id"].(string)
		if r.Header.Get("Location") != base+"/"+id || c["phone"] != "+4930123456" || c["language"] != "en" || c["user_id"] != "u-acme" ||
			len(c["roles"].([]any)) != 2 || c["roles"].([]any)[0] != "asset_owner" {
			t.Fatalf("created %v (%s)", c, r.Header.Get("Location"))
		}
		h.Do("POST", base, e.Acme, map[string]any{"name": "Other", "email": "erika@epc.EXAMPLE", "roles": []string{"tso"}}).Expect(t, 409, "contact_exists")
		for _, bad := range []map[string]any{
			{"name": "X", "email": "not an address", "roles": []string{"epc"}},
			{"name": "X", "email": "x@example.com", "roles": []string{"boss"}},
			{"name": "X", "email": "x@example.com", "roles": []string{"epc", "epc"}},
			{"name": "X", "email": "x@example.com", "roles": []string{}},
			{"name": "X", "email": "x@example.com", "roles": []string{"epc"}, "phone": "030 123"},
			{"name": "X", "email": "x@example.com", "roles": []string{"epc"}, "user_id": "u-nobody"},
			{"name": "X", "email": "x@example.com", "roles": []string{"epc"}, "user_id": "u\u0000"},
			{"name": "X\u0000", "email": "x@example.com", "roles": []string{"epc"}},
			{"name": " ", "email": "x@example.com", "roles": []string{"epc"}},
		} {
			h.Do("POST", base, e.Acme, bad).Expect(t, 422, "validation_failed")
		}
		h.Do("POST", base, e.AcmeRO, map[string]any{"name": "X", "email": "x@example.com", "roles": []string{"epc"}}).Expect(t, 403, "insufficient_scope")
		h.Do("POST", base, e.Beta, map[string]any{"name": "X", "email": "x@example.com", "roles": []string{"epc"}}).Expect(t, 404, "onboarding_not_found")
		h.Do("POST", "/v1/onboardings/nope/contacts", e.Acme, map[string]any{"name": "X", "email": "x@example.com", "roles": []string{"epc"}}).
			Expect(t, 404, "onboarding_not_found")
		other := e.contact(t, "Max Beispiel", "max@owner.example", "ems_provider")

		var list struct {
			Contacts []map[string]any `json:"contacts"`
		}
		h.Do("GET", base, e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Contacts) != 2 || list.Contacts[0]["contact_id"] != id {
			t.Fatalf("list %v", list)
		}
		h.Do("GET", base+"?role=ems_provider", e.Platform, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Contacts) != 1 || list.Contacts[0]["contact_id"] != other {
			t.Fatalf("filtered %v", list)
		}
		h.Do("GET", base+"?role=boss", e.Acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", base, e.None, nil).Expect(t, 403, "insufficient_scope")
		h.Do("GET", base, e.Beta, nil).Expect(t, 404, "onboarding_not_found")

		one := base + "/" + id
		c = h.Do("PATCH", one, e.Acme, map[string]any{"phone": nil, "roles": []string{"epc"}, "name": "Erika M."}).Expect(t, 200, "").Map(t)
		if c["phone"] != nil || c["name"] != "Erika M." || len(c["roles"].([]any)) != 1 || c["company"] != "EPC GmbH" {
			t.Fatalf("patched %v", c)
		}
		h.Do("PATCH", one, e.Acme, map[string]any{"email": "MAX@owner.example"}).Expect(t, 409, "contact_exists")
		h.Do("PATCH", one, e.Acme, map[string]any{"roles": []string{}}).Expect(t, 422, "validation_failed")
		h.Do("PATCH", one, e.Acme, map[string]any{"language": "fr"}).Expect(t, 422, "validation_failed")
		h.Do("PATCH", base+"/"+e.betaOb, e.Acme, map[string]any{"name": "x"}).Expect(t, 404, "contact_not_found")
		h.Do("PATCH", base+"/nope", e.Acme, map[string]any{"name": "x"}).Expect(t, 404, "contact_not_found")
		h.Do("PATCH", one, e.AcmeRO, map[string]any{"name": "x"}).Expect(t, 403, "insufficient_scope")
		h.Do("PATCH", "/v1/onboardings/"+e.ob+"/contacts/"+id, e.Beta, map[string]any{"name": "x"}).Expect(t, 404, "onboarding_not_found")

		// The installation gate (owner epc) takes the epc contact as its
		// assignee, not the ems_provider... which contributes to it: both
		// do; the RfI gate (owner asset_owner, contributors epc and
		// ems_provider) too; the go-live gate (platform) takes neither.
		ob := h.Do("GET", "/v1/onboardings/"+e.ob, e.Acme, nil).Expect(t, 200, "").Map(t)
		gates := map[string]string{}
		for _, g := range ob["gates"].([]any) {
			gm := g.(map[string]any)
			gates[gm["definition_id"].(string)] = gm["id"].(string)
		}
		gate := "/v1/onboardings/" + e.ob + "/gates/" + gates["fc_installation"]
		g := h.Do("PATCH", gate, e.Acme, map[string]any{"assignee_contact_id": id}).Expect(t, 200, "").Map(t)
		if g["assignee_contact_id"] != id {
			t.Fatalf("assigned %v", g)
		}
		h.Do("PATCH", "/v1/onboardings/"+e.ob+"/gates/"+gates["fc_go_live"], e.Acme, map[string]any{"assignee_contact_id": id}).
			Expect(t, 422, "validation_failed")
		h.Do("PATCH", gate, e.Acme, map[string]any{"assignee_contact_id": "0190a3c4-0000-7000-8000-000000000009"}).Expect(t, 422, "validation_failed")
		h.Do("PATCH", one, e.Acme, map[string]any{"roles": []string{"tso"}}).Expect(t, 422, "validation_failed")
		h.Do("DELETE", one, e.Acme, nil).Expect(t, 409, "contact_assigned")
		if g := h.Do("PATCH", gate, e.Acme, map[string]any{"assignee_contact_id": nil}).Expect(t, 200, "").Map(t); g["assignee_contact_id"] != nil {
			t.Fatalf("cleared %v", g)
		}

		// The task side: u-acme holds epc through the contact's user_id.
		task := "/v1/onboarding-tasks/" + e.ob + "/contacts"
		var tc struct {
			Contacts     []map[string]any `json:"contacts"`
			SupportEmail *string          `json:"support_email"`
		}
		h.Do("GET", task, e.Acme, nil).Expect(t, 200, "").JSON(t, &tc)
		if len(tc.Contacts) != 1 || tc.Contacts[0]["name"] != "Max Beispiel" || tc.Contacts[0]["email"] != nil || tc.SupportEmail != nil {
			t.Fatalf("task contacts %+v", tc)
		}
		h.Do("GET", task+"?role=tso", e.Acme, nil).Expect(t, 404, "task_not_found")
		h.Do("GET", task+"?role=boss", e.Acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", task, e.Beta, nil).Expect(t, 404, "task_not_found")
		h.Do("GET", task, e.None, nil).Expect(t, 403, "insufficient_scope")
		req, _ := http.NewRequest("GET", h.URL+task, nil)
		req.Header.Set("Authorization", "Bearer "+e.Platform)
		req.Header.Set("X-Onboarding-Preview-Role", "asset_owner")
		h.Send(req).Expect(t, 200, "").JSON(t, &tc)
		if len(tc.Contacts) != 2 {
			t.Fatalf("preview %+v", tc)
		}

		h.Do("DELETE", one, e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
		h.Do("DELETE", one, e.Beta, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("DELETE", one, e.Acme, nil).Expect(t, 204, "")
		h.Do("DELETE", one, e.Acme, nil).Expect(t, 404, "contact_not_found")
		// The address is free again once its contact is gone.
		e.contact(t, "Erika Muster", "erika@epc.example", "epc")

		var audit struct {
			Entries []map[string]any `json:"entries"`
		}
		h.Do("GET", "/v1/onboardings/"+e.ob+"/audit?action=contact.", e.Acme, nil).Expect(t, 200, "").JSON(t, &audit)
		if len(audit.Entries) != 5 || audit.Entries[1]["action"] != "contact.deleted" {
			t.Fatalf("audit %v", audit.Entries)
		}

		h.Do("POST", "/v1/onboardings/"+e.ob+"/cancel", e.Platform, map[string]any{"reason": "stop"}).Expect(t, 200, "")
		h.Do("POST", base, e.Acme, map[string]any{"name": "X", "email": "x@example.com", "roles": []string{"epc"}}).Expect(t, 409, "onboarding_closed")
		h.Do("PATCH", base+"/"+other, e.Acme, map[string]any{"name": "x"}).Expect(t, 409, "onboarding_closed")
		h.Do("DELETE", base+"/"+other, e.Acme, nil).Expect(t, 409, "onboarding_closed")
	})
}
