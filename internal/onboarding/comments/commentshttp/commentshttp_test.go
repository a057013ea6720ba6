package commentshttp_test

import (
	"context"
	"net/http"
	"testing"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/comments/commentshttp"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type mail struct {
	onboardingtest.Recorder[comments.CommentMail]
}

func (m *mail) Comment(_ context.Context, _ onboarding.Onboarding, c comments.CommentMail) error {
	return m.Record(c)
}

type env struct {
	*onboardingtest.Kit
	mail *mail
	ob   onboarding.Onboarding
	// epc is a magic-link session of the onboarding as epc, other one of
	// another onboarding.
	epc, other string
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	k := onboardingtest.New(t, b, onboardingtest.Config{})
	m := &mail{}
	commentshttp.Register(k.Server, k.Core, comments.NewService(k.Core, b.OnboardingComments(), k.Clock, m))
	ob, other := k.Start("bess-1", nil), k.Start("bess-2", nil)
	return env{Kit: k, mail: m, ob: ob, epc: k.Session(ob, "c-1", onboarding.RoleEPC), other: k.Session(other, "c-1", onboarding.RoleEPC)}
}

type list struct {
	Comments []map[string]any `json:"comments"`
	Total    int              `json:"total"`
}

func TestManagerComments(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		base := "/v1/onboardings/" + e.ob.ID + "/comments"
		rfi := e.Gate(e.ob, onboarding.KindRfI).ID

		c := h.Do("POST", base, e.Platform, map[string]any{"body": "Please fill in the RfI.", "gate_id": rfi}).Expect(t, 201, "").Map(t)
		if c["visibility"] != "shared" || c["gate_id"] != rfi || c["author_name"] != "platform@example.com" ||
			c["author_role"] != "platform_onboarding" || c["onboarding_id"] != e.ob.ID {
			t.Fatalf("comment %v", c)
		}
		h.Do("POST", base, e.Acme, map[string]any{"body": "Our note.", "visibility": "internal"}).Expect(t, 201, "")
		h.Do("POST", base, e.Acme, map[string]any{"body": "Hello all."}).Expect(t, 201, "")
		// Mails: the RfI's owner (asset_owner), none for internal, asset_owner for the onboarding thread.
		if sent := e.mail.Sent(); len(sent) != 2 || sent[0].RecipientRoles[0] != onboarding.RoleAssetOwner || sent[0].GateID != rfi ||
			sent[1].RecipientRoles[0] != onboarding.RoleAssetOwner || sent[1].GateID != "" {
			t.Fatalf("mails %+v", sent)
		}

		var l list
		h.Do("GET", base, e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if l.Total != 3 || l.Comments[0]["body"] != "Hello all." || l.Comments[0]["gate_id"] != nil || l.Comments[0]["author_role"] != nil {
			t.Fatalf("list %+v", l)
		}
		h.Do("GET", base+"?visibility=internal", e.Platform, nil).Expect(t, 200, "").JSON(t, &l)
		if l.Total != 1 || l.Comments[0]["body"] != "Our note." {
			t.Fatalf("internal %+v", l)
		}
		h.Do("GET", base+"?gate_id="+rfi+"&limit=1&offset=0", e.Acme, nil).Expect(t, 200, "").JSON(t, &l)
		if l.Total != 1 || len(l.Comments) != 1 || l.Comments[0]["gate_id"] != rfi {
			t.Fatalf("by gate %+v", l)
		}
		h.Do("GET", base+"?limit=2&offset=2", e.Acme, nil).Expect(t, 200, "").JSON(t, &l)
		if l.Total != 3 || len(l.Comments) != 1 || l.Comments[0]["body"] != "Please fill in the RfI." {
			t.Fatalf("paged %+v", l)
		}

		// Errors.
		h.Do("GET", base+"?gate_id=00000000-0000-4000-8000-000000000000", e.Acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", base+"?visibility=secret", e.Acme, nil).Expect(t, 422, "validation_failed")
		h.Do("POST", base, e.Acme, map[string]any{"body": "   "}).Expect(t, 422, "validation_failed")
		h.Do("POST", base, e.Acme, map[string]any{"body": "x", "gate_id": "00000000-0000-4000-8000-000000000000"}).Expect(t, 422, "validation_failed")
		h.Do("POST", base, e.Acme, map[string]any{"body": "x", "visibility": "public"}).Expect(t, 422, "validation_failed")
		h.Do("POST", base, e.Acme, map[string]any{"body": "nul\x00byte"}).Expect(t, 422, "validation_failed")
		h.Do("GET", base, e.None, nil).Expect(t, 403, "insufficient_scope")
		h.Do("POST", base, e.AcmeRO, map[string]any{"body": "x"}).Expect(t, 403, "insufficient_scope")
		h.Do("GET", base, e.Beta, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("POST", base, e.Beta, map[string]any{"body": "x"}).Expect(t, 404, "onboarding_not_found")
		h.Do("GET", "/v1/onboardings/nope/comments", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("GET", base, e.epc, nil).Expect(t, 403, "magic_link_session_not_allowed")
		h.Do("GET", base, e.Platform, nil).Expect(t, 200, "").JSON(t, &l)
		if l.Total != 3 {
			t.Fatalf("rejected posts changed something: %+v", l)
		}
		if _, err := e.Core.Cancel(context.Background(), onboardingtest.PlatformActor, e.ob.ID, "sold"); err != nil {
			t.Fatal(err)
		}
		h.Do("POST", base, e.Acme, map[string]any{"body": "late"}).Expect(t, 409, "onboarding_closed")
	})
}

func TestTaskComments(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	ctx := context.Background()
	base := "/v1/onboarding-tasks/" + e.ob.ID + "/comments"
	installation := e.Gate(e.ob, onboarding.KindInstallation).ID // epc owns it
	rfi := e.Gate(e.ob, onboarding.KindRfI).ID                   // asset_owner owns it, epc contributes
	golive := e.Gate(e.ob, onboarding.KindGoLive).ID             // platform only
	mgr := "/v1/onboardings/" + e.ob.ID + "/comments"
	h.Do("POST", mgr, e.Platform, map[string]any{"body": "Photos please.", "gate_id": installation}).Expect(t, 201, "")
	h.Do("POST", mgr, e.Platform, map[string]any{"body": "Go-live soon.", "gate_id": golive}).Expect(t, 201, "")
	h.Do("POST", mgr, e.Acme, map[string]any{"body": "internal", "visibility": "internal", "gate_id": installation}).Expect(t, 201, "")
	e.mail.Reset()

	c := h.Do("POST", base, e.epc, map[string]any{"body": "Uploaded.", "gate_id": installation}).Expect(t, 201, "").Map(t)
	if c["visibility"] != "shared" || c["author_role"] != "epc" || c["author_name"] != "c-1" {
		t.Fatalf("task comment %v", c)
	}
	h.Do("POST", base, e.epc, map[string]any{"body": "On the RfI.", "gate_id": rfi}).Expect(t, 201, "")
	if sent := e.mail.Sent(); len(sent) != 2 || sent[0].RecipientRoles[0] != onboarding.RolePlatformOnboarding {
		t.Fatalf("mails %+v", sent)
	}
	var l list
	h.Do("GET", base, e.epc, nil).Expect(t, 200, "").JSON(t, &l)
	// Not the go-live thread (not the role's gate), not the internal one.
	if l.Total != 3 || l.Comments[2]["body"] != "Photos please." || l.Comments[2]["author_name"] != "platform_onboarding" {
		t.Fatalf("task list %+v", l)
	}
	h.Do("GET", base+"?gate_id="+rfi, e.epc, nil).Expect(t, 200, "").JSON(t, &l)
	if l.Total != 1 {
		t.Fatalf("rfi thread %+v", l)
	}
	// Preview: a user as epc reads; writing in preview needs onboarding.write.
	req, _ := http.NewRequest("GET", h.URL+base, nil)
	req.Header.Set("Authorization", "Bearer "+e.AcmeRO)
	req.Header.Set("X-Onboarding-Preview-Role", "epc")
	if r := h.Send(req); r.Status != 200 {
		t.Fatalf("preview read %d %s", r.Status, r.Body)
	}
	h.Do("POST", base, e.AcmeRO, map[string]any{"body": "x"}).Expect(t, 403, "insufficient_scope")

	// Errors.
	h.Do("GET", base+"?gate_id="+golive, e.epc, nil).Expect(t, 422, "validation_failed")
	h.Do("GET", base+"?role=nobody", e.epc, nil).Expect(t, 422, "validation_failed")
	h.Do("POST", base, e.epc, map[string]any{"body": "x", "gate_id": golive}).Expect(t, 422, "validation_failed")
	h.Do("POST", base, e.epc, map[string]any{"body": "x", "visibility": "internal"}).Expect(t, 422, "validation_failed")
	h.Do("POST", base, e.epc, map[string]any{"body": ""}).Expect(t, 422, "validation_failed")
	h.Do("GET", base, e.other, nil).Expect(t, 404, "task_not_found")
	h.Do("POST", base, e.other, map[string]any{"body": "x"}).Expect(t, 404, "task_not_found")
	h.Do("GET", base, e.Acme, nil).Expect(t, 404, "task_not_found") // holds no contact role
	h.Do("GET", base, e.Beta, nil).Expect(t, 404, "task_not_found")
	h.Do("GET", base, e.None, nil).Expect(t, 403, "insufficient_scope")
	h.Do("GET", base+"?role=tso", e.epc, nil).Expect(t, 404, "task_not_found")
	if _, err := e.Core.Cancel(ctx, onboardingtest.PlatformActor, e.ob.ID, "sold"); err != nil {
		t.Fatal(err)
	}
	h.Do("POST", base, e.epc, map[string]any{"body": "late"}).Expect(t, 409, "onboarding_closed")
	h.Do("GET", base, e.epc, nil).Expect(t, 200, "")
}

func TestTaskActivity(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	ctx := context.Background()
	installation := e.Gate(e.ob, onboarding.KindInstallation).ID
	golive := e.Gate(e.ob, onboarding.KindGoLive).ID
	mgr := "/v1/onboardings/" + e.ob.ID + "/comments"
	h.Do("POST", mgr, e.Acme, map[string]any{"body": "internal", "visibility": "internal", "gate_id": installation}).Expect(t, 201, "")
	h.Do("POST", mgr, e.Platform, map[string]any{"body": "shared", "gate_id": installation}).Expect(t, 201, "")
	h.Do("POST", "/v1/onboarding-tasks/"+e.ob.ID+"/comments", e.epc, map[string]any{"body": "mine"}).Expect(t, 201, "")
	if _, err := e.Core.UpdateGate(ctx, onboardingtest.PlatformActor, e.ob.ID, installation, &e.ob.StartedOn); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Core.UpdateGate(ctx, onboardingtest.PlatformActor, e.ob.ID, golive, &e.ob.StartedOn); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Entries []struct {
			Action string `json:"action"`
			Actor  struct {
				Name string `json:"name"`
			} `json:"actor"`
			Target  struct{ Type, ID string } `json:"target"`
			Changes map[string][]any          `json:"changes"`
		} `json:"entries"`
		Total int `json:"total"`
	}
	h.Do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/activity", e.epc, nil).Expect(t, 200, "").JSON(t, &l)
	// The installation deadline, the epc's own comment, the shared comment; not the
	// go-live deadline, the internal comment or the workflow's creation.
	if l.Total != 3 || l.Entries[0].Action != "gate.updated" || l.Entries[0].Target.ID != installation ||
		l.Entries[0].Changes["deadline"][0] != nil || l.Entries[0].Actor.Name != "platform_onboarding" ||
		l.Entries[1].Action != "comment.created" || l.Entries[2].Action != "comment.created" {
		t.Fatalf("activity %+v", l)
	}
	h.Do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/activity?limit=1&offset=1", e.epc, nil).Expect(t, 200, "").JSON(t, &l)
	if l.Total != 3 || len(l.Entries) != 1 {
		t.Fatalf("paged %+v", l)
	}
	h.Do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/activity?limit=0", e.epc, nil).Expect(t, 422, "validation_failed")
	h.Do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/activity", e.other, nil).Expect(t, 404, "task_not_found")
	h.Do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/activity", e.Beta, nil).Expect(t, 404, "task_not_found")
	h.Do("GET", "/v1/onboarding-tasks/"+e.ob.ID+"/activity", e.None, nil).Expect(t, 403, "insufficient_scope")
}
