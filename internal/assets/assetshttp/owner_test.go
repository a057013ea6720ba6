package assetshttp_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"atcp/internal/store"
	"atcp/internal/testkit"
)

// fakeOwner is an onboarding area with workflows in progress for the
// assets in busy (asset id -> onboarding id); fail makes it fail.
type fakeOwner struct {
	mu    sync.Mutex
	busy  map[string]string
	fail  bool
	calls int
}

func (f *fakeOwner) OnboardingInProgress(_ context.Context, assetID string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail {
		return "", false, errors.New("onboarding store down")
	}
	id, ok := f.busy[assetID]
	return id, ok, nil
}

// TestStatusOwnedByOnboarding: while an onboarding is in progress, the
// asset API refuses to change asset_operational_status (409
// onboarding_in_progress) and changes nothing; other fields, the same
// status sent back and other assets are not affected.
func TestStatusOwnedByOnboarding(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		owner := &fakeOwner{busy: map[string]string{"bess-1": "0190f3b2-0000-7000-8000-000000000001"}}
		e.svc.SetStatusOwner(owner)
		e.create(t, e.acme, minimal("bess-1", "acme"))
		e.create(t, e.acme, minimal("bess-2", "acme"))

		p := e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"asset_operational_status": "live", "asset_name": "Renamed"}).
			Expect(t, 409, "onboarding_in_progress").Map(t)
		if d, _ := p["detail"].(string); !strings.Contains(d, "0190f3b2-0000-7000-8000-000000000001") {
			t.Fatalf("detail %q does not name the onboarding", d)
		}
		got := e.h.Do("GET", "/v1/assets/bess-1", e.acmeRO, nil).Expect(t, 200, "").Map(t)
		if got["asset_operational_status"] != "onboarding" || got["asset_name"] != "Battery bess-1" {
			t.Fatalf("a refused update changed the asset: %v", got)
		}
		// The unchanged status and other fields pass; the owner is asked
		// only when the status changes.
		before := owner.calls
		e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"asset_operational_status": "onboarding", "asset_name": "Renamed"}).Expect(t, 200, "")
		if owner.calls != before {
			t.Fatalf("the owner was consulted for an unchanged status")
		}
		// Another organisation's asset stays invisible; another asset is free.
		e.h.Do("PUT", "/v1/assets/bess-1", e.beta, map[string]any{"asset_operational_status": "live"}).Expect(t, 404, "")
		e.h.Do("PUT", "/v1/assets/bess-2", e.acme, map[string]any{"asset_operational_status": "live"}).Expect(t, 200, "")
		// Invalid input is still 422 first.
		e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"asset_operational_status": "gone"}).Expect(t, 422, "")
		// A failing owner fails the update, which changes nothing.
		owner.mu.Lock()
		owner.fail = true
		owner.mu.Unlock()
		e.h.Do("PUT", "/v1/assets/bess-2", e.acme, map[string]any{"asset_operational_status": "maintenance"}).Expect(t, 500, "")
		owner.mu.Lock()
		owner.fail, owner.busy = false, nil
		owner.mu.Unlock()
		// Once the workflow ends (completed or cancelled) the status is free.
		e.h.Do("PUT", "/v1/assets/bess-1", e.acme, map[string]any{"asset_operational_status": "live"}).Expect(t, 200, "")
		e.svc.SetStatusOwner(nil)
		e.h.Do("PUT", "/v1/assets/bess-2", e.acme, map[string]any{"asset_operational_status": "maintenance"}).Expect(t, 200, "")
	})
}
