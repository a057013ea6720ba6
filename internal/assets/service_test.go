package assets_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestEnsureAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		if err := identity.NewDirectory(b.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "demo", "Demo"); err != nil {
			t.Fatal(err)
		}
		svc := assets.NewService(b.Assets(), clk)
		demo := assets.NewAsset("demo-bess", "demo", "Demo battery", "Simulated", assets.Standalone)
		ten, twenty := 10.0, 20.0
		demo.UsablePowerCapacityMW, demo.UsableEnergyCapacityMWh = &ten, &twenty
		demo.AFRRPrequalifiedNegMW, demo.AFRREnabled, demo.ControlEnabled = 10, true, true
		if err := svc.EnsureAsset(ctx, demo); err != nil {
			t.Fatal(err)
		}
		admin := auth.Visibility{All: true}
		got, err := svc.Get(ctx, admin, "demo-bess")
		if err != nil {
			t.Fatal(err)
		}
		if got.AFRRPrequalifiedNegMW != 10 || got.AFRRPrequalifiedPosMW != 0 || got.FCRPrequalifiedMW != 0 ||
			!got.AFRREnabled || !got.ControlEnabled || !got.TSOConnected || got.OperationalStatus != assets.Onboarding ||
			*got.UsablePowerCapacityMW != 10 || !got.CreatedAt.Equal(testkit.Start) {
			t.Fatalf("seeded %+v", got)
		}

		// A second start leaves the asset as operators changed it.
		clk.Advance(time.Hour)
		renamed := demo
		renamed.Name = "Changed in code"
		if err := svc.EnsureAsset(ctx, renamed); err != nil {
			t.Fatal(err)
		}
		if again, _ := svc.Get(ctx, admin, "demo-bess"); again.Name != "Demo battery" {
			t.Fatalf("EnsureAsset changed an existing asset: %+v", again)
		}

		// Missing defaults are filled in; invalid assets and unknown
		// organisations are refused.
		bare := assets.Asset{ID: "green", OrganizationID: "demo", Name: "Green", Location: "Husum", Type: assets.GreenColocation, TSOConnected: true}
		if err := svc.EnsureAsset(ctx, bare); err != nil {
			t.Fatal(err)
		}
		green, _ := svc.Get(ctx, admin, "green")
		if green.OperationalStatus != assets.Onboarding || green.GridImportAllowed == nil || *green.GridImportAllowed {
			t.Fatalf("defaults not applied: %+v", green)
		}
		bad := demo
		bad.ID, bad.AFRRPrequalifiedNegMW = "bad", 11
		if err := svc.EnsureAsset(ctx, bad); !errs.Is(err, errs.Invalid) {
			t.Fatalf("invalid asset: %v", err)
		}
		lost := assets.NewAsset("lost", "nobody", "Lost", "Nowhere", assets.Standalone)
		if err := svc.EnsureAsset(ctx, lost); !errs.Is(err, errs.Invalid) {
			t.Fatalf("unknown organisation: %v", err)
		}

		// A deleted id stays reserved: seeding it again does nothing.
		if err := svc.Delete(ctx, admin, "green"); err != nil {
			t.Fatal(err)
		}
		if err := svc.EnsureAsset(ctx, bare); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Get(ctx, admin, "green"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted asset came back: %v", err)
		}
	})
}

func TestServiceRejectsMalformedIDsAsUnknown(t *testing.T) {
	svc := assets.NewService(testkit.OpenSQLite(t).Assets(), clock.NewManual(testkit.Start))
	ctx := context.Background()
	all := auth.Visibility{All: true}
	for _, id := range []string{"", "a:b", "a\x00b", "../x"} {
		if _, err := svc.Get(ctx, all, id); !errs.Is(err, errs.NotFound) {
			t.Fatalf("Get(%q): %v", id, err)
		}
		if _, err := svc.Update(ctx, all, id, assets.Update{}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("Update(%q): %v", id, err)
		}
		if err := svc.Delete(ctx, all, id); !errs.Is(err, errs.NotFound) {
			t.Fatalf("Delete(%q): %v", id, err)
		}
	}
}
