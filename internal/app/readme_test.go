package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"atcp/internal/app"
	"atcp/internal/auth"
)

// TestIntegrationsAndDispatchScopes checks what the README tells a
// newcomer: an integration's integration_id is its OAuth client_id; an
// integration cannot be granted the dispatch scopes (document 1), so the
// dispatch steps take a person's token or a platform administrator's (the
// bootstrap credentials).
func TestIntegrationsAndDispatchScopes(t *testing.T) {
	cfg := testConfig(t, "sqlite::memory:", t.TempDir())
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, a)
	admin := fetchToken(t, base)
	do := func(method, path, token, body string, status int, v any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		getJSON(t, req, status, v)
	}
	// README step 3: the integration signs in with integration_id as its
	// client_id.
	var desk struct {
		IntegrationID string `json:"integration_id"`
		ClientSecret  string `json:"client_secret"`
	}
	do(http.MethodPost, "/v1/integrations", admin,
		`{"name":"trading-desk","organization_id":"demo","scopes":["asset.read","market.read","market.write"]}`, http.StatusCreated, &desk)
	deskToken := clientToken(t, base, desk.IntegrationID, desk.ClientSecret)
	do(http.MethodGet, "/v1/assets/demo-bess/markets/afrr/capacity/results", deskToken, "", http.StatusOK, nil)

	// No integration can dispatch.
	do(http.MethodGet, "/v1/assets/demo-bess/dispatch/scheduled", deskToken, "", http.StatusForbidden, nil)
	do(http.MethodPost, "/v1/integrations", admin,
		`{"name":"dispatcher","organization_id":"demo","scopes":["dispatch.read","dispatch.write"]}`, http.StatusUnprocessableEntity, nil)

	// A platform administrator and a person granted the scopes can.
	do(http.MethodGet, "/v1/assets/demo-bess/dispatch/scheduled", admin, "", http.StatusOK, nil)
	const email, password = "dispatcher@demo.example", "correct horse battery staple"
	if err := a.Directory.EnsureUser(context.Background(), "demo", email, password,
		auth.NewScopeSet(auth.AssetRead, auth.DispatchRead, auth.DispatchWrite)); err != nil {
		t.Fatal(err)
	}
	do(http.MethodGet, "/v1/assets/demo-bess/dispatch/scheduled", personToken(t, base, email, password), "", http.StatusOK, nil)
}
