package identityhttp

import (
	"encoding/base64"
	"net/url"
	"testing"

	"atcp/internal/identity"
)

func basicHeader(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
}

func TestParseBasicCredentials(t *testing.T) {
	for _, tc := range []struct {
		header, id, secret string
		ok                 bool
	}{
		{basicHeader("client", "s3cret"), "client", "s3cret", true},
		{basicHeader("client", "a+b:c%d e"), "client", "a+b:c%d e", true},
		{basicHeader("client", ""), "client", "", true},
		{"basic " + base64.StdEncoding.EncodeToString([]byte("client:x")), "client", "x", true},
		{"Basic " + base64.StdEncoding.EncodeToString([]byte("a+b:c+d")), "a b", "c d", true}, // form-url-decoded
		{"Basic " + base64.StdEncoding.EncodeToString([]byte(":secret")), "", "", false},
		{"Basic " + base64.StdEncoding.EncodeToString([]byte("no-colon")), "", "", false},
		{"Basic " + base64.StdEncoding.EncodeToString([]byte("bad%zz:x")), "", "", false},
		{"Basic " + base64.StdEncoding.EncodeToString([]byte("id:bad%zz")), "", "", false},
		{"Basic " + base64.StdEncoding.EncodeToString([]byte("id%C2%CF:x")), "", "", false}, // not UTF-8
		{"Basic " + base64.StdEncoding.EncodeToString([]byte("id:x%00")), "", "", false},    // NUL
		{"Basic !!!", "", "", false},
		{"Basic", "", "", false},
		{"Bearer abc", "", "", false},
		{"", "", "", false},
	} {
		id, secret, ok := parseBasicCredentials(tc.header)
		if ok != tc.ok || id != tc.id || secret != tc.secret {
			t.Errorf("parseBasicCredentials(%q) = %q, %q, %v", tc.header, id, secret, ok)
		}
	}
}

func TestParseTokenRequest(t *testing.T) {
	for _, tc := range []struct {
		name, authorization, body string
		code                      string // OAuth error, "" when accepted
		id, secret                string
		viaHeader                 bool
	}{
		{"post", "", "grant_type=client_credentials&client_id=c&client_secret=s", "", "c", "s", false},
		{"basic", basicHeader("c", "s"), "grant_type=client_credentials", "", "c", "s", true},
		{"basic with the same client_id", basicHeader("c", "s"), "grant_type=client_credentials&client_id=c", "", "c", "s", true},
		{"empty values count as omitted", basicHeader("c", "s"), "grant_type=client_credentials&client_secret=", "", "c", "s", true},
		{"both methods", basicHeader("c", "s"), "grant_type=client_credentials&client_secret=s", identity.OAuthInvalidRequest, "", "", true},
		{"client_id disagrees", basicHeader("c", "s"), "client_id=d", identity.OAuthInvalidRequest, "", "", true},
		{"repeated parameter", "", "grant_type=a&grant_type=b", identity.OAuthInvalidRequest, "", "", false},
		{"bad encoding", "", "grant_type=%zz", identity.OAuthInvalidRequest, "", "", false},
		{"bad header", "Basic ???", "grant_type=client_credentials", identity.OAuthInvalidClient, "", "", true},
		{"other scheme", "Bearer x", "grant_type=client_credentials", identity.OAuthInvalidClient, "", "", true},
		{"public client", "", "grant_type=refresh_token&client_id=atcp-console&refresh_token=r", "", "atcp-console", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, oerr := parseTokenRequest(tc.authorization, tc.body)
			if req.viaHeader != tc.viaHeader {
				t.Fatalf("viaHeader %v", req.viaHeader)
			}
			if tc.code != "" {
				if oerr == nil || oerr.Code != tc.code {
					t.Fatalf("got %+v, want %s", oerr, tc.code)
				}
				return
			}
			if oerr != nil || req.clientID != tc.id || req.clientSecret != tc.secret {
				t.Fatalf("got %+v %v", req, oerr)
			}
		})
	}
}

func FuzzParseTokenRequest(f *testing.F) {
	f.Add(basicHeader("client", "secret"), "grant_type=client_credentials")
	f.Add("", "grant_type=client_credentials&client_id=a&client_secret=b&scope=asset.read")
	f.Add("Basic Og==", "client_secret=x")
	f.Add("Basic "+base64.StdEncoding.EncodeToString([]byte("a%2Bb:c%3Ad")), "grant_type=authorization_code&code=x&code=y")
	f.Fuzz(func(t *testing.T, authorization, body string) {
		req, oerr := parseTokenRequest(authorization, body)
		if req.viaHeader != (authorization != "") {
			t.Fatalf("viaHeader %v for %q", req.viaHeader, authorization)
		}
		if oerr != nil {
			if oerr.Code != identity.OAuthInvalidRequest && oerr.Code != identity.OAuthInvalidClient {
				t.Fatalf("unexpected error code %q", oerr.Code)
			}
			return
		}
		for name, v := range req.params {
			if v == "" {
				t.Fatalf("parameter %s kept without a value", name)
			}
		}
		if req.viaHeader {
			id, secret, ok := parseBasicCredentials(authorization)
			if !ok || id != req.clientID || secret != req.clientSecret || id == "" {
				t.Fatalf("header credentials %q/%q, request %q/%q", id, secret, req.clientID, req.clientSecret)
			}
			if _, both := req.params["client_secret"]; both {
				t.Fatal("credentials accepted from header and body")
			}
			// What a client encodes is what the server decodes.
			if again, _, ok := parseBasicCredentials(basicHeader(id, secret)); !ok || again != id {
				t.Fatalf("round trip of %q failed", id)
			}
			return
		}
		if req.clientID != req.params["client_id"] || req.clientSecret != req.params["client_secret"] {
			t.Fatalf("body credentials %q/%q, params %v", req.clientID, req.clientSecret, req.params)
		}
	})
}
