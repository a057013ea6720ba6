package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/testkit"
)

// driverOutage stands in for a backend's outage error; its text is what a
// driver says, with the details no caller may see.
type driverOutage struct{}

func (driverOutage) Error() string {
	return "failed to connect to `user=atcp_owner database=atcp_prod`: 10.0.4.17:5432: connect: connection refused"
}

func init() {
	errs.RegisterUnavailable(func(err error) bool { return errors.As(err, new(driverOutage)) })
}

const driverDetail = "atcp_owner"

// captureLogs sends the server's logs and the default logger to a buffer
// for the test.
func captureLogs(t *testing.T) (*testkit.LogBuffer, testkit.HarnessOption) {
	logs := &testkit.LogBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	prev := slog.Default()
	slog.SetDefault(logger)
	t.Cleanup(func() { slog.SetDefault(prev) })
	return logs, func(o *httpapi.Options) { o.Logger = logger }
}

func expectStoreUnavailable(t *testing.T, r *testkit.Response, logs *testkit.LogBuffer) {
	t.Helper()
	r.Expect(t, http.StatusServiceUnavailable, errs.CodeStoreUnavailable)
	if got := r.Header.Get("Retry-After"); got != "5" {
		t.Fatalf("Retry-After %q, want 5", got)
	}
	if strings.Contains(string(r.Body), driverDetail) || strings.Contains(string(r.Body), "5432") {
		t.Fatalf("driver text in the response: %s", r.Body)
	}
	id := r.Header.Get("X-Request-ID")
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "request_id="+id) && strings.Contains(line, driverDetail) {
			return
		}
	}
	t.Fatalf("the cause is not logged with request id %s:\n%s", id, logs)
}

func TestStoreUnavailableIs503(t *testing.T) {
	logs, withLogs := captureLogs(t)
	h := testkit.NewHarness(t, testkit.OpenSQLite(t), withLogs)
	type in struct {
		Kind string `query:"kind"`
	}
	httpapi.Register(h.Server, huma.Operation{OperationID: "outage", Method: http.MethodGet, Path: "/v1/outage"},
		httpapi.Scopes(auth.AssetRead), func(_ context.Context, in *in) (*struct{}, error) {
			switch in.Kind {
			case "wrapped":
				return nil, fmt.Errorf("list assets: %w", driverOutage{})
			case "domain":
				return nil, errs.E(errs.Unavailable, errs.CodeStoreUnavailable, "the database is unavailable")
			case "bug":
				return nil, errors.New("nil map")
			}
			return nil, driverOutage{}
		})
	h.Server.Mux.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, r, fmt.Errorf("plain: %w", driverOutage{}))
	})
	tok := h.TokenFor("acme", auth.AssetRead)

	expectStoreUnavailable(t, h.Do("GET", "/v1/outage", tok, nil), logs)
	expectStoreUnavailable(t, h.Do("GET", "/v1/outage?kind=wrapped", tok, nil), logs)
	expectStoreUnavailable(t, h.Do("GET", "/plain", "", nil), logs)
	r := h.Do("GET", "/v1/outage?kind=domain", tok, nil).Expect(t, http.StatusServiceUnavailable, errs.CodeStoreUnavailable)
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("a domain 503 without Retry-After")
	}
	r = h.Do("GET", "/v1/outage?kind=bug", tok, nil).Expect(t, http.StatusInternalServerError, "internal_error")
	if r.Header.Get("Retry-After") != "" {
		t.Fatal("a bug is not worth a retry")
	}

	doc := h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").Map(t)
	responses := doc["paths"].(map[string]any)["/v1/outage"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)
	if _, ok := responses["503"]; !ok {
		t.Fatalf("503 not documented: %v", responses)
	}
}

func TestReadyzNamesTheFailedCheckOnly(t *testing.T) {
	logs, withLogs := captureLogs(t)
	h := testkit.NewHarness(t, testkit.OpenSQLite(t), withLogs)
	var mu sync.Mutex
	var storeErr error
	h.Server.AddReadiness("store", func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		return storeErr
	})
	h.Server.AddReadiness("workers", func(context.Context) error { return nil })
	setStore := func(err error) {
		mu.Lock()
		storeErr = err
		mu.Unlock()
	}
	ready := func(status int, want string) {
		t.Helper()
		r := h.Do("GET", "/readyz", "", nil)
		if r.Status != status || strings.TrimSpace(string(r.Body)) != want {
			t.Fatalf("readyz: %s, want %d %s", r, status, want)
		}
	}
	count := func(msg string) int { return strings.Count(logs.String(), msg) }

	ready(200, `{"checks":{"store":"ok","workers":"ok"},"status":"ready"}`)
	setStore(driverOutage{})
	// A load balancer polling every second logs the failure once.
	for range 10 {
		ready(503, `{"checks":{"store":"failed","workers":"ok"},"status":"not ready"}`)
	}
	if n := count("readiness check failed"); n != 1 || !strings.Contains(logs.String(), driverDetail) {
		t.Fatalf("failure logged %d times, want once with its cause:\n%s", n, logs)
	}
	setStore(nil)
	ready(200, `{"checks":{"store":"ok","workers":"ok"},"status":"ready"}`)
	ready(200, `{"checks":{"store":"ok","workers":"ok"},"status":"ready"}`)
	if n := count("readiness check passes again"); n != 1 {
		t.Fatalf("recovery logged %d times, want once:\n%s", n, logs)
	}
	// A new failure is news again.
	setStore(driverOutage{})
	ready(503, `{"checks":{"store":"failed","workers":"ok"},"status":"not ready"}`)
	if n := count("readiness check failed"); n != 2 {
		t.Fatalf("second failure logged %d times in all, want 2:\n%s", n, logs)
	}
}
