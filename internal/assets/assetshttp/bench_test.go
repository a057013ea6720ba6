package assetshttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// BenchmarkGetAsset measures an authenticated GET /v1/assets/{id} through
// the whole server (middleware, token verification, huma, the store) and,
// for comparison, a bare net/http handler writing the same bytes over the
// same kind of connection.
func BenchmarkGetAsset(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		e := benchmarkEnv(b, testkit.OpenSQLite(b))
		benchmarkGet(b, e.h.HTTP.Client(), e.h.URL+"/v1/assets/bench-1", e.acmeRO)
	})
	if testkit.PostgresURL() != "" {
		b.Run("postgres", func(b *testing.B) {
			e := benchmarkEnv(b, testkit.OpenPostgres(b))
			benchmarkGet(b, e.h.HTTP.Client(), e.h.URL+"/v1/assets/bench-1", e.acmeRO)
		})
	}
	b.Run("bare-net-http", func(b *testing.B) {
		e := benchmarkEnv(b, testkit.OpenSQLite(b))
		body := e.h.Do("GET", "/v1/assets/bench-1", e.acmeRO, nil).Expect(b, 200, "").Body
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		defer srv.Close()
		benchmarkGet(b, srv.Client(), srv.URL+"/v1/assets/bench-1", e.acmeRO)
	})
}

// benchmarkEnv serves the asset endpoints with the asset bench-1.
func benchmarkEnv(b *testing.B, backend store.Backend) env {
	e := setup(b, backend)
	u := assets.Update{
		AssetID: assets.Some("bench-1"), OrganisationID: assets.Some("acme"), AssetName: assets.Some("Bench battery"),
		AssetType: assets.Some(assets.Standalone), Location: assets.Some("Leipzig"),
		UsablePowerCapacityMW: assets.Set(10.0), AFRRPrequalifiedNegMW: assets.Some(10.0), OptimizerOrgID: assets.Set("optico"),
	}
	if _, err := e.svc.Create(context.Background(), auth.Visibility{All: true}, u); err != nil {
		b.Fatal(err)
	}
	return e
}

func benchmarkGet(b *testing.B, client *http.Client, url, token string) {
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(got) < 1000 {
			b.Fatalf("status %d, %d bytes, %v", resp.StatusCode, len(got), err)
		}
	}
}
