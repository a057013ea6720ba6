package app_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"atcp/internal/app"
	"atcp/internal/auth"
	"atcp/internal/testkit"
)

// call sends a request with a bearer token and an optional JSON body and
// returns the status and body.
func call(t *testing.T, method, target, token, body string) (int, string) {
	t.Helper()
	var rdr io.Reader
	if body != "" {
		rdr = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, target, rdr)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func expectStatus(t *testing.T, method, target, token, body string, want int) string {
	t.Helper()
	status, got := call(t, method, target, token, body)
	if status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, target, status, got, want)
	}
	return got
}

// clientToken gets a client_credentials token from base.
func clientToken(t *testing.T, base, id, secret string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	getJSON(t, req, http.StatusOK, &tok)
	return tok.AccessToken
}

// personToken signs a person in at base with the authorization code flow
// and PKCE and returns the access token.
func personToken(t *testing.T, base, email, password string) string {
	t.Helper()
	verifier := auth.RandomToken(48)
	sum := sha256.Sum256([]byte(verifier))
	redirect := "http://127.0.0.1:53682/callback"
	form := url.Values{"response_type": {"code"}, "client_id": {"atcp-console"}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {"s"}, "email": {email}, "password": {password}}
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth2/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("sign-in: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {redirect},
		"client_id": {"atcp-console"}, "code_verifier": {verifier}}
	req, _ = http.NewRequest(http.MethodPost, base+"/oauth2/token", strings.NewReader(exchange.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	getJSON(t, req, http.StatusOK, &tok)
	return tok.AccessToken
}

// newIntegration creates an integration holding clients.read through the
// API at base and returns its id and secret.
func newIntegration(t *testing.T, base, admin, name string) (string, string) {
	t.Helper()
	var out struct {
		IntegrationID string `json:"integration_id"`
		ClientSecret  string `json:"client_secret"`
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/integrations",
		strings.NewReader(`{"name":"`+name+`","scopes":["clients.read"],"organization_id":"demo"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+admin)
	getJSON(t, req, http.StatusCreated, &out)
	return out.IntegrationID, out.ClientSecret
}

// TestRevokedTokensStopAtOnce: on the running server, on both stores, the
// token of a deleted integration is refused by the very next request, and
// a correctly signed token of a caller that never existed is refused.
func TestRevokedTokensStopAtOnce(t *testing.T) {
	for name, dbURL := range databases(t) {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, dbURL(t), t.TempDir())
			cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
			a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			base := serve(t, a)
			admin := fetchToken(t, base)
			id, secret := newIntegration(t, base, admin, "ems")
			tok := clientToken(t, base, id, secret)
			expectStatus(t, "GET", base+"/v1/integrations", tok, "", 200)
			expectStatus(t, "DELETE", base+"/v1/integrations/"+id, admin, "", 204)
			expectStatus(t, "GET", base+"/v1/integrations", tok, "", 401)

			ghost, _, err := a.Tokens.IssueAccess(auth.Principal{Subject: "never-existed", OrganizationID: auth.PlatformOrganization,
				Scopes: auth.NewScopeSet(auth.AllScopes...), IsM2M: true, ClientID: "never-existed", Credential: "none"})
			if err != nil {
				t.Fatal(err)
			}
			expectStatus(t, "GET", base+"/v1/integrations", ghost, "", 401)
		})
	}
}

// TestRevocationReachesEveryInstance: two instances on one PostgreSQL
// database; deleting a secret, an integration or a person through one
// makes the other refuse their tokens within a second.
func TestRevocationReachesEveryInstance(t *testing.T) {
	if testkit.PostgresURL() == "" {
		t.Skip("needs ATCP_TEST_DATABASE_URL: instances share a database only on PostgreSQL")
	}
	dbURL := testkit.PostgresSchemaURL(t)
	start := func() *app.App {
		cfg := testConfig(t, dbURL, t.TempDir())
		cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
		cfg.BaseURL = "http://atcp.test" // one issuer for both instances, as behind a load balancer
		a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		serve(t, a)
		return a
	}
	one, two := start(), start()
	baseOne, baseTwo := "http://"+one.Addr(), "http://"+two.Addr()
	for !two.Credentials.Caching() {
		time.Sleep(time.Millisecond)
	}
	admin := fetchToken(t, baseOne)

	// refusedWithin polls instance two until it refuses tok.
	refusedWithin := func(what, tok, path string) {
		t.Helper()
		deadline := time.Now().Add(time.Second)
		for {
			status, body := call(t, "GET", baseTwo+path, tok, "")
			if status == http.StatusUnauthorized && strings.Contains(body, "invalid_token") {
				return
			}
			if status != http.StatusOK || time.Now().After(deadline) {
				t.Fatalf("%s: instance two still answers %d %s", what, status, body)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	id, firstSecret := newIntegration(t, baseOne, admin, "ems")
	var added struct {
		SecretID    string `json:"secret_id"`
		SecretValue string `json:"secret_value"`
	}
	req, _ := http.NewRequest(http.MethodPost, baseOne+"/v1/integrations/"+id+"/secrets", nil)
	req.Header.Set("Authorization", "Bearer "+admin)
	getJSON(t, req, http.StatusCreated, &added)
	firstToken := clientToken(t, baseOne, id, firstSecret)
	secondToken := clientToken(t, baseOne, id, added.SecretValue)
	// Instance two has both tokens' answers cached before the changes.
	expectStatus(t, "GET", baseTwo+"/v1/integrations", firstToken, "", 200)
	expectStatus(t, "GET", baseTwo+"/v1/integrations", secondToken, "", 200)

	var secrets []struct {
		SecretID string `json:"secret_id"`
	}
	req, _ = http.NewRequest(http.MethodGet, baseOne+"/v1/integrations/"+id+"/secrets", nil)
	req.Header.Set("Authorization", "Bearer "+admin)
	getJSON(t, req, http.StatusOK, &secrets)
	for _, s := range secrets {
		if s.SecretID != added.SecretID {
			expectStatus(t, "DELETE", baseOne+"/v1/integrations/"+id+"/secrets/"+s.SecretID, admin, "", 204)
		}
	}
	refusedWithin("deleted secret", firstToken, "/v1/integrations")
	expectStatus(t, "GET", baseTwo+"/v1/integrations", secondToken, "", 200)

	expectStatus(t, "DELETE", baseOne+"/v1/integrations/"+id, admin, "", 204)
	refusedWithin("deleted integration", secondToken, "/v1/integrations")

	const email, password = "ops@demo.example", "correct horse battery staple"
	if err := one.Directory.EnsureUser(context.Background(), "demo", email, password, auth.NewScopeSet(auth.AssetRead)); err != nil {
		t.Fatal(err)
	}
	person := personToken(t, baseOne, email, password)
	expectStatus(t, "GET", baseTwo+"/v1/users/me", person, "", 200)
	expectStatus(t, "DELETE", baseOne+"/v1/users/"+url.PathEscape(email), admin, "", 204)
	refusedWithin("deleted person", person, "/v1/users/me")
}
