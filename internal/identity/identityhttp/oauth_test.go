package identityhttp_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// token posts a form to the token endpoint, with HTTP Basic credentials
// (form-url-encoded, RFC 6749 section 2.3.1) when basicID is not empty.
func (e *clientsEnv) token(t testing.TB, form url.Values, basicID, basicSecret string) *testkit.Response {
	t.Helper()
	req, err := http.NewRequest("POST", e.h.URL+"/oauth2/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basicID != "" {
		req.SetBasicAuth(url.QueryEscape(basicID), url.QueryEscape(basicSecret))
	}
	return e.h.Send(req)
}

// clientCredentials asks for a client_credentials token with the
// credentials in form (client_secret_post).
func (e *clientsEnv) clientCredentials(t testing.TB, form url.Values) *testkit.Response {
	t.Helper()
	form.Set("grant_type", "client_credentials")
	return e.token(t, form, "", "")
}

// expectOAuthError checks an OAuth error response (RFC 6749 section 5.2).
func expectOAuthError(t testing.TB, r *testkit.Response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q", ct)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token error without Cache-Control: no-store: %v", r.Header)
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	r.JSON(t, &body)
	if body.Error != code || body.Description == "" {
		t.Fatalf("error %q (%q), want %q", body.Error, body.Description, code)
	}
}

type tokenBody struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Scope        string `json:"scope"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
}

func expectTokens(t testing.TB, r *testkit.Response) tokenBody {
	t.Helper()
	r.Expect(t, 200, "")
	if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Pragma") != "no-cache" {
		t.Fatalf("token response is cacheable: %v", r.Header)
	}
	var tb tokenBody
	r.JSON(t, &tb)
	if tb.AccessToken == "" || tb.TokenType != "Bearer" || tb.ExpiresIn != 3600 {
		t.Fatalf("token response %s", r.Body)
	}
	return tb
}

// verifyWithJWKS checks a token's signature with the key the JWKS endpoint
// publishes, as an outside verifier would, and decodes its claims.
func (e *clientsEnv) verifyWithJWKS(t testing.TB, token string, claims any) {
	t.Helper()
	r := e.h.Do("GET", "/.well-known/jwks.json", "", nil).Expect(t, 200, "")
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(r.Body, &set); err != nil {
		t.Fatal(err)
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	keys := set.Key(parsed.Headers[0].KeyID)
	if len(keys) != 1 {
		t.Fatalf("JWKS has no key %q", parsed.Headers[0].KeyID)
	}
	if err := parsed.Claims(keys[0].Key, claims); err != nil {
		t.Fatalf("token does not verify with the published key: %v", err)
	}
}

func TestClientCredentials(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		id, secret := e.createIntegration(t, e.integrationManager(), "ems", "clients.read", "asset.read")

		// client_secret_basic
		basic := expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, secret))
		if basic.Scope != "asset.read clients.read" || basic.RefreshToken != "" || basic.IDToken != "" {
			t.Fatalf("basic %+v", basic)
		}
		var claims auth.AccessClaims
		e.verifyWithJWKS(t, basic.AccessToken, &claims)
		if claims.Subject != id || claims.ClientID != id || !claims.IsM2M || claims.OrganizationID != "acme" ||
			claims.Issuer != h.URL || claims.Scope != "asset.read clients.read" {
			t.Fatalf("claims %+v", claims)
		}
		// client_secret_post; the token works on the API.
		post := expectTokens(t, e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret}}))
		var list []map[string]any
		h.Do("GET", "/v1/integrations", post.AccessToken, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list) != 1 || list[0]["integration_id"] != id {
			t.Fatalf("list with the integration's token: %v", list)
		}
		// Basic with client_id repeated in the body is fine when it agrees.
		expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}}, id, secret))

		// Narrowing.
		narrow := expectTokens(t, e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret}, "scope": {"asset.read"}}))
		if narrow.Scope != "asset.read" {
			t.Fatalf("narrowed to %q", narrow.Scope)
		}
		h.Do("GET", "/v1/integrations", narrow.AccessToken, nil).Expect(t, 403, "insufficient_scope")
		expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret}, "scope": {"asset.read market.write"}}), 400, "invalid_scope")
		expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret}, "scope": {"everything"}}), 400, "invalid_scope")
		expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret}, "scope": {"openid"}}), 400, "invalid_scope")

		// The token expires after 3600 s of security time; the platform
		// clock does not count.
		h.Clock.Advance(30 * 24 * time.Hour)
		h.Security.Advance(3599 * time.Second)
		h.Do("GET", "/v1/integrations", post.AccessToken, nil).Expect(t, 200, "")
		h.Security.Advance(time.Second)
		h.Do("GET", "/v1/integrations", post.AccessToken, nil).Expect(t, 401, "invalid_token")
	})
}

func TestClientCredentialsRejections(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		id, secret := e.createIntegration(t, e.integrationManager(), "ems", "asset.read")
		cc := url.Values{"grant_type": {"client_credentials"}}

		r := e.token(t, cc, id, secret+"x")
		expectOAuthError(t, r, 401, "invalid_client")
		if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic") {
			t.Fatalf("401 after Basic without a Basic challenge: %v", r.Header)
		}
		r = e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {"atcp_wrong"}})
		expectOAuthError(t, r, 401, "invalid_client")
		if r.Header.Get("WWW-Authenticate") != "" {
			t.Fatalf("challenge without Basic: %v", r.Header)
		}
		expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {"00000000-0000-0000-0000-000000000000"}, "client_secret": {secret}}), 401, "invalid_client")
		expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {id}}), 401, "invalid_client")
		expectOAuthError(t, e.clientCredentials(t, url.Values{}), 401, "invalid_client")
		expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {identity.ConsoleClientID}, "client_secret": {"x"}}), 400, "unauthorized_client")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"client_credentials"}, "client_secret": {secret}}, id, secret), 400, "invalid_request")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"client_credentials"}, "client_id": {"other"}}, id, secret), 400, "invalid_request")
		expectOAuthError(t, e.token(t, url.Values{"client_id": {id}, "client_secret": {secret}}, "", ""), 400, "invalid_request")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"password"}, "username": {"a"}, "password": {"b"}}, "", ""), 400, "unsupported_grant_type")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"implicit"}}, "", ""), 400, "unsupported_grant_type")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"client_credentials", "client_credentials"}, "client_id": {id}, "client_secret": {secret}}, "", ""), 400, "invalid_request")

		send := func(contentType, body, authorization string) *testkit.Response {
			req, _ := http.NewRequest("POST", e.h.URL+"/oauth2/token", strings.NewReader(body))
			req.Header.Set("Content-Type", contentType)
			if authorization != "" {
				req.Header.Set("Authorization", authorization)
			}
			return e.h.Send(req)
		}
		expectOAuthError(t, send("application/json", `{"grant_type":"client_credentials"}`, ""), 400, "invalid_request")
		expectOAuthError(t, send("application/x-www-form-urlencoded", "grant_type=client_credentials&x="+strings.Repeat("a", 65<<10), ""), 400, "invalid_request")
		expectOAuthError(t, send("application/x-www-form-urlencoded", "grant_type=%zz", ""), 400, "invalid_request")
		expectOAuthError(t, send("application/x-www-form-urlencoded", "grant_type=client_credentials", "Basic !!!"), 401, "invalid_client")
		expectOAuthError(t, send("application/x-www-form-urlencoded", "grant_type=client_credentials", "Bearer "+e.h.AdminToken()), 401, "invalid_client")
		// A charset parameter on the media type is fine.
		expectTokens(t, send("application/x-www-form-urlencoded; charset=utf-8",
			url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}.Encode(), ""))
	})
}

// TestDeletedCredentialsStopWorking: a deleted secret or integration gets
// no new token from the next request on; the other secret keeps working.
func TestDeletedCredentialsStopWorking(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		manager := e.integrationManager()
		id, oldSecret := e.createIntegration(t, manager, "ems", "asset.read")
		path := "/v1/integrations/" + id + "/secrets"
		h.Clock.Advance(time.Second) // secrets are listed oldest first
		var added map[string]any
		h.Do("POST", path, manager, nil).Expect(t, 201, "").JSON(t, &added)
		newSecret := added["secret_value"].(string)
		expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, oldSecret))
		expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, newSecret))

		var secrets []map[string]any
		h.Do("GET", path, manager, nil).Expect(t, 200, "").JSON(t, &secrets)
		h.Do("DELETE", path+"/"+secrets[0]["secret_id"].(string), manager, nil).Expect(t, 204, "")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, oldSecret), 401, "invalid_client")
		issued := expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, newSecret))

		h.Do("DELETE", "/v1/integrations/"+id, manager, nil).Expect(t, 204, "")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, newSecret), 401, "invalid_client")
		// This server does not check tokens against the store (see
		// revocation_test.go for one that does); a token still runs out.
		h.Security.Advance(time.Hour)
		h.Do("GET", "/v1/integrations", issued.AccessToken, nil).Expect(t, 401, "invalid_token")
	})
}

func TestBootstrapIntegration(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		ctx := context.Background()
		// Characters that must be form-url-encoded inside HTTP Basic.
		secret := "boot+strap:secret%with spaces"
		all := auth.NewScopeSet(auth.AllScopes...)
		if err := e.clients.EnsureIntegration(ctx, auth.PlatformOrganization, "atcp-bootstrap", "Bootstrap", secret, all); err != nil {
			t.Fatal(err)
		}
		if err := e.clients.EnsureIntegration(ctx, auth.PlatformOrganization, "atcp-bootstrap", "Bootstrap", "a-different-secret-entirely", all); err != nil {
			t.Fatalf("second start: %v", err)
		}
		got := expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, "atcp-bootstrap", secret))
		if got.Scope != all.String() {
			t.Fatalf("bootstrap scopes %q", got.Scope)
		}
		expectTokens(t, e.clientCredentials(t, url.Values{"client_id": {"atcp-bootstrap"}, "client_secret": {secret}}))
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, "atcp-bootstrap", "a-different-secret-entirely"), 401, "invalid_client")
		e.h.Do("GET", "/v1/integrations", got.AccessToken, nil).Expect(t, 200, "")

		for name, call := range map[string]func() error{
			"short secret": func() error { return e.clients.EnsureIntegration(ctx, "acme", "boot2", "b", "short", all) },
			"console id": func() error {
				return e.clients.EnsureIntegration(ctx, "acme", identity.ConsoleClientID, "b", secret, all)
			},
			"unknown org": func() error { return e.clients.EnsureIntegration(ctx, "nowhere", "boot3", "b", secret, all) },
			"empty name":  func() error { return e.clients.EnsureIntegration(ctx, "acme", "boot4", " ", secret, all) },
			"unknown scope": func() error {
				return e.clients.EnsureIntegration(ctx, "acme", "boot5", "b", secret, auth.NewScopeSet("root"))
			},
			"padded client id": func() error { return e.clients.EnsureIntegration(ctx, "acme", " boot6", "b", secret, all) },
		} {
			if call() == nil {
				t.Errorf("%s accepted", name)
			}
		}
	})
}

// pkceClient is what the console keeps during one sign-in.
type pkceClient struct {
	verifier, challenge, state, nonce, redirectURI string
}

func newPKCEClient() pkceClient {
	verifier := auth.RandomToken(48)
	sum := sha256.Sum256([]byte(verifier))
	return pkceClient{verifier: verifier, challenge: base64.RawURLEncoding.EncodeToString(sum[:]),
		state: auth.RandomToken(16), nonce: auth.RandomToken(16), redirectURI: "http://127.0.0.1:53682/callback"}
}

func (p pkceClient) params(scope string) url.Values {
	v := url.Values{"response_type": {"code"}, "client_id": {identity.ConsoleClientID}, "redirect_uri": {p.redirectURI},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "state": {p.state}, "nonce": {p.nonce}}
	if scope != "" {
		v.Set("scope", scope)
	}
	return v
}

// sendNoRedirect sends a request and returns a redirect as it is.
func (e *clientsEnv) sendNoRedirect(t testing.TB, req *http.Request) *testkit.Response {
	t.Helper()
	c := *e.h.HTTP.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &testkit.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

func (e *clientsEnv) authorizePage(t testing.TB, params url.Values) *testkit.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", e.h.URL+"/oauth2/authorize?"+params.Encode(), nil)
	return e.sendNoRedirect(t, req)
}

func (e *clientsEnv) submitSignIn(t testing.TB, params url.Values, email, password string) *testkit.Response {
	t.Helper()
	form := url.Values{}
	for k, v := range params {
		form[k] = v
	}
	form.Set("email", email)
	form.Set("password", password)
	req, _ := http.NewRequest("POST", e.h.URL+"/oauth2/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.sendNoRedirect(t, req)
}

// signIn signs a person in and returns the authorization code from the
// redirect, checking state and issuer.
func (e *clientsEnv) signIn(t testing.TB, p pkceClient, scope, email, password string) string {
	t.Helper()
	r := e.submitSignIn(t, p.params(scope), email, password)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("sign-in answered %d: %s", r.Status, r.Body)
	}
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, p.redirectURI+"?") {
		t.Fatalf("redirected to %q", loc)
	}
	u, _ := url.Parse(loc)
	q := u.Query()
	if q.Get("state") != p.state || q.Get("iss") != e.h.URL || q.Get("code") == "" {
		t.Fatalf("redirect %q", loc)
	}
	return q.Get("code")
}

func (e *clientsEnv) exchange(t testing.TB, p pkceClient, code string) *testkit.Response {
	t.Helper()
	return e.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {p.redirectURI},
		"client_id": {identity.ConsoleClientID}, "code_verifier": {p.verifier}}, "", "")
}

func (e *clientsEnv) refresh(t testing.TB, refreshToken, scope string) *testkit.Response {
	t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {identity.ConsoleClientID}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return e.token(t, form, "", "")
}

const (
	signInEmail    = "ops@acme.example"
	signInPassword = "correct horse battery staple"
)

// person creates the signing-in person of acme.
func (e *clientsEnv) person(t testing.TB, scopes ...auth.Scope) {
	t.Helper()
	if err := e.dir.EnsureUser(context.Background(), "acme", signInEmail, signInPassword, auth.NewScopeSet(scopes...)); err != nil {
		t.Fatal(err)
	}
}

func TestSignInWithPKCE(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		e.person(t, auth.AssetRead, auth.ClientsRead, auth.AlarmRead)
		p := newPKCEClient()
		scope := "openid asset.read clients.read market.write" // market.write is not held: dropped

		page := e.authorizePage(t, p.params(scope))
		if page.Status != 200 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("sign-in page %d %v", page.Status, page.Header)
		}
		for header, want := range map[string]string{
			"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
			"X-Frame-Options":         "DENY",
			"Cache-Control":           "no-store",
		} {
			if got := page.Header.Get(header); got != want {
				t.Errorf("%s: %q, want %q", header, got, want)
			}
		}
		html := string(page.Body)
		for _, want := range []string{`name="state" value="` + p.state + `"`, `name="code_challenge" value="` + p.challenge + `"`,
			`name="email"`, `type="password"`, `<label for="password">`, `method="post"`} {
			if !strings.Contains(html, want) {
				t.Errorf("page lacks %s", want)
			}
		}
		if strings.Contains(html, "<script") {
			t.Error("page carries script")
		}

		// Wrong password and unknown person get the same answer.
		for _, creds := range [][2]string{{signInEmail, "wrong password here"}, {"nobody@acme.example", signInPassword}} {
			r := e.submitSignIn(t, p.params(scope), creds[0], creds[1])
			if r.Status != 401 || r.Header.Get("Location") != "" || !strings.Contains(string(r.Body), "email address or password is not correct") ||
				!strings.Contains(string(r.Body), `name="state" value="`+p.state+`"`) {
				t.Fatalf("bad credentials answered %d: %s", r.Status, r.Body)
			}
		}

		// The email is matched case-insensitively.
		code := e.signIn(t, p, scope, "  OPS@acme.example", signInPassword)
		tokens := expectTokens(t, e.exchange(t, p, code))
		if tokens.Scope != "asset.read clients.read" || tokens.IDToken == "" || tokens.RefreshToken == "" {
			t.Fatalf("tokens %+v", tokens)
		}
		var access auth.AccessClaims
		e.verifyWithJWKS(t, tokens.AccessToken, &access)
		if access.IsM2M || access.Email != signInEmail || access.ClientID != identity.ConsoleClientID || access.OrganizationID != "acme" {
			t.Fatalf("access claims %+v", access)
		}
		var id auth.IDClaims
		e.verifyWithJWKS(t, tokens.IDToken, &id)
		if id.Subject != access.Subject || id.Nonce != p.nonce || id.Email != signInEmail || !id.Audience.Contains(identity.ConsoleClientID) ||
			id.Issuer != h.URL || id.AuthTime != testkit.SecurityStart.Unix() {
			t.Fatalf("id claims %+v", id)
		}
		h.Do("GET", "/v1/integrations", tokens.AccessToken, nil).Expect(t, 200, "")

		// A second exchange of the code fails and revokes what the first got.
		expectOAuthError(t, e.exchange(t, p, code), 400, "invalid_grant")
		expectOAuthError(t, e.refresh(t, tokens.RefreshToken, ""), 400, "invalid_grant")
	})
}

func TestRefreshTokens(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		ctx := context.Background()
		e.person(t, auth.AssetRead, auth.ClientsRead)
		p := newPKCEClient()
		first := expectTokens(t, e.exchange(t, p, e.signIn(t, p, "openid", signInEmail, signInPassword)))
		if first.Scope != "asset.read clients.read" {
			t.Fatalf("no narrowing asked: scopes %q", first.Scope)
		}

		h.Security.Advance(10 * time.Minute)
		second := expectTokens(t, e.refresh(t, first.RefreshToken, ""))
		if second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken || second.IDToken == "" {
			t.Fatalf("not rotated: %+v", second)
		}
		var id auth.IDClaims
		e.verifyWithJWKS(t, second.IDToken, &id)
		if id.Nonce != "" || id.AuthTime != testkit.SecurityStart.Unix() {
			t.Fatalf("refreshed id token %+v", id)
		}
		narrowed := expectTokens(t, e.refresh(t, second.RefreshToken, "asset.read"))
		if narrowed.Scope != "asset.read" {
			t.Fatalf("refresh narrowed to %q", narrowed.Scope)
		}
		expectOAuthError(t, e.refresh(t, narrowed.RefreshToken, "asset.read bogus"), 400, "invalid_scope")

		// Scopes follow the person's current ones.
		admin := &auth.Principal{Subject: "admin", OrganizationID: auth.PlatformOrganization, Scopes: auth.NewScopeSet(auth.AllScopes...)}
		if _, err := e.dir.ReplaceScopes(ctx, admin, signInEmail, []string{"asset.read", "market.read"}); err != nil {
			t.Fatal(err)
		}
		third := expectTokens(t, e.refresh(t, narrowed.RefreshToken, ""))
		if third.Scope != "asset.read market.read" {
			t.Fatalf("after the scope change: %q", third.Scope)
		}

		// Reusing a rotated token revokes the whole family, including the
		// newest token.
		expectOAuthError(t, e.refresh(t, second.RefreshToken, ""), 400, "invalid_grant")
		expectOAuthError(t, e.refresh(t, third.RefreshToken, ""), 400, "invalid_grant")

		// Other failures.
		p2 := newPKCEClient()
		fresh := expectTokens(t, e.exchange(t, p2, e.signIn(t, p2, "", signInEmail, signInPassword)))
		expectOAuthError(t, e.refresh(t, "not-a-token", ""), 400, "invalid_grant")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {fresh.RefreshToken}, "client_id": {"other"}}, "", ""), 400, "unauthorized_client")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {fresh.RefreshToken}}, "", ""), 400, "invalid_request")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {identity.ConsoleClientID}}, "", ""), 400, "invalid_request")
		expectOAuthError(t, e.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {fresh.RefreshToken}}, identity.ConsoleClientID, "secret"), 401, "invalid_client")
		h.Security.Advance(identity.RefreshTokenTTL)
		expectOAuthError(t, e.refresh(t, fresh.RefreshToken, ""), 400, "invalid_grant")

		// A person who is gone gets nothing more.
		p3 := newPKCEClient()
		last := expectTokens(t, e.exchange(t, p3, e.signIn(t, p3, "", signInEmail, signInPassword)))
		if err := e.dir.DeleteUser(ctx, admin, signInEmail); err != nil {
			t.Fatal(err)
		}
		expectOAuthError(t, e.refresh(t, last.RefreshToken, ""), 400, "invalid_grant")
		r := e.submitSignIn(t, p3.params(""), signInEmail, signInPassword)
		if r.Status != 401 {
			t.Fatalf("deleted person signed in: %d", r.Status)
		}
	})
}

func TestCodeExchangeRejections(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		e.person(t, auth.AssetRead)
		p := newPKCEClient()

		// Wrong verifier: refused, and the code is spent.
		code := e.signIn(t, p, "", signInEmail, signInPassword)
		wrong := p
		wrong.verifier = newPKCEClient().verifier
		expectOAuthError(t, e.exchange(t, wrong, code), 400, "invalid_grant")
		expectOAuthError(t, e.exchange(t, p, code), 400, "invalid_grant")

		code = e.signIn(t, p, "", signInEmail, signInPassword)
		other := p
		other.redirectURI = "http://127.0.0.1:53682/elsewhere"
		expectOAuthError(t, e.exchange(t, other, code), 400, "invalid_grant")

		code = e.signIn(t, p, "", signInEmail, signInPassword)
		e.h.Security.Advance(identity.AuthorizationCodeTTL)
		expectOAuthError(t, e.exchange(t, p, code), 400, "invalid_grant")

		code = e.signIn(t, p, "", signInEmail, signInPassword)
		base := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {p.redirectURI},
			"client_id": {identity.ConsoleClientID}, "code_verifier": {p.verifier}}
		for _, tc := range []struct {
			param, value string
			status       int
			want         string
		}{
			{param: "code_verifier", value: "short", status: 400, want: "invalid_request"},
			{param: "code_verifier", value: "", status: 400, want: "invalid_request"},
			{param: "redirect_uri", value: "", status: 400, want: "invalid_request"},
			{param: "code", value: "", status: 400, want: "invalid_request"},
			{param: "client_id", value: "", status: 400, want: "invalid_request"},
			{param: "client_id", value: "some-integration", status: 400, want: "unauthorized_client"},
			{param: "code", value: "unknown", status: 400, want: "invalid_grant"},
		} {
			form := url.Values{}
			for k, v := range base {
				form[k] = v
			}
			form.Set(tc.param, tc.value)
			expectOAuthError(t, e.token(t, form, "", ""), tc.status, tc.want)
		}
		// None of those spent the code.
		expectTokens(t, e.exchange(t, p, code))
	})
}

func TestAuthorizeRejectsBadRequests(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		e.person(t, auth.AssetRead)
		p := newPKCEClient()

		// Never redirected to where the request cannot be trusted.
		for name, change := range map[string]func(url.Values){
			"redirect to another host": func(v url.Values) { v.Set("redirect_uri", "https://evil.example/cb") },
			"userinfo trick":           func(v url.Values) { v.Set("redirect_uri", "http://127.0.0.1:1@evil.example/cb") },
			"unknown client":           func(v url.Values) { v.Set("client_id", "mallory") },
			"no client":                func(v url.Values) { v.Del("client_id") },
			"no redirect_uri":          func(v url.Values) { v.Del("redirect_uri") },
		} {
			v := p.params("")
			change(v)
			for _, r := range []*testkit.Response{e.authorizePage(t, v), e.submitSignIn(t, v, signInEmail, signInPassword)} {
				if r.Status != 400 || r.Header.Get("Location") != "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") ||
					r.Header.Get("X-Frame-Options") != "DENY" {
					t.Fatalf("%s: %d %v", name, r.Status, r.Header)
				}
			}
		}
		// Other errors go back to the client with the state.
		for name, tc := range map[string]struct {
			change func(url.Values)
			code   string
		}{
			"no PKCE":       {func(v url.Values) { v.Del("code_challenge") }, "invalid_request"},
			"plain PKCE":    {func(v url.Values) { v.Set("code_challenge_method", "plain") }, "invalid_request"},
			"implicit":      {func(v url.Values) { v.Set("response_type", "token") }, "unsupported_response_type"},
			"unknown scope": {func(v url.Values) { v.Set("scope", "openid superuser") }, "invalid_scope"},
		} {
			v := p.params("")
			tc.change(v)
			for _, r := range []*testkit.Response{e.authorizePage(t, v), e.submitSignIn(t, v, signInEmail, signInPassword)} {
				loc, _ := url.Parse(r.Header.Get("Location"))
				if r.Status != 303 || loc == nil || loc.Query().Get("error") != tc.code || loc.Query().Get("state") != p.state ||
					!strings.HasPrefix(r.Header.Get("Location"), p.redirectURI+"?") {
					t.Fatalf("%s: %d %v", name, r.Status, r.Header)
				}
			}
		}
		// The sign-in form itself must be form-encoded.
		req, _ := http.NewRequest("POST", e.h.URL+"/oauth2/authorize", strings.NewReader(`{"email":"x"}`))
		req.Header.Set("Content-Type", "application/json")
		if r := e.sendNoRedirect(t, req); r.Status != 400 || r.Header.Get("Location") != "" {
			t.Fatalf("JSON sign-in: %d", r.Status)
		}
		// Parameters are escaped in the page.
		v := p.params("")
		v.Set("state", `"><script>alert(1)</script>`)
		page := e.authorizePage(t, v)
		if page.Status != 200 || strings.Contains(string(page.Body), "<script>") {
			t.Fatalf("state not escaped: %s", page.Body)
		}
	})
}

func TestDiscoveryAndJWKS(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		r := h.Do("GET", "/.well-known/openid-configuration", "", nil).Expect(t, 200, "")
		var d map[string]any
		r.JSON(t, &d)
		for field, want := range map[string]any{
			"issuer": h.URL, "authorization_endpoint": h.URL + "/oauth2/authorize", "token_endpoint": h.URL + "/oauth2/token",
			"jwks_uri": h.URL + "/.well-known/jwks.json",
		} {
			if d[field] != want {
				t.Errorf("%s = %v, want %v", field, d[field], want)
			}
		}
		for field, want := range map[string]string{
			"response_types_supported":              "code",
			"grant_types_supported":                 "authorization_code refresh_token client_credentials",
			"subject_types_supported":               "public",
			"id_token_signing_alg_values_supported": "ES256",
			"token_endpoint_auth_methods_supported": "client_secret_basic client_secret_post none",
			"code_challenge_methods_supported":      "S256",
		} {
			if got := strings.Join(anyStrings(d[field]), " "); got != want {
				t.Errorf("%s = %q, want %q", field, got, want)
			}
		}
		scopes := strings.Join(anyStrings(d["scopes_supported"]), " ")
		if !strings.HasPrefix(scopes, "openid asset.read") || !strings.Contains(scopes, "pool.write") {
			t.Errorf("scopes_supported %q", scopes)
		}
		if claims := strings.Join(anyStrings(d["claims_supported"]), " "); !strings.Contains(claims, "organization_id") || !strings.Contains(claims, "is_m2m") ||
			!strings.Contains(claims, "sid") {
			t.Errorf("claims_supported %q", claims)
		}

		j := h.Do("GET", "/.well-known/jwks.json", "", nil).Expect(t, 200, "")
		if j.Header.Get("Cache-Control") != "public, max-age=300" {
			t.Fatalf("JWKS cache control %q", j.Header.Get("Cache-Control"))
		}
		var set jose.JSONWebKeySet
		j.JSON(t, &set)
		if len(set.Keys) != 1 || set.Keys[0].Algorithm != "ES256" || set.Keys[0].Use != "sig" || !set.Keys[0].IsPublic() {
			t.Fatalf("JWKS %s", j.Body)
		}
		// A token verifies with the published key; a tampered one does not.
		id, secret := e.createIntegration(t, e.integrationManager(), "verifier", "asset.read")
		tok := expectTokens(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id, secret)).AccessToken
		var claims auth.AccessClaims
		e.verifyWithJWKS(t, tok, &claims)
		if err := claims.Validate(jwt.Expected{Issuer: d["issuer"].(string), AnyAudience: jwt.Audience{auth.Audience}, Time: h.Security.Now()}); err != nil {
			t.Fatalf("claims: %v", err)
		}
		parts := strings.Split(tok, ".")
		forged, _ := json.Marshal(map[string]any{"sub": id, "scope": "asset.write", "organization_id": "platform"})
		parsed, err := jwt.ParseSigned(parts[0]+"."+base64.RawURLEncoding.EncodeToString(forged)+"."+parts[2], []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatal(err)
		}
		if err := parsed.Claims(set.Keys[0].Key, &claims); err == nil {
			t.Fatal("forged token verified")
		}
	})
}

func TestOAuthEndpointsInOpenAPI(t *testing.T) {
	e := newClientsEnv(t, testkit.OpenSQLite(t))
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			RequestBody *struct {
				Content map[string]any `json:"content"`
			} `json:"requestBody"`
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").JSON(t, &doc)
	token := doc.Paths["/oauth2/token"]["post"]
	if token.RequestBody == nil || token.RequestBody.Content["application/x-www-form-urlencoded"] == nil ||
		token.Responses["200"] == nil || token.Responses["400"] == nil || token.Responses["401"] == nil {
		t.Fatalf("token endpoint documented as %+v", token)
	}
	for path, methods := range map[string][]string{
		"/oauth2/authorize":                                     {"get", "post"},
		"/.well-known/openid-configuration":                     {"get"},
		"/.well-known/jwks.json":                                {"get"},
		"/v1/integrations":                                      {"get", "post"},
		"/v1/integrations/{integration_id}":                     {"delete"},
		"/v1/integrations/{integration_id}/secrets":             {"get", "post"},
		"/v1/integrations/{integration_id}/secrets/{secret_id}": {"delete"},
	} {
		for _, m := range methods {
			if _, ok := doc.Paths[path][m]; !ok {
				t.Errorf("%s %s missing from the OpenAPI document", m, path)
			}
		}
	}
}

// BenchmarkClientCredentials measures the token endpoint on SQLite: one
// client_credentials exchange per iteration, through HTTP, with an
// argon2id verification (verified: the remembered verification has
// expired) and without (remembered).
func BenchmarkClientCredentials(b *testing.B) {
	e := newClientsEnv(b, testkit.OpenSQLite(b))
	const secret = "benchmark-secret-0123456789"
	if err := e.clients.EnsureIntegration(context.Background(), "acme", "bench-client", "bench", secret, auth.NewScopeSet(auth.AssetRead)); err != nil {
		b.Fatal(err)
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	for name, forget := range map[string]bool{"verified": true, "remembered": false} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if forget {
					e.h.Security.Advance(identity.VerifiedSecretTTL)
				}
				if r := e.token(b, form, "bench-client", secret); r.Status != 200 {
					b.Fatalf("status %d: %s", r.Status, r.Body)
				}
			}
		})
	}
}

// TestOAuthFormsRefuseWhatNoStoreHolds: a form value or Basic credential
// that is not UTF-8 or holds NUL, which PostgreSQL cannot even compare,
// is refused as a bad request on both stores before the store is asked
// (it was a 500 on PostgreSQL, found by FuzzWriteOperations).
func TestOAuthFormsRefuseWhatNoStoreHolds(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		e.person(t, auth.AssetRead)
		id, secret := e.createIntegration(t, e.integrationManager(), "ems", "asset.read")
		for _, bad := range []string{"\xc2\xcf", "\x00", "ok\xff"} {
			expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {id + bad}, "client_secret": {secret}}), 400, "invalid_request")
			expectOAuthError(t, e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret + bad}}), 400, "invalid_request")
			expectOAuthError(t, e.token(t, url.Values{"grant_type": {"client_credentials"}}, id+bad, secret), 401, "invalid_client")
			expectOAuthError(t, e.token(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {identity.ConsoleClientID},
				"refresh_token": {"r" + bad}}, "", ""), 400, "invalid_request")
			r := e.submitSignIn(t, newPKCEClient().params(""), signInEmail+bad, signInPassword)
			if r.Status != 400 || r.Header.Get("Location") != "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("sign-in with email %q: %d %v %s", signInEmail+bad, r.Status, r.Header, r.Body)
			}
		}
		expectTokens(t, e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret}}))
	})
}
