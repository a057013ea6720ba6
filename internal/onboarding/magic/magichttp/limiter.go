package magichttp

import (
	"crypto/sha256"
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"atcp/internal/clock"
)

// The limits of the unauthenticated exchange and refresh: 10 a minute per
// client address and per link (or session), docs/onboarding.md 4.2.
const (
	attemptsBurst = 10
	attemptsEvery = 6 * time.Second
)

// limiter holds a token bucket per key (an address, a link's token hash, a
// session id). Keys are kept as SHA-256 digests, so memory per key is
// fixed however long the presented value; when the map has doubled since
// the last sweep, buckets that have filled up again are dropped, so only
// keys used lately stay. It runs on the security clock, the machine's, as
// every rate limit (docs/authentication.md), and is per instance.
type limiter struct {
	mu        sync.Mutex
	buckets   map[[sha256.Size]byte]*rate.Limiter
	nextSweep int
	clock     clock.Clock
}

const minSweep = 1024

func newLimiter(clk clock.Clock) *limiter {
	return &limiter{buckets: map[[sha256.Size]byte]*rate.Limiter{}, nextSweep: minSweep, clock: clk}
}

// allow takes one attempt from every key's bucket, or none when one of
// them is empty; then it says how long to wait.
func (l *limiter) allow(keys ...string) (time.Duration, bool) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buckets) >= l.nextSweep {
		for k, b := range l.buckets {
			if b.TokensAt(now) >= attemptsBurst {
				delete(l.buckets, k)
			}
		}
		l.nextSweep = max(minSweep, 2*len(l.buckets))
	}
	bs := make([]*rate.Limiter, len(keys))
	var wait time.Duration
	for i, key := range keys {
		d := sha256.Sum256([]byte(key))
		b, ok := l.buckets[d]
		if !ok {
			b = rate.NewLimiter(rate.Every(attemptsEvery), attemptsBurst)
			l.buckets[d] = b
		}
		bs[i] = b
		if short := 1 - b.TokensAt(now); short > 0 {
			wait = max(wait, time.Duration(short*float64(attemptsEvery)))
		}
	}
	if wait > 0 {
		return wait, false
	}
	for _, b := range bs {
		b.AllowN(now, 1)
	}
	return 0, true
}

// retryAfter is the Retry-After value of a wait: whole seconds, at least 1.
func retryAfter(wait time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(wait.Seconds()))))
}
