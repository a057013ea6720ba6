package identity

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// How long a successful client authentication is remembered, and for how
// many (client id, secret) pairs at most.
const (
	VerifiedSecretTTL  = 10 * time.Minute
	maxVerifiedSecrets = 10_000
)

// The failure limits of client authentication (per client id) and of
// password sign-in (per e-mail address): Burst failures in a row are
// checked, then one more every Every. Client secrets are 256 random bits,
// so their limit only has to stop a flood of argon2id work; a password can
// be guessed, so its limit is tighter.
const (
	ClientFailureBurst = 10
	ClientFailureEvery = 10 * time.Second
	SignInFailureBurst = 10
	SignInFailureEvery = time.Minute
)

// TooManyFailures refuses a credential check without doing it, because
// its client id or e-mail address failed too often lately.
type TooManyFailures struct {
	RetryAfter time.Duration
}

func (e *TooManyFailures) Error() string {
	return fmt.Sprintf("too many failed attempts; retry after %v", e.RetryAfter)
}

// RetryAfterSeconds is the Retry-After value: whole seconds, at least 1.
func (e *TooManyFailures) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

// failureLimiter counts failed attempts per key (a client id, an e-mail
// address) in a token bucket. An attempt is admitted only while the bucket
// holds a failure for it and for every attempt still being checked, so
// that concurrent attempts cannot run more checks than the bucket allows.
// Keys are kept as SHA-256 digests: the memory per key is fixed however
// long the presented value. Buckets that have filled up again are dropped
// whenever the map has doubled since the last sweep, so only keys that
// failed lately stay.
type failureLimiter struct {
	burst int
	every time.Duration

	mu        sync.Mutex
	buckets   map[[sha256.Size]byte]*failureBucket
	nextSweep int
}

type failureBucket struct {
	failures *rate.Limiter
	checking int // admitted attempts not yet ended
}

const minSweep = 1024

func newFailureLimiter(burst int, every time.Duration) *failureLimiter {
	return &failureLimiter{burst: burst, every: every, buckets: map[[sha256.Size]byte]*failureBucket{}, nextSweep: minSweep}
}

// failureAttempt is an admitted attempt; end it once it is decided.
type failureAttempt struct {
	l *failureLimiter
	b *failureBucket
}

// begin admits an attempt for key at now, or says how long to wait when
// key has no failure left.
func (l *failureLimiter) begin(key string, now time.Time) (failureAttempt, time.Duration, bool) {
	digest := sha256.Sum256([]byte(key))
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[digest]
	if !found {
		if len(l.buckets) >= l.nextSweep {
			for k, v := range l.buckets {
				if v.checking == 0 && v.failures.TokensAt(now) >= float64(l.burst) {
					delete(l.buckets, k)
				}
			}
			l.nextSweep = max(minSweep, 2*len(l.buckets))
		}
		b = &failureBucket{failures: rate.NewLimiter(rate.Every(l.every), l.burst)}
		l.buckets[digest] = b
	}
	if short := float64(b.checking+1) - b.failures.TokensAt(now); short > 0 {
		return failureAttempt{}, time.Duration(short * float64(l.every)), false
	}
	b.checking++
	return failureAttempt{l: l, b: b}, 0, true
}

// end records the outcome of the attempt at now: a failure takes one from
// the bucket; a success, or a check that could not be made (the store or
// the Hasher was unavailable), takes nothing.
func (a failureAttempt) end(failed bool, now time.Time) {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	a.b.checking--
	if failed {
		a.b.failures.ReserveN(now, 1) // begin kept one free for it
	}
}

// verifiedSecrets remembers successful client authentications for
// VerifiedSecretTTL, so that a client presenting the same secret again
// gets its token without an argon2id verification, also while a flood of
// bad attempts keeps the Hasher busy and its client id over the failure
// limit. It never holds a secret: entries are keyed by an HMAC, under a
// key made at start, of the client id and the presented secret, and hold
// the id and stored hash of the secret that matched. An entry counts only
// while that secret with that hash is still among the integration's
// secrets, so deleting a secret takes effect at once.
type verifiedSecrets struct {
	key []byte

	mu      sync.Mutex
	entries map[[sha256.Size]byte]verifiedSecret
}

type verifiedSecret struct {
	secretID, hash string
	expires        time.Time
}

func newVerifiedSecrets() *verifiedSecrets {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic(err) // the system's randomness source failing is not recoverable
	}
	return &verifiedSecrets{key: key, entries: map[[sha256.Size]byte]verifiedSecret{}}
}

// digest is the cache key of a presented client id and secret.
func (c *verifiedSecrets) digest(clientID, secret string) [sha256.Size]byte {
	mac := hmac.New(sha256.New, c.key)
	// The length prefix keeps ("ab", "c") and ("a", "bc") apart.
	_ = binary.Write(mac, binary.BigEndian, uint64(len(clientID)))
	mac.Write([]byte(clientID))
	mac.Write([]byte(secret))
	var d [sha256.Size]byte
	mac.Sum(d[:0])
	return d
}

// lookup returns the id of the secret remembered for digest when it is
// unexpired at now and still among current.
func (c *verifiedSecrets) lookup(digest [sha256.Size]byte, current []StoredSecret, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[digest]
	if !ok {
		return "", false
	}
	if now.Before(e.expires) {
		for _, s := range current {
			if s.ID == e.secretID && s.Hash == e.hash {
				return e.secretID, true
			}
		}
	}
	delete(c.entries, digest)
	return "", false
}

// remember records that the secret presented under digest matched s.
func (c *verifiedSecrets) remember(digest [sha256.Size]byte, s StoredSecret, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxVerifiedSecrets {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		// Still full: drop an arbitrary entry, which costs its client
		// one verification.
		for k := range c.entries {
			if len(c.entries) < maxVerifiedSecrets {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[digest] = verifiedSecret{secretID: s.ID, hash: s.Hash, expires: now.Add(VerifiedSecretTTL)}
}
