package identityhttp_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// newCheckedEnv is a clientsEnv whose server checks every token against
// the store, with a real integration manager of acme.
func newCheckedEnv(t *testing.T, b store.Backend) (*clientsEnv, string) {
	t.Helper()
	e := newClientsEnv(t, b, testkit.WithCredentialCheck(t, b))
	const id, secret = "acme-manager", "manager-secret-0123456789"
	if err := e.clients.EnsureIntegration(context.Background(), "acme", id, "manager", secret,
		auth.NewScopeSet(auth.ClientsRead, auth.ClientsWrite, auth.AssetRead)); err != nil {
		t.Fatal(err)
	}
	return e, e.integrationToken(t, id, secret)
}

func (e *clientsEnv) integrationToken(t testing.TB, id, secret string) string {
	t.Helper()
	return expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, secret)).AccessToken
}

// platformAdmin is a caller for direct service calls.
var platformAdmin = &auth.Principal{Subject: "admin", OrganizationID: auth.PlatformOrganization, Scopes: auth.NewScopeSet(auth.AllScopes...)}

// TestIntegrationTokensEndWithTheirCredential: the token of a deleted
// secret stops at once (the other secret's go on), and every token of a
// deleted integration; the sid claim names the secret.
func TestIntegrationTokensEndWithTheirCredential(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e, manager := newCheckedEnv(t, b)
		h := e.h
		id, oldSecret := e.createIntegration(t, manager, "ems", "clients.read")
		path := "/v1/integrations/" + id + "/secrets"
		var added map[string]any
		h.Do("POST", path, manager, nil).Expect(t, 201, "").JSON(t, &added)
		oldToken := e.integrationToken(t, id, oldSecret)
		newToken := e.integrationToken(t, id, added["secret_value"].(string))
		h.Do("GET", "/v1/integrations", oldToken, nil).Expect(t, 200, "")
		h.Do("GET", "/v1/integrations", newToken, nil).Expect(t, 200, "")

		var claims auth.AccessClaims
		e.verifyWithJWKS(t, newToken, &claims)
		if claims.Credential != added["secret_id"] {
			t.Fatalf("sid %q, want the secret id %v", claims.Credential, added["secret_id"])
		}
		e.verifyWithJWKS(t, oldToken, &claims)
		h.Do("DELETE", path+"/"+claims.Credential, manager, nil).Expect(t, 204, "")
		h.Do("GET", "/v1/integrations", oldToken, nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/integrations", newToken, nil).Expect(t, 200, "")

		// A token from before tokens named their secret: subject and scopes
		// are still checked.
		legacy := h.Token(auth.Principal{Subject: id, OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.ClientsRead), IsM2M: true, ClientID: id})
		h.Do("GET", "/v1/integrations", legacy, nil).Expect(t, 200, "")
		stronger := h.Token(auth.Principal{Subject: id, OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.ClientsRead, auth.ClientsWrite),
			IsM2M: true, ClientID: id})
		h.Do("GET", "/v1/integrations", stronger, nil).Expect(t, 401, "invalid_token")

		h.Do("DELETE", "/v1/integrations/"+id, manager, nil).Expect(t, 204, "")
		h.Do("GET", "/v1/integrations", newToken, nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/integrations", legacy, nil).Expect(t, 401, "invalid_token")
	})
}

// TestTokensOfUnknownSubjects: a correctly signed token for a caller that
// never existed is refused.
func TestTokensOfUnknownSubjects(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e, _ := newCheckedEnv(t, b)
		for _, p := range []auth.Principal{
			{Subject: uuid.NewString(), OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.ClientsRead), IsM2M: true, Credential: uuid.NewString()},
			{Subject: uuid.NewString(), OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.ClientsRead), Credential: uuid.NewString()},
			{Subject: "test-acme", OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.ClientsRead), IsM2M: true},
		} {
			e.h.Do("GET", "/v1/integrations", e.h.Token(p), nil).Expect(t, 401, "invalid_token")
		}
	})
}

// TestPersonTokensEndWithTheirSignIn: a revoked sign-in (refresh-token
// reuse, code reuse), a removed scope and a deleted person end the access
// tokens at once.
func TestPersonTokensEndWithTheirSignIn(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e, _ := newCheckedEnv(t, b)
		h := e.h
		ctx := context.Background()
		e.person(t, auth.ClientsRead, auth.UsersRead)
		signIn := func() tokenBody {
			p := newPKCEClient()
			return expectTokens(t, e.exchange(t, p, e.signIn(t, p, "", signInEmail, signInPassword)))
		}

		// Refresh-token reuse revokes the sign-in: every access token of it
		// stops, another sign-in's go on.
		first := signIn()
		other := signIn()
		second := expectTokens(t, e.refresh(t, first.RefreshToken, ""))
		var a, b2, c auth.AccessClaims
		e.verifyWithJWKS(t, first.AccessToken, &a)
		e.verifyWithJWKS(t, second.AccessToken, &b2)
		e.verifyWithJWKS(t, other.AccessToken, &c)
		if a.Credential == "" || a.Credential != b2.Credential || a.Credential == c.Credential {
			t.Fatalf("sid: first %q, refreshed %q, other sign-in %q", a.Credential, b2.Credential, c.Credential)
		}
		h.Do("GET", "/v1/integrations", second.AccessToken, nil).Expect(t, 200, "")
		expectOAuthError(t, e.refresh(t, first.RefreshToken, ""), 400, "invalid_grant")
		h.Do("GET", "/v1/integrations", first.AccessToken, nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/integrations", second.AccessToken, nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/integrations", other.AccessToken, nil).Expect(t, 200, "")

		// So does a second exchange of the code.
		p := newPKCEClient()
		code := e.signIn(t, p, "", signInEmail, signInPassword)
		exchanged := expectTokens(t, e.exchange(t, p, code))
		h.Do("GET", "/v1/integrations", exchanged.AccessToken, nil).Expect(t, 200, "")
		expectOAuthError(t, e.exchange(t, p, code), 400, "invalid_grant")
		h.Do("GET", "/v1/integrations", exchanged.AccessToken, nil).Expect(t, 401, "invalid_token")

		// A removed scope ends tokens carrying it; a refresh gets one with
		// the scopes left.
		if _, err := e.dir.ReplaceScopes(ctx, platformAdmin, signInEmail, []string{"clients.read"}); err != nil {
			t.Fatal(err)
		}
		h.Do("GET", "/v1/integrations", other.AccessToken, nil).Expect(t, 401, "invalid_token")
		narrower := expectTokens(t, e.refresh(t, other.RefreshToken, ""))
		if narrower.Scope != "clients.read" {
			t.Fatalf("refreshed scopes %q", narrower.Scope)
		}
		h.Do("GET", "/v1/integrations", narrower.AccessToken, nil).Expect(t, 200, "")
		// Adding a scope leaves the tokens issued before alone.
		if _, err := e.dir.ReplaceScopes(ctx, platformAdmin, signInEmail, []string{"clients.read", "asset.read"}); err != nil {
			t.Fatal(err)
		}
		h.Do("GET", "/v1/integrations", narrower.AccessToken, nil).Expect(t, 200, "")

		if err := e.dir.DeleteUser(ctx, platformAdmin, signInEmail); err != nil {
			t.Fatal(err)
		}
		h.Do("GET", "/v1/integrations", narrower.AccessToken, nil).Expect(t, 401, "invalid_token")
	})
}

// TestTokenCheckWithoutStore: when the check cannot read the store the
// answer is 503 store_unavailable with Retry-After, not 401 or 500.
func TestTokenCheckWithoutStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e, manager := newCheckedEnv(t, b)
		e.h.Do("GET", "/v1/integrations", manager, nil).Expect(t, 200, "")
		in, err := e.clients.List(context.Background(), platformAdmin)
		if err != nil || len(in) != 1 {
			t.Fatalf("integrations %v %v", in, err)
		}
		// A token not checked yet, so that its answer is not cached.
		fresh := e.h.Token(auth.Principal{Subject: in[0].ID, OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.ClientsRead),
			IsM2M: true, ClientID: in[0].ID, Credential: uuid.NewString()})
		b.Close()
		r := e.h.Do("GET", "/v1/integrations", fresh, nil).Expect(t, 503, errs.CodeStoreUnavailable)
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("503 without Retry-After: %v", r.Header)
		}
	})
}
