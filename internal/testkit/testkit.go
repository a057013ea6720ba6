// Package testkit is the shared test harness: it opens every store backend
// a test should run on (a SQLite file and in-memory SQLite always,
// PostgreSQL in a fresh schema when ATCP_TEST_DATABASE_URL is set) and
// serves an httpapi.Server on a manual clock with helpers to mint tokens
// and send requests.
package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
	"atcp/internal/store"
)

// Start is the instant the harness clock starts at: the demonstration
// bidding day, 07:00 Europe/Berlin.
var Start = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)

// SecurityStart is the instant the harness's security clock starts at, a
// stand-in for the machine's time. It is months away from Start, so that a
// security instant taken from the platform clock (or the other way round)
// shows in a test.
var SecurityStart = time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)

// PostgresURL is the server the PostgreSQL half of the suites runs against.
func PostgresURL() string { return os.Getenv("ATCP_TEST_DATABASE_URL") }

// OpenSQLite opens a migrated in-memory SQLite store closed at cleanup, as
// a server started with ATCP_DATABASE_URL=sqlite::memory: opens it.
func OpenSQLite(t testing.TB) store.Backend {
	t.Helper()
	return openMigrated(t, "sqlite::memory:", "")
}

// OpenSQLiteFile opens a migrated SQLite store in a file of a temporary
// data directory, closed at cleanup, as a server started without
// ATCP_DATABASE_URL opens it: WAL mode, readers beside the writer.
func OpenSQLiteFile(t testing.TB) store.Backend {
	t.Helper()
	return openMigrated(t, "", t.TempDir())
}

func openMigrated(t testing.TB, databaseURL, dataDir string) store.Backend {
	t.Helper()
	b, err := store.Open(context.Background(), databaseURL, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b
}

// PostgresSchemaURL creates a new schema in the test database, dropped at
// cleanup, and returns a database URL whose connections use it, so that
// runs never see each other's rows.
func PostgresSchemaURL(t testing.TB) string {
	t.Helper()
	base := PostgresURL()
	if base == "" {
		t.Fatal("ATCP_TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	schema := "atcp_test_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the cleanups of whatever uses the schema.
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close(context.Background())
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// OpenPostgres opens a migrated store in a fresh schema of the test
// database (see PostgresSchemaURL).
func OpenPostgres(t testing.TB) store.Backend {
	t.Helper()
	ctx := context.Background()
	b, err := store.Open(ctx, PostgresSchemaURL(t), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return b
}

// OpenPostgresInstances opens n migrated stores on one fresh schema of the
// test database, as n instances of atcp sharing one PostgreSQL would.
func OpenPostgresInstances(t testing.TB, n int) []store.Backend {
	t.Helper()
	ctx := context.Background()
	url := PostgresSchemaURL(t)
	out := make([]store.Backend, n)
	for i := range out {
		b, err := store.Open(ctx, url, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		if err := b.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// ForEachBackend runs f as a subtest on every way a server can open its
// store: a SQLite file (the default) and sqlite::memory: always, which
// lock differently (WAL file: readers never wait for the writer; memory:
// they wait for its transaction to end), and postgres when
// ATCP_TEST_DATABASE_URL is set.
func ForEachBackend(t *testing.T, f func(t *testing.T, b store.Backend)) {
	t.Run("sqlite-file", func(t *testing.T) { f(t, OpenSQLiteFile(t)) })
	t.Run("sqlite-memory", func(t *testing.T) { f(t, OpenSQLite(t)) })
	if PostgresURL() != "" {
		t.Run("postgres", func(t *testing.T) { f(t, OpenPostgres(t)) })
	}
}

// Harness is an API server on one backend with manual clocks.
type Harness struct {
	T       testing.TB
	Backend store.Backend
	// Clock is the platform clock; Security the security clock that the
	// tokens (and the identity services a test builds on it) run on.
	Clock    *clock.Manual
	Security *clock.Manual
	Tokens   *auth.Tokens
	Server   *httpapi.Server
	HTTP     *httptest.Server
	URL      string
}

// HarnessOption adjusts the server options before the server is built.
type HarnessOption func(*httpapi.Options)

// WithRateLimit enables rate limiting at perSecond (off by default in
// tests).
func WithRateLimit(perSecond float64) HarnessOption {
	return func(o *httpapi.Options) { o.RateLimit = perSecond }
}

// WithCredentialCheck makes the server check on every request that the
// token's subject and credential are still in force, with the real check
// on b following b's change feed until the test ends. It is off by
// default because TokenFor mints tokens for made-up callers; with it, mint
// tokens with Token for callers that exist, or get them from the token
// endpoint.
func WithCredentialCheck(t testing.TB, b store.Backend) HarnessOption {
	t.Helper()
	check := identity.NewCredentialCheck(b.Credentials())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		check.Watch(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for deadline := time.Now().Add(5 * time.Second); !check.Caching(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the credential feed did not connect")
		}
	}
	return func(o *httpapi.Options) { o.Credentials = check }
}

// NewHarness serves an empty httpapi.Server on b; register the
// operations under test on h.Server before sending requests.
func NewHarness(t testing.TB, b store.Backend, opts ...HarnessOption) *Harness {
	t.Helper()
	h := &Harness{T: t, Backend: b, Clock: clock.NewManual(Start), Security: clock.NewManual(SecurityStart)}
	srv := httptest.NewUnstartedServer(nil)
	h.URL = "http://" + srv.Listener.Addr().String()
	tokens, err := auth.NewTokens(context.Background(), b, h.URL, h.Security)
	if err != nil {
		t.Fatal(err)
	}
	o := httpapi.Options{Version: "test", BaseURL: h.URL, Tokens: tokens, Logger: quietLogger()}
	for _, opt := range opts {
		opt(&o)
	}
	h.Tokens = tokens
	h.Server = httpapi.New(o)
	srv.Config.Handler = h.Server
	srv.Start()
	t.Cleanup(srv.Close)
	h.HTTP = srv
	return h
}

// Token mints an access token for p, as the token endpoint would.
func (h *Harness) Token(p auth.Principal) string {
	h.T.Helper()
	tok, _, err := h.Tokens.IssueAccess(p)
	if err != nil {
		h.T.Fatal(err)
	}
	return tok
}

// TokenFor mints a token for a machine caller of org holding scopes.
func (h *Harness) TokenFor(org string, scopes ...auth.Scope) string {
	return h.Token(auth.Principal{Subject: "test-" + org, OrganizationID: org, Scopes: auth.NewScopeSet(scopes...), IsM2M: true, ClientID: "test-" + org})
}

// AdminToken mints a platform-administrator token holding every scope.
func (h *Harness) AdminToken() string {
	return h.TokenFor(auth.PlatformOrganization, auth.AllScopes...)
}

// Response is what a request got back.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it cannot.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map decodes the body as a JSON object.
func (r *Response) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Do sends a request with an optional bearer token and JSON body (a string
// or []byte is sent as is; anything else is encoded), and headers given as
// name, value pairs.
func (h *Harness) Do(method, path, token string, body any, headers ...string) *Response {
	h.T.Helper()
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = strings.NewReader(b)
	case []byte:
		rdr = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			h.T.Fatal(err)
		}
		rdr = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, h.URL+path, rdr)
	if err != nil {
		h.T.Fatal(err)
	}
	if rdr != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return h.Send(req)
}

// Send sends a prepared request.
func (h *Harness) Send(req *http.Request) *Response {
	h.T.Helper()
	resp, err := h.HTTP.Client().Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.T.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// Expect fails the test unless the response has status; for problems it
// also checks the content type and, when code is not empty, the code.
func (r *Response) Expect(t testing.TB, status int, code errs.Code) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if status >= 400 {
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Fatalf("content type %q, want application/problem+json: %s", ct, r.Body)
		}
		var p struct {
			Code   errs.Code `json:"code"`
			Status int       `json:"status"`
		}
		r.JSON(t, &p)
		if p.Status != status {
			t.Fatalf("problem status %d, want %d", p.Status, status)
		}
		if code != "" && p.Code != code {
			t.Fatalf("problem code %q, want %q: %s", p.Code, code, r.Body)
		}
	}
	return r
}

// String is the body as text, for failure messages.
func (r *Response) String() string { return fmt.Sprintf("%d %s", r.Status, r.Body) }
