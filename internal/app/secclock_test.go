package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"atcp/internal/app"
	"atcp/internal/auth"
	"atcp/internal/testkit"
)

// TestDemoTokensVerifyWithGoOIDC: on the demonstration server with its
// clock at 2026-02-01 running 600 times faster than real time, the tokens
// of a person signed in with golang.org/x/oauth2 verify with
// github.com/coreos/go-oidc against the served discovery document and
// JWKS at the real time, live 3600 real seconds, and refresh.
func TestDemoTokensVerifyWithGoOIDC(t *testing.T) {
	cfg := testConfig(t, "sqlite://"+t.TempDir()+"/atcp.db", t.TempDir())
	cfg.ClockSpeed = 600
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, a)
	if a.Clock.Now().After(app.DemoStart.Add(time.Hour)) {
		t.Fatalf("platform clock at %v, want the demo day", a.Clock.Now())
	}
	const email, password = "ops@demo.example", "correct horse battery staple"
	ctx := context.Background()
	if err := a.Directory.EnsureUser(ctx, "demo", email, password, auth.NewScopeSet(auth.AssetRead)); err != nil {
		t.Fatal(err)
	}

	provider, err := oidc.NewProvider(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	console := &oauth2.Config{ClientID: "atcp-console", Endpoint: provider.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "asset.read"}}
	signedInAt := time.Now()
	tok, nonce := testkit.SignInWithOAuth2(t, ctx, http.DefaultClient, console, email, password)
	if tok.ExpiresIn != 3600 {
		t.Fatalf("expires_in %d", tok.ExpiresIn)
	}

	// Verified at the machine's time (go-oidc's default).
	verifyID := func(raw string) *oidc.IDToken {
		t.Helper()
		id, err := provider.Verifier(&oidc.Config{ClientID: "atcp-console"}).Verify(ctx, raw)
		if err != nil {
			t.Fatalf("ID token: %v", err)
		}
		return id
	}
	verifyAccess := func(raw string) *oidc.IDToken {
		t.Helper()
		access, err := provider.Verifier(&oidc.Config{ClientID: auth.Audience}).Verify(ctx, raw)
		if err != nil {
			t.Fatalf("access token: %v", err)
		}
		return access
	}
	raw, _ := tok.Extra("id_token").(string)
	id := verifyID(raw)
	if id.Nonce != nonce || id.Subject == "" {
		t.Fatalf("ID token %+v", id)
	}
	access := verifyAccess(tok.AccessToken)
	if access.Subject != id.Subject || access.Expiry.Sub(access.IssuedAt) != time.Hour ||
		access.IssuedAt.Before(signedInAt.Add(-time.Second)) || access.IssuedAt.After(time.Now()) {
		t.Fatalf("access token issued %v, expires %v; signed in at %v", access.IssuedAt, access.Expiry, signedInAt)
	}
	expectStatus(t, "GET", base+"/v1/assets", tok.AccessToken, "", 200)

	// A refresh through a fresh configuration, as a later run of the
	// client would do it.
	later := &oauth2.Config{ClientID: "atcp-console", Endpoint: provider.Endpoint()}
	refreshed, err := later.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	raw, _ = refreshed.Extra("id_token").(string)
	verifyID(raw)
	verifyAccess(refreshed.AccessToken)
	expectStatus(t, "GET", base+"/v1/assets", refreshed.AccessToken, "", 200)
}
