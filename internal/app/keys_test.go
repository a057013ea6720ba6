package app_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"atcp/internal/app"
	"atcp/internal/auth"
)

func tokenKid(t *testing.T, raw string) string {
	t.Helper()
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Headers[0].KeyID
}

func publishedKids(t *testing.T, base string) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/.well-known/jwks.json", nil)
	var set jose.JSONWebKeySet
	getJSON(t, req, http.StatusOK, &set)
	var kids []string
	for _, k := range set.Keys {
		kids = append(kids, k.KeyID)
	}
	slices.Sort(kids)
	return kids
}

func assetsStatus(t *testing.T, base, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/assets", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSigningKeyRotationAcrossInstances: two servers on one database; the
// key is rotated; the instance started before the rotation accepts the
// other's tokens of the new key at once, both publish both keys, and the
// old tokens keep working. The keys are sealed with the configured
// key-encryption key, and a start without it is refused.
func TestSigningKeyRotationAcrossInstances(t *testing.T) {
	for name, dbURL := range databases(t) {
		t.Run(name, func(t *testing.T) {
			kek := make([]byte, 32)
			rand.Read(kek)
			cfg := testConfig(t, dbURL(t), t.TempDir())
			cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
			cfg.BaseURL = "http://atcp.test" // one issuer for both instances
			cfg.KeyEncryptionKeys = [][]byte{kek}
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

			first, err := app.New(context.Background(), cfg, quiet, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			serve(t, first)
			firstURL := "http://" + first.Addr()
			before := fetchToken(t, firstURL)

			added, err := auth.RotateSigningKey(context.Background(), first.Store, 0, false, auth.WithKeyEncryption(cfg.KeyEncryptionKeys))
			if err != nil {
				t.Fatal(err)
			}
			stored, err := first.Store.SigningKeys(context.Background())
			if err != nil || len(stored) != 2 {
				t.Fatalf("stored keys %d, %v", len(stored), err)
			}
			for _, k := range stored {
				if !strings.HasPrefix(k.PrivateKey, "atcp-kek-v1:") {
					t.Fatalf("key %s is stored unencrypted", k.KeyID)
				}
			}

			second, err := app.New(context.Background(), cfg, quiet, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			serve(t, second)
			secondURL := "http://" + second.Addr()
			after := fetchToken(t, secondURL)
			if tokenKid(t, after) != added.KeyID || tokenKid(t, before) == added.KeyID {
				t.Fatalf("kids: before %s, after %s, added %s", tokenKid(t, before), tokenKid(t, after), added.KeyID)
			}
			if s := assetsStatus(t, firstURL, after); s != http.StatusOK {
				t.Fatalf("the first instance rejects a token of the new key: %d", s)
			}
			if s := assetsStatus(t, secondURL, before); s != http.StatusOK {
				t.Fatalf("the second instance rejects a token of the retired key: %d", s)
			}
			want := []string{tokenKid(t, before), added.KeyID}
			slices.Sort(want)
			for _, base := range []string{firstURL, secondURL} {
				if kids := publishedKids(t, base); !slices.Equal(kids, want) {
					t.Fatalf("%s publishes %v, want %v", base, kids, want)
				}
			}

			cfg.KeyEncryptionKeys = nil
			if _, err := app.New(context.Background(), cfg, quiet, io.Discard); err == nil ||
				!strings.Contains(err.Error(), "ATCP_KEY_ENCRYPTION_KEY") {
				t.Fatalf("a start without the key-encryption key: %v", err)
			}
		})
	}
}

// TestUnencryptedKeysWarnOutsideDemoMode: production without a
// key-encryption key says so at start; the demo does not.
func TestUnencryptedKeysWarnOutsideDemoMode(t *testing.T) {
	for _, demo := range []bool{false, true} {
		var log bytes.Buffer
		cfg := testConfig(t, "sqlite://"+filepath.Join(t.TempDir(), "atcp.db"), t.TempDir())
		cfg.Demo = demo
		a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(&log, nil)), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		if warned := strings.Contains(log.String(), "ATCP_KEY_ENCRYPTION_KEY"); warned == demo {
			t.Fatalf("demo %v: warned %v: %s", demo, warned, log.String())
		}
	}
}
