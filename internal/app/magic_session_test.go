package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

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

// TestMagicLinkTokensVerifyWithGoOIDC: a magic-link session's ID and
// access tokens verify with github.com/coreos/go-oidc against the served
// discovery document and JWKS, as a console built on a standard library
// verifies them: the ID token for the console client, the access token
// for the API, both naming the contact as onbc:<contact_id>.
func TestMagicLinkTokensVerifyWithGoOIDC(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "sqlite://"+t.TempDir()+"/atcp.db", t.TempDir())
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, a)
	svc := magic.NewService(a.Store.OnboardingMagic(), standingTargets{}, a.Tokens, a.Clock, a.Security)
	raw, _, err := svc.IssueLink(ctx, magic.LinkSpec{OrganizationID: "demo", OnboardingID: "ob-1", ContactID: "c-1", Role: "epc"})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := svc.Exchange(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	provider, err := oidc.NewProvider(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	id, err := provider.Verifier(&oidc.Config{ClientID: "atcp-console"}).Verify(ctx, ex.IDToken)
	if err != nil {
		t.Fatalf("ID token: %v", err)
	}
	access, err := provider.Verifier(&oidc.Config{ClientID: auth.Audience}).Verify(ctx, ex.AccessToken)
	if err != nil {
		t.Fatalf("access token: %v", err)
	}
	var claims struct {
		OnboardingID   string `json:"onboarding_id"`
		OnboardingRole string `json:"onboarding_role"`
		Scope          string `json:"scope"`
	}
	if err := access.Claims(&claims); err != nil {
		t.Fatal(err)
	}
	if id.Subject != "onbc:c-1" || access.Subject != "onbc:c-1" || claims.OnboardingID != "ob-1" || claims.OnboardingRole != "epc" ||
		claims.Scope != "" || access.Expiry.Sub(access.IssuedAt) != time.Hour {
		t.Fatalf("ID token %+v, access token %+v, claims %+v", id, access, claims)
	}
}
