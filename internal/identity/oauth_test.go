package identity

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
)

const testIssuer = "https://atcp.example"

func newTestOAuth(t testing.TB) *OAuth {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC))
	tokens, err := auth.NewTokens(context.Background(), &auth.MemoryKeyStore{}, testIssuer, clk)
	if err != nil {
		t.Fatal(err)
	}
	return NewOAuth(nil, nil, tokens, auth.NewCoreHasher(), clk)
}

func TestVerifyPKCE(t *testing.T) {
	// RFC 7636 appendix B.
	verifier := "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	challenge := "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	if !VerifyPKCE(verifier, challenge) {
		t.Fatal("RFC 7636 example rejected")
	}
	for _, bad := range []string{verifier + "x", strings.ToUpper(verifier), "", challenge} {
		if VerifyPKCE(bad, challenge) {
			t.Errorf("verifier %q accepted", bad)
		}
	}
	if VerifyPKCE(verifier, challenge[:42]) {
		t.Error("truncated challenge accepted")
	}
}

func TestValidPKCEString(t *testing.T) {
	for s, want := range map[string]bool{
		strings.Repeat("a", 43):                              true,
		strings.Repeat("Z", 128):                             true,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-._~": true,
		strings.Repeat("a", 42):                              false,
		strings.Repeat("a", 129):                             false,
		strings.Repeat("a", 42) + "+":                        false,
		strings.Repeat("a", 42) + "=":                        false,
		strings.Repeat("a", 42) + " ":                        false,
		"":                                                   false,
	} {
		if validPKCEString(s) != want {
			t.Errorf("validPKCEString(%q) = %v", s, !want)
		}
	}
}

func TestIsLoopbackRedirect(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://127.0.0.1:5173/callback":    true,
		"http://localhost:8000/cb?x=1":      true,
		"http://[::1]:49152/oauth/callback": true,
		"http://127.0.0.1/cb":               true,
		"http://127.0.0.1:65535":            true,
		"https://127.0.0.1:5173/callback":   false, // RFC 8252: loopback redirects are plain http
		"http://127.0.0.2:5173/cb":          false,
		"http://localhost.evil.com:80/cb":   false,
		"http://evil.com/http://127.0.0.1/": false,
		"http://127.0.0.1:5173@evil.com/cb": false,
		"http://user@127.0.0.1:5173/cb":     false,
		"http://127.0.0.1:5173/cb#fragment": false,
		"http://127.0.0.1:0/cb":             false,
		"http://127.0.0.1:65536/cb":         false,
		"http://127.0.0.1:/cb":              false,
		"http://127.0.0.1:80a/cb":           false,
		"http://127.0.0.1\\@evil.com/":      false,
		"//127.0.0.1:5173/cb":               false,
		"/callback":                         false,
		"javascript:alert(1)":               false,
		"http:127.0.0.1:5173":               false,
		"":                                  false,
		"http://LOCALHOST:5173/cb":          false,
		"http://0x7f000001:5173/cb":         false,
		"http://127.0.0.1:5173/" + strings.Repeat("a", maxRedirectURILength): false,
	} {
		if got := IsLoopbackRedirect(raw); got != want {
			t.Errorf("IsLoopbackRedirect(%q) = %v, want %v", raw, got, want)
		}
	}
}

func FuzzIsLoopbackRedirect(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:5173/cb", "http://[::1]:1/", "http://localhost:8080/a?b=c", "https://x", "http://a@127.0.0.1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !IsLoopbackRedirect(raw) {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" || u.User != nil || u.Fragment != "" {
			t.Fatalf("accepted %q (%+v, %v)", raw, u, err)
		}
		if h := u.Hostname(); h != "127.0.0.1" && h != "localhost" && h != "::1" {
			t.Fatalf("accepted %q with host %q", raw, h)
		}
	})
}

// validAuthorization is a complete, valid authorization request.
func validAuthorization() url.Values {
	return url.Values{
		"response_type": {"code"}, "client_id": {ConsoleClientID}, "redirect_uri": {"http://127.0.0.1:5173/cb?app=1"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"},
		"state": {"af0ifjsldkj"}, "scope": {"openid asset.read"}, "nonce": {"n-0S6_WzA2Mj"},
	}
}

func TestParseAuthorizationRequest(t *testing.T) {
	o := newTestOAuth(t)
	for _, tc := range []struct {
		name     string
		change   func(v url.Values)
		code     string // "" for a valid request
		redirect bool   // the error goes back to the client
		state    bool   // and carries the state
	}{
		{"valid", func(url.Values) {}, "", false, false},
		{"only the required parameters", func(v url.Values) { v.Del("scope"); v.Del("nonce") }, "", false, false},
		{"extra parameters are ignored", func(v url.Values) { v.Set("prompt", "login") }, "", false, false},
		{"client_id missing", func(v url.Values) { v.Del("client_id") }, OAuthInvalidRequest, false, false},
		{"unknown client", func(v url.Values) { v.Set("client_id", "someone-else") }, OAuthInvalidRequest, false, false},
		{"client_id repeated", func(v url.Values) { v.Add("client_id", ConsoleClientID) }, OAuthInvalidRequest, false, false},
		{"redirect_uri missing", func(v url.Values) { v.Del("redirect_uri") }, OAuthInvalidRequest, false, false},
		{"redirect_uri not loopback", func(v url.Values) { v.Set("redirect_uri", "https://evil.example/cb") }, OAuthInvalidRequest, false, false},
		{"redirect_uri repeated", func(v url.Values) { v.Add("redirect_uri", "http://127.0.0.1:1/") }, OAuthInvalidRequest, false, false},
		{"response_type missing", func(v url.Values) { v.Del("response_type") }, OAuthInvalidRequest, true, true},
		{"implicit flow", func(v url.Values) { v.Set("response_type", "token") }, OAuthUnsupportedResponseType, true, true},
		{"state missing", func(v url.Values) { v.Del("state") }, OAuthInvalidRequest, true, false},
		{"state repeated", func(v url.Values) { v.Add("state", "other") }, OAuthInvalidRequest, true, false},
		{"state too long", func(v url.Values) { v.Set("state", strings.Repeat("s", 1025)) }, OAuthInvalidRequest, true, true},
		{"no PKCE", func(v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") }, OAuthInvalidRequest, true, true},
		{"plain PKCE", func(v url.Values) { v.Set("code_challenge_method", "plain") }, OAuthInvalidRequest, true, true},
		{"method missing", func(v url.Values) { v.Del("code_challenge_method") }, OAuthInvalidRequest, true, true},
		{"challenge too short", func(v url.Values) { v.Set("code_challenge", strings.Repeat("a", 42)) }, OAuthInvalidRequest, true, true},
		{"challenge too long", func(v url.Values) { v.Set("code_challenge", strings.Repeat("a", 129)) }, OAuthInvalidRequest, true, true},
		{"challenge bad characters", func(v url.Values) { v.Set("code_challenge", strings.Repeat("a", 42)+"/") }, OAuthInvalidRequest, true, true},
		{"unknown scope", func(v url.Values) { v.Set("scope", "openid admin") }, OAuthInvalidScope, true, true},
		{"nonce too long", func(v url.Values) { v.Set("nonce", strings.Repeat("n", 1025)) }, OAuthInvalidRequest, true, true},
		{"scope repeated", func(v url.Values) { v.Add("scope", "asset.read") }, OAuthInvalidRequest, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := validAuthorization()
			tc.change(v)
			req, aerr := o.ParseAuthorizationRequest(v)
			if tc.code == "" {
				if aerr != nil {
					t.Fatalf("rejected: %v", aerr)
				}
				for name := range req.Values() {
					if req.Values().Get(name) != v.Get(name) {
						t.Errorf("%s = %q, want %q", name, req.Values().Get(name), v.Get(name))
					}
				}
				return
			}
			if aerr == nil || aerr.Code != tc.code || (aerr.RedirectTo != "") != tc.redirect {
				t.Fatalf("got %+v, want code %s redirect=%v", aerr, tc.code, tc.redirect)
			}
			if !tc.redirect {
				return
			}
			if !strings.HasPrefix(aerr.RedirectTo, "http://127.0.0.1:5173/cb?app=1&") {
				t.Fatalf("redirect %q loses the client's own query", aerr.RedirectTo)
			}
			u, _ := url.Parse(aerr.RedirectTo)
			q := u.Query()
			if q.Get("error") != tc.code || q.Get("error_description") == "" || q.Get("iss") != testIssuer ||
				q.Get("app") != "1" || q.Has("state") != tc.state || (tc.state && q.Get("state") != v.Get("state")) {
				t.Fatalf("redirect %q", aerr.RedirectTo)
			}
		})
	}
}

func FuzzParseAuthorizationRequest(f *testing.F) {
	f.Add(validAuthorization().Encode())
	f.Add("client_id=atcp-console&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2F&state=x")
	f.Add("client_id=atcp-console&redirect_uri=http%3A%2F%2Fevil&response_type=code")
	o := newTestOAuth(f)
	f.Fuzz(func(t *testing.T, query string) {
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		req, aerr := o.ParseAuthorizationRequest(v)
		if aerr == nil {
			if req.ClientID != ConsoleClientID || !IsLoopbackRedirect(req.RedirectURI) || req.ResponseType != "code" ||
				req.CodeChallengeMethod != "S256" || !validPKCEString(req.CodeChallenge) || req.State == "" {
				t.Fatalf("accepted %+v", req)
			}
			return
		}
		if aerr.RedirectTo != "" && (!IsLoopbackRedirect(req.RedirectURI) || !strings.HasPrefix(aerr.RedirectTo, req.RedirectURI)) {
			t.Fatalf("error redirected to %q for redirect_uri %q", aerr.RedirectTo, req.RedirectURI)
		}
	})
}

func TestWithParams(t *testing.T) {
	p := url.Values{"code": {"c"}, "state": {"a b"}}
	for in, want := range map[string]string{
		"http://127.0.0.1:1/cb":          "http://127.0.0.1:1/cb?code=c&state=a+b",
		"http://127.0.0.1:1/cb?x=1":      "http://127.0.0.1:1/cb?x=1&code=c&state=a+b",
		"http://127.0.0.1:1/cb?":         "http://127.0.0.1:1/cb?code=c&state=a+b",
		"http://127.0.0.1:1/cb?x=%2F&y=": "http://127.0.0.1:1/cb?x=%2F&y=&code=c&state=a+b",
	} {
		if got := withParams(in, p); got != want {
			t.Errorf("withParams(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScopeNarrowing(t *testing.T) {
	user := User{Scopes: auth.NewScopeSet(auth.AssetRead, auth.AssetWrite, auth.MarketRead)}
	for _, tc := range []struct {
		requested string
		want      string
	}{
		{"", "asset.read asset.write market.read"},
		{"openid", "asset.read asset.write market.read"},
		{"openid asset.read", "asset.read"},
		{"asset.read alarm.write", "asset.read"}, // not held: dropped
		{"alarm.write", ""},
	} {
		requested, bad := parseScope(tc.requested)
		if len(bad) > 0 {
			t.Fatalf("%q: bad %v", tc.requested, bad)
		}
		got := grantedScopes(user, Grant{Scope: apiScopes(requested)})
		if got.String() != tc.want {
			t.Errorf("requested %q: got %q, want %q", tc.requested, got, tc.want)
		}
	}
	if _, bad := parseScope("openid root asset.read x"); strings.Join(bad, " ") != "root x" {
		t.Fatalf("unknown scopes %v", bad)
	}
}
