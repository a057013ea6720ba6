package testkit

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// The parts of the sign-in page a browser submits: the form's action and
// its hidden fields.
var (
	formAction  = regexp.MustCompile(`<form method="post" action="([^"]*)"`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
)

// SignInWithOAuth2 signs a person in as a native application using
// golang.org/x/oauth2 would (RFC 8252): it listens on a loopback callback
// and sets cfg.RedirectURL to it, opens cfg.AuthCodeURL with a PKCE S256
// challenge and a nonce in a "browser" (client), fills in the sign-in
// page's form with email and password and submits it, follows the redirect
// to the callback, checks the state and exchanges the code with
// cfg.Exchange. HTTP requests of the library go through the client in
// ctx (oauth2.HTTPClient) when there is one. It returns the tokens and the
// nonce sent.
func SignInWithOAuth2(t testing.TB, ctx context.Context, client *http.Client, cfg *oauth2.Config, email, password string) (*oauth2.Token, string) {
	t.Helper()
	callback := make(chan url.Values, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case callback <- r.URL.Query():
		default: // a second visit; the first one counts
		}
		io.WriteString(w, "signed in; you may close this window")
	}))
	defer srv.Close()
	cfg.RedirectURL = srv.URL + "/callback"

	verifier, state, nonce := oauth2.GenerateVerifier(), oauth2.GenerateVerifier(), oauth2.GenerateVerifier()
	page, err := client.Get(cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("nonce", nonce)))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(page.Body)
	page.Body.Close()
	if err != nil || page.StatusCode != http.StatusOK {
		t.Fatalf("sign-in page: %d %s %v", page.StatusCode, body, err)
	}
	action := formAction.FindSubmatch(body)
	if action == nil {
		t.Fatalf("sign-in page without a form: %s", body)
	}
	target, err := page.Request.URL.Parse(html.UnescapeString(string(action[1])))
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"email": {email}, "password": {password}}
	for _, m := range hiddenInput.FindAllSubmatch(body, -1) {
		form.Set(html.UnescapeString(string(m[1])), html.UnescapeString(string(m[2])))
	}
	resp, err := client.Post(target.String(), "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	var q url.Values
	select {
	case q = <-callback:
	default:
		t.Fatalf("sign-in did not return to the callback: %d %s", resp.StatusCode, body)
	}
	if q.Get("state") != state || q.Get("code") == "" {
		t.Fatalf("callback %v", q)
	}
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	return tok, nonce
}
