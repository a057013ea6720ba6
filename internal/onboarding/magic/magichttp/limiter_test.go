package magichttp

import (
	"strconv"
	"testing"
	"time"

	"atcp/internal/clock"
)

func TestLimiter(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC))
	l := newLimiter(clk)
	for i := range attemptsBurst {
		if _, ok := l.allow("ip:a", "link:"+strconv.Itoa(i)); !ok {
			t.Fatalf("attempt %d refused", i)
		}
	}
	wait, ok := l.allow("ip:a", "link:new")
	if ok || wait != attemptsEvery {
		t.Fatalf("11th attempt of an address: %v %v", ok, wait)
	}
	// A refusal takes nothing from the other keys' buckets.
	for range attemptsBurst {
		if _, ok := l.allow("ip:b", "link:new"); !ok {
			t.Fatal("the other key lost attempts to a refusal")
		}
	}
	if _, ok := l.allow("ip:c", "link:new"); ok {
		t.Fatal("the link's limit was not applied")
	}
	clk.Advance(attemptsEvery)
	if _, ok := l.allow("ip:a", "link:x"); !ok {
		t.Fatal("no attempt after the refill")
	}
	if retryAfter(100*time.Millisecond) != "1" || retryAfter(6*time.Second+time.Millisecond) != "7" {
		t.Fatal("Retry-After rounding")
	}
}

// TestLimiterForgetsFullBuckets: memory stays bounded by the keys used
// lately, however many distinct keys were presented before.
func TestLimiterForgetsFullBuckets(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC))
	l := newLimiter(clk)
	for i := range 5 * minSweep {
		l.allow("link:" + strconv.Itoa(i))
	}
	clk.Advance(attemptsBurst * attemptsEvery)
	// The map grows to twice its size at the last sweep (8192), then the
	// refilled buckets of the first keys go.
	for i := range 4 * minSweep {
		l.allow("later:" + strconv.Itoa(i))
	}
	if n := len(l.buckets); n != 4*minSweep {
		t.Fatalf("%d buckets kept, want only the %d later keys'", n, 4*minSweep)
	}
}
