package auth

import (
	"strings"
	"testing"
)

func TestSecretHashing(t *testing.T) {
	h, err := HashSecret("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(h, "correct horse") {
		t.Fatalf("hash %q", h)
	}
	if !VerifySecret("correct horse battery staple", h) {
		t.Fatal("the right secret is refused")
	}
	for _, wrong := range []string{"", "correct horse battery stapl", "Correct horse battery staple"} {
		if VerifySecret(wrong, h) {
			t.Fatalf("%q accepted", wrong)
		}
	}
	if h2, _ := HashSecret("correct horse battery staple"); h2 == h {
		t.Fatal("two hashes of one secret are equal: no salt")
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=18$m=19456,t=2,p=1$AA$AA", "plain"} {
		if VerifySecret("x", bad) {
			t.Fatalf("malformed hash %q accepted", bad)
		}
	}
}

func FuzzVerifySecret(f *testing.F) {
	h, _ := HashSecret("seed")
	f.Add("seed", h)
	f.Add("x", "$argon2id$v=19$m=1,t=1,p=1$$")
	f.Add("x", "$argon2id$v=19$m=64,t=1,p=0$c2FsdHNhbHQ$c2FsdHNhbHRzYWx0c2FsdA")
	f.Fuzz(func(t *testing.T, secret, encoded string) {
		// Must never panic, whatever is stored.
		VerifySecret(secret, encoded)
	})
}

func TestScopeSet(t *testing.T) {
	s := ParseScopeString("market.write  asset.read asset.read")
	if s.String() != "asset.read market.write" || !s.Has(AssetRead) || s.Has(AssetRead, AssetWrite) || !s.Has() {
		t.Fatalf("scope set %v", s)
	}
	for _, sc := range IntegrationGrantable {
		if !Known(sc) {
			t.Fatalf("grantable %s unknown", sc)
		}
	}
	if Known("dispatch.everything") {
		t.Fatal("unknown scope known")
	}
}

func TestLookupHashAndRandomToken(t *testing.T) {
	a, b := RandomToken(32), RandomToken(32)
	if a == b || len(a) != 43 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if LookupHash(a) == LookupHash(b) || LookupHash(a) != LookupHash(strings.Clone(a)) || len(LookupHash(a)) != 64 {
		t.Fatal("lookup hash")
	}
}
