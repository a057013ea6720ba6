package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestSigningKeyIsSharedByConcurrentStarters(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		var wg sync.WaitGroup
		ids := make([]string, 8)
		for i := range ids {
			wg.Go(func() {
				tk, err := auth.NewTokens(ctx, b, "http://atcp.test", clock.NewManual(testkit.Start))
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = tk.JWKS().Keys[0].KeyID
			})
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("instances disagree on the signing key: %v", ids)
			}
		}
		if keys, err := b.SigningKeys(ctx); err != nil || len(keys) != 1 {
			t.Fatalf("stored keys %d, %v", len(keys), err)
		}
	})
}

func TestClockAnchorSurvivesRestartUntilReconfigured(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		first := clock.Anchor{VirtualStart: testkit.Start, RealStart: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Speed: 60}
		got, err := b.ClockAnchor(ctx, "demo speed=60", first)
		if err != nil || !got.VirtualStart.Equal(first.VirtualStart) || !got.RealStart.Equal(first.RealStart) || got.Speed != 60 {
			t.Fatalf("first anchor %+v, %v", got, err)
		}
		restart := clock.Anchor{VirtualStart: testkit.Start, RealStart: first.RealStart.Add(time.Hour), Speed: 60}
		got, _ = b.ClockAnchor(ctx, "demo speed=60", restart)
		if !got.RealStart.Equal(first.RealStart) {
			t.Fatalf("restart with the same configuration moved the anchor: %+v", got)
		}
		reconfigured := clock.Anchor{VirtualStart: testkit.Start, RealStart: restart.RealStart, Speed: 1}
		got, _ = b.ClockAnchor(ctx, "demo speed=1", reconfigured)
		if !got.RealStart.Equal(reconfigured.RealStart) || got.Speed != 1 {
			t.Fatalf("reconfigured anchor %+v", got)
		}
	})
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	if _, err := store.Open(context.Background(), "mysql://x", ""); err == nil {
		t.Fatal("mysql url accepted")
	}
	// A failed open returns a nil interface, not a typed nil.
	if b, err := store.Open(context.Background(), "sqlite:///dev/null/nope/atcp.db", ""); err == nil || b != nil {
		t.Fatalf("open of an impossible path: %v, %v", b, err)
	}
}

// A driver error names the store operation that failed, so that a logged
// internal error says where; domain errors keep the client's message.
func TestStoreErrorsNameTheOperation(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := b.Bids().List(cancelled, auth.Visibility{All: true}, "bess", bids.FCR, bids.Filter{})
		if err == nil || !strings.HasPrefix(err.Error(), "bids: list: ") || !errors.Is(err, context.Canceled) {
			t.Errorf("bids list on a cancelled context: %v", err)
		}
		_, err = b.Directory().Organizations(cancelled)
		if err == nil || !strings.HasPrefix(err.Error(), "directory: organizations: ") || !errors.Is(err, context.Canceled) {
			t.Errorf("organizations on a cancelled context: %v", err)
		}

		ctx := context.Background()
		_, err = b.Directory().UserByID(ctx, "nobody")
		if !errs.Is(err, errs.NotFound) || err.Error() != "user not found" {
			t.Errorf("unknown user: %v", err)
		}
		org := identity.Organization{ID: "acme", Name: "Acme", CreatedAt: testkit.Start}
		if err := b.Directory().CreateOrganization(ctx, org); err != nil {
			t.Fatal(err)
		}
		err = b.Directory().CreateOrganization(ctx, org)
		if !isCode(err, identity.CodeOrganizationExists) || strings.Contains(err.Error(), "directory:") {
			t.Errorf("second organisation acme: %v", err)
		}
	})
}
