package testkit_test

import (
	"context"
	"slices"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestFingerprint: on both stores, a write changes the fingerprint of
// exactly the tables it wrote, reads and refused writes change nothing,
// and a snapshot restores every table, cascaded deletions included.
func TestFingerprint(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		f, err := testkit.NewFingerprinter(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		tables := f.Tables()
		for _, want := range []string{"organizations", "users", "user_preferences", "assets", "bids", "signing_keys"} {
			if !slices.Contains(tables, want) {
				t.Errorf("table %s not tracked: %v", want, tables)
			}
		}
		for _, skipped := range []string{"goose_db_version", "worker_leases", "telemetry_latest"} {
			if slices.Contains(tables, skipped) {
				t.Errorf("table %s tracked", skipped)
			}
		}
		// Referenced tables come first, so that restoring can insert in order.
		if slices.Index(tables, "organizations") > slices.Index(tables, "users") ||
			slices.Index(tables, "users") > slices.Index(tables, "user_preferences") {
			t.Errorf("tables not in reference order: %v", tables)
		}
		take := func() testkit.Fingerprint {
			t.Helper()
			fp, err := f.Fingerprint(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return fp
		}
		expectChanged := func(before testkit.Fingerprint, want ...string) testkit.Fingerprint {
			t.Helper()
			after := take()
			if got := before.Changed(after); !slices.Equal(got, want) {
				t.Fatalf("changed tables %v, want %v", got, want)
			}
			return after
		}

		dir := b.Directory()
		empty := take()
		if err := dir.CreateOrganization(ctx, identity.Organization{ID: "acme", Name: "Acme", CreatedAt: testkit.Start}); err != nil {
			t.Fatal(err)
		}
		withOrg := expectChanged(empty, "organizations")
		user := identity.User{ID: "u-1", OrganizationID: "acme", Email: "ops@acme.example", Scopes: auth.NewScopeSet(auth.AssetRead),
			Status: identity.UserActive, Enabled: true, PasswordHash: "x", CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
		if err := dir.CreateUser(ctx, user, nil); err != nil {
			t.Fatal(err)
		}
		locale := "de"
		if err := dir.SavePreferences(ctx, identity.Preferences{UserID: "u-1", Locale: &locale, UpdatedAt: &testkit.Start}); err != nil {
			t.Fatal(err)
		}
		a := assets.NewAsset("bess-1", "acme", "Bess", "Kiel", assets.Standalone)
		a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
		if _, err := b.Assets().Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		seeded := expectChanged(withOrg, "assets", "user_preferences", "users")

		// Reads and a refused write leave every table as it was.
		if _, err := dir.Organizations(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Assets().List(ctx, auth.Visibility{All: true}); err != nil {
			t.Fatal(err)
		}
		if err := dir.CreateOrganization(ctx, identity.Organization{ID: "acme", Name: "Again", CreatedAt: testkit.Start}); !errs.Is(err, errs.Conflict) {
			t.Fatalf("second acme: %v", err)
		}
		expectChanged(seeded)

		snap, err := f.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Changing a row's value is a change too, and deleting the user
		// cascades to its preferences.
		if _, err := b.Assets().Update(ctx, auth.Visibility{All: true}, "bess-1", func(_ context.Context, cur assets.Asset) (assets.Asset, bool, error) {
			cur.Name = "Renamed"
			return cur, true, nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := dir.DeleteUser(ctx, auth.Visibility{All: true}, "ops@acme.example", func(identity.User) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := dir.CreateOrganization(ctx, identity.Organization{ID: "beta", Name: "Beta", CreatedAt: testkit.Start}); err != nil {
			t.Fatal(err)
		}
		expectChanged(seeded, "assets", "organizations", "user_preferences", "users")

		restored, err := f.Restore(ctx, snap)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"assets", "organizations", "user_preferences", "users"}; !slices.Equal(restored, want) {
			t.Fatalf("restored %v, want %v", restored, want)
		}
		expectChanged(seeded)
		if got, err := b.Assets().Get(ctx, auth.Visibility{All: true}, "bess-1"); err != nil || got.Name != "Bess" {
			t.Fatalf("restored asset %+v, %v", got, err)
		}
		if p, err := dir.Preferences(ctx, "u-1"); err != nil || p.Locale == nil || *p.Locale != "de" {
			t.Fatalf("restored preferences %+v, %v", p, err)
		}
		if _, err := dir.Organization(ctx, "beta"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta after restore: %v", err)
		}
		// Restoring an unchanged store changes nothing.
		if restored, err := f.Restore(ctx, snap); err != nil || restored != nil {
			t.Fatalf("second restore: %v, %v", restored, err)
		}
	})
}
