package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestLeaseAcquireRenewRelease(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		leases := b.Leases()
		now := testkit.Start
		const ttl = 30 * time.Second

		if _, err := leases.Lease(ctx, "clear"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("lease before any acquire: %v, want not found", err)
		}
		l, err := leases.Acquire(ctx, "clear", "a", now, ttl)
		if err != nil || !l.HeldBy("a", now) || !l.ExpiresAt.Equal(now.Add(ttl)) || !l.AcquiredAt.Equal(now) || l.Job != "clear" {
			t.Fatalf("first acquire: %+v, %v", l, err)
		}
		// Another holder is refused while the lease runs, and learns who holds it.
		l, err = leases.Acquire(ctx, "clear", "b", now.Add(ttl-time.Microsecond), ttl)
		if err != nil || l.HeldBy("b", now) || l.Holder != "a" {
			t.Fatalf("second holder before expiry: %+v, %v", l, err)
		}
		if ok, err := leases.Renew(ctx, "clear", "b", now, ttl); ok || err != nil {
			t.Fatalf("renew by a non-holder: %v, %v", ok, err)
		}
		// The holder re-acquiring extends and keeps the acquisition time.
		later := now.Add(10 * time.Second)
		l, err = leases.Acquire(ctx, "clear", "a", later, ttl)
		if err != nil || !l.AcquiredAt.Equal(now) || !l.ExpiresAt.Equal(later.Add(ttl)) {
			t.Fatalf("re-acquire by the holder: %+v, %v", l, err)
		}
		if ok, err := leases.Renew(ctx, "clear", "a", later.Add(20*time.Second), ttl); !ok || err != nil {
			t.Fatalf("renew by the holder: %v, %v", ok, err)
		}
		l, _ = leases.Lease(ctx, "clear")
		if !l.ExpiresAt.Equal(later.Add(20*time.Second + ttl)) {
			t.Fatalf("renew did not extend: %+v", l)
		}
		// Jobs are independent.
		if l, _ := leases.Acquire(ctx, "simulate", "b", now, ttl); !l.HeldBy("b", now) {
			t.Fatalf("other job: %+v", l)
		}
		// Release by a non-holder is a no-op; by the holder it frees the job at once.
		if err := leases.Release(ctx, "clear", "b"); err != nil {
			t.Fatal(err)
		}
		if l, _ := leases.Lease(ctx, "clear"); l.Holder != "a" {
			t.Fatalf("release by a non-holder changed the lease: %+v", l)
		}
		if err := leases.Release(ctx, "clear", "a"); err != nil {
			t.Fatal(err)
		}
		if l, _ := leases.Acquire(ctx, "clear", "b", later, ttl); !l.HeldBy("b", later) || !l.AcquiredAt.Equal(later) {
			t.Fatalf("acquire after release: %+v", l)
		}
		if ok, _ := leases.Renew(ctx, "clear", "a", later, ttl); ok {
			t.Fatal("the previous holder renewed a released lease")
		}
	})
}

func TestLeaseExpiryHandsOver(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		leases := b.Leases()
		now := testkit.Start
		const ttl = time.Minute
		if l, err := leases.Acquire(ctx, "clear", "a", now, ttl); err != nil || !l.HeldBy("a", now) {
			t.Fatalf("acquire: %+v, %v", l, err)
		}
		expiry := now.Add(ttl)
		// The lease ends at expires_at (exclusive): the holder cannot renew it
		// from then on, and another holder takes it.
		if ok, err := leases.Renew(ctx, "clear", "a", expiry, ttl); ok || err != nil {
			t.Fatalf("renew at expiry: %v, %v", ok, err)
		}
		l, err := leases.Acquire(ctx, "clear", "b", expiry, ttl)
		if err != nil || !l.HeldBy("b", expiry) || l.HeldBy("a", expiry) || !l.AcquiredAt.Equal(expiry) {
			t.Fatalf("hand-over at expiry: %+v, %v", l, err)
		}
		if l, _ := leases.Acquire(ctx, "clear", "a", expiry.Add(time.Second), ttl); l.Holder != "b" {
			t.Fatalf("the old holder took the lease back: %+v", l)
		}
		// The old holder may re-acquire its own expired lease when nobody took it.
		if l, _ := leases.Acquire(ctx, "other", "a", now, ttl); !l.HeldBy("a", now) {
			t.Fatal(l)
		}
		if l, _ := leases.Acquire(ctx, "other", "a", now.Add(2*ttl), ttl); !l.HeldBy("a", now.Add(2*ttl)) || !l.AcquiredAt.Equal(now) {
			t.Fatalf("re-acquire of an expired own lease: %+v", l)
		}
	})
}

func TestLeaseRejectsBadArguments(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		for _, c := range []struct {
			job, holder string
			ttl         time.Duration
		}{{"", "a", time.Second}, {"j", "", time.Second}, {"j", "a", 0}, {"j", "a", -time.Second}} {
			if _, err := b.Leases().Acquire(ctx, c.job, c.holder, testkit.Start, c.ttl); err == nil {
				t.Errorf("acquire %+v accepted", c)
			}
			if _, err := b.Leases().Renew(ctx, c.job, c.holder, testkit.Start, c.ttl); err == nil {
				t.Errorf("renew %+v accepted", c)
			}
		}
		if _, err := b.Leases().Lease(ctx, "j"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a rejected acquire stored a lease: %v", err)
		}
	})
}

// TestLeaseTwoHoldersNeverBothHold races many instances for one job at a
// series of instants, half of them after the previous lease expired: at
// every instant exactly one holder may come out holding it.
func TestLeaseTwoHoldersNeverBothHold(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		const ttl = 10 * time.Second
		const holders = 8
		for round := range 12 {
			// Rounds alternate inside the current lease and past its expiry.
			now := testkit.Start.Add(time.Duration(round) * 6 * time.Second)
			var wg sync.WaitGroup
			won := make([]bool, holders)
			for h := range holders {
				wg.Go(func() {
					l, err := b.Leases().Acquire(ctx, "clear", fmt.Sprintf("instance-%d", h), now, ttl)
					if err != nil {
						t.Error(err)
						return
					}
					won[h] = l.HeldBy(fmt.Sprintf("instance-%d", h), now)
				})
			}
			wg.Wait()
			n := 0
			for _, w := range won {
				if w {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("round %d at %s: %d holders hold the lease", round, now, n)
			}
			l, err := b.Leases().Lease(ctx, "clear")
			if err != nil || !won[int(l.Holder[len(l.Holder)-1]-'0')] {
				t.Fatalf("stored lease %+v disagrees with the winners %v (%v)", l, won, err)
			}
		}
	})
}
