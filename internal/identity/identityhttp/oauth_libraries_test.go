package identityhttp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// The tests here drive the server with the standard Go client libraries,
// golang.org/x/oauth2 and github.com/coreos/go-oidc, as third-party
// clients do.

// tokenCall is one request a client library made to the token endpoint.
type tokenCall struct {
	basic  bool // client authentication in the Authorization header
	status int
}

// tokenCalls records the token endpoint requests that pass through it.
type tokenCalls struct {
	next http.RoundTripper

	mu    sync.Mutex
	calls []tokenCall
}

func (r *tokenCalls) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil && strings.HasSuffix(req.URL.Path, "/oauth2/token") {
		r.mu.Lock()
		r.calls = append(r.calls, tokenCall{basic: req.Header.Get("Authorization") != "", status: resp.StatusCode})
		r.mu.Unlock()
	}
	return resp, err
}

// take returns the calls recorded since the last take.
func (r *tokenCalls) take() []tokenCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

// expectAutoDetect checks that the library presented the public client as
// AuthStyleAutoDetect does when it knows nothing of the server yet: HTTP
// Basic with an empty secret first (refused before any code or refresh
// token is looked at), then client_id in the body.
func expectAutoDetect(t *testing.T, calls []tokenCall) {
	t.Helper()
	want := []tokenCall{{basic: true, status: http.StatusUnauthorized}, {basic: false, status: http.StatusOK}}
	if len(calls) != len(want) || calls[0] != want[0] || calls[1] != want[1] {
		t.Fatalf("token endpoint calls %+v, want %+v", calls, want)
	}
}

// newLibraryClient returns an HTTP client for the libraries that records
// their token requests, and a context carrying it.
func newLibraryClient(h *testkit.Harness) (*http.Client, *tokenCalls, context.Context) {
	rec := &tokenCalls{next: h.HTTP.Client().Transport}
	client := &http.Client{Transport: rec}
	return client, rec, oidc.ClientContext(context.Background(), client)
}

// TestGoOIDCVerifiesTokensWhilePlatformTimeRuns: the tokens of a person
// signed in with x/oauth2 verify with go-oidc, through the discovery
// document and the JWKS, at the security time, and keep verifying, and
// working on the API, while the platform clock runs a day at 600 times
// real speed (144 real seconds); they expire 3600 s of security time
// after they were issued.
func TestGoOIDCVerifiesTokensWhilePlatformTimeRuns(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		e.person(t, auth.AssetRead, auth.ClientsRead)
		client, _, ctx := newLibraryClient(h)
		provider, err := oidc.NewProvider(ctx, h.URL)
		if err != nil {
			t.Fatal(err)
		}
		console := &oauth2.Config{ClientID: identity.ConsoleClientID, Endpoint: provider.Endpoint(),
			Scopes: []string{oidc.ScopeOpenID, "clients.read"}}
		tok, nonce := testkit.SignInWithOAuth2(t, ctx, client, console, signInEmail, signInPassword)
		rawID, _ := tok.Extra("id_token").(string)
		if tok.ExpiresIn != 3600 || rawID == "" {
			t.Fatalf("token response: expires_in %d, id_token %q", tok.ExpiresIn, rawID)
		}

		idVerifier := provider.Verifier(&oidc.Config{ClientID: identity.ConsoleClientID, Now: h.Security.Now})
		accessVerifier := provider.Verifier(&oidc.Config{ClientID: auth.Audience, Now: h.Security.Now})
		inForce := func(when string) {
			t.Helper()
			id, err := idVerifier.Verify(ctx, rawID)
			if err != nil {
				t.Fatalf("%s: ID token: %v", when, err)
			}
			if id.Nonce != nonce || !id.IssuedAt.Equal(testkit.SecurityStart) || !id.Expiry.Equal(testkit.SecurityStart.Add(time.Hour)) {
				t.Fatalf("%s: ID token issued %v, expires %v, nonce %q", when, id.IssuedAt, id.Expiry, id.Nonce)
			}
			access, err := accessVerifier.Verify(ctx, tok.AccessToken)
			if err != nil {
				t.Fatalf("%s: access token: %v", when, err)
			}
			if access.Subject != id.Subject || !access.Expiry.Equal(id.Expiry) {
				t.Fatalf("%s: access token of %q expires %v", when, access.Subject, access.Expiry)
			}
			h.Do("GET", "/v1/integrations", tok.AccessToken, nil).Expect(t, 200, "")
		}
		inForce("at sign-in")
		h.Clock.Advance(24 * time.Hour)
		h.Security.Advance(144 * time.Second)
		inForce("a platform day later")

		// The API refuses a token from its exp on (RFC 7519), go-oidc after.
		h.Security.Advance(time.Hour - 144*time.Second)
		h.Do("GET", "/v1/integrations", tok.AccessToken, nil).Expect(t, 401, "invalid_token")
		h.Security.Advance(time.Second)
		var expired *oidc.TokenExpiredError
		if _, err := idVerifier.Verify(ctx, rawID); !errors.As(err, &expired) {
			t.Fatalf("ID token after 3600 s: %v", err)
		}
		if _, err := accessVerifier.Verify(ctx, tok.AccessToken); !errors.As(err, &expired) {
			t.Fatalf("access token after 3600 s: %v", err)
		}
	})
}

// TestRefreshWithGoOAuth2: x/oauth2 signs a person in and, in a later run
// of the client (a fresh configuration, after 31 days of platform time at
// 600 times real speed), refreshes with AuthStyleAutoDetect: its probe
// with HTTP Basic is refused without touching the refresh token, and the
// refresh succeeds. Presenting the spent refresh token again revokes the
// session: the newest refresh token stops working too.
func TestRefreshWithGoOAuth2(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		e.person(t, auth.AssetRead, auth.ClientsRead)
		client, rec, ctx := newLibraryClient(h)
		endpoint := oauth2.Endpoint{AuthURL: h.URL + "/oauth2/authorize", TokenURL: h.URL + "/oauth2/token"}
		console := &oauth2.Config{ClientID: identity.ConsoleClientID, Endpoint: endpoint, Scopes: []string{"openid", "clients.read"}}
		first, _ := testkit.SignInWithOAuth2(t, ctx, client, console, signInEmail, signInPassword)
		expectAutoDetect(t, rec.take())
		if first.RefreshToken == "" {
			t.Fatal("no refresh token")
		}

		h.Clock.Advance(31 * 24 * time.Hour)
		h.Security.Advance(75 * time.Minute)
		later := &oauth2.Config{ClientID: identity.ConsoleClientID, Endpoint: endpoint}
		second, err := later.TokenSource(ctx, &oauth2.Token{RefreshToken: first.RefreshToken}).Token()
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
		expectAutoDetect(t, rec.take())
		if second.RefreshToken == "" || second.RefreshToken == first.RefreshToken || second.Extra("id_token") == nil {
			t.Fatalf("refreshed %+v", second)
		}
		h.Do("GET", "/v1/integrations", second.AccessToken, nil).Expect(t, 200, "")

		refreshFails := func(rt, description string) {
			t.Helper()
			_, err := later.TokenSource(ctx, &oauth2.Token{RefreshToken: rt}).Token()
			var refused *oauth2.RetrieveError
			if !errors.As(err, &refused) || refused.ErrorCode != identity.OAuthInvalidGrant || !strings.Contains(refused.ErrorDescription, description) {
				t.Fatalf("refresh answered %v, want invalid_grant %q", err, description)
			}
		}
		refreshFails(first.RefreshToken, "already used; the session is revoked")
		refreshFails(second.RefreshToken, "expired or revoked")
	})
}
