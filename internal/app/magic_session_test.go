package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"atcp/internal/app"
	"atcp/internal/auth"
	"atcp/internal/onboarding/magic"
)

// standingTargets answers every link target as standing.
type standingTargets struct{}

func (standingTargets) Check(context.Context, string, string, string, string) (magic.Target, bool, error) {
	return magic.Target{ContactName: "Erik", ContactEmail: "erik@epc.example"}, true, nil
}

// TestMagicLinkSessionOnTheServer: on the whole server, a magic-link
// session's token is refused by every endpoint outside its task endpoints
// (403 magic_link_session_not_allowed), and is 401 as soon as its session
// ends: the credential check asks the session on every request.
func TestMagicLinkSessionOnTheServer(t *testing.T) {
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
			svc := magic.NewService(a.Store.OnboardingMagic(), standingTargets{}, a.Tokens, a.Clock, a.Security)
			raw, _, err := svc.IssueLink(ctx, magic.LinkSpec{OrganizationID: auth.PlatformOrganization, OnboardingID: "ob-1", ContactID: "c-1", Role: "epc"})
			if err != nil {
				t.Fatal(err)
			}
			ex, err := svc.Exchange(ctx, raw)
			if err != nil {
				t.Fatal(err)
			}
			get := func(path string) (int, string) {
				req, _ := http.NewRequest(http.MethodGet, base+path, nil)
				req.Header.Set("Authorization", "Bearer "+ex.AccessToken)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var p struct {
					Code string `json:"code"`
				}
				_ = json.NewDecoder(resp.Body).Decode(&p)
				return resp.StatusCode, p.Code
			}
			// Its task list is open to it (empty: ob-1 is no workflow).
			if status, code := get("/v1/onboarding-tasks"); status != http.StatusOK {
				t.Errorf("GET /v1/onboarding-tasks: %d %s", status, code)
			}
			for _, path := range []string{"/v1/assets", "/v1/users/me", "/v1/pools", "/v1/onboardings"} {
				if status, code := get(path); status != http.StatusForbidden || code != "magic_link_session_not_allowed" {
					t.Errorf("GET %s: %d %s", path, status, code)
				}
			}
			if err := svc.EndSessions(ctx, auth.PlatformOrganization, "ob-1", magic.SessionFilter{ContactID: "c-1"}, "contact_deleted"); err != nil {
				t.Fatal(err)
			}
			if status, code := get("/v1/assets"); status != http.StatusUnauthorized || code != "invalid_token" {
				t.Errorf("after the session ended: %d %s", status, code)
			}
		})
	}
}
