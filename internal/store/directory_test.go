package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var dirNow = testkit.Start

func dirOrgs(t *testing.T, ds identity.DirectoryStore, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := ds.EnsureOrganization(context.Background(), identity.Organization{ID: id, Name: "Org " + id, CreatedAt: dirNow}); err != nil {
			t.Fatal(err)
		}
	}
}

func dirUser(org, email string, scopes ...auth.Scope) identity.User {
	return identity.User{
		ID: uuid.NewString(), OrganizationID: org, Email: email, Scopes: auth.NewScopeSet(scopes...),
		Status: identity.UserInvited, Enabled: true, CreatedAt: dirNow, UpdatedAt: dirNow,
	}
}

func dirLink(u identity.User, hash string, expires time.Time) identity.SetPasswordLink {
	return identity.SetPasswordLink{TokenHash: hash, UserID: u.ID, OrganizationID: u.OrganizationID, CreatedAt: dirNow, ExpiresAt: expires}
}

// allow is a DeleteUser check that lets every deletion through.
func allow(identity.User) error { return nil }

// issueLink is a ReplacePasswordLink issuer that expects u and issues l.
func issueLink(t *testing.T, u identity.User, l identity.SetPasswordLink) func(identity.User) (identity.SetPasswordLink, error) {
	return func(cur identity.User) (identity.SetPasswordLink, error) {
		if cur.ID != u.ID || cur.Email != u.Email {
			t.Fatalf("issuing for %+v, want %s", cur, u.Email)
		}
		return l, nil
	}
}

func dirCode(err error) errs.Code {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestDirectoryStoreOrganizations(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		ds := b.Directory()
		created := dirNow.Add(123456 * time.Microsecond)
		if err := ds.CreateOrganization(ctx, identity.Organization{ID: "acme", Name: "Acme", CreatedAt: created}); err != nil {
			t.Fatal(err)
		}
		err := ds.CreateOrganization(ctx, identity.Organization{ID: "acme", Name: "Other", CreatedAt: dirNow})
		if !errs.Is(err, errs.Conflict) || dirCode(err) != identity.CodeOrganizationExists {
			t.Fatalf("duplicate organisation: %v", err)
		}
		if err := ds.EnsureOrganization(ctx, identity.Organization{ID: "acme", Name: "Renamed", CreatedAt: dirNow}); err != nil {
			t.Fatal(err)
		}
		dirOrgs(t, ds, "beta")
		o, err := ds.Organization(ctx, "acme")
		if err != nil || o.Name != "Acme" || !o.CreatedAt.Equal(created) || o.CreatedAt.Location() != time.UTC {
			t.Fatalf("read %+v, %v", o, err)
		}
		if _, err := ds.Organization(ctx, "nope"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown organisation: %v", err)
		}
		all, err := ds.Organizations(ctx)
		if err != nil || len(all) != 2 || all[0].ID != "acme" || all[1].ID != "beta" {
			t.Fatalf("list %+v, %v", all, err)
		}
	})
}

func TestDirectoryStoreUsers(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		ds := b.Directory()
		dirOrgs(t, ds, "acme", "beta")
		acme := auth.Visibility{OrganizationID: "acme"}
		beta := auth.Visibility{OrganizationID: "beta"}
		all := auth.Visibility{All: true, OrganizationID: auth.PlatformOrganization}

		carol := dirUser("acme", "carol@acme.test", auth.AssetRead, auth.UsersWrite)
		carol.CreatedAt = dirNow.Add(time.Microsecond)
		if err := ds.CreateUser(ctx, carol, nil); err != nil {
			t.Fatal(err)
		}
		dup := dirUser("beta", "carol@acme.test")
		if err := ds.CreateUser(ctx, dup, nil); !errs.Is(err, errs.Conflict) || dirCode(err) != identity.CodeUserExists {
			t.Fatalf("duplicate e-mail across organisations: %v", err)
		}
		for _, get := range []func() (identity.User, error){
			func() (identity.User, error) { return ds.UserByEmail(ctx, "carol@acme.test") },
			func() (identity.User, error) { return ds.UserByID(ctx, carol.ID) },
		} {
			u, err := get()
			if err != nil || u.ID != carol.ID || u.OrganizationID != "acme" || u.Email != carol.Email || u.Status != identity.UserInvited ||
				!u.Enabled || u.PasswordHash != "" || !u.CreatedAt.Equal(carol.CreatedAt) || u.CreatedAt.Location() != time.UTC ||
				u.Scopes.String() != "asset.read users.write" {
				t.Fatalf("read back %+v, %v", u, err)
			}
		}
		if _, err := ds.UserByEmail(ctx, "nobody@acme.test"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown e-mail: %v", err)
		}
		if _, err := ds.UserByID(ctx, "nope"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown id: %v", err)
		}

		// EnsureUser creates once and then leaves the user alone.
		admin := dirUser("beta", "admin@beta.test", auth.AllScopes...)
		admin.Status, admin.PasswordHash = identity.UserActive, "$argon2id$stub"
		if created, err := ds.EnsureUser(ctx, admin); err != nil || !created {
			t.Fatalf("ensure new: %v %v", created, err)
		}
		again := dirUser("acme", "admin@beta.test")
		if created, err := ds.EnsureUser(ctx, again); err != nil || created {
			t.Fatalf("ensure existing: %v %v", created, err)
		}
		if u, _ := ds.UserByEmail(ctx, "admin@beta.test"); u.ID != admin.ID || u.PasswordHash != admin.PasswordHash || len(u.Scopes) != len(auth.AllScopes) || !u.CanSignIn() {
			t.Fatalf("ensured user %+v", u)
		}

		// Lists are per organisation and filtered by visibility.
		if err := ds.CreateUser(ctx, dirUser("acme", "aaron@acme.test"), nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			vis  auth.Visibility
			org  string
			want int
		}{{acme, "acme", 2}, {beta, "acme", 0}, {all, "acme", 2}, {all, "beta", 1}, {acme, "beta", 0}} {
			users, err := ds.Users(ctx, c.vis, c.org)
			if err != nil || len(users) != c.want || users == nil {
				t.Fatalf("Users(%+v, %s) = %d users, %v", c.vis, c.org, len(users), err)
			}
			if c.want == 2 && (users[0].Email != "aaron@acme.test" || users[1].Email != "carol@acme.test") {
				t.Fatalf("not ordered by e-mail: %s, %s", users[0].Email, users[1].Email)
			}
		}

		// Scope updates: the decision sees the current row and can veto.
		later := dirNow.Add(time.Minute)
		veto := errs.Conflictf("nope", "vetoed")
		if _, _, err := ds.UpdateUserScopes(ctx, acme, "carol@acme.test", later, func(identity.User) (auth.ScopeSet, error) { return nil, veto }); !errors.Is(err, veto) {
			t.Fatalf("veto: %v", err)
		}
		if _, _, err := ds.UpdateUserScopes(ctx, beta, "carol@acme.test", later, func(identity.User) (auth.ScopeSet, error) {
			t.Fatal("decided on an invisible user")
			return nil, nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("invisible update: %v", err)
		}
		before, after, err := ds.UpdateUserScopes(ctx, acme, "carol@acme.test", later, func(cur identity.User) (auth.ScopeSet, error) {
			if cur.ID != carol.ID {
				t.Fatalf("decided on %+v", cur)
			}
			return auth.NewScopeSet(auth.MarketRead), nil
		})
		if err != nil || before.Scopes.String() != "asset.read users.write" || after.Scopes.String() != "market.read" || !after.UpdatedAt.Equal(later) {
			t.Fatalf("update: %+v -> %+v, %v", before, after, err)
		}
		if u, _ := ds.UserByID(ctx, carol.ID); u.Scopes.String() != "market.read" {
			t.Fatalf("stored scopes %v", u.Scopes)
		}
		if _, after, err := ds.UpdateUserScopes(ctx, all, "carol@acme.test", later, func(identity.User) (auth.ScopeSet, error) { return auth.ScopeSet{}, nil }); err != nil || len(after.Scopes) != 0 {
			t.Fatalf("clearing scopes: %+v, %v", after, err)
		}

		// Deleting honours visibility; the check sees the current row and can veto.
		if err := ds.DeleteUser(ctx, beta, "carol@acme.test", func(identity.User) error {
			t.Fatal("checked an invisible user")
			return nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta deleted carol: %v", err)
		}
		if err := ds.DeleteUser(ctx, acme, "carol@acme.test", func(identity.User) error { return veto }); !errors.Is(err, veto) {
			t.Fatalf("veto: %v", err)
		}
		if _, err := ds.UserByID(ctx, carol.ID); err != nil {
			t.Fatalf("a vetoed delete removed the user: %v", err)
		}
		if err := ds.DeleteUser(ctx, acme, "carol@acme.test", func(cur identity.User) error {
			if cur.ID != carol.ID || len(cur.Scopes) != 0 {
				t.Fatalf("checked %+v", cur)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := ds.UserByID(ctx, carol.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted user still there: %v", err)
		}
		if err := ds.DeleteUser(ctx, acme, "carol@acme.test", allow); !errs.Is(err, errs.NotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if err := ds.DeleteUser(ctx, all, "admin@beta.test", allow); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDirectoryStorePreferences(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		ds := b.Directory()
		dirOrgs(t, ds, "acme")
		carol := dirUser("acme", "carol@acme.test")
		if err := ds.CreateUser(ctx, carol, nil); err != nil {
			t.Fatal(err)
		}
		p, err := ds.Preferences(ctx, carol.ID)
		if err != nil || p.UserID != carol.ID || p.Locale != nil || p.Theme != nil || p.UpdatedAt != nil {
			t.Fatalf("unsaved %+v, %v", p, err)
		}
		de, dark, at := "de", "dark", dirNow.Add(time.Second)
		if err := ds.SavePreferences(ctx, identity.Preferences{UserID: carol.ID, Locale: &de, Theme: &dark, UpdatedAt: &at}); err != nil {
			t.Fatal(err)
		}
		p, err = ds.Preferences(ctx, carol.ID)
		if err != nil || *p.Locale != "de" || *p.Theme != "dark" || !p.UpdatedAt.Equal(at) || p.UpdatedAt.Location() != time.UTC {
			t.Fatalf("saved %+v, %v", p, err)
		}
		at2 := at.Add(time.Second)
		if err := ds.SavePreferences(ctx, identity.Preferences{UserID: carol.ID, Theme: &dark, UpdatedAt: &at2}); err != nil {
			t.Fatal(err)
		}
		if p, _ = ds.Preferences(ctx, carol.ID); p.Locale != nil || *p.Theme != "dark" || !p.UpdatedAt.Equal(at2) {
			t.Fatalf("replaced %+v", p)
		}
		if _, err := ds.Preferences(ctx, "nope"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		if err := ds.SavePreferences(ctx, identity.Preferences{UserID: "nope", UpdatedAt: &at}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("saving for an unknown user: %v", err)
		}
		// Deleting the user deletes the preferences with it.
		if err := ds.DeleteUser(ctx, auth.Visibility{OrganizationID: "acme"}, "carol@acme.test", allow); err != nil {
			t.Fatal(err)
		}
		if err := ds.CreateUser(ctx, identity.User{ID: carol.ID, OrganizationID: "acme", Email: "carol@acme.test", Scopes: auth.ScopeSet{},
			Status: identity.UserInvited, Enabled: true, CreatedAt: dirNow, UpdatedAt: dirNow}, nil); err != nil {
			t.Fatal(err)
		}
		if p, _ = ds.Preferences(ctx, carol.ID); p.Theme != nil {
			t.Fatalf("preferences outlived their user: %+v", p)
		}
	})
}

func TestDirectoryStorePasswordLinks(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		ds := b.Directory()
		dirOrgs(t, ds, "acme")
		carol := dirUser("acme", "carol@acme.test")
		first := dirLink(carol, "hash-1", dirNow.Add(72*time.Hour))
		if err := ds.CreateUser(ctx, carol, &first); err != nil {
			t.Fatal(err)
		}
		l, u, err := ds.PasswordLink(ctx, "hash-1")
		if err != nil || l.UserID != carol.ID || l.OrganizationID != "acme" || !l.ExpiresAt.Equal(first.ExpiresAt) || l.UsedAt != nil || u.Email != carol.Email {
			t.Fatalf("link %+v %+v, %v", l, u, err)
		}
		if _, _, err := ds.PasswordLink(ctx, "nope"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown link: %v", err)
		}
		// A user whose link insert fails is not stored either.
		bad := dirUser("acme", "dave@acme.test")
		badLink := dirLink(bad, "hash-1", dirNow.Add(time.Hour))
		if err := ds.CreateUser(ctx, bad, &badLink); err == nil {
			t.Fatal("duplicate token hash accepted")
		}
		if _, err := ds.UserByEmail(ctx, "dave@acme.test"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("half-created user: %v", err)
		}

		// Replacing deletes the earlier link; the issuer sees the current
		// row and can veto, which leaves the earlier link in place.
		acme := auth.Visibility{OrganizationID: "acme"}
		veto := errs.Forbiddenf("nope", "vetoed")
		if err := ds.ReplacePasswordLink(ctx, acme, "carol@acme.test", func(identity.User) (identity.SetPasswordLink, error) {
			return identity.SetPasswordLink{}, veto
		}); !errors.Is(err, veto) {
			t.Fatalf("veto: %v", err)
		}
		if _, _, err := ds.PasswordLink(ctx, "hash-1"); err != nil {
			t.Fatalf("a vetoed replacement removed the link: %v", err)
		}
		second := dirLink(carol, "hash-2", dirNow.Add(80*time.Hour))
		if err := ds.ReplacePasswordLink(ctx, acme, "carol@acme.test", issueLink(t, carol, second)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ds.PasswordLink(ctx, "hash-1"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("replaced link still there: %v", err)
		}
		if _, ok, err := ds.ConsumePasswordLink(ctx, "hash-1", dirNow, dirNow, "$argon2id$x"); ok || err != nil {
			t.Fatalf("consumed a replaced link: %v %v", ok, err)
		}
		for _, c := range []struct {
			vis   auth.Visibility
			email string
		}{{acme, "nobody@acme.test"}, {auth.Visibility{OrganizationID: "beta"}, "carol@acme.test"}} {
			if err := ds.ReplacePasswordLink(ctx, c.vis, c.email, func(identity.User) (identity.SetPasswordLink, error) {
				t.Fatal("issued for an unknown or invisible user")
				return identity.SetPasswordLink{}, nil
			}); !errs.Is(err, errs.NotFound) {
				t.Fatalf("link for %s seen by %+v: %v", c.email, c.vis, err)
			}
		}

		// Expiry is exclusive: at ExpiresAt the link is dead.
		if _, ok, err := ds.ConsumePasswordLink(ctx, "hash-2", second.ExpiresAt, dirNow, "$argon2id$x"); ok || err != nil {
			t.Fatalf("consumed at expiry: %v %v", ok, err)
		}
		// The link is used on the security clock, the user record changes
		// on the platform clock.
		at, updatedAt := second.ExpiresAt.Add(-time.Microsecond), dirNow.Add(time.Minute)
		u, ok, err := ds.ConsumePasswordLink(ctx, "hash-2", at, updatedAt, "$argon2id$set")
		if err != nil || !ok || u.Status != identity.UserActive || u.PasswordHash != "$argon2id$set" || !u.UpdatedAt.Equal(updatedAt) {
			t.Fatalf("consume: %+v %v %v", u, ok, err)
		}
		if stored, err := ds.UserByEmail(ctx, "carol@acme.test"); err != nil || !stored.UpdatedAt.Equal(updatedAt) {
			t.Fatalf("stored user %+v %v", stored, err)
		}
		if _, ok, err := ds.ConsumePasswordLink(ctx, "hash-2", at, updatedAt, "$argon2id$again"); ok || err != nil {
			t.Fatalf("consumed twice: %v %v", ok, err)
		}
		l, _, _ = ds.PasswordLink(ctx, "hash-2")
		if l.UsedAt == nil || !l.UsedAt.Equal(at) {
			t.Fatalf("used_at %v", l.UsedAt)
		}
		if u, _ := ds.UserByID(ctx, carol.ID); u.PasswordHash != "$argon2id$set" {
			t.Fatalf("second consumption changed the hash: %q", u.PasswordHash)
		}

		// Deleting the user deletes its links.
		third := dirLink(carol, "hash-3", dirNow.Add(time.Hour))
		if err := ds.ReplacePasswordLink(ctx, auth.Visibility{All: true}, "carol@acme.test", issueLink(t, carol, third)); err != nil {
			t.Fatal(err)
		}
		if err := ds.DeleteUser(ctx, auth.Visibility{OrganizationID: "acme"}, "carol@acme.test", allow); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ds.PasswordLink(ctx, "hash-3"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("link outlived its user: %v", err)
		}
	})
}

func TestDirectoryStoreConcurrentConsumption(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		ds := b.Directory()
		dirOrgs(t, ds, "acme")
		carol := dirUser("acme", "carol@acme.test")
		link := dirLink(carol, "hash-race", dirNow.Add(time.Hour))
		if err := ds.CreateUser(ctx, carol, &link); err != nil {
			t.Fatal(err)
		}
		const n = 16
		wins := make([]bool, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, ok, err := ds.ConsumePasswordLink(ctx, "hash-race", dirNow, dirNow, "$argon2id$"+string(rune('a'+i)))
				if err != nil {
					t.Error(err)
				}
				wins[i] = ok
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, ok := range wins {
			if ok {
				if winner >= 0 {
					t.Fatalf("consumed more than once: %v", wins)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatal("nobody consumed the link")
		}
		if u, _ := ds.UserByID(ctx, carol.ID); u.PasswordHash != "$argon2id$"+string(rune('a'+winner)) {
			t.Fatalf("hash %q is not the winner's", u.PasswordHash)
		}
	})
}

func TestDirectoryStoreConcurrentCreate(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		ds := b.Directory()
		dirOrgs(t, ds, "acme", "beta")
		const n = 12
		results := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				org := []string{"acme", "beta"}[i%2]
				u := dirUser(org, "same@example.com")
				l := dirLink(u, uuid.NewString(), dirNow.Add(time.Hour))
				<-start
				results[i] = ds.CreateUser(ctx, u, &l)
			}()
		}
		close(start)
		wg.Wait()
		created := 0
		for _, err := range results {
			switch {
			case err == nil:
				created++
			case dirCode(err) != identity.CodeUserExists:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if created != 1 {
			t.Fatalf("%d users created for one e-mail address", created)
		}
	})
}
