package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
	"atcp/internal/testkit"
)

type pingOutput struct {
	Body struct {
		OK bool `json:"ok"`
	}
}

// BenchmarkMiddlewareCredentialCheck measures an authenticated request
// through the middleware to a trivial operation (SQLite, no network):
// without the credential check, with its answer cached (hit), and with the
// cache off so that every request reads the store (miss).
func BenchmarkMiddlewareCredentialCheck(b *testing.B) {
	ctx := context.Background()
	st := testkit.OpenSQLite(b)
	clk := clock.NewManual(testkit.Start)
	if err := identity.NewDirectory(st.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		b.Fatal(err)
	}
	scopes := auth.NewScopeSet(auth.AssetRead, auth.MarketWrite)
	if err := identity.NewClients(st.Clients(), clk).EnsureIntegration(ctx, "acme", "ems", "ems", "ems-secret-0123456789", scopes); err != nil {
		b.Fatal(err)
	}
	_, secrets, err := st.Clients().ClientSecrets(ctx, "ems")
	if err != nil {
		b.Fatal(err)
	}
	bench := func(b *testing.B, opts ...testkit.HarnessOption) {
		h := testkit.NewHarness(b, st, opts...)
		httpapi.Register(h.Server, huma.Operation{OperationID: "ping", Method: http.MethodGet, Path: "/v1/ping"},
			httpapi.Scopes(auth.AssetRead), func(context.Context, *struct{}) (*pingOutput, error) {
				out := &pingOutput{}
				out.Body.OK = true
				return out, nil
			})
		tok := h.Token(auth.Principal{Subject: "ems", OrganizationID: "acme", Scopes: scopes, IsM2M: true, ClientID: "ems", Credential: secrets[0].ID})
		req := httptest.NewRequest(http.MethodGet, "/v1/ping", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		for b.Loop() {
			w := httptest.NewRecorder()
			h.Server.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	}
	b.Run("off", func(b *testing.B) { bench(b) })
	b.Run("hit", func(b *testing.B) { bench(b, testkit.WithCredentialCheck(b, st)) })
	b.Run("miss", func(b *testing.B) {
		bench(b, func(o *httpapi.Options) { o.Credentials = identity.NewCredentialCheck(st.Credentials()) })
	})
}
