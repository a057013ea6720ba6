package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"atcp/internal/app"
	"atcp/internal/config"
	"atcp/internal/testkit"
)

const (
	bootstrapClient = "bench-admin"
	bootstrapSecret = "bench-secret-0123456789abcdef"
)

func testConfig(tb testing.TB, databaseURL, dataDir string) config.Config {
	cfg, err := config.Parse("serve", []string{"--addr", "127.0.0.1:0", "--rate-limit", "0", "--shutdown-timeout", "5s"},
		func(string) (string, bool) { return "", false }, io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.DatabaseURL, cfg.DataDir = databaseURL, dataDir
	return cfg
}

// serve runs a with cancellation at cleanup and returns its base URL.
func serve(tb testing.TB, a *app.App) string {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("run: %v", err)
		}
	})
	return a.BaseURL()
}

// startApp serves a demo-mode app with a known bootstrap integration.
func startApp(tb testing.TB, databaseURL string) string {
	cfg := testConfig(tb, databaseURL, tb.TempDir())
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	return serve(tb, a)
}

func freshPostgresSchema(tb testing.TB) string { return testkit.PostgresSchemaURL(tb) }

// databases lists the stores the whole-server tests run on.
func databases(t *testing.T) map[string]func(t *testing.T) string {
	m := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "atcp.db") },
	}
	if testkit.PostgresURL() != "" {
		m["postgres"] = func(t *testing.T) string { return testkit.PostgresSchemaURL(t) }
	}
	return m
}

// TestQuickStart follows the README: a first start in demo mode prints
// generated credentials, and the printed curl example works.
func TestQuickStart(t *testing.T) {
	for name, dbURL := range databases(t) {
		t.Run(name, func(t *testing.T) {
			dataDir := t.TempDir()
			cfg := testConfig(t, dbURL(t), dataDir)
			a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			base := serve(t, a)

			path := filepath.Join(dataDir, "bootstrap-credentials.txt")
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Fatalf("credentials file mode %v", fi.Mode().Perm())
			}
			text, _ := os.ReadFile(path)
			id := regexp.MustCompile(`client_id=(\S+)`).FindSubmatch(text)
			secret := regexp.MustCompile(`client_secret=(\S+)`).FindSubmatch(text)
			if id == nil || secret == nil || !strings.Contains(string(text), base+"/oauth2/token") {
				t.Fatalf("credentials text lacks the example: %s", text)
			}

			// curl -u id:secret -d grant_type=client_credentials .../oauth2/token
			req, _ := http.NewRequest(http.MethodPost, base+"/oauth2/token", strings.NewReader("grant_type=client_credentials"))
			req.SetBasicAuth(string(id[1]), string(secret[1]))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			var tok struct {
				AccessToken string `json:"access_token"`
				ExpiresIn   int    `json:"expires_in"`
			}
			getJSON(t, req, http.StatusOK, &tok)
			if tok.AccessToken == "" || tok.ExpiresIn != 3600 {
				t.Fatalf("token response %+v", tok)
			}

			req, _ = http.NewRequest(http.MethodGet, base+"/v1/assets", nil)
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			var list struct {
				Assets []map[string]any `json:"assets"`
			}
			getJSON(t, req, http.StatusOK, &list)
			var demo map[string]any
			for _, asset := range list.Assets {
				if asset["asset_id"] == "demo-bess" {
					demo = asset
				}
			}
			want := map[string]any{
				"organisation_id": "demo", "usable_power_capacity_mw": 10.0, "usable_energy_capacity_mwh": 20.0,
				"afrr_prequalified_capacity_neg_mw": 10.0, "afrr_prequalified_capacity_pos_mw": 0.0,
				"fcr_prequalified_capacity_mw": 0.0, "afrr_enabled": true, "control_enabled": true, "asset_type": "standalone",
			}
			for k, v := range want {
				if demo == nil || demo[k] != v {
					t.Fatalf("demo-bess %s = %v, want %v (asset %v)", k, demo[k], v, demo)
				}
			}
		})
	}
}

func getJSON(t *testing.T, req *http.Request, status int, v any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, body)
	}
	if v == nil {
		return
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// TestRestartContinues: a second start on the same data keeps the
// credentials (not regenerated), the signing key (old tokens stay valid)
// and the clock's timeline.
func TestRestartContinues(t *testing.T) {
	dataDir := t.TempDir()
	dbURL := "sqlite://" + filepath.Join(dataDir, "atcp.db")
	cfg := testConfig(t, dbURL, dataDir)
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	cfg.ClockSpeed = 3600
	cfg.BaseURL = "http://atcp.test" // the issuer must not change with the free port

	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	firstNow := a.Clock.Now()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	tok := fetchToken(t, "http://"+a.Addr())
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	b, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Clock.Now().After(firstNow) {
		t.Fatalf("clock went back on restart: %v then %v", firstNow, b.Clock.Now())
	}
	if b.Clock.Now().Sub(app.DemoStart) > 24*time.Hour {
		t.Fatalf("clock ran away: %v", b.Clock.Now())
	}
	serve(t, b)
	req, _ := http.NewRequest(http.MethodGet, "http://"+b.Addr()+"/v1/assets/demo-bess", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	var asset map[string]any
	getJSON(t, req, http.StatusOK, &asset)
}

func fetchToken(t *testing.T, base string) string {
	t.Helper()
	return clientToken(t, base, bootstrapClient, bootstrapSecret)
}

// TestEveryOperationDeclaresItsAccess: every operation of the OpenAPI
// document has a security requirement (public endpoints an empty one).
func TestEveryOperationDeclaresItsAccess(t *testing.T) {
	base := startApp(t, "sqlite::memory:")
	req, _ := http.NewRequest(http.MethodGet, base+"/openapi.json", nil)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string           `json:"operationId"`
			Security    []map[string]any `json:"security"`
		} `json:"paths"`
	}
	getJSON(t, req, http.StatusOK, &doc)
	if len(doc.Paths) < 15 {
		t.Fatalf("only %d paths documented", len(doc.Paths))
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.Security == nil {
				t.Errorf("%s %s (%s) declares no security", strings.ToUpper(method), path, op.OperationID)
			}
		}
	}
}

// TestSimulatedMarketClearsOnTheRunningServer: on a fast clock the
// server's own workers forward an FCR bid at the recommended deadline and
// clear it after the gate at the replayed price.
func TestSimulatedMarketClearsOnTheRunningServer(t *testing.T) {
	cfg := testConfig(t, "sqlite::memory:", t.TempDir())
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	start := time.Date(2026, 2, 1, 6, 20, 0, 0, time.UTC) // 07:20 CET, before the 07:30 deadline
	cfg.ClockStart, cfg.ClockSpeed = &start, 600
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, a)
	do := func(method, path, body string, status int, v any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+fetchToken(t, base))
		req.Header.Set("Content-Type", "application/json")
		getJSON(t, req, status, v)
	}
	var asset map[string]any
	do(http.MethodPost, "/v1/assets", `{"asset_id":"fcr-1","asset_name":"FCR one","asset_type":"standalone","location":"Leipzig",
		"organisation_id":"demo","usable_power_capacity_mw":10,"fcr_prequalified_capacity_mw":5,"fcr_enabled":true}`, http.StatusCreated, &asset)
	var created map[string]any
	do(http.MethodPost, "/v1/assets/fcr-1/markets/fcr/bids", `{"bids":[{"start_time":"2026-02-01T23:00:00Z",
		"end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":"40.00","offered_power_mw":5}]}`, http.StatusCreated, &created)

	deadline := time.Now().Add(20 * time.Second)
	for {
		var list struct {
			Bids []struct {
				Status string `json:"status"`
			} `json:"bids"`
		}
		do(http.MethodGet, "/v1/assets/fcr-1/markets/fcr/bids", "", http.StatusOK, &list)
		if len(list.Bids) == 1 && list.Bids[0].Status == "SUCCESSFUL" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("bid not cleared by %v: %+v", a.Clock.Now(), list)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestScheduleExecutesOnTheRunningServer: a wholesale schedule uploaded
// through the API is executed by the control loop on a fast clock, a
// target beyond a power limit is clipped, the outcomes appear in the
// schedule dispatch report and the battery's power in its state history.
func TestScheduleExecutesOnTheRunningServer(t *testing.T) {
	cfg := testConfig(t, "sqlite::memory:", t.TempDir())
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	// The first target's gate is 06:24: an hour of platform time (6 s) leaves
	// the set-up time to spare on a loaded machine.
	start := time.Date(2026, 2, 1, 5, 25, 0, 0, time.UTC)
	cfg.ClockStart, cfg.ClockSpeed = &start, 600
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, a)
	// One token for the whole run: it lives 3600 real seconds, however fast
	// the platform clock goes.
	token := fetchToken(t, base)
	do := func(method, path, body string, status int, v any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		getJSON(t, req, status, v)
	}
	// Discharge 3 MW from 06:30, charge 4 MW from 06:45 under a limit of
	// 2 MW charging, stop at 07:00.
	do(http.MethodPost, "/v1/assets/demo-bess/power_limits", `{"start_time":"2026-02-01T06:45:00Z","end_time":"2026-02-01T07:00:00Z",
		"lower_limit_mw":-2,"reason":"grid_event"}`, http.StatusCreated, nil)
	do(http.MethodPut, "/v1/assets/demo-bess/dispatch/scheduled", `{"schedules":[
		{"delivery_time":"2026-02-01T06:30:00Z","bess_power_mw":3},
		{"delivery_time":"2026-02-01T06:45:00Z","bess_power_mw":-4},
		{"delivery_time":"2026-02-01T07:00:00Z","bess_power_mw":0}]}`, http.StatusOK, nil)

	type entry struct {
		SetTime   time.Time `json:"set_time_utc"`
		Status    string    `json:"status"`
		Effective float64   `json:"effective_set_power_mw"`
	}
	var report struct {
		Dispatches []entry `json:"dispatches"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(report.Dispatches) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no outcomes by %v: %+v", a.Clock.Now(), report)
		}
		time.Sleep(200 * time.Millisecond)
		do(http.MethodGet, "/v1/assets/demo-bess/reports/schedule/dispatches?start_time=2026-02-01T06:30:00Z&end_time=2026-02-01T07:00:00Z",
			"", http.StatusOK, &report)
	}
	if r := report.Dispatches[0]; r.Status != "full" || r.Effective != 3 {
		t.Fatalf("06:30 target: %+v", r)
	}
	if r := report.Dispatches[1]; r.Status != "clipped" || r.Effective != -2 {
		t.Fatalf("06:45 target: %+v", r)
	}
	// The history is flushed at most 15 s of platform time behind live.
	for a.Clock.Now().Before(time.Date(2026, 2, 1, 6, 50, 0, 0, time.UTC)) {
		time.Sleep(100 * time.Millisecond)
	}
	var history map[string][]struct {
		Value float64 `json:"value"`
	}
	do(http.MethodGet, "/v1/assets/demo-bess/state/history?start_time=2026-02-01T06:40:00Z&end_time=2026-02-01T06:45:00Z&point_names=battery_power_actual_ac",
		"", http.StatusOK, &history)
	if p := history["battery_power_actual_ac"]; len(p) != 300 || p[len(p)-1].Value != 3 {
		t.Fatalf("power before 06:45: %d points, %+v", len(p), p[len(p)-3:])
	}
	do(http.MethodGet, "/v1/assets/demo-bess/state/history?start_time=2026-02-01T06:46:00Z&end_time=2026-02-01T06:47:00Z&point_names=battery_power_actual_ac",
		"", http.StatusOK, &history)
	if p := history["battery_power_actual_ac"]; len(p) != 60 || p[0].Value != -2 {
		t.Fatalf("power under the limit: %+v", p)
	}
}

// TestBootstrapClientChanges: a server restarted on the same database with
// another bootstrap client id (rotated credentials, or a second deployment)
// starts, and both clients get tokens until the old one is deleted.
func TestBootstrapClientChanges(t *testing.T) {
	for name, open := range databases(t) {
		t.Run(name, func(t *testing.T) {
			dbURL := open(t)
			tokenOf := func(base, id, secret string) int {
				form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
				resp, err := http.PostForm(base+"/oauth2/token", form)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			for i, id := range []string{"bootstrap-a", "bootstrap-b", "bootstrap-a"} {
				cfg := testConfig(t, dbURL, t.TempDir())
				cfg.Demo = false
				cfg.BootstrapClientID, cfg.BootstrapClientSecret = id, bootstrapSecret
				a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
				if err != nil {
					t.Fatalf("start %d with %s: %v", i+1, id, err)
				}
				base := serve(t, a)
				for _, known := range []string{"bootstrap-a", "bootstrap-b"}[:min(i+1, 2)] {
					if st := tokenOf(base, known, bootstrapSecret); st != http.StatusOK {
						t.Fatalf("start %d: token for %s: %d", i+1, known, st)
					}
				}
			}
		})
	}
}
