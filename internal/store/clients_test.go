package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var (
	acmeOnly = auth.Visibility{OrganizationID: "acme"}
	betaOnly = auth.Visibility{OrganizationID: "beta"}
	everyOrg = auth.Visibility{All: true, OrganizationID: auth.PlatformOrganization}
)

// clientsFixture creates the organisations acme and beta.
func clientsFixture(t *testing.T, b store.Backend) identity.ClientStore {
	t.Helper()
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	return b.Clients()
}

func newIntegration(org, name string, at time.Time) (identity.Integration, identity.StoredSecret) {
	in := identity.Integration{ID: uuid.NewString(), OrganizationID: org, Name: name,
		Scopes: auth.NewScopeSet(auth.AssetRead, auth.MarketWrite), CreatedAt: at}
	return in, newSecret(in.ID, at)
}

func newSecret(integrationID string, at time.Time) identity.StoredSecret {
	return identity.StoredSecret{SecretInfo: identity.SecretInfo{ID: uuid.NewString(), IntegrationID: integrationID, CreatedAt: at},
		Hash: "hash-" + uuid.NewString()}
}

func wantKind(t *testing.T, err error, kind errs.Kind, code errs.Code) {
	t.Helper()
	var de *errs.Error
	if !errors.As(err, &de) || de.Kind != kind || (code != "" && de.Code != code) {
		t.Fatalf("error %v, want kind %d code %q", err, kind, code)
	}
}

func TestIntegrationStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		at := testkit.Start.Add(123456 * time.Microsecond)
		scada, first := newIntegration("acme", "scada", at)
		if err := s.CreateIntegration(ctx, scada, first); err != nil {
			t.Fatal(err)
		}
		dup, dupSecret := newIntegration("acme", "scada", at)
		wantKind(t, s.CreateIntegration(ctx, dup, dupSecret), errs.Conflict, identity.CodeIntegrationExists)
		betaScada, betaSecret := newIntegration("beta", "scada", at.Add(time.Second))
		if err := s.CreateIntegration(ctx, betaScada, betaSecret); err != nil {
			t.Fatalf("the same name in another organisation: %v", err)
		}
		ghost, ghostSecret := newIntegration("nowhere", "x", at)
		if err := s.CreateIntegration(ctx, ghost, ghostSecret); !errors.Is(err, identity.ErrUnknownOrganization) {
			t.Fatalf("unknown organisation: %v", err)
		}

		got, err := s.Integration(ctx, acmeOnly, scada.ID)
		if err != nil || got.Name != "scada" || got.OrganizationID != "acme" || !got.CreatedAt.Equal(at) ||
			got.Scopes.String() != "asset.read market.write" {
			t.Fatalf("integration %+v, %v", got, err)
		}
		if _, err := s.Integration(ctx, betaOnly, scada.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta sees acme's integration: %v", err)
		}
		for vis, want := range map[auth.Visibility]int{acmeOnly: 1, betaOnly: 1, everyOrg: 2} {
			list, err := s.Integrations(ctx, vis)
			if err != nil || len(list) != want {
				t.Fatalf("%+v lists %d (%v), want %d", vis, len(list), err, want)
			}
		}

		secrets, err := s.Secrets(ctx, acmeOnly, scada.ID)
		if err != nil || len(secrets) != 1 || secrets[0].ID != first.ID || !secrets[0].CreatedAt.Equal(at) {
			t.Fatalf("secrets %+v, %v", secrets, err)
		}
		if _, err := s.Secrets(ctx, betaOnly, scada.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta lists acme's secrets: %v", err)
		}
		wantKind(t, s.DeleteSecret(ctx, acmeOnly, scada.ID, first.ID, identity.AllowSecretDeletion), errs.Conflict, identity.CodeLastSecret)
		wantKind(t, s.AddSecret(ctx, betaOnly, newSecret(scada.ID, at), identity.AllowAnotherSecret), errs.NotFound, "")
		second := newSecret(scada.ID, at.Add(time.Minute))
		if err := s.AddSecret(ctx, acmeOnly, second, identity.AllowAnotherSecret); err != nil {
			t.Fatal(err)
		}
		wantKind(t, s.AddSecret(ctx, acmeOnly, newSecret(scada.ID, at), identity.AllowAnotherSecret), errs.Conflict, identity.CodeSecretLimitReached)
		in, stored, err := s.ClientSecrets(ctx, scada.ID)
		if err != nil || in.OrganizationID != "acme" || len(stored) != 2 {
			t.Fatalf("client secrets %+v %v %v", in, stored, err)
		}
		if stored[0].ID != first.ID || stored[0].Hash != first.Hash || !stored[0].CreatedAt.Equal(first.CreatedAt) ||
			stored[1].ID != second.ID || stored[1].IntegrationID != scada.ID {
			t.Fatalf("client secrets, oldest first: %+v; want %s then %s", stored, first.ID, second.ID)
		}
		wantKind(t, s.DeleteSecret(ctx, acmeOnly, scada.ID, uuid.NewString(), identity.AllowSecretDeletion), errs.NotFound, "")
		wantKind(t, s.DeleteSecret(ctx, betaOnly, scada.ID, first.ID, identity.AllowSecretDeletion), errs.NotFound, "")
		wantKind(t, s.DeleteSecret(ctx, acmeOnly, betaScada.ID, betaSecret.ID, identity.AllowSecretDeletion), errs.NotFound, "")
		if err := s.DeleteSecret(ctx, acmeOnly, scada.ID, first.ID, identity.AllowSecretDeletion); err != nil {
			t.Fatal(err)
		}
		if secrets, _ := s.Secrets(ctx, acmeOnly, scada.ID); len(secrets) != 1 || secrets[0].ID != second.ID {
			t.Fatalf("after deleting the first secret: %+v", secrets)
		}

		wantKind(t, s.DeleteIntegration(ctx, betaOnly, scada.ID), errs.NotFound, "")
		if err := s.DeleteIntegration(ctx, everyOrg, scada.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ClientSecrets(ctx, scada.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted integration still authenticates: %v", err)
		}
		wantKind(t, s.DeleteIntegration(ctx, everyOrg, scada.ID), errs.NotFound, "")
		// The name is free again.
		again, againSecret := newIntegration("acme", "scada", at)
		if err := s.CreateIntegration(ctx, again, againSecret); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEnsureIntegrationKeepsExisting(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		in, first := newIntegration("acme", "bootstrap", testkit.Start)
		in.ID = "bootstrap-client"
		first.IntegrationID = in.ID
		created, err := s.EnsureIntegration(ctx, in, first)
		if err != nil || !created {
			t.Fatalf("first ensure: %v %v", created, err)
		}
		changed := in
		changed.Name = "renamed"
		created, err = s.EnsureIntegration(ctx, changed, newSecret(in.ID, testkit.Start))
		if err != nil || created {
			t.Fatalf("second ensure: %v %v", created, err)
		}
		got, _, err := s.ClientSecrets(ctx, in.ID)
		if err != nil || got.Name != "bootstrap" {
			t.Fatalf("existing integration changed: %+v %v", got, err)
		}
		if secrets, _ := s.Secrets(ctx, everyOrg, in.ID); len(secrets) != 1 {
			t.Fatalf("ensure added a secret: %+v", secrets)
		}
	})
}

// TestSecretLimitUnderConcurrency: sixteen concurrent additions to an
// integration holding one secret; exactly one may succeed.
func TestSecretLimitUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		in, first := newIntegration("acme", "racer", testkit.Start)
		if err := s.CreateIntegration(ctx, in, first); err != nil {
			t.Fatal(err)
		}
		var ok, limited atomic.Int32
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				err := s.AddSecret(ctx, acmeOnly, newSecret(in.ID, testkit.Start), identity.AllowAnotherSecret)
				switch {
				case err == nil:
					ok.Add(1)
				case errs.Is(err, errs.Conflict):
					limited.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		secrets, err := s.Secrets(ctx, acmeOnly, in.ID)
		if ok.Load() != 1 || limited.Load() != 15 || err != nil || len(secrets) != 2 {
			t.Fatalf("%d succeeded, %d limited, %d secrets (%v)", ok.Load(), limited.Load(), len(secrets), err)
		}
	})
}

func newGrant(now time.Time) (identity.Grant, identity.AuthorizationCode) {
	g := identity.Grant{ID: uuid.NewString(), OrganizationID: "acme", UserID: uuid.NewString(), ClientID: identity.ConsoleClientID,
		Scope: auth.NewScopeSet(auth.AssetRead), Nonce: "n-0S6", AuthTime: now, CreatedAt: now}
	c := identity.AuthorizationCode{Hash: auth.LookupHash(uuid.NewString()), GrantID: g.ID, RedirectURI: "http://127.0.0.1:5173/cb",
		CodeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", ExpiresAt: now.Add(identity.AuthorizationCodeTTL)}
	return g, c
}

func newRefresh(grantID string, now time.Time) identity.RefreshToken {
	return identity.RefreshToken{Hash: auth.LookupHash(uuid.NewString()), GrantID: grantID, CreatedAt: now, ExpiresAt: now.Add(identity.RefreshTokenTTL)}
}

func TestAuthorizationGrantStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		now := testkit.Start.Add(789 * time.Microsecond)
		g, c := newGrant(now)
		if err := s.CreateAuthorization(ctx, g, c, now.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		gotGrant, gotCode, err := s.ConsumeCode(ctx, c.Hash, now)
		if err != nil || gotCode.UsedAt != nil || gotCode.RedirectURI != c.RedirectURI || gotCode.CodeChallenge != c.CodeChallenge ||
			!gotCode.ExpiresAt.Equal(c.ExpiresAt) || gotGrant.UserID != g.UserID || gotGrant.Nonce != "n-0S6" ||
			!gotGrant.AuthTime.Equal(now) || gotGrant.Scope.String() != "asset.read" || gotGrant.RevokedAt != nil {
			t.Fatalf("first use: %+v %+v %v", gotGrant, gotCode, err)
		}
		if _, gotCode, err = s.ConsumeCode(ctx, c.Hash, now.Add(time.Second)); err != nil || gotCode.UsedAt == nil || !gotCode.UsedAt.Equal(now) {
			t.Fatalf("second use must report the first: %+v %v", gotCode, err)
		}
		if _, _, err := s.ConsumeCode(ctx, auth.LookupHash("unknown"), now); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown code: %v", err)
		}

		first := newRefresh(g.ID, now)
		if err := s.AddRefreshToken(ctx, first); err != nil {
			t.Fatal(err)
		}
		if err := s.AddRefreshToken(ctx, newRefresh(uuid.NewString(), now)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("refresh token of an unknown grant: %v", err)
		}
		second := newRefresh("", now.Add(time.Minute))
		gotGrant, old, rotated, err := s.RotateRefreshToken(ctx, first.Hash, now.Add(time.Minute), second)
		if err != nil || !rotated || old.UsedAt != nil || gotGrant.ID != g.ID {
			t.Fatalf("rotate: %+v %+v %v %v", gotGrant, old, rotated, err)
		}
		_, old, rotated, err = s.RotateRefreshToken(ctx, first.Hash, now.Add(2*time.Minute), newRefresh("", now))
		if err != nil || rotated || old.UsedAt == nil {
			t.Fatalf("reuse must not rotate: %+v %v %v", old, rotated, err)
		}
		if err := s.RevokeGrant(ctx, g.ID, now.Add(3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeGrant(ctx, g.ID, now.Add(4*time.Minute)); err != nil {
			t.Fatalf("second revocation: %v", err)
		}
		gotGrant, _, rotated, err = s.RotateRefreshToken(ctx, second.Hash, now.Add(5*time.Minute), newRefresh("", now))
		if err != nil || rotated || gotGrant.RevokedAt == nil || !gotGrant.RevokedAt.Equal(now.Add(3*time.Minute)) {
			t.Fatalf("revoked grant rotated: %+v %v %v", gotGrant, rotated, err)
		}
		if _, _, _, err := s.RotateRefreshToken(ctx, auth.LookupHash("unknown"), now, newRefresh("", now)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown refresh token: %v", err)
		}
	})
}

func TestRefreshTokenExpiryAndPurge(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		now := testkit.Start
		g, c := newGrant(now)
		if err := s.CreateAuthorization(ctx, g, c, now.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		tok := newRefresh(g.ID, now)
		if err := s.AddRefreshToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		_, _, rotated, err := s.RotateRefreshToken(ctx, tok.Hash, tok.ExpiresAt, newRefresh("", now))
		if err != nil || rotated {
			t.Fatalf("expired token rotated: %v %v", rotated, err)
		}
		// A grant without refresh tokens (an abandoned sign-in) is purged
		// after the retention period; one with a live token is kept until
		// the token has expired.
		abandoned, abandonedCode := newGrant(now)
		if err := s.CreateAuthorization(ctx, abandoned, abandonedCode, now.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		later := now.Add(identity.GrantRetention + time.Hour)
		g2, c2 := newGrant(later)
		if err := s.CreateAuthorization(ctx, g2, c2, later.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ConsumeCode(ctx, abandonedCode.Hash, later); !errs.Is(err, errs.NotFound) {
			t.Fatalf("abandoned grant not purged: %v", err)
		}
		if _, _, err := s.ConsumeCode(ctx, c.Hash, later); err != nil {
			t.Fatalf("grant with a live refresh token purged: %v", err)
		}
		muchLater := tok.ExpiresAt.Add(identity.GrantRetention + time.Hour)
		g3, c3 := newGrant(muchLater)
		if err := s.CreateAuthorization(ctx, g3, c3, muchLater.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ConsumeCode(ctx, c.Hash, muchLater); !errs.Is(err, errs.NotFound) {
			t.Fatalf("grant whose tokens all expired not purged: %v", err)
		}
	})
}

// TestRefreshRotationUnderConcurrency: of several concurrent rotations of
// one refresh token exactly one rotates; the others see it used.
func TestRefreshRotationUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		now := testkit.Start
		g, c := newGrant(now)
		if err := s.CreateAuthorization(ctx, g, c, now.Add(-identity.GrantRetention)); err != nil {
			t.Fatal(err)
		}
		tok := newRefresh(g.ID, now)
		if err := s.AddRefreshToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		var rotations, reuses atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				_, old, rotated, err := s.RotateRefreshToken(ctx, tok.Hash, now.Add(time.Second), newRefresh("", now))
				switch {
				case err != nil:
					t.Error(err)
				case rotated:
					rotations.Add(1)
				case old.UsedAt != nil:
					reuses.Add(1)
				}
			})
		}
		wg.Wait()
		if rotations.Load() != 1 || reuses.Load() != 7 {
			t.Fatalf("%d rotations, %d reuses", rotations.Load(), reuses.Load())
		}
	})
}

// The secret rules are the domain's: the store gives them the number of
// secrets held, in the transaction, and stores nothing when they refuse.
func TestSecretRulesRunInTheTransaction(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := clientsFixture(t, b)
		in, first := newIntegration("acme", "scada", testkit.Start)
		if err := s.CreateIntegration(ctx, in, first); err != nil {
			t.Fatal(err)
		}
		refused := errs.Conflictf("refused", "refused")
		var held []int
		refuse := func(n int) error { held = append(held, n); return refused }
		if err := s.AddSecret(ctx, acmeOnly, newSecret(in.ID, testkit.Start), refuse); err != error(refused) {
			t.Fatalf("add secret: %v", err)
		}
		second := newSecret(in.ID, testkit.Start)
		if err := s.AddSecret(ctx, acmeOnly, second, func(int) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSecret(ctx, acmeOnly, in.ID, first.ID, refuse); err != error(refused) {
			t.Fatalf("delete secret: %v", err)
		}
		if secrets, err := s.Secrets(ctx, acmeOnly, in.ID); err != nil || len(secrets) != 2 {
			t.Fatalf("secrets %+v, %v", secrets, err)
		}
		if !slices.Equal(held, []int{1, 2}) {
			t.Fatalf("the rules saw %v secrets held, want [1 2]", held)
		}
	})
}
