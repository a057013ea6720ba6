package onboarding_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/onboarding"
)

// TestStatusOwner: while a workflow is in progress, the asset API cannot
// move the asset's status, the workflow's own gates can, and cancelling
// releases it; a workflow starts only on an asset still in onboarding.
func TestStatusOwner(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, time.Date(2026, 10, 25, 9, 0, 0, 0, time.UTC))
	f.registry.SetStatusOwner(f.svc)
	all := auth.Visibility{All: true}
	move := func(to assets.OperationalStatus) error {
		_, err := f.registry.Update(ctx, all, "fc", assets.Update{OperationalStatus: assets.Some(to)})
		return err
	}
	ob := flow(t, f)
	if err := move(assets.Live); code(err) != "onboarding_in_progress" {
		t.Fatalf("asset API move during onboarding: %v, want onboarding_in_progress", err)
	}
	if _, err := f.registry.Update(ctx, all, "fc", assets.Update{AssetName: assets.Some("Kiel 2")}); err != nil {
		t.Fatalf("another member may change: %v", err)
	}
	// The workflow moves the status itself: waive the gates up to the
	// installation gate, whose waiver moves the asset to onboarding_testing.
	for _, kind := range []string{"rfi", "dpl", "installation"} {
		g := gate(t, f, ob, kind)
		if _, err := f.svc.Act(ctx, platform, ob.ID, g.ID, onboarding.ActionWaive, "done elsewhere"); err != nil {
			t.Fatalf("waive %s: %v", kind, err)
		}
	}
	if a, err := f.registry.Get(ctx, all, "fc"); err != nil || a.OperationalStatus != assets.OnboardingTesting {
		t.Fatalf("after the installation gate: %v %v, want onboarding_testing", a.OperationalStatus, err)
	}
	if _, err := f.svc.Cancel(ctx, platform, ob.ID, "site sold"); err != nil {
		t.Fatal(err)
	}
	if err := move(assets.Maintenance); err != nil {
		t.Fatalf("after cancel the asset API moves the status: %v", err)
	}
	if _, err := f.svc.Create(ctx, platform, onboarding.CreateRequest{AssetID: "fc"}); code(err) != "asset_not_onboarding" {
		t.Fatalf("create on a maintenance asset: %v", err)
	}
	if id, ok, err := f.svc.OnboardingInProgress(ctx, "mon"); err != nil || ok || id != "" {
		t.Fatalf("no workflow on mon: %q %v %v", id, ok, err)
	}
}
