package identityhttp_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/identity/identityhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// outage stands in for a database that stopped answering.
type outage struct{ down atomic.Bool }

func (o *outage) err() error {
	if o.down.Load() {
		return errs.E(errs.Unavailable, errs.CodeStoreUnavailable, "database unreachable")
	}
	return nil
}

// flakyClients is the backend's ClientStore, unreachable during an outage
// for the calls of the token endpoint.
type flakyClients struct {
	identity.ClientStore
	o *outage
}

func (s flakyClients) ClientSecrets(ctx context.Context, id string) (identity.Integration, []identity.StoredSecret, error) {
	if err := s.o.err(); err != nil {
		return identity.Integration{}, nil, err
	}
	return s.ClientStore.ClientSecrets(ctx, id)
}

func (s flakyClients) ConsumeCode(ctx context.Context, hash string, now time.Time) (identity.Grant, identity.AuthorizationCode, error) {
	if err := s.o.err(); err != nil {
		return identity.Grant{}, identity.AuthorizationCode{}, err
	}
	return s.ClientStore.ConsumeCode(ctx, hash, now)
}

func (s flakyClients) RotateRefreshToken(ctx context.Context, old string, now time.Time, next identity.RefreshToken) (identity.Grant, identity.RefreshToken, bool, error) {
	if err := s.o.err(); err != nil {
		return identity.Grant{}, identity.RefreshToken{}, false, err
	}
	return s.ClientStore.RotateRefreshToken(ctx, old, now, next)
}

// flakyDirectory is the backend's DirectoryStore, unreachable during an
// outage for sign-in and the set-password page.
type flakyDirectory struct {
	identity.DirectoryStore
	o *outage
}

func (s flakyDirectory) UserByEmail(ctx context.Context, email string) (identity.User, error) {
	if err := s.o.err(); err != nil {
		return identity.User{}, err
	}
	return s.DirectoryStore.UserByEmail(ctx, email)
}

func (s flakyDirectory) PasswordLink(ctx context.Context, hash string) (identity.SetPasswordLink, identity.User, error) {
	if err := s.o.err(); err != nil {
		return identity.SetPasswordLink{}, identity.User{}, err
	}
	return s.DirectoryStore.PasswordLink(ctx, hash)
}

// newGuardedEnv is a clientsEnv (plus the directory's pages) whose OAuth
// provider checks credentials with hasher and reaches the store through
// an outage the test controls.
func newGuardedEnv(t *testing.T, b store.Backend, hasher *auth.Hasher) (*clientsEnv, *outage) {
	t.Helper()
	h := testkit.NewHarness(t, b)
	o := &outage{}
	dir := flakyDirectory{b.Directory(), o}
	e := &clientsEnv{h: h, dir: identity.NewDirectory(dir, h.Clock, h.URL), clients: identity.NewClients(b.Clients(), h.Clock)}
	e.dir.SetSecurityClock(h.Security)
	for _, org := range []string{auth.PlatformOrganization, "acme", "beta"} {
		if err := e.dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	identityhttp.RegisterClients(h.Server, e.clients)
	identityhttp.RegisterDirectory(h.Server, e.dir)
	identityhttp.RegisterOAuth(h.Server, identity.NewOAuth(flakyClients{b.Clients(), o}, dir, h.Tokens, hasher, h.Security))
	return e, o
}

// patientHasher waits as long as it takes for a slot, for tests that race
// many hashing requests to check a store invariant, not the Hasher.
func patientHasher() *auth.Hasher {
	return auth.NewHasher(semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0))), time.Minute)
}

func expectRetryAfter(t *testing.T, r *testkit.Response, seconds int) {
	t.Helper()
	if got := r.Header.Get("Retry-After"); got != strconv.Itoa(seconds) {
		t.Fatalf("Retry-After %q, want %d", got, seconds)
	}
}

// TestGeneratedSecretsNameTheirID: secrets from the API carry their own
// secret id, which lets the token endpoint verify exactly one hash.
func TestGeneratedSecretsNameTheirID(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		manager := e.integrationManager()
		id, first := e.createIntegration(t, manager, "ems", "asset.read")
		var added map[string]any
		e.h.Do("POST", "/v1/integrations/"+id+"/secrets", manager, nil).Expect(t, 201, "").JSON(t, &added)
		var listed []map[string]any
		e.h.Do("GET", "/v1/integrations/"+id+"/secrets", manager, nil).Expect(t, 200, "").JSON(t, &listed)
		shape := regexp.MustCompile(`^atcp_([0-9a-f-]{36})_[A-Za-z0-9_-]{43}$`)
		for _, v := range []string{first, added["secret_value"].(string)} {
			m := shape.FindStringSubmatch(v)
			if m == nil || (m[1] != listed[0]["secret_id"] && m[1] != listed[1]["secret_id"]) {
				t.Fatalf("secret %q does not name one of %v", v, listed)
			}
			expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, v))
		}
		if m := shape.FindStringSubmatch(added["secret_value"].(string)); m[1] != added["secret_id"] {
			t.Fatalf("added secret %v names another id", added)
		}
	})
}

// TestTokenEndpointWhenHashingIsBusy: with every argon2id slot taken, an
// attempt that needs a verification is 503 temporarily_unavailable with
// Retry-After, on the token endpoint and the sign-in page, while a client
// whose secret was verified lately still gets its token.
func TestTokenEndpointWhenHashingIsBusy(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		slots := semaphore.NewWeighted(1)
		e, _ := newGuardedEnv(t, b, auth.NewHasher(slots, 20*time.Millisecond))
		e.person(t, auth.AssetRead)
		id, secret := e.createIntegration(t, e.integrationManager(), "ems", "asset.read")
		form := url.Values{"grant_type": {"client_credentials"}}
		expectTokens(t, e.token(t, form, id, secret))

		if err := slots.Acquire(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		expectTokens(t, e.token(t, form, id, secret))
		r := e.token(t, form, id, "atcp_"+auth.RandomToken(32))
		expectOAuthError(t, r, http.StatusServiceUnavailable, identity.OAuthTemporarilyUnavailable)
		expectRetryAfter(t, r, 1)
		r = e.submitSignIn(t, newPKCEClient().params(""), signInEmail, signInPassword)
		expectPage(t, r, http.StatusServiceUnavailable, "Sign-in is not available at the moment", signInEmail)
		expectRetryAfter(t, r, 1)

		slots.Release(1)
		expectOAuthError(t, e.token(t, form, id, "atcp_"+auth.RandomToken(32)), http.StatusUnauthorized, identity.OAuthInvalidClient)
		e.signIn(t, newPKCEClient(), "", signInEmail, signInPassword)
	})
}

// TestTokenEndpointWhenTheStoreIsDown: a store that cannot be reached is
// 503 temporarily_unavailable with Retry-After for every grant, a 503 page
// for sign-in and the set-password page; once it is back, everything works
// again without a restart.
func TestTokenEndpointWhenTheStoreIsDown(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e, o := newGuardedEnv(t, b, auth.NewCoreHasher())
		e.person(t, auth.AssetRead)
		id, secret := e.createIntegration(t, e.integrationManager(), "ems", "asset.read")
		form := url.Values{"grant_type": {"client_credentials"}}
		signedIn := newPKCEClient()
		refreshToken := expectTokens(t, e.exchange(t, signedIn, e.signIn(t, signedIn, "", signInEmail, signInPassword))).RefreshToken
		p := newPKCEClient()
		code := e.signIn(t, p, "", signInEmail, signInPassword)

		o.down.Store(true)
		for name, r := range map[string]*testkit.Response{
			"client_credentials": e.token(t, form, id, secret),
			"authorization_code": e.exchange(t, p, code),
			"refresh_token":      e.refresh(t, refreshToken, ""),
		} {
			t.Run(name, func(t *testing.T) {
				expectOAuthError(t, r, http.StatusServiceUnavailable, identity.OAuthTemporarilyUnavailable)
				expectRetryAfter(t, r, 5)
			})
		}
		r := e.submitSignIn(t, newPKCEClient().params(""), signInEmail, signInPassword)
		expectPage(t, r, http.StatusServiceUnavailable, "Sign-in is not available at the moment")
		expectRetryAfter(t, r, 5)
		r = e.h.Do("GET", "/set-password?token="+auth.RandomToken(32), "", nil)
		expectPage(t, r, http.StatusServiceUnavailable, "Please try again in a moment")
		expectRetryAfter(t, r, 5)

		o.down.Store(false)
		expectTokens(t, e.token(t, form, id, secret))
		expectTokens(t, e.exchange(t, p, code))
		expectTokens(t, e.refresh(t, refreshToken, ""))
		e.signIn(t, newPKCEClient(), "", signInEmail, signInPassword)
	})
}

// TestTokenEndpointFailureLimits: after a burst of failures a client id
// gets 429 slow_down with Retry-After without a check, except for a
// secret verified lately; failed sign-ins are limited per address alike.
func TestTokenEndpointFailureLimits(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e, _ := newGuardedEnv(t, b, auth.NewCoreHasher())
		e.person(t, auth.AssetRead)
		manager := e.integrationManager()
		id, secret := e.createIntegration(t, manager, "ems", "asset.read")
		var added map[string]any
		e.h.Do("POST", "/v1/integrations/"+id+"/secrets", manager, nil).Expect(t, 201, "").JSON(t, &added)
		unused := added["secret_value"].(string)
		form := url.Values{"grant_type": {"client_credentials"}}
		expectTokens(t, e.token(t, form, id, secret))

		for range identity.ClientFailureBurst {
			expectOAuthError(t, e.token(t, form, id, "atcp_"+auth.RandomToken(32)), http.StatusUnauthorized, identity.OAuthInvalidClient)
		}
		for _, s := range []string{"atcp_" + auth.RandomToken(32), unused} {
			r := e.token(t, form, id, s)
			expectOAuthError(t, r, http.StatusTooManyRequests, identity.OAuthSlowDown)
			expectRetryAfter(t, r, int(identity.ClientFailureEvery/time.Second))
		}
		expectTokens(t, e.token(t, form, id, secret))
		otherID, otherSecret := e.createIntegration(t, manager, "other", "asset.read")
		expectOAuthError(t, e.token(t, form, otherID, "atcp_"+auth.RandomToken(32)), http.StatusUnauthorized, identity.OAuthInvalidClient)
		expectTokens(t, e.token(t, form, otherID, otherSecret))

		e.h.Security.Advance(identity.ClientFailureEvery)
		expectTokens(t, e.token(t, form, id, unused))

		params := newPKCEClient().params("")
		for range identity.SignInFailureBurst {
			expectPage(t, e.submitSignIn(t, params, signInEmail, "wrong password"), http.StatusUnauthorized)
		}
		r := e.submitSignIn(t, params, signInEmail, signInPassword)
		expectPage(t, r, http.StatusTooManyRequests, "Too many failed sign-ins for this email address. Try again in 60 seconds.")
		expectRetryAfter(t, r, int(identity.SignInFailureEvery/time.Second))
		e.h.Security.Advance(identity.SignInFailureEvery)
		e.signIn(t, newPKCEClient(), "", signInEmail, signInPassword)
	})
}
