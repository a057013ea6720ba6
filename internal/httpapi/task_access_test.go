package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/testkit"
)

type whoOutput struct {
	Body struct {
		Subject string `json:"subject"`
		Task    bool   `json:"task"`
		IP      string `json:"ip"`
	}
}

// registerAccesses adds one operation per kind of access, each answering
// who called it.
func registerAccesses(h *testkit.Harness) {
	who := func(ctx context.Context, _ *struct{}) (*whoOutput, error) {
		out := &whoOutput{}
		if p := httpapi.Principal(ctx); p != nil {
			out.Body.Subject, out.Body.Task = p.Subject, p.IsTaskSession()
		}
		out.Body.IP = httpapi.ClientIP(ctx)
		return out, nil
	}
	for path, access := range map[string]httpapi.Access{
		"/v1/scoped":  httpapi.Scopes(auth.AssetRead),
		"/v1/any":     httpapi.Authenticated,
		"/v1/task-or": httpapi.TaskOr(auth.OnboardingRead),
		"/v1/task":    httpapi.TaskSession,
		"/v1/public":  httpapi.Public,
	} {
		httpapi.Register(h.Server, huma.Operation{OperationID: strings.TrimPrefix(path, "/v1/"), Method: http.MethodGet, Path: path}, access, who)
	}
}

func taskToken(h *testkit.Harness) string {
	return h.Token(auth.Principal{OrganizationID: "acme", ClientID: "atcp-console",
		Task: &auth.TaskGrant{OnboardingID: "ob-1", ContactID: "c-1", Role: "epc", SessionID: "s-1"}})
}

// TestTaskSessionAccess: a magic-link session reaches only TaskOr and
// TaskSession operations (403 magic_link_session_not_allowed elsewhere,
// also on operations without scopes); TaskOr admits other callers by
// scope; TaskSession refuses them; Public needs no token.
func TestTaskSessionAccess(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	registerAccesses(h)
	task := taskToken(h)
	reader := h.TokenFor("acme", auth.AssetRead, auth.OnboardingRead)
	bare := h.TokenFor("acme")

	h.Do("GET", "/v1/scoped", task, nil).Expect(t, 403, "magic_link_session_not_allowed")
	h.Do("GET", "/v1/any", task, nil).Expect(t, 403, "magic_link_session_not_allowed")
	var who whoOutput
	h.Do("GET", "/v1/task-or", task, nil).Expect(t, 200, "").JSON(t, &who.Body)
	if !who.Body.Task || who.Body.Subject != "onbc:c-1" {
		t.Fatalf("task-or as task: %+v", who.Body)
	}
	h.Do("GET", "/v1/task", task, nil).Expect(t, 200, "")
	h.Do("GET", "/v1/public", task, nil).Expect(t, 200, "")

	h.Do("GET", "/v1/scoped", reader, nil).Expect(t, 200, "")
	h.Do("GET", "/v1/any", bare, nil).Expect(t, 200, "")
	h.Do("GET", "/v1/task-or", reader, nil).Expect(t, 200, "")
	h.Do("GET", "/v1/task-or", bare, nil).Expect(t, 403, "insufficient_scope")
	h.Do("GET", "/v1/task-or", "", nil).Expect(t, 401, "invalid_token")
	h.Do("GET", "/v1/task", reader, nil).Expect(t, 403, "magic_link_session_required")
	h.Do("GET", "/v1/task", "", nil).Expect(t, 401, "invalid_token")

	h.Do("GET", "/v1/public", "", nil).Expect(t, 200, "").JSON(t, &who.Body)
	if who.Body.Subject != "" || who.Body.IP != "127.0.0.1" {
		t.Fatalf("public: %+v", who.Body)
	}
}

// TestTaskAccessInOpenAPI: the access of each kind is written into the
// document: public operations have an empty security requirement and no
// 401/403; the others list 403 and say what a magic-link session gets.
func TestTaskAccessInOpenAPI(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	registerAccesses(h)
	var doc struct {
		Paths map[string]map[string]struct {
			Description string                     `json:"description"`
			Security    []map[string][]string      `json:"security"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").JSON(t, &doc)
	op := func(path string) (string, []map[string][]string, map[string]json.RawMessage) {
		o := doc.Paths[path]["get"]
		return o.Description, o.Security, o.Responses
	}
	desc, sec, resp := op("/v1/public")
	if sec == nil || len(sec) != 0 || resp["401"] != nil || resp["403"] != nil || desc != "" {
		t.Errorf("public: %q %v %v", desc, sec, resp)
	}
	for _, path := range []string{"/v1/scoped", "/v1/any"} {
		desc, _, resp := op(path)
		if !strings.Contains(desc, "403 magic_link_session_not_allowed") || resp["403"] == nil {
			t.Errorf("%s: %q", path, desc)
		}
	}
	if desc, _, _ := op("/v1/task-or"); !strings.Contains(desc, "onboarding.read") || !strings.Contains(desc, "magic-link session") ||
		strings.Contains(desc, "magic_link_session_not_allowed") {
		t.Errorf("task-or: %q", desc)
	}
	if desc, _, _ := op("/v1/task"); !strings.Contains(desc, "magic_link_session_required") {
		t.Errorf("task: %q", desc)
	}
}
