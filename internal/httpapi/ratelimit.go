package httpapi

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per caller: the token subject once
// authenticated, the client address before. Limits are per instance;
// behind a load balancer with N instances a caller may reach N times the
// rate, which docs/operations.md states.
type limiter struct {
	perSecond float64
	burst     int
	policy    string

	mu      sync.Mutex
	buckets map[string]*bucket
	sweeps  int
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

const idleBucketAfter = 10 * time.Minute

func newLimiter(perSecond float64) *limiter {
	burst := int(math.Ceil(perSecond * 2))
	return &limiter{
		perSecond: perSecond, burst: burst, buckets: map[string]*bucket{},
		// draft-ietf-httpapi-ratelimit-headers: quota of burst requests over
		// the seconds it takes the bucket to refill.
		policy: fmt.Sprintf(`"default";q=%d;w=%d`, burst, int(math.Ceil(float64(burst)/perSecond))),
	}
}

// allow takes one token for key and sets the RateLimit headers; on refusal
// it also sets Retry-After.
func (l *limiter) allow(h http.Header, key string) bool {
	now := time.Now() // rate limits are about real load, not platform time
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(l.perSecond), l.burst)}
		l.buckets[key] = b
	}
	b.lastSeen = now
	l.sweeps++
	if l.sweeps >= 10_000 {
		l.sweeps = 0
		for k, v := range l.buckets {
			if now.Sub(v.lastSeen) > idleBucketAfter {
				delete(l.buckets, k)
			}
		}
	}
	l.mu.Unlock()

	ok = b.lim.AllowN(now, 1)
	remaining := int(math.Max(0, math.Floor(b.lim.TokensAt(now))))
	refill := int(math.Ceil((float64(l.burst) - b.lim.TokensAt(now)) / l.perSecond))
	h.Set("RateLimit-Policy", l.policy)
	h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, remaining, max(refill, 0)))
	if !ok {
		wait := int(math.Ceil((1 - b.lim.TokensAt(now)) / l.perSecond))
		h.Set("Retry-After", strconv.Itoa(max(wait, 1)))
	}
	return ok
}
