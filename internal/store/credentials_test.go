package store_test

import (
	"context"
	"slices"
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

func TestCredentialStoreReads(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		cs := b.Credentials()
		now := testkit.Start
		scada, first := newIntegration("acme", "scada", now)
		if err := s.CreateIntegration(ctx, scada, first); err != nil {
			t.Fatal(err)
		}
		other, otherSecret := newIntegration("beta", "other", now)
		if err := s.CreateIntegration(ctx, other, otherSecret); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			secretID string
			want     bool
		}{{first.ID, true}, {otherSecret.ID, false}, {"", false}, {uuid.NewString(), false}} {
			in, found, err := cs.IntegrationCredential(ctx, scada.ID, c.secretID)
			if err != nil || found != c.want || in.OrganizationID != "acme" || in.Scopes.String() != "asset.read market.write" {
				t.Fatalf("secret %q: %+v %v %v, want found=%v", c.secretID, in, found, err, c.want)
			}
		}
		if _, _, err := cs.IntegrationCredential(ctx, uuid.NewString(), first.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown integration: %v", err)
		}

		ds := b.Directory()
		carol := dirUser("acme", "carol@acme.test", auth.AssetRead, auth.UsersRead)
		if err := ds.CreateUser(ctx, carol, nil); err != nil {
			t.Fatal(err)
		}
		g, code := newGrant(now)
		g.UserID = carol.ID
		if err := s.CreateAuthorization(ctx, g, code, now.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		foreign, foreignCode := newGrant(now) // another person's sign-in
		if err := s.CreateAuthorization(ctx, foreign, foreignCode, now.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			grantID string
			want    bool
		}{{g.ID, true}, {foreign.ID, false}, {"", false}, {uuid.NewString(), false}} {
			u, live, err := cs.UserCredential(ctx, carol.ID, c.grantID)
			if err != nil || live != c.want || u.OrganizationID != "acme" || u.Status != identity.UserInvited ||
				u.Scopes.String() != "asset.read users.read" || !u.Enabled {
				t.Fatalf("grant %q: %+v %v %v, want live=%v", c.grantID, u, live, err, c.want)
			}
		}
		if err := s.RevokeGrant(ctx, g.ID, now); err != nil {
			t.Fatal(err)
		}
		if _, live, err := cs.UserCredential(ctx, carol.ID, g.ID); live || err != nil {
			t.Fatalf("revoked grant: %v %v", live, err)
		}
		if _, _, err := cs.UserCredential(ctx, uuid.NewString(), g.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown user: %v", err)
		}
	})
}

// announcements records what a credential feed delivers.
type announcements struct {
	mu       sync.Mutex
	subjects []string
}

func (a *announcements) add(subject string) {
	a.mu.Lock()
	a.subjects = append(a.subjects, subject)
	a.mu.Unlock()
}

func (a *announcements) has(subject string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.subjects, subject)
}

// watch follows b's credential feed until the test ends and returns once
// it is connected.
func watch(t *testing.T, b store.Backend) *announcements {
	t.Helper()
	a := &announcements{}
	ctx, cancel := context.WithCancel(context.Background())
	connected := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Credentials().WatchCredentialChanges(ctx, func() {
			select {
			case connected <- struct{}{}:
			default:
			}
		}, a.add, func() {})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-connected:
	case <-time.After(5 * time.Second):
		t.Fatal("the credential feed did not connect")
	}
	return a
}

// TestCredentialChangesAreAnnounced: every change that can end a token
// announces its subject to this instance before the call returns; changes
// that end none, and refused changes, announce nothing.
func TestCredentialChangesAreAnnounced(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		ds := b.Directory()
		seen := watch(t, b)
		now := testkit.Start
		announced := func(what, subject string) {
			t.Helper()
			if !seen.has(subject) {
				t.Fatalf("%s: %s not announced", what, subject)
			}
		}

		scada, first := newIntegration("acme", "scada", now)
		if err := s.CreateIntegration(ctx, scada, first); err != nil {
			t.Fatal(err)
		}
		second := newSecret(scada.ID, now)
		if err := s.AddSecret(ctx, acmeOnly, second, identity.AllowAnotherSecret); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSecret(ctx, acmeOnly, scada.ID, first.ID, identity.AllowSecretDeletion); err != nil {
			t.Fatal(err)
		}
		announced("delete secret", scada.ID)

		doomed, doomedSecret := newIntegration("acme", "doomed", now)
		if err := s.CreateIntegration(ctx, doomed, doomedSecret); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteIntegration(ctx, acmeOnly, doomed.ID); err != nil {
			t.Fatal(err)
		}
		announced("delete integration", doomed.ID)

		fixed, fixedSecret := newIntegration("acme", "bootstrap", now)
		fixed.ID = "fixed-bootstrap-id"
		if created, err := s.EnsureIntegration(ctx, fixed, fixedSecret); err != nil || !created {
			t.Fatalf("ensure: %v %v", created, err)
		}
		announced("ensure a new integration", fixed.ID)

		carol := dirUser("acme", "carol@acme.test", auth.AssetRead)
		link := dirLink(carol, "hash-carol", now.Add(time.Hour))
		if err := ds.CreateUser(ctx, carol, &link); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := ds.ConsumePasswordLink(ctx, "hash-carol", now, now, "argon2-hash"); err != nil || !ok {
			t.Fatalf("consume: %v %v", ok, err)
		}
		announced("activate a user", carol.ID)

		dave := dirUser("acme", "dave@acme.test", auth.AssetRead)
		if err := ds.CreateUser(ctx, dave, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ds.UpdateUserScopes(ctx, acmeOnly, dave.Email, now, func(identity.User) (auth.ScopeSet, error) {
			return auth.NewScopeSet(auth.MarketRead), nil
		}); err != nil {
			t.Fatal(err)
		}
		announced("change scopes", dave.ID)

		g, code := newGrant(now)
		g.UserID = uuid.NewString()
		if err := s.CreateAuthorization(ctx, g, code, now.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeGrant(ctx, g.ID, now); err != nil {
			t.Fatal(err)
		}
		announced("revoke a sign-in", g.UserID)

		erin := dirUser("acme", "erin@acme.test")
		if err := ds.CreateUser(ctx, erin, nil); err != nil {
			t.Fatal(err)
		}
		if err := ds.DeleteUser(ctx, acmeOnly, erin.Email, func(identity.User) error { return nil }); err != nil {
			t.Fatal(err)
		}
		announced("delete user", erin.ID)

		// Nothing that could end a token: no announcement.
		if created, err := s.EnsureIntegration(ctx, fixed, newSecret(fixed.ID, now)); err != nil || created {
			t.Fatalf("ensure again: %v %v", created, err)
		}
		single, singleSecret := newIntegration("beta", "single", now)
		if err := s.CreateIntegration(ctx, single, singleSecret); err != nil {
			t.Fatal(err)
		}
		wantKind(t, s.DeleteSecret(ctx, betaOnly, single.ID, singleSecret.ID, identity.AllowSecretDeletion), errs.Conflict, identity.CodeLastSecret)
		wantKind(t, s.DeleteIntegration(ctx, acmeOnly, single.ID), errs.NotFound, "")
		frank := dirUser("beta", "frank@beta.test", auth.AssetRead)
		if err := ds.CreateUser(ctx, frank, nil); err != nil {
			t.Fatal(err)
		}
		refused := errs.Forbiddenf("no", "refused")
		if _, _, err := ds.UpdateUserScopes(ctx, betaOnly, frank.Email, now, func(identity.User) (auth.ScopeSet, error) {
			return nil, refused
		}); err != refused {
			t.Fatalf("refused scope change: %v", err)
		}
		wantKind(t, ds.DeleteUser(ctx, acmeOnly, frank.Email, func(identity.User) error { return nil }), errs.NotFound, "")
		time.Sleep(200 * time.Millisecond) // a PostgreSQL notification would have arrived
		for _, subject := range []string{single.ID, frank.ID} {
			if seen.has(subject) {
				t.Fatalf("%s announced without a change", subject)
			}
		}
	})
}

// TestCredentialChangesReachOtherInstances: two instances on one
// PostgreSQL database; a change committed through one is announced to the
// other.
func TestCredentialChangesReachOtherInstances(t *testing.T) {
	if testkit.PostgresURL() == "" {
		t.Skip("needs ATCP_TEST_DATABASE_URL: the feed between instances is PostgreSQL's")
	}
	ctx := context.Background()
	instances := testkit.OpenPostgresInstances(t, 2)
	one, two := instances[0], instances[1]
	s := clientsFixture(t, one)
	seen := watch(t, two)
	in, secret := newIntegration("acme", "scada", testkit.Start)
	if err := s.CreateIntegration(ctx, in, secret); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteIntegration(ctx, acmeOnly, in.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for !seen.has(in.ID) {
		if time.Now().After(deadline) {
			t.Fatal("the deletion did not reach the other instance within a second")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
