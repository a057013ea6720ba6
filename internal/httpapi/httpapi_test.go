package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/testkit"
)

type echoInput struct {
	Body struct {
		Name  string `json:"name" minLength:"1" maxLength:"10"`
		Count int    `json:"count,omitempty" minimum:"0"`
	}
}

type echoOutput struct {
	Body struct {
		Name string `json:"name"`
	}
}

func register(h *testkit.Harness) {
	httpapi.Register(h.Server, huma.Operation{OperationID: "echo", Method: http.MethodPost, Path: "/v1/echo"},
		httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *echoInput) (*echoOutput, error) {
			switch in.Body.Name {
			case "conflict":
				return nil, errs.Conflictf("already_there", "it exists")
			case "bug":
				return nil, context.DeadlineExceeded
			case "panic":
				panic("boom")
			}
			out := &echoOutput{}
			out.Body.Name = in.Body.Name
			return out, nil
		})
}

func TestErrorsAndAuth(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	register(h)
	write := h.TokenFor("acme", auth.AssetWrite)
	read := h.TokenFor("acme", auth.AssetRead)

	h.Do("POST", "/v1/echo", write, map[string]any{"name": "ok"}).Expect(t, 200, "")
	r := h.Do("POST", "/v1/echo", "", map[string]any{"name": "ok"}).Expect(t, 401, "invalid_token")
	if !strings.Contains(r.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("401 without WWW-Authenticate: %v", r.Header)
	}
	h.Do("POST", "/v1/echo", "garbage", map[string]any{"name": "ok"}).Expect(t, 401, "invalid_token")
	h.Do("POST", "/v1/echo", read, map[string]any{"name": "ok"}).Expect(t, 403, "insufficient_scope")
	h.Do("POST", "/v1/echo", write, `{"name":`).Expect(t, 400, "")
	h.Do("POST", "/v1/echo", write, `[1,2]`).Expect(t, 422, "validation_failed")
	p := h.Do("POST", "/v1/echo", write, map[string]any{"name": "", "count": -1}).Expect(t, 422, "validation_failed").Map(t)
	if errsList, _ := p["errors"].([]any); len(errsList) != 2 {
		t.Fatalf("want both fields named: %v", p)
	}
	p = h.Do("POST", "/v1/echo", write, map[string]any{}).Expect(t, 422, "validation_failed").Map(t)
	if loc := p["errors"].([]any)[0].(map[string]any)["location"]; loc != "body.name" {
		t.Fatalf("missing field reported at %v", loc)
	}
	h.Do("POST", "/v1/echo", write, map[string]any{"name": "conflict"}).Expect(t, 409, "already_there")
	r = h.Do("POST", "/v1/echo", write, map[string]any{"name": "bug"}).Expect(t, 500, "internal_error")
	if strings.Contains(string(r.Body), "deadline") {
		t.Fatalf("internal error text leaked: %s", r.Body)
	}
	h.Do("POST", "/v1/echo", write, map[string]any{"name": "panic"}).Expect(t, 500, "internal_error")
	h.Do("GET", "/v1/nothing", write, nil).Expect(t, 404, "not_found")
	if r.Header.Get("X-Request-ID") == "" {
		t.Fatal("no request id")
	}
}

// TestTokenExpiresWithSecurityClock: a token lives an hour of security
// time, however far the platform clock moves.
func TestTokenExpiresWithSecurityClock(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	register(h)
	tok := h.TokenFor("acme", auth.AssetWrite)
	h.Clock.Advance(24 * time.Hour)
	h.Security.Advance(59 * time.Minute)
	h.Do("POST", "/v1/echo", tok, map[string]any{"name": "ok"}).Expect(t, 200, "")
	h.Security.Advance(time.Minute)
	h.Do("POST", "/v1/echo", tok, map[string]any{"name": "ok"}).Expect(t, 401, "invalid_token")
}

func TestRateLimit(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t), testkit.WithRateLimit(5))
	register(h)
	tok := h.TokenFor("acme", auth.AssetWrite)
	var last *testkit.Response
	for i := 0; i < 11; i++ {
		last = h.Do("POST", "/v1/echo", tok, map[string]any{"name": "ok"})
		if last.Header.Get("RateLimit") == "" || last.Header.Get("RateLimit-Policy") == "" {
			t.Fatalf("missing RateLimit headers: %v", last.Header)
		}
	}
	last.Expect(t, 429, "rate_limited")
	if last.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	// Another caller has a bucket of its own.
	h.Do("POST", "/v1/echo", h.TokenFor("other", auth.AssetWrite), map[string]any{"name": "ok"}).Expect(t, 200, "")
}

func TestHealthAndOpenAPI(t *testing.T) {
	h := testkit.NewHarness(t, testkit.OpenSQLite(t))
	register(h)
	h.Do("GET", "/healthz", "", nil).Expect(t, 200, "")
	h.Do("GET", "/readyz", "", nil).Expect(t, 200, "")
	m := h.Do("GET", "/metrics", "", nil).Expect(t, 200, "")
	if !strings.Contains(string(m.Body), "atcp_http_requests_total") {
		t.Fatal("metrics lack request counter")
	}
	doc := h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").Map(t)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi %v", doc["openapi"])
	}
	op := doc["paths"].(map[string]any)["/v1/echo"].(map[string]any)["post"].(map[string]any)
	sec := op["security"].([]any)[0].(map[string]any)["oauth2"].([]any)
	if len(sec) != 1 || sec[0] != "asset.write" {
		t.Fatalf("security %v", op["security"])
	}
}

// fakeCredentials answers InForce by subject: in force, refused, or an
// error.
type fakeCredentials map[string]error

var errRefused = errors.New("refused")

func (f fakeCredentials) InForce(_ context.Context, p *auth.Principal) (bool, error) {
	switch err := f[p.Subject]; err {
	case nil:
		return true, nil
	case errRefused:
		return false, nil
	default:
		return false, err
	}
}

func TestCredentialCheck(t *testing.T) {
	check := fakeCredentials{
		"test-revoked": errRefused,
		"test-down":    errs.E(errs.Unavailable, errs.CodeStoreUnavailable, "connection refused"),
		"test-broken":  errors.New("driver: bad connection"),
	}
	h := testkit.NewHarness(t, testkit.OpenSQLite(t), func(o *httpapi.Options) { o.Credentials = check })
	register(h)
	h.Do("POST", "/v1/echo", h.TokenFor("acme", auth.AssetWrite), map[string]any{"name": "ok"}).Expect(t, 200, "")
	r := h.Do("POST", "/v1/echo", h.TokenFor("revoked", auth.AssetWrite), map[string]any{"name": "ok"}).Expect(t, 401, "invalid_token")
	if !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("401 without WWW-Authenticate: %v", r.Header)
	}
	// A store that cannot answer is neither a bad token nor a bug: 503,
	// whatever the error looks like.
	for _, who := range []string{"down", "broken"} {
		r := h.Do("POST", "/v1/echo", h.TokenFor(who, auth.AssetWrite), map[string]any{"name": "ok"}).Expect(t, 503, errs.CodeStoreUnavailable)
		if r.Header.Get("Retry-After") != "5" || strings.Contains(string(r.Body), "connection") {
			t.Fatalf("%s: %v %s", who, r.Header, r.Body)
		}
	}
	// Endpoints that need no token are not held up by it.
	h.Do("GET", "/healthz", h.TokenFor("down", auth.AssetWrite), nil).Expect(t, 200, "")
}
