package identity_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// BenchmarkCredentialCheck measures the per-request check of a token:
// "hit" answered from the cache, "miss" with the cache off, so that every
// check is the one indexed query of a cache miss.
func BenchmarkCredentialCheck(b *testing.B) {
	backends := map[string]func(testing.TB) store.Backend{"sqlite": testkit.OpenSQLite}
	if testkit.PostgresURL() != "" {
		backends["postgres"] = testkit.OpenPostgres
	}
	for name, open := range backends {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			st := open(b)
			clk := clock.NewManual(testkit.Start)
			dir := identity.NewDirectory(st.Directory(), clk, "http://atcp.test")
			if err := dir.EnsureOrganization(ctx, "acme", "Acme"); err != nil {
				b.Fatal(err)
			}
			scopes := auth.NewScopeSet(auth.AssetRead, auth.AssetWrite, auth.MarketRead, auth.MarketWrite)
			if err := identity.NewClients(st.Clients(), clk).EnsureIntegration(ctx, "acme", "ems", "ems", "ems-secret-0123456789", scopes); err != nil {
				b.Fatal(err)
			}
			_, secrets, err := st.Clients().ClientSecrets(ctx, "ems")
			if err != nil {
				b.Fatal(err)
			}
			p := &auth.Principal{Subject: "ems", OrganizationID: "acme", Scopes: scopes, IsM2M: true, ClientID: "ems", Credential: secrets[0].ID}

			run := func(b *testing.B, check *identity.CredentialCheck) {
				for b.Loop() {
					if ok, err := check.InForce(ctx, p); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
			}
			b.Run("hit", func(b *testing.B) {
				check := identity.NewCredentialCheck(st.Credentials())
				watch, stop := context.WithCancel(ctx)
				done := make(chan struct{})
				go func() {
					defer close(done)
					check.Watch(watch)
				}()
				defer func() {
					stop()
					<-done
				}()
				for !check.Caching() {
					time.Sleep(time.Millisecond)
				}
				run(b, check)
			})
			b.Run("miss", func(b *testing.B) { run(b, identity.NewCredentialCheck(st.Credentials())) })
		})
	}
}
