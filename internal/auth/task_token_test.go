package auth

import (
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"

	"atcp/internal/clock"
)

func taskCaller() Principal {
	return Principal{OrganizationID: "acme", ClientID: "atcp-console", Email: "epc@example.com",
		Task: &TaskGrant{OnboardingID: "ob-1", ContactID: "c-1", Role: "epc", SessionID: "s-1"}}
}

// TestTaskTokenRoundTrip: a magic-link session's token carries sub
// onbc:<contact>, sid, the onboarding claims and no scopes, and verifies
// back to the same grant.
func TestTaskTokenRoundTrip(t *testing.T) {
	tk := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	p := taskCaller()
	p.Subject, p.Scopes = "ignored", NewScopeSet(AssetRead) // the grant decides, never the caller's other fields
	raw, _, err := tk.IssueAccess(p)
	if err != nil {
		t.Fatal(err)
	}
	claims := unsafeClaims(t, raw)
	if claims["sub"] != "onbc:c-1" || claims["sid"] != "s-1" || claims["onboarding_id"] != "ob-1" ||
		claims["onboarding_role"] != "epc" || claims["scope"] != "" || claims["organization_id"] != "acme" {
		t.Fatalf("claims %v", claims)
	}
	got, err := tk.Verify(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !got.IsTaskSession() || *got.Task != *taskCaller().Task || got.Subject != "onbc:c-1" || got.Credential != "s-1" ||
		len(got.Scopes) != 0 || got.OrganizationID != "acme" {
		t.Fatalf("principal %+v task %+v", got, got.Task)
	}
}

func TestNormalTokenHasNoTask(t *testing.T) {
	tk := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	raw, _, _ := tk.IssueAccess(caller())
	claims := unsafeClaims(t, raw)
	if _, ok := claims["onboarding_id"]; ok {
		t.Fatalf("normal token carries onboarding claims: %v", claims)
	}
	p, err := tk.Verify(raw)
	if err != nil || p.IsTaskSession() {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestIncompleteTaskGrantIsNotIssued(t *testing.T) {
	tk := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	p := taskCaller()
	p.Task.SessionID = ""
	if _, _, err := tk.IssueAccess(p); err == nil {
		t.Fatal("a task token without a session was issued")
	}
}

// TestHalfTaskTokensAreInvalid: tokens signed with atcp's key but with only
// one onboarding claim, a task subject without the claims, or task claims
// with scopes or without a session are refused.
func TestHalfTaskTokensAreInvalid(t *testing.T) {
	clk := clock.NewManual(start)
	keys := &MemoryKeyStore{}
	tk := newTokens(t, keys, "http://atcp.test", clk)
	base := func() AccessClaims {
		return AccessClaims{Claims: jwt.Claims{Issuer: "http://atcp.test", Subject: "onbc:c-1", Audience: jwt.Audience{Audience},
			IssuedAt: jwt.NewNumericDate(start), Expiry: jwt.NewNumericDate(start.Add(AccessTokenTTL)), ID: uuid.NewString()},
			OrganizationID: "acme", ClientID: "atcp-console", Credential: "s-1", OnboardingID: "ob-1", OnboardingRole: "epc"}
	}
	cases := map[string]func(c *AccessClaims){
		"only onboarding_id":   func(c *AccessClaims) { c.OnboardingRole = "" },
		"only onboarding_role": func(c *AccessClaims) { c.OnboardingID = "" },
		"task subject alone":   func(c *AccessClaims) { c.OnboardingID, c.OnboardingRole = "", "" },
		"user subject":         func(c *AccessClaims) { c.Subject = "u-1" },
		"empty contact":        func(c *AccessClaims) { c.Subject = "onbc:" },
		"no session":           func(c *AccessClaims) { c.Credential = "" },
		"with scopes":          func(c *AccessClaims) { c.Scope = "asset.read" },
		"machine":              func(c *AccessClaims) { c.IsM2M = true },
	}
	// The claims are signed with the ring's own key, as atcp would.
	good := base()
	raw, err := jwt.Signed(tk.keys.signer()).Claims(good).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := tk.Verify(raw); err != nil || !p.IsTaskSession() {
		t.Fatalf("the complete claims do not verify: %v", err)
	}
	for name, change := range cases {
		c := base()
		change(&c)
		raw, err := jwt.Signed(tk.keys.signer()).Claims(c).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		if p, err := tk.Verify(raw); err != ErrInvalidToken {
			t.Errorf("%s: verified as %+v (%v)", name, p, err)
		}
	}
}

func unsafeClaims(t *testing.T, raw string) map[string]any {
	t.Helper()
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := tok.UnsafeClaimsWithoutVerification(&claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

// TestTaskSessionIsNeverPlatformAdmin: a session on an onboarding of the
// platform organisation sees that organisation only.
func TestTaskSessionIsNeverPlatformAdmin(t *testing.T) {
	p := taskCaller()
	p.OrganizationID = PlatformOrganization
	if p.IsPlatformAdmin() || p.Visibility().All || !p.CanSeeOrganization(PlatformOrganization) || p.CanSeeOrganization("acme") {
		t.Fatalf("task session of the platform organisation: admin %v, visibility %+v", p.IsPlatformAdmin(), p.Visibility())
	}
}
