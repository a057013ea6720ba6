package identity_test

import (
	"context"
	"testing"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestDirectoryEnsure(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		d := identity.NewDirectory(b.Directory(), clk, "https://atcp.example.com/")

		if err := d.EnsureOrganization(ctx, auth.PlatformOrganization, " Platform operator "); err != nil {
			t.Fatal(err)
		}
		if err := d.EnsureOrganization(ctx, auth.PlatformOrganization, "Renamed"); err != nil {
			t.Fatal(err)
		}
		if o, err := b.Directory().Organization(ctx, auth.PlatformOrganization); err != nil || o.Name != "Platform operator" || !o.CreatedAt.Equal(testkit.Start) {
			t.Fatalf("ensured organisation %+v, %v", o, err)
		}
		for _, c := range [][2]string{{"Bad Id", "x"}, {"ok-id", ""}, {"x", "x"}} {
			if err := d.EnsureOrganization(ctx, c[0], c[1]); !errs.Is(err, errs.Invalid) {
				t.Fatalf("EnsureOrganization(%q, %q): %v", c[0], c[1], err)
			}
		}

		const pw = "bootstrap passphrase"
		if err := d.EnsureUser(ctx, auth.PlatformOrganization, "Admin@Example.com", pw, auth.NewScopeSet(auth.AllScopes...)); err != nil {
			t.Fatal(err)
		}
		u, err := b.Directory().UserByEmail(ctx, "admin@example.com")
		if err != nil || !u.CanSignIn() || !auth.VerifySecret(pw, u.PasswordHash) || u.OrganizationID != auth.PlatformOrganization ||
			len(u.Scopes) != len(auth.AllScopes) || u.ID == "" {
			t.Fatalf("ensured user %+v, %v", u, err)
		}
		// A second start with other settings leaves the user as it is.
		if err := d.EnsureUser(ctx, "acme", "admin@example.com", "another passphrase", nil); err != nil {
			t.Fatal(err)
		}
		if again, _ := b.Directory().UserByEmail(ctx, "admin@example.com"); again.ID != u.ID || again.PasswordHash != u.PasswordHash || again.OrganizationID != auth.PlatformOrganization {
			t.Fatalf("EnsureUser changed an existing user: %+v", again)
		}
		// The organisation is created on demand.
		if err := d.EnsureUser(ctx, "acme", "ops@acme.test", pw, auth.NewScopeSet(auth.AssetRead)); err != nil {
			t.Fatal(err)
		}
		if o, err := b.Directory().Organization(ctx, "acme"); err != nil || o.Name != "acme" {
			t.Fatalf("organisation created for EnsureUser: %+v, %v", o, err)
		}

		for _, c := range []struct {
			org, email, password string
			scopes               auth.ScopeSet
		}{
			{"acme", "new@acme.test", "too short", nil},
			{"fresh-org", "new@acme.test", "too short", nil},
			{"acme", "not an email", pw, nil},
			{"acme", "new@acme.test", pw, auth.NewScopeSet("bogus.scope")},
			{"Not Valid", "new@acme.test", pw, nil},
		} {
			if err := d.EnsureUser(ctx, c.org, c.email, c.password, c.scopes); !errs.Is(err, errs.Invalid) {
				t.Fatalf("EnsureUser(%q, %q): %v", c.org, c.email, err)
			}
		}
		if _, err := b.Directory().UserByEmail(ctx, "new@acme.test"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a rejected EnsureUser stored the user: %v", err)
		}
		if _, err := b.Directory().Organization(ctx, "fresh-org"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a rejected EnsureUser created the organisation: %v", err)
		}
	})
}

// TestDirectoryLinks: links point at the base URL and run on the security
// clock, while the person's record is stamped on the platform clock.
func TestDirectoryLinks(t *testing.T) {
	ctx := context.Background()
	b := testkit.OpenSQLite(t)
	d := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "https://atcp.example.com/")
	d.SetSecurityClock(clock.NewManual(testkit.SecurityStart))
	if err := d.EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	p := &auth.Principal{Subject: "it", OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.UsersWrite), IsM2M: true}
	u, link, err := d.CreateUser(ctx, p, identity.NewUser{Email: "carol@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "https://atcp.example.com/set-password?token="
	if len(link.URL) != len(prefix)+43 || link.URL[:len(prefix)] != prefix || !link.ExpiresAt.Equal(testkit.SecurityStart.Add(identity.SetPasswordLinkTTL)) {
		t.Fatalf("link %+v", link)
	}
	if !u.CreatedAt.Equal(testkit.Start) || !u.UpdatedAt.Equal(testkit.Start) {
		t.Fatalf("user stamped %v / %v, want the platform time %v", u.CreatedAt, u.UpdatedAt, testkit.Start)
	}
	info, err := d.PasswordLinkInfo(ctx, link.URL[len(prefix):])
	if err != nil || info.Email != "carol@acme.test" {
		t.Fatalf("link info %+v, %v", info, err)
	}
}
