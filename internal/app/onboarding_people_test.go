package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"atcp/internal/app"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/magic"
)

// TestAccessLinkOnTheServer: on the whole server, an access link issued
// through the API is mailed through the outbox (the row holds its token
// until sent), its token exchanges for a session that reaches the task
// endpoints, and revoking the link ends the session (401).
func TestAccessLinkOnTheServer(t *testing.T) {
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			cfg := testConfig(t, url(t), t.TempDir())
			cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
			a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			base := serve(t, a)
			admin := fetchToken(t, base)
			do := func(method, path, token, body string, status int, v any) {
				t.Helper()
				req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				req.Header.Set("Content-Type", "application/json")
				getJSON(t, req, status, v)
			}
			do("POST", "/v1/organizations", admin, `{"organization_id":"acme","name":"Acme"}`, 201, nil)
			do("POST", "/v1/assets", admin, `{"asset_id":"bess-ob","asset_name":"Onboarding BESS","asset_type":"standalone",
				"location":"Kiel","organisation_id":"acme","asset_integration_type":"full_control"}`, 201, nil)
			var ob struct {
				OnboardingID string `json:"onboarding_id"`
			}
			do("POST", "/v1/onboardings", admin, `{"asset_id":"bess-ob"}`, 201, &ob)
			obPath := "/v1/onboardings/" + ob.OnboardingID
			var c struct {
				ContactID string `json:"contact_id"`
			}
			do("POST", obPath+"/contacts", admin, `{"name":"Erika Muster","email":"erika@epc.example","roles":["epc"]}`, 201, &c)
			var link struct {
				LinkID         string `json:"link_id"`
				DeliveryStatus string `json:"delivery_status"`
			}
			do("POST", obPath+"/access-links", admin, `{"contact_id":"`+c.ContactID+`","role":"epc"}`, 201, &link)
			// No mail server is configured: the mail waits in the outbox.
			d, err := a.Store.Events().Delivery(ctx, "acme", contacts.MailEventID(magic.Link{ID: link.LinkID, SendCount: 1}))
			if err != nil {
				t.Fatal(err)
			}
			token := regexp.MustCompile(`aml_[A-Za-z0-9_-]{43}`).FindString(d.Body)
			if token == "" || d.Mail == nil || !strings.Contains(d.Mail.HTML, token) || link.DeliveryStatus != "queued" {
				t.Fatalf("outbox row %+v, link %+v", d, link)
			}
			var ex struct {
				AccessToken string `json:"access_token"`
			}
			do("POST", "/v1/onboarding-magic/"+token+"/exchange", "", "", 200, &ex)
			task := "/v1/onboarding-tasks/" + ob.OnboardingID + "/contacts"
			do("GET", task, ex.AccessToken, "", 200, nil)
			do("GET", "/v1/assets", ex.AccessToken, "", 403, nil)
			do("POST", obPath+"/access-links/"+link.LinkID+"/revoke", admin, `{}`, 200, nil)
			do("GET", task, ex.AccessToken, "", 401, nil)
		})
	}
}
