package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"atcp/internal/errs"
)

func TestHasherRunsInItsSlots(t *testing.T) {
	ctx := context.Background()
	slots := semaphore.NewWeighted(2)
	h := NewHasher(slots, 50*time.Millisecond)

	hash, err := h.Hash(ctx, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := h.Verify(ctx, "correct horse battery staple", hash); !ok || err != nil {
		t.Fatalf("verify the right secret: %v %v", ok, err)
	}
	if ok, err := h.Verify(ctx, "wrong", hash); ok || err != nil {
		t.Fatalf("verify a wrong secret: %v %v", ok, err)
	}
	if err := h.Burn(ctx, "anything"); err != nil {
		t.Fatal(err)
	}

	// Both slots taken: every kind of work waits its 50 ms and gives up.
	if err := slots.Acquire(ctx, 2); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	checks := map[string]func() error{
		"hash":   func() error { _, err := h.Hash(ctx, "x"); return err },
		"verify": func() error { _, err := h.Verify(ctx, "x", hash); return err },
		"burn":   func() error { return h.Burn(ctx, "x") },
	}
	for name, check := range checks {
		if err := check(); !errors.Is(err, ErrBusy) || !errs.IsUnavailable(err) || errs.KindOf(err) != errs.Unavailable {
			t.Fatalf("%s with no free slot: %v, want ErrBusy", name, err)
		}
	}
	if waited := time.Since(start); waited < 3*50*time.Millisecond {
		t.Fatalf("gave up after %v, before the wait", waited)
	}

	// The request's context ends the wait early.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	start = time.Now()
	if _, err := h.Verify(cancelled, "x", hash); !errors.Is(err, ErrBusy) {
		t.Fatalf("verify with an ended context: %v", err)
	}
	if waited := time.Since(start); waited >= 50*time.Millisecond {
		t.Fatalf("waited %v past the end of the context", waited)
	}

	// A slot freed while waiting is taken.
	go func() {
		time.Sleep(10 * time.Millisecond)
		slots.Release(1)
	}()
	slow := NewHasher(slots, 5*time.Second)
	if ok, err := slow.Verify(ctx, "correct horse battery staple", hash); !ok || err != nil {
		t.Fatalf("verify after a slot was freed: %v %v", ok, err)
	}
}

func TestCoreHasherWorks(t *testing.T) {
	h := NewCoreHasher()
	hash, err := h.Hash(context.Background(), "secret")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := h.Verify(context.Background(), "secret", hash); !ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
}
