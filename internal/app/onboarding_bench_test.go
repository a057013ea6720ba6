package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"atcp/internal/app"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/magic"
	"atcp/internal/testkit"
)

// The task detail read by a contact's magic-link session, the page an EPC
// or EMS provider reloads while working: the session check of every
// request (one primary-key lookup, not cached), the task resolution and
// the detail's composition (workflow, asset, RfI values, documents,
// branding, the contact's name). Run as the other load benchmarks:
//
//	go test ./internal/app -run '^$' -bench LoadOnboardingTask -benchtime 20000x
func BenchmarkLoadOnboardingTaskSQLite(b *testing.B) { benchmarkTaskDetail(b, "") }

func BenchmarkLoadOnboardingTaskPostgres(b *testing.B) {
	if testkit.PostgresURL() == "" {
		b.Skip("ATCP_TEST_DATABASE_URL is not set")
	}
	benchmarkTaskDetail(b, testkit.PostgresSchemaURL(b))
}

var linkToken = regexp.MustCompile(`aml_[A-Za-z0-9_-]{43}`)

func benchmarkTaskDetail(b *testing.B, databaseURL string) {
	// The server collects as `atcp serve` sets it (app.TuneGC); at the test
	// binary's default the 19 kB answers' garbage widens the tail (docs/performance.md).
	prev := debug.SetGCPercent(-1)
	debug.SetGCPercent(prev)
	app.TuneGC(os.LookupEnv)
	b.Cleanup(func() { debug.SetGCPercent(prev) })
	ctx := context.Background()
	cfg := testConfig(b, databaseURL, b.TempDir())
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	base := serve(b, a)
	admin := token(b, base)
	post := func(path, body string, v any) {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if admin != "" {
			req.Header.Set("Authorization", "Bearer "+admin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			b.Fatalf("POST %s: %d %s", path, resp.StatusCode, got)
		}
		if v != nil {
			if err := json.Unmarshal(got, v); err != nil {
				b.Fatal(err)
			}
		}
	}
	post("/v1/assets", `{"asset_id":"bess-bench","asset_name":"Bench","asset_type":"standalone","location":"Kiel",
		"organisation_id":"demo","asset_integration_type":"full_control","usable_power_capacity_mw":20,"usable_energy_capacity_mwh":40}`, nil)
	var ob struct {
		ID string `json:"onboarding_id"`
	}
	post("/v1/onboardings", `{"asset_id":"bess-bench"}`, &ob)
	var contact struct {
		ID string `json:"contact_id"`
	}
	post("/v1/onboardings/"+ob.ID+"/contacts", `{"name":"Erika Muster","email":"erika@epc.example","roles":["epc"]}`, &contact)
	var link struct {
		ID        string `json:"link_id"`
		SendCount int    `json:"send_count"`
	}
	post("/v1/onboardings/"+ob.ID+"/access-links", `{"contact_id":"`+contact.ID+`","role":"epc"}`, &link)
	// No mail server: the raw token is read from the outbox row of the
	// access-link mail, as the mail would carry it.
	d, err := a.Store.Events().Delivery(ctx, "demo", contacts.MailEventID(magic.Link{ID: link.ID, SendCount: link.SendCount}))
	if err != nil {
		b.Fatal(err)
	}
	raw := linkToken.FindString(d.Body)
	var session struct {
		AccessToken string `json:"access_token"`
	}
	admin = ""
	post("/v1/onboarding-magic/"+raw+"/exchange", "", &session)

	client := loadClient()
	target := base + "/v1/onboarding-tasks/" + ob.ID
	req, _ := http.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+session.AccessToken)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b.Logf("task detail: %d bytes", len(body))
	b.Run("closed-loop", func(b *testing.B) { closedLoop(b, client, target, session.AccessToken) })
	b.Run("open-loop", func(b *testing.B) { openLoop(b, client, target, session.AccessToken, 1000) })
	// 1,000 a second is most of what one PostgreSQL instance on two cores
	// serves of this read (about 1,500 a second closed-loop), so its tail
	// there is queueing; at half of that the tail is the request's own.
	b.Run("open-loop-500", func(b *testing.B) {
		b.ResetTimer()
		lat := paced(500, b.N, func(int) time.Duration { return fire(b, client, target, session.AccessToken) })
		ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
		b.ReportMetric(ms(0.50), "p50-ms@500rps")
		b.ReportMetric(ms(0.99), "p99-ms@500rps")
	})
}
