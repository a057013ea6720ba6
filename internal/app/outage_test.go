package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/app"
	"atcp/internal/testkit"
	"atcp/internal/testkit/tcpproxy"
)

// TestDatabaseOutage serves a PostgreSQL-backed server through a TCP proxy
// and takes the database away under load: first refused (the server
// stopped), then unanswered (the network lost it). Every API request
// answers 503 store_unavailable with Retry-After and no driver text, within
// the connect timeout, and /readyz names the failed check only. When the
// database is back, the same server serves again without a restart. Like
// testkit.ForEachBackend, it runs when ATCP_TEST_DATABASE_URL is set.
func TestDatabaseOutage(t *testing.T) {
	if testkit.PostgresURL() == "" {
		return
	}
	schemaURL := testkit.PostgresSchemaURL(t)
	u, err := url.Parse(schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := tcpproxy.New(t, u.Host)
	dbURL := proxy.URL(schemaURL) + "&connect_timeout=1"
	cfg := testConfig(t, dbURL, t.TempDir())
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, a)
	token := fetchToken(t, base)
	// What no caller may learn from an error: the driver, the database's
	// user, name and address.
	secrets := []string{"postgres", "pgx", "pgconn", "user=", "database=", u.Host, proxy.Addr(), u.Query().Get("search_path")}

	client := &http.Client{Timeout: 30 * time.Second}
	type result struct {
		status     int
		header     http.Header
		body       string
		took       time.Duration
		method, to string
	}
	send := func(method, path, body string) result {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return result{resp.StatusCode, resp.Header, string(b), time.Since(start), method, path}
	}
	assetBody := func(id string) string {
		return fmt.Sprintf(`{"asset_id":%q,"asset_name":"Outage test","asset_type":"standalone","location":"Leipzig",
			"organisation_id":"demo","usable_power_capacity_mw":10}`, id)
	}
	// The requests of the load: reads of one asset and of the list, writes.
	var seq int
	load := func() []result {
		var out []result
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 4 {
			seq++
			id := fmt.Sprintf("outage-%d", seq)
			wg.Go(func() {
				rs := []result{
					send(http.MethodGet, "/v1/assets/demo-bess", ""),
					send(http.MethodGet, "/v1/assets", ""),
					send(http.MethodPost, "/v1/assets", assetBody(id)),
				}
				mu.Lock()
				out = append(out, rs...)
				mu.Unlock()
			})
		}
		wg.Wait()
		return out
	}
	readyz := func() (int, map[string]any) {
		r := send(http.MethodGet, "/readyz", "")
		for _, s := range secrets {
			if strings.Contains(r.body, s) {
				t.Fatalf("/readyz reveals %q: %s", s, r.body)
			}
		}
		var body struct {
			Status string         `json:"status"`
			Checks map[string]any `json:"checks"`
		}
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatalf("/readyz: %v: %s", err, r.body)
		}
		return r.status, body.Checks
	}
	expectUnavailable := func(phase string, within time.Duration) {
		t.Helper()
		// Until the asset cache's listener notices, cached reads are served
		// as ever; once it has, every read goes to the database.
		for wait := time.Now().Add(2 * time.Second); a.Assets.CachingReads(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(wait) {
				t.Fatalf("%s: the asset cache does not notice", phase)
			}
		}
		deadline := time.Now().Add(3 * time.Second)
		for n := 0; n == 0 || time.Now().Before(deadline); n++ {
			for _, r := range load() {
				if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, `"code":"store_unavailable"`) {
					t.Fatalf("%s: %s %s: %d %s", phase, r.method, r.to, r.status, r.body)
				}
				if r.header.Get("Retry-After") == "" {
					t.Fatalf("%s: %s %s: 503 without Retry-After", phase, r.method, r.to)
				}
				for _, s := range secrets {
					if strings.Contains(r.body, s) {
						t.Fatalf("%s: %s %s reveals %q: %s", phase, r.method, r.to, s, r.body)
					}
				}
				if r.took > within {
					t.Fatalf("%s: %s %s took %v, want within %v", phase, r.method, r.to, r.took, within)
				}
			}
		}
		status, checks := readyz()
		if status != http.StatusServiceUnavailable || checks["store"] != "failed" || checks["workers"] != "ok" {
			t.Fatalf("%s: /readyz %d %v", phase, status, checks)
		}
	}
	expectServing := func(phase string) {
		t.Helper()
		// The pool reconnects on the next request; the asset cache's
		// listener within a second.
		deadline := time.Now().Add(10 * time.Second)
		for {
			failed := ""
			for _, r := range load() {
				if r.status/100 != 2 {
					failed = fmt.Sprintf("%s %s: %d %s", r.method, r.to, r.status, r.body)
				}
			}
			if failed == "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not serving again: %s", phase, failed)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if status, checks := readyz(); status != http.StatusOK || checks["store"] != "ok" {
			t.Fatalf("%s: /readyz %d %v", phase, status, checks)
		}
	}

	expectServing("before")
	proxy.Cut()
	expectUnavailable("refused", time.Second)
	proxy.Restore()
	expectServing("after the refusal")
	proxy.Blackhole()
	expectUnavailable("unanswered", 3*time.Second)
	proxy.Restore()
	expectServing("after the silence")
	fetchToken(t, base)
}
