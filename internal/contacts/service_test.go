package contacts_test

import (
	"context"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/testkit"
)

// TestServiceForOtherAreas: the Go API the alarm area reads recipients
// through takes the caller's principal: its organisation's assets only,
// every organisation for the platform, nothing without a principal.
func TestServiceForOtherAreas(t *testing.T) {
	ctx := context.Background()
	b := testkit.OpenSQLite(t)
	clk := clock.NewManual(testkit.Start)
	dir := identity.NewDirectory(b.Directory(), clk, "http://atcp.test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), clk)
	if err := registry.EnsureAsset(ctx, assets.NewAsset("bess-1", "acme", "One", "Kiel", assets.Standalone)); err != nil {
		t.Fatal(err)
	}
	svc := contacts.NewService(b.Contacts(), registry, clk)
	acme := &auth.Principal{OrganizationID: "acme"}
	beta := &auth.Principal{OrganizationID: "beta"}
	platform := &auth.Principal{OrganizationID: auth.PlatformOrganization}

	c, err := svc.Create(ctx, acme, "bess-1", contacts.Contact{Name: "Leitwarte", Email: "l@acme.example", IsEmergency: true, Notifiable: true})
	if err != nil || c.ID == 0 || c.AssetID != "bess-1" || c.OrganizationID != "acme" || !c.CreatedAt.Equal(testkit.Start) {
		t.Fatalf("create: %+v, %v", c, err)
	}
	for _, p := range []*auth.Principal{acme, platform} {
		if list, err := svc.List(ctx, p, "bess-1"); err != nil || len(list) != 1 || list[0] != c {
			t.Fatalf("%s lists %+v, %v", p.OrganizationID, list, err)
		}
	}
	for _, p := range []*auth.Principal{beta, nil} {
		if _, err := svc.List(ctx, p, "bess-1"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("%v lists: %v", p, err)
		}
		if _, err := svc.Get(ctx, p, "bess-1", c.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("%v reads: %v", p, err)
		}
	}
	// Invalid fields are refused before anything is stored.
	if _, err := svc.Create(ctx, acme, "bess-1", contacts.Contact{Name: "x", Email: "nope"}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("invalid create: %v", err)
	}
	if _, err := svc.Replace(ctx, acme, "bess-1", c.ID, contacts.Contact{}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("invalid replace: %v", err)
	}
	if list, _ := svc.List(ctx, acme, "bess-1"); len(list) != 1 || list[0] != c {
		t.Fatalf("after refusals %+v", list)
	}
}
