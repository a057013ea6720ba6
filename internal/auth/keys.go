package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"atcp/internal/clock"
)

// The lifecycle of signing keys, in real time (the security clock):
//
//   - a key is published in the JWKS and verifies from when it is stored;
//   - it signs from its ActivatesAt until the next key activates, which
//     retires it (RetiredAt);
//   - it keeps verifying until RetiredAt + RetiredKeyLifetime, when it is
//     dropped from the JWKS and deleted.
const (
	// KeyReloadEvery is how often each instance re-reads the key set, so
	// that instances on one database learn of a rotation.
	KeyReloadEvery = 30 * time.Second
	// DefaultKeyActivationDelay is how long a new key is published before it
	// signs: every instance loads it within KeyReloadEvery, and verifiers
	// that cache the JWKS (max-age 300 s) fetch it again before they meet a
	// token it signed.
	DefaultKeyActivationDelay = 10 * time.Minute
	// RetiredKeyLifetime is how long a retired key keeps verifying: the
	// tokens it signed live AccessTokenTTL; the margin covers an instance
	// that signs with it until its next reload and clocks that differ
	// between instances.
	RetiredKeyLifetime = AccessTokenTTL + 5*time.Minute
	// unknownKeyReloadEvery bounds the reloads that tokens with an unknown
	// kid can cause: at most one database read per period and instance.
	unknownKeyReloadEvery = 5 * time.Second
)

// SigningKey is one asymmetric key tokens are signed with, as persisted.
type SigningKey struct {
	KeyID     string
	Algorithm string
	// PrivateKey is the PKCS #8 PEM of the private key, or that PEM sealed
	// with a key-encryption key (kek.go).
	PrivateKey string
	CreatedAt  time.Time
	// ActivatesAt is when the key starts signing.
	ActivatesAt time.Time
	// RetiredAt is when it stopped signing (its successor's ActivatesAt);
	// zero while it has none.
	RetiredAt time.Time
}

// KeyStore persists the signing keys so that restarts and every instance on
// the same database sign and verify with the same keys. The private keys
// are opaque to it: sealing happens before they reach the store.
type KeyStore interface {
	// EnsureSigningKey stores candidate when no key is stored; of
	// instances starting together on an empty store, one key is kept.
	EnsureSigningKey(ctx context.Context, candidate SigningKey) error
	// SigningKeys returns every stored key, in the order they activate.
	SigningKeys(ctx context.Context) ([]SigningKey, error)
	// AddSigningKey stores k. Every other key not retired by k.ActivatesAt
	// retires then; with deleteOthers, every other key is deleted instead.
	// Concurrent additions are serialised.
	AddSigningKey(ctx context.Context, k SigningKey, deleteOthers bool) error
	// ReplacePrivateKey stores private as the private key of keyID if the
	// stored one is still old, and reports whether it was.
	ReplacePrivateKey(ctx context.Context, keyID, old, private string) (bool, error)
	// DeleteRetiredSigningKeys deletes the keys retired before cutoff and
	// returns their ids.
	DeleteRetiredSigningKeys(ctx context.Context, cutoff time.Time) ([]string, error)
}

// NewSigningKey generates a P-256 key for ES256, activating at now.
func NewSigningKey(now time.Time) (SigningKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return SigningKey{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return SigningKey{}, err
	}
	kid, err := keyIDOf(&priv.PublicKey)
	if err != nil {
		return SigningKey{}, err
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	return SigningKey{KeyID: kid, Algorithm: string(jose.ES256), PrivateKey: string(pemBytes), CreatedAt: now, ActivatesAt: now}, nil
}

// keyIDOf derives the kid from the public key, so that a stored key cannot
// be swapped under another key's id unnoticed.
func keyIDOf(pub *ecdsa.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:8]), nil
}

// KeyOption configures how signing keys are protected and kept current.
type KeyOption func(*keyOptions)

type keyOptions struct {
	keks  [][]byte
	clock clock.Clock
	log   *slog.Logger
}

// WithKeyEncryption seals the private keys at rest with keks
// (ATCP_KEY_ENCRYPTION_KEY): the first seals, each of them opens. Keys
// stored plain, or sealed with another of them, are sealed with the first
// when the keys are loaded at start.
func WithKeyEncryption(keks [][]byte) KeyOption {
	return func(o *keyOptions) { o.keks = keks }
}

// WithKeyClock sets the real-time clock that times key activation,
// retirement and reloads (clock.Real by default).
func WithKeyClock(c clock.Clock) KeyOption {
	return func(o *keyOptions) { o.clock = c }
}

// WithKeyLog sets the logger of key events (discarded by default). Key
// material is never logged.
func WithKeyLog(l *slog.Logger) KeyOption {
	return func(o *keyOptions) { o.log = l }
}

// ringKey is a loaded signing key.
type ringKey struct {
	id          string
	activatesAt time.Time
	retiredAt   time.Time
	public      *ecdsa.PublicKey
	signer      jose.Signer
}

// dropped reports whether the key no longer verifies at now.
func (k *ringKey) dropped(now time.Time) bool {
	return !k.retiredAt.IsZero() && !now.Before(k.retiredAt.Add(RetiredKeyLifetime))
}

// keyRing is an instance's copy of the stored signing keys.
type keyRing struct {
	store KeyStore
	keks  []keyEncryptionKey
	clock clock.Clock
	log   *slog.Logger
	// onRemoved runs when a reload finds keys deleted from the store, so
	// that tokens verified with them are verified again.
	onRemoved func()

	mu   sync.RWMutex
	keys []ringKey // in activation order; replaced, never changed in place
	// checkedAt is when the store was last read (or tried).
	checkedAt time.Time

	reloadMu sync.Mutex
	// unknownAt is when a token with an unknown kid last caused a reload.
	unknownAt time.Time
}

// openRing loads the stored keys, creating the first one when there is
// none and sealing plain keys when a key-encryption key is set. Any key
// that cannot be opened fails it, so that a wrong key-encryption key stops
// the start before anything is written.
func openRing(ctx context.Context, store KeyStore, opts ...KeyOption) (*keyRing, error) {
	o := keyOptions{clock: clock.Real{}, log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	r := &keyRing{store: store, clock: o.clock, log: o.log}
	for i, raw := range o.keks {
		k, err := newKeyEncryptionKey(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: key %d: %w", KeyEncryptionKeySetting, i+1, err)
		}
		r.keks = append(r.keks, k)
	}
	now := r.clock.Now()
	stored, err := store.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		candidate, err := NewSigningKey(now)
		if err != nil {
			return nil, err
		}
		if len(r.keks) > 0 {
			candidate.PrivateKey = r.keks[0].seal(candidate.KeyID, candidate.PrivateKey)
		}
		if err := store.EnsureSigningKey(ctx, candidate); err != nil {
			return nil, err
		}
		if stored, err = store.SigningKeys(ctx); err != nil {
			return nil, err
		}
		if len(stored) == 0 {
			return nil, errors.New("no signing key was stored")
		}
	}
	keys := make([]ringKey, 0, len(stored))
	plain := make(map[string]string, len(stored))
	for _, sk := range stored {
		k, pemText, err := r.openKey(sk)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		plain[sk.KeyID] = pemText
	}
	if err := r.sealAtRest(ctx, stored, plain); err != nil {
		return nil, err
	}
	r.keys, r.checkedAt = keys, now
	r.prune(ctx, now)
	return r, nil
}

// openKey opens and parses a stored key, returning it with its PEM.
func (r *keyRing) openKey(sk SigningKey) (ringKey, string, error) {
	if sk.Algorithm != string(jose.ES256) {
		return ringKey{}, "", fmt.Errorf("signing key %s: algorithm %q, want ES256", sk.KeyID, sk.Algorithm)
	}
	pemText, err := openPrivateKey(r.keks, sk.KeyID, sk.PrivateKey)
	if err != nil {
		return ringKey{}, "", err
	}
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return ringKey{}, "", fmt.Errorf("signing key %s: no PEM block", sk.KeyID)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return ringKey{}, "", fmt.Errorf("signing key %s: not a PKCS #8 private key", sk.KeyID)
	}
	priv, ok := parsed.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return ringKey{}, "", fmt.Errorf("signing key %s: not a P-256 key", sk.KeyID)
	}
	if kid, err := keyIDOf(&priv.PublicKey); err != nil || kid != sk.KeyID {
		return ringKey{}, "", fmt.Errorf("signing key %s: the private key does not match the key id", sk.KeyID)
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: priv, KeyID: sk.KeyID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return ringKey{}, "", err
	}
	return ringKey{id: sk.KeyID, activatesAt: sk.ActivatesAt, retiredAt: sk.RetiredAt, public: &priv.PublicKey, signer: signer}, pemText, nil
}

// sealAtRest seals, with the first key-encryption key, every stored key
// that is plain or sealed with another one. A key another instance sealed
// meanwhile is left as it is.
func (r *keyRing) sealAtRest(ctx context.Context, stored []SigningKey, plain map[string]string) error {
	if len(r.keks) == 0 {
		return nil
	}
	var encrypted, resealed []string
	for _, sk := range stored {
		kekID, sealed := sealedBy(sk.PrivateKey)
		if sealed && kekID == r.keks[0].id {
			continue
		}
		ok, err := r.store.ReplacePrivateKey(ctx, sk.KeyID, sk.PrivateKey, r.keks[0].seal(sk.KeyID, plain[sk.KeyID]))
		if err != nil {
			return fmt.Errorf("encrypt signing key %s: %w", sk.KeyID, err)
		}
		switch {
		case !ok:
		case sealed:
			resealed = append(resealed, sk.KeyID)
		default:
			encrypted = append(encrypted, sk.KeyID)
		}
	}
	if len(encrypted) > 0 {
		r.log.Info("encrypted the signing keys at rest", "key_ids", encrypted, "key_encryption_key", r.keks[0].id)
	}
	if len(resealed) > 0 {
		r.log.Info("re-encrypted the signing keys with the first key-encryption key", "key_ids", resealed, "key_encryption_key", r.keks[0].id)
	}
	return nil
}

func (r *keyRing) current() []ringKey {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.keys
}

// signer returns the signer of the key that signs now: the last to have
// activated. Should none have (clocks far apart), the first to activate.
func (r *keyRing) signer() jose.Signer {
	now := r.clock.Now()
	keys := r.current()
	var signing *ringKey
	for i := range keys {
		if k := &keys[i]; !k.activatesAt.After(now) && !k.dropped(now) {
			signing = k
		}
	}
	if signing == nil {
		signing = &keys[0]
	}
	return signing.signer
}

// published returns the keys that verify now, newest first.
func (r *keyRing) published() []ringKey {
	now := r.clock.Now()
	keys := r.current()
	out := make([]ringKey, 0, len(keys))
	for i := len(keys) - 1; i >= 0; i-- {
		if !keys[i].dropped(now) {
			out = append(out, keys[i])
		}
	}
	return out
}

// verificationKey returns the public key of kid if it verifies now. An
// unknown kid may be a key another instance has just added: the keys are
// read again, at most once per unknownKeyReloadEvery.
func (r *keyRing) verificationKey(kid string) *ecdsa.PublicKey {
	if pub, known := r.lookup(kid); known {
		return pub
	}
	r.reloadMu.Lock()
	defer r.reloadMu.Unlock()
	if pub, known := r.lookup(kid); known {
		return pub // another request reloaded meanwhile
	}
	now := r.clock.Now()
	if !r.unknownAt.IsZero() && now.Sub(r.unknownAt) < unknownKeyReloadEvery {
		return nil
	}
	r.unknownAt = now
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.reloadLocked(ctx); err != nil {
		r.log.Warn("reading the signing keys for an unknown key id failed", "error", err)
		return nil
	}
	pub, _ := r.lookup(kid)
	return pub
}

// lookup finds kid among the loaded keys: known is true when it is loaded,
// pub is nil when it no longer verifies.
func (r *keyRing) lookup(kid string) (pub *ecdsa.PublicKey, known bool) {
	now := r.clock.Now()
	for _, k := range r.current() {
		if k.id == kid {
			if k.dropped(now) {
				return nil, true
			}
			return k.public, true
		}
	}
	return nil, false
}

// reload reads the keys again.
func (r *keyRing) reload(ctx context.Context) error {
	r.reloadMu.Lock()
	defer r.reloadMu.Unlock()
	return r.reloadLocked(ctx)
}

// reloadLocked reads the key set: new keys are opened (the loaded ones
// are kept, since a kid names its key), retirements are taken over,
// deleted keys are forgotten. A new key that cannot be opened is logged
// and left out; the keys loaded before keep working.
func (r *keyRing) reloadLocked(ctx context.Context) error {
	now := r.clock.Now()
	r.mu.Lock()
	r.checkedAt = now
	r.mu.Unlock()
	stored, err := r.store.SigningKeys(ctx)
	if err != nil {
		return err
	}
	old := r.current()
	next := make([]ringKey, 0, len(stored))
	for _, sk := range stored {
		i := slices.IndexFunc(old, func(k ringKey) bool { return k.id == sk.KeyID })
		if i >= 0 {
			k := old[i]
			k.activatesAt, k.retiredAt = sk.ActivatesAt, sk.RetiredAt
			next = append(next, k)
			continue
		}
		k, _, err := r.openKey(sk)
		if err != nil {
			r.log.Error("cannot load a new signing key", "error", err)
			continue
		}
		r.log.Info("loaded a new signing key", "key_id", k.id, "activates_at", k.activatesAt)
		next = append(next, k)
	}
	if len(next) == 0 {
		return errors.New("the store holds no usable signing key; keeping the loaded ones")
	}
	removed := slices.ContainsFunc(old, func(o ringKey) bool {
		return !slices.ContainsFunc(next, func(n ringKey) bool { return n.id == o.id })
	})
	r.mu.Lock()
	r.keys = next
	r.mu.Unlock()
	if removed && r.onRemoved != nil {
		r.onRemoved()
	}
	r.prune(ctx, now)
	return nil
}

// prune deletes the keys that no longer verify from the store, so that no
// private key is kept longer than needed. Another instance may prune the
// same keys: deleting is idempotent.
func (r *keyRing) prune(ctx context.Context, now time.Time) {
	if !slices.ContainsFunc(r.current(), func(k ringKey) bool { return k.dropped(now) }) {
		return
	}
	ids, err := r.store.DeleteRetiredSigningKeys(ctx, now.Add(-RetiredKeyLifetime))
	if err != nil {
		r.log.Warn("deleting retired signing keys failed", "error", err)
		return
	}
	if len(ids) > 0 {
		r.log.Info("deleted retired signing keys: the tokens they signed have expired", "key_ids", ids)
	}
}

// watch reloads the keys every KeyReloadEvery of the ring's clock until
// ctx ends. It sleeps at most a second at a time, so that a manual clock
// in tests is followed.
func (r *keyRing) watch(ctx context.Context) {
	for {
		r.mu.RLock()
		due := r.checkedAt.Add(KeyReloadEvery)
		r.mu.RUnlock()
		if wait := due.Sub(r.clock.Now()); wait > 0 {
			timer := time.NewTimer(min(wait, time.Second))
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
			continue
		}
		reloadCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := r.reload(reloadCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			r.log.Warn("reloading the signing keys failed; the loaded ones stay in use", "error", err)
		}
	}
}

// RotateSigningKey adds a new signing key that starts signing activateAfter
// from now; the keys signing until then retire at that instant and keep
// verifying for RetiredKeyLifetime. With revokePrevious (a compromised
// key) the new key signs at once and every previous key is deleted: the
// tokens they signed stop verifying on every instance within
// KeyReloadEvery. The stored keys are opened first, with the same rules
// and options as at start, so a rotation never stores a key the servers
// could not open. It returns the new key without its private part.
func RotateSigningKey(ctx context.Context, store KeyStore, activateAfter time.Duration, revokePrevious bool, opts ...KeyOption) (SigningKey, error) {
	if activateAfter < 0 {
		return SigningKey{}, errors.New("the activation delay must not be negative")
	}
	if revokePrevious {
		activateAfter = 0
	}
	r, err := openRing(ctx, store, opts...)
	if err != nil {
		return SigningKey{}, err
	}
	now := r.clock.Now()
	k, err := NewSigningKey(now)
	if err != nil {
		return SigningKey{}, err
	}
	k.ActivatesAt = now.Add(activateAfter)
	if len(r.keks) > 0 {
		k.PrivateKey = r.keks[0].seal(k.KeyID, k.PrivateKey)
	}
	if err := store.AddSigningKey(ctx, k, revokePrevious); err != nil {
		return SigningKey{}, err
	}
	k.PrivateKey = ""
	r.log.Info("added a signing key", "key_id", k.KeyID, "activates_at", k.ActivatesAt, "previous_keys_revoked", revokePrevious)
	return k, nil
}
