package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

const issuer = "http://atcp.test"

// realStart is where the manual security clock of these tests starts.
var realStart = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func newKEK(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func caller() auth.Principal {
	return auth.Principal{Subject: "int-1", OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.AssetRead), IsM2M: true, ClientID: "int-1"}
}

func issue(t *testing.T, tk *auth.Tokens) string {
	t.Helper()
	raw, _, err := tk.IssueAccess(caller())
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func kidOf(t *testing.T, raw string) string {
	t.Helper()
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Headers[0].KeyID
}

func jwksKids(tk *auth.Tokens) []string {
	var ids []string
	for _, k := range tk.JWKS().Keys {
		ids = append(ids, k.KeyID)
	}
	return ids
}

func storedKeys(t *testing.T, b store.Backend) []auth.SigningKey {
	t.Helper()
	keys, err := b.SigningKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// waitFor polls cond for up to five seconds of real time: the key watcher
// sleeps at most a second between looks at its clock.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// watchKeys runs tk's key watcher until the test ends.
func watchKeys(t *testing.T, tk *auth.Tokens) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { tk.WatchKeys(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

func TestSigningKeyStoreContract(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		first, _ := auth.NewSigningKey(realStart)
		if err := b.EnsureSigningKey(ctx, first); err != nil {
			t.Fatal(err)
		}
		other, _ := auth.NewSigningKey(realStart.Add(time.Second))
		if err := b.EnsureSigningKey(ctx, other); err != nil {
			t.Fatal(err)
		}
		keys := storedKeys(t, b)
		if len(keys) != 1 || keys[0].KeyID != first.KeyID || keys[0].PrivateKey != first.PrivateKey ||
			!keys[0].CreatedAt.Equal(realStart) || !keys[0].ActivatesAt.Equal(realStart) || !keys[0].RetiredAt.IsZero() {
			t.Fatalf("after two ensures: %+v", keys)
		}

		// A rotation retires the key in force when the new one activates.
		second, _ := auth.NewSigningKey(realStart.Add(time.Hour))
		second.ActivatesAt = realStart.Add(time.Hour + 10*time.Minute)
		if err := b.AddSigningKey(ctx, second, false); err != nil {
			t.Fatal(err)
		}
		// A second rotation before the first activated: the pending key
		// retires at the newest one's activation, the first stays retired
		// when it was.
		third, _ := auth.NewSigningKey(realStart.Add(time.Hour + time.Minute))
		third.ActivatesAt = realStart.Add(time.Hour + 11*time.Minute)
		if err := b.AddSigningKey(ctx, third, false); err != nil {
			t.Fatal(err)
		}
		keys = storedKeys(t, b)
		if len(keys) != 3 || keys[0].KeyID != first.KeyID || keys[1].KeyID != second.KeyID || keys[2].KeyID != third.KeyID {
			t.Fatalf("keys not in activation order: %+v", keys)
		}
		if !keys[0].RetiredAt.Equal(second.ActivatesAt) || !keys[1].RetiredAt.Equal(third.ActivatesAt) || !keys[2].RetiredAt.IsZero() {
			t.Fatalf("retirements %v %v %v", keys[0].RetiredAt, keys[1].RetiredAt, keys[2].RetiredAt)
		}

		// Replacing the private key is a compare-and-swap.
		if ok, err := b.ReplacePrivateKey(ctx, first.KeyID, "stale", "sealed"); err != nil || ok {
			t.Fatalf("replace of a stale value: %v %v", ok, err)
		}
		if ok, err := b.ReplacePrivateKey(ctx, first.KeyID, first.PrivateKey, "sealed"); err != nil || !ok {
			t.Fatalf("replace: %v %v", ok, err)
		}
		if keys = storedKeys(t, b); keys[0].PrivateKey != "sealed" || keys[1].PrivateKey != second.PrivateKey {
			t.Fatalf("after replace: %q %q", keys[0].PrivateKey, keys[1].PrivateKey)
		}

		// Only keys retired before the cutoff are deleted.
		ids, err := b.DeleteRetiredSigningKeys(ctx, second.ActivatesAt)
		if err != nil || len(ids) != 0 {
			t.Fatalf("deleted at the retirement instant: %v %v", ids, err)
		}
		ids, err = b.DeleteRetiredSigningKeys(ctx, third.ActivatesAt)
		if err != nil || len(ids) != 1 || ids[0] != first.KeyID {
			t.Fatalf("deleted %v %v", ids, err)
		}
		if keys = storedKeys(t, b); len(keys) != 2 {
			t.Fatalf("left %d keys", len(keys))
		}

		// Revoking deletes every other key.
		fourth, _ := auth.NewSigningKey(realStart.Add(2 * time.Hour))
		if err := b.AddSigningKey(ctx, fourth, true); err != nil {
			t.Fatal(err)
		}
		if keys = storedKeys(t, b); len(keys) != 1 || keys[0].KeyID != fourth.KeyID || !keys[0].RetiredAt.IsZero() {
			t.Fatalf("after revoking: %+v", keys)
		}
	})
}

func TestConcurrentRotationsRetireEveryPreviousKey(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		keyClock := clock.NewManual(realStart)
		if _, err := auth.NewTokens(ctx, b, issuer, clock.NewManual(testkit.Start), auth.WithKeyClock(keyClock)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				if _, err := auth.RotateSigningKey(ctx, b, time.Minute, false, auth.WithKeyClock(keyClock)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		keys := storedKeys(t, b)
		if len(keys) != 7 {
			t.Fatalf("%d keys", len(keys))
		}
		var signing int
		for _, k := range keys {
			if k.RetiredAt.IsZero() {
				signing++
			}
		}
		if signing != 1 {
			t.Fatalf("%d keys never retire: %+v", signing, keys)
		}
	})
}

func TestSigningKeysEncryptedAtRest(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		kek1, kek2 := newKEK(t), newKEK(t)
		start := func(keks ...[]byte) (*auth.Tokens, string, error) {
			var log bytes.Buffer
			tk, err := auth.NewTokens(ctx, b, issuer, clk, auth.WithKeyEncryption(keks),
				auth.WithKeyLog(slog.New(slog.NewTextHandler(&log, nil))))
			return tk, log.String(), err
		}
		stored := func() string {
			keys := storedKeys(t, b)
			if len(keys) != 1 {
				t.Fatalf("%d keys", len(keys))
			}
			return keys[0].PrivateKey
		}
		secrets := func(t *testing.T, log string, plainPEM string) {
			t.Helper()
			for _, secret := range []string{"PRIVATE KEY", plainPEM, base64.StdEncoding.EncodeToString(kek1),
				base64.StdEncoding.EncodeToString(kek2), "atcp-kek-v1:"} {
				if strings.Contains(log, secret) {
					t.Fatalf("the log holds key material %.40q: %s", secret, log)
				}
			}
		}

		// Unset, plain: works as before.
		plainTokens, log, err := start()
		if err != nil {
			t.Fatal(err)
		}
		plainPEM := stored()
		if !strings.HasPrefix(plainPEM, "-----BEGIN PRIVATE KEY-----") || log != "" {
			t.Fatalf("plain start: %.30q, log %q", plainPEM, log)
		}
		before := issue(t, plainTokens)

		// Set, plain: sealed in place, logged once, the same key.
		sealedTokens, log, err := start(kek1)
		if err != nil {
			t.Fatal(err)
		}
		sealed := stored()
		if !strings.HasPrefix(sealed, "atcp-kek-v1:") || strings.Contains(sealed, "PRIVATE KEY") {
			t.Fatalf("not sealed: %.40q", sealed)
		}
		if strings.Count(log, "encrypted the signing keys at rest") != 1 {
			t.Fatalf("log %q", log)
		}
		secrets(t, log, plainPEM)
		if _, err := sealedTokens.Verify(before); err != nil {
			t.Fatalf("token of the key before sealing: %v", err)
		}

		// Set, sealed: opened, nothing written or logged.
		again, log, err := start(kek1)
		if err != nil || log != "" || stored() != sealed {
			t.Fatalf("restart with the key: %v, log %q, rewritten %v", err, log, stored() != sealed)
		}
		if _, err := again.Verify(before); err != nil {
			t.Fatal(err)
		}

		// Unset, sealed: refused, naming the setting.
		if _, _, err := start(); err == nil || !strings.Contains(err.Error(), auth.KeyEncryptionKeySetting) {
			t.Fatalf("start without the key: %v", err)
		}
		// Wrong key: refused, nothing overwritten.
		_, log, err = start(kek2)
		if err == nil || !strings.Contains(err.Error(), "does not hold") || !strings.Contains(err.Error(), auth.KeyEncryptionKeySetting) {
			t.Fatalf("start with a wrong key: %v", err)
		}
		secrets(t, err.Error()+log, plainPEM)
		if stored() != sealed {
			t.Fatal("a start with a wrong key changed the stored key")
		}

		// Rotation of the key-encryption key: new first, previous second.
		_, log, err = start(kek2, kek1)
		if err != nil || !strings.Contains(log, "re-encrypted") {
			t.Fatalf("rotating the key-encryption key: %v, log %q", err, log)
		}
		secrets(t, log, plainPEM)
		resealed := stored()
		if resealed == sealed || !strings.HasPrefix(resealed, "atcp-kek-v1:") {
			t.Fatal("not re-sealed")
		}
		if _, _, err := start(kek1); err == nil {
			t.Fatal("the previous key-encryption key still opens the re-sealed key")
		}
		onlyNew, _, err := start(kek2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := onlyNew.Verify(before); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSigningKeyRotation(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		// Token times and key times run on separate manual clocks, moved
		// together as real time would move them.
		tokenClock, keyClock := clock.NewManual(testkit.Start), clock.NewManual(realStart)
		advance := func(d time.Duration) {
			tokenClock.Advance(d)
			keyClock.Advance(d)
		}
		kek := newKEK(t)
		opts := []auth.KeyOption{auth.WithKeyEncryption([][]byte{kek}), auth.WithKeyClock(keyClock)}
		a, err := auth.NewTokens(ctx, b, issuer, tokenClock, opts...)
		if err != nil {
			t.Fatal(err)
		}
		watchKeys(t, a)
		// Instance b never reloads on its own: it learns of keys from
		// tokens with an unknown kid.
		other, err := auth.NewTokens(ctx, b, issuer, tokenClock, opts...)
		if err != nil {
			t.Fatal(err)
		}
		old := issue(t, a)
		oldKid := kidOf(t, old)

		added, err := auth.RotateSigningKey(ctx, b, 10*time.Minute, false, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if added.KeyID == oldKid || added.PrivateKey != "" {
			t.Fatalf("rotation returned %+v", added)
		}
		for _, k := range storedKeys(t, b) {
			if !strings.HasPrefix(k.PrivateKey, "atcp-kek-v1:") {
				t.Fatalf("key %s stored unencrypted", k.KeyID)
			}
		}

		// Within a reload period the new key is published, not yet signing.
		advance(auth.KeyReloadEvery)
		waitFor(t, "instance a publishes the new key", func() bool { return len(a.JWKS().Keys) == 2 })
		lastOld := issue(t, a)
		if kid := kidOf(t, lastOld); kid != oldKid {
			t.Fatalf("a pending key signs: %s", kid)
		}

		// Once active it signs; the old key still verifies.
		advance(10 * time.Minute)
		fresh := issue(t, a)
		if kid := kidOf(t, fresh); kid != added.KeyID {
			t.Fatalf("new tokens carry kid %s, want %s", kid, added.KeyID)
		}
		for name, tk := range map[string]*auth.Tokens{"a": a, "b": other} {
			if _, err := tk.Verify(old); err != nil {
				t.Fatalf("%s rejects a token of the retired key: %v", name, err)
			}
			if _, err := tk.Verify(fresh); err != nil {
				t.Fatalf("%s rejects a token of the new key: %v", name, err)
			}
			if kids := jwksKids(tk); len(kids) != 2 {
				t.Fatalf("%s publishes %v", name, kids)
			}
		}

		// The retired key stays published until its last token has
		// expired plus the margin, then it is dropped and deleted.
		advance(added.ActivatesAt.Add(auth.RetiredKeyLifetime - time.Microsecond).Sub(keyClock.Now()))
		if _, err := other.Verify(lastOld); err != auth.ErrInvalidToken {
			t.Fatalf("the last token of the retired key is still valid when the key is dropped: %v", err)
		}
		if kids := jwksKids(a); len(kids) != 2 {
			t.Fatalf("dropped before the margin: %v", kids)
		}
		advance(time.Microsecond)
		if kids := jwksKids(a); len(kids) != 1 || kids[0] != added.KeyID {
			t.Fatalf("JWKS after the retired key's lifetime: %v", kids)
		}
		advance(auth.KeyReloadEvery)
		waitFor(t, "the retired key is deleted at the next reload", func() bool { return len(storedKeys(t, b)) == 1 })
		if _, err := a.Verify(issue(t, a)); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRevokedSigningKeyStopsVerifying(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		tokenClock, keyClock := clock.NewManual(testkit.Start), clock.NewManual(realStart)
		a, err := auth.NewTokens(ctx, b, issuer, tokenClock, auth.WithKeyClock(keyClock))
		if err != nil {
			t.Fatal(err)
		}
		watchKeys(t, a)
		leaked := issue(t, a)
		if _, err := a.Verify(leaked); err != nil { // now cached as verified
			t.Fatal(err)
		}
		added, err := auth.RotateSigningKey(ctx, b, time.Hour, true, auth.WithKeyClock(keyClock))
		if err != nil {
			t.Fatal(err)
		}
		if !added.ActivatesAt.Equal(keyClock.Now()) {
			t.Fatalf("a revoking rotation activates at %v", added.ActivatesAt)
		}
		keyClock.Advance(auth.KeyReloadEvery)
		waitFor(t, "the revoked key is dropped", func() bool {
			kids := jwksKids(a)
			return len(kids) == 1 && kids[0] == added.KeyID
		})
		if _, err := a.Verify(leaked); err == nil {
			t.Fatal("a token of the revoked key still verifies")
		}
		if kid := kidOf(t, issue(t, a)); kid != added.KeyID {
			t.Fatalf("signs with %s", kid)
		}
	})
}
