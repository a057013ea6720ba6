package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"atcp/internal/clock"
)

var start = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)

func newTokens(t *testing.T, keys KeyStore, issuer string, clk clock.Clock) *Tokens {
	t.Helper()
	tk, err := NewTokens(context.Background(), keys, issuer, clk)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func caller() Principal {
	return Principal{Subject: "int-1", OrganizationID: "acme", Scopes: NewScopeSet(AssetRead, MarketWrite), IsM2M: true, ClientID: "int-1", Credential: "secret-1"}
}

func TestIssueAndVerify(t *testing.T) {
	clk := clock.NewManual(start)
	tk := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clk)
	raw, expiresIn, err := tk.IssueAccess(caller())
	if err != nil || expiresIn != 3600 {
		t.Fatalf("issue: %v %d", err, expiresIn)
	}
	p, err := tk.Verify(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "int-1" || p.OrganizationID != "acme" || !p.IsM2M || !p.Scopes.Has(AssetRead, MarketWrite) || p.Scopes.Has(AssetWrite) ||
		p.Credential != "secret-1" {
		t.Fatalf("principal %+v", p)
	}
}

// TestTokensWithoutCredential: tokens issued before the sid claim existed
// still verify, with no credential named.
func TestTokensWithoutCredential(t *testing.T) {
	tk := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	old := caller()
	old.Credential = ""
	raw, _, err := tk.IssueAccess(old)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := tok.UnsafeClaimsWithoutVerification(&claims); err != nil {
		t.Fatal(err)
	}
	if _, ok := claims["sid"]; ok {
		t.Fatalf("empty credential written as a claim: %v", claims)
	}
	p, err := tk.Verify(raw)
	if err != nil || p.Credential != "" || p.Subject != "int-1" {
		t.Fatalf("verify: %v %+v", err, p)
	}
}

func TestExpiryFollowsTheClock(t *testing.T) {
	clk := clock.NewManual(start)
	tk := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clk)
	raw, _, _ := tk.IssueAccess(caller())
	clk.Advance(AccessTokenTTL - time.Microsecond)
	if _, err := tk.Verify(raw); err != nil {
		t.Fatalf("valid until the last instant: %v", err)
	}
	clk.Advance(time.Microsecond)
	if _, err := tk.Verify(raw); err != ErrInvalidToken {
		t.Fatalf("verified at expiry (cached: %v)", err)
	}
}

func TestRejectsForeignAndTamperedTokens(t *testing.T) {
	clk := clock.NewManual(start)
	keys := &MemoryKeyStore{}
	tk := newTokens(t, keys, "http://atcp.test", clk)
	raw, _, _ := tk.IssueAccess(caller())

	// Same key, other issuer: another deployment's token.
	other := newTokens(t, keys, "http://other.test", clk)
	if _, err := other.Verify(raw); err == nil {
		t.Fatal("token of another issuer accepted")
	}
	// Another key, same issuer.
	stranger := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clk)
	foreign, _, _ := stranger.IssueAccess(caller())
	if _, err := tk.Verify(foreign); err == nil {
		t.Fatal("token signed with another key accepted")
	}
	// A changed payload breaks the signature.
	parts := strings.Split(raw, ".")
	parts[1] = parts[1][:len(parts[1])-2] + "AA"
	if _, err := tk.Verify(strings.Join(parts, ".")); err == nil {
		t.Fatal("tampered token accepted")
	}
	// An unsigned token (alg none) is never accepted.
	unsigned := parts[0][:0] + "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + strings.Split(raw, ".")[1] + "."
	if _, err := tk.Verify(unsigned); err == nil {
		t.Fatal("alg none accepted")
	}
	// An HS256 token using the public key as secret (algorithm confusion).
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("secret")}, nil)
	forged, _ := jwt.Signed(hs).Claims(AccessClaims{Claims: jwt.Claims{Issuer: "http://atcp.test", Subject: "x",
		Audience: jwt.Audience{Audience}, Expiry: jwt.NewNumericDate(start.Add(time.Hour))}, OrganizationID: "platform"}).Serialize()
	if _, err := tk.Verify(forged); err == nil {
		t.Fatal("HS256 token accepted")
	}
	for _, junk := range []string{"", "a.b.c", "not a token"} {
		if _, err := tk.Verify(junk); err == nil {
			t.Fatalf("%q accepted", junk)
		}
	}
}

func TestJWKSVerifiesIssuedTokens(t *testing.T) {
	tk := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	raw, _, _ := tk.IssueAccess(caller())
	set := tk.JWKS()
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	keys := set.Key(tok.Headers[0].KeyID)
	if len(keys) != 1 || !keys[0].IsPublic() {
		t.Fatalf("JWKS lacks the public key %q", tok.Headers[0].KeyID)
	}
	var claims AccessClaims
	if err := tok.Claims(keys[0].Key, &claims); err != nil || claims.OrganizationID != "acme" || claims.Credential != "secret-1" {
		t.Fatalf("verify with JWKS: %v %+v", err, claims)
	}
}

func kidOfToken(t *testing.T, raw string) string {
	t.Helper()
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Headers[0].KeyID
}

func TestInstancesSharingKeysAcceptEachOthersTokens(t *testing.T) {
	clk := clock.NewManual(start)
	keys := &MemoryKeyStore{}
	a := newTokens(t, keys, "http://atcp.test", clk)
	b := newTokens(t, keys, "http://atcp.test", clk)
	raw, _, _ := a.IssueAccess(caller())
	if _, err := b.Verify(raw); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkVerifyCached(b *testing.B) {
	tk, _ := NewTokens(context.Background(), &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	raw, _, _ := tk.IssueAccess(caller())
	for b.Loop() {
		if _, err := tk.Verify(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyUncached(b *testing.B) {
	tk, _ := NewTokens(context.Background(), &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	raw, _, _ := tk.IssueAccess(caller())
	for b.Loop() {
		clear(tk.cache.entries)
		if _, err := tk.Verify(raw); err != nil {
			b.Fatal(err)
		}
	}
}
