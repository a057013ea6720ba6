package auth

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"atcp/internal/clock"
)

// countingKeys counts the reads of the key set.
type countingKeys struct {
	MemoryKeyStore
	reads atomic.Int64
}

func (c *countingKeys) SigningKeys(ctx context.Context) ([]SigningKey, error) {
	c.reads.Add(1)
	return c.MemoryKeyStore.SigningKeys(ctx)
}

func TestUnknownKeyIDsReloadAtMostOncePerPeriod(t *testing.T) {
	keys := &countingKeys{}
	keyClock := clock.NewManual(start)
	tk, err := NewTokens(context.Background(), keys, "http://atcp.test", clock.NewManual(start), WithKeyClock(keyClock))
	if err != nil {
		t.Fatal(err)
	}
	// Tokens of another deployment's keys carry kids this one never had.
	stranger := newTokens(t, &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start))
	foreign, _, _ := stranger.IssueAccess(caller())
	loaded := keys.reads.Load()
	for range 100 {
		if _, err := tk.Verify(foreign); err != ErrInvalidToken {
			t.Fatalf("foreign token: %v", err)
		}
	}
	if got := keys.reads.Load() - loaded; got != 1 {
		t.Fatalf("100 unknown kids read the keys %d times, want 1", got)
	}
	keyClock.Advance(unknownKeyReloadEvery)
	if _, err := tk.Verify(foreign); err != ErrInvalidToken {
		t.Fatal(err)
	}
	if got := keys.reads.Load() - loaded; got != 2 {
		t.Fatalf("after the period: %d reads, want 2", got)
	}
}

func TestUnknownKeyIDOfANewKeyVerifiesAtOnce(t *testing.T) {
	keys := &MemoryKeyStore{}
	keyClock := clock.NewManual(start)
	b, err := NewTokens(context.Background(), keys, "http://atcp.test", clock.NewManual(start), WithKeyClock(keyClock))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RotateSigningKey(context.Background(), keys, 0, false); err != nil {
		t.Fatal(err)
	}
	// a starts after the rotation and signs with the new key; b has not
	// reloaded yet.
	a := newTokens(t, keys, "http://atcp.test", clock.NewManual(start))
	raw, _, _ := a.IssueAccess(caller())
	if _, err := b.Verify(raw); err != nil {
		t.Fatalf("a token of a key added since the last reload: %v", err)
	}
}

func TestSealedKeysAreBoundToTheirRow(t *testing.T) {
	ctx := context.Background()
	kek := make([]byte, 32)
	kek[0] = 7
	keys := &MemoryKeyStore{}
	newTokens := func() error {
		_, err := NewTokens(ctx, keys, "http://atcp.test", clock.NewManual(start), WithKeyEncryption([][]byte{kek}))
		return err
	}
	if err := newTokens(); err != nil {
		t.Fatal(err)
	}
	if _, err := RotateSigningKey(ctx, keys, time.Minute, false, WithKeyEncryption([][]byte{kek})); err != nil {
		t.Fatal(err)
	}
	stored, _ := keys.SigningKeys(ctx)
	first, second := stored[0], stored[1]

	// The second key's envelope copied onto the first key's row.
	if ok, _ := keys.ReplacePrivateKey(ctx, first.KeyID, first.PrivateKey, second.PrivateKey); !ok {
		t.Fatal("replace failed")
	}
	if err := newTokens(); err == nil || !strings.Contains(err.Error(), "tampered") {
		t.Fatalf("an envelope moved to another key opened: %v", err)
	}
	// A damaged envelope.
	damaged := first.PrivateKey[:len(first.PrivateKey)-4] + "AAAA"
	keys.ReplacePrivateKey(ctx, first.KeyID, second.PrivateKey, damaged)
	if err := newTokens(); err == nil || !strings.Contains(err.Error(), first.KeyID) {
		t.Fatalf("a damaged envelope opened: %v", err)
	}
	// A plain key under another key's id.
	keys.ReplacePrivateKey(ctx, first.KeyID, damaged, mustPlain(t, second.KeyID))
	if err := newTokens(); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("a key stored under another key's id loaded: %v", err)
	}
}

func mustPlain(t *testing.T, notID string) string {
	t.Helper()
	k, err := NewSigningKey(start)
	if err != nil || k.KeyID == notID {
		t.Fatal(err)
	}
	return k.PrivateKey
}

func TestKeyEncryptionKeyMustBe32Bytes(t *testing.T) {
	_, err := NewTokens(context.Background(), &MemoryKeyStore{}, "http://atcp.test", clock.NewManual(start),
		WithKeyEncryption([][]byte{make([]byte, 16)}))
	if err == nil || !strings.Contains(err.Error(), KeyEncryptionKeySetting) {
		t.Fatalf("a 16-byte key-encryption key: %v", err)
	}
}

func TestPendingKeyIsPublishedButDoesNotSign(t *testing.T) {
	keys := &MemoryKeyStore{}
	keyClock := clock.NewManual(start)
	if _, err := NewTokens(context.Background(), keys, "http://atcp.test", clock.NewManual(start), WithKeyClock(keyClock)); err != nil {
		t.Fatal(err)
	}
	added, err := RotateSigningKey(context.Background(), keys, DefaultKeyActivationDelay, false, WithKeyClock(keyClock))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := NewTokens(context.Background(), keys, "http://atcp.test", clock.NewManual(start), WithKeyClock(keyClock))
	if err != nil {
		t.Fatal(err)
	}
	if set := tk.JWKS(); len(set.Keys) != 2 || set.Keys[0].KeyID != added.KeyID {
		t.Fatalf("JWKS %+v", set.Keys)
	}
	raw, _, _ := tk.IssueAccess(caller())
	if kid := kidOfToken(t, raw); kid == added.KeyID {
		t.Fatal("the pending key signs")
	}
	keyClock.Advance(DefaultKeyActivationDelay)
	raw, _, _ = tk.IssueAccess(caller())
	if kid := kidOfToken(t, raw); kid != added.KeyID {
		t.Fatalf("signs with %s once the new key is active", kid)
	}
}
