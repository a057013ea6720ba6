package assets_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var all = auth.Visibility{All: true}

func seed(t *testing.T, b store.Backend, clk clock.Clock) {
	t.Helper()
	ctx := context.Background()
	if err := identity.NewDirectory(b.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	if err := assets.NewService(b.Assets(), clk).EnsureAsset(ctx, assets.NewAsset("bess-1", "acme", "One", "Here", assets.Standalone)); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, svc *assets.Service, name string) {
	t.Helper()
	var u assets.Update
	u.AssetName = assets.Optional[string]{Present: true, Value: name}
	if _, err := svc.Update(context.Background(), all, "bess-1", u); err != nil {
		t.Fatal(err)
	}
}

// TestCachedReadsFollowOwnWrites: a read after a write of the same
// instance sees the write, and visibility applies to cached copies.
func TestCachedReadsFollowOwnWrites(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		seed(t, b, clk)
		svc := assets.NewService(b.Assets(), clk)
		watch, stop := context.WithCancel(ctx)
		defer stop()
		go svc.Watch(watch)
		for i, name := range []string{"First", "Second", "Third"} {
			if _, err := svc.Get(ctx, all, "bess-1"); err != nil {
				t.Fatal(err)
			}
			rename(t, svc, name)
			clk.Advance(time.Second)
			a, err := svc.Get(ctx, all, "bess-1")
			if err != nil || a.Name != name {
				t.Fatalf("round %d: read %q after writing %q (%v)", i, a.Name, name, err)
			}
			if _, err := svc.Get(ctx, auth.Visibility{OrganizationID: "other"}, "bess-1"); err == nil {
				t.Fatal("a cached asset is visible to another organisation")
			}
		}
	})
}

// TestCachedReadsFollowOtherInstances: two instances on one PostgreSQL
// database; a change committed by one reaches the other's cache.
func TestCachedReadsFollowOtherInstances(t *testing.T) {
	if testkit.PostgresURL() == "" {
		t.Skip("needs ATCP_TEST_DATABASE_URL: the feed between instances is PostgreSQL's")
	}
	ctx := context.Background()
	instances := testkit.OpenPostgresInstances(t, 2)
	one, two := instances[0], instances[1]
	clk := clock.NewManual(testkit.Start)
	seed(t, one, clk)
	svcOne, svcTwo := assets.NewService(one.Assets(), clk), assets.NewService(two.Assets(), clk)
	watch, stop := context.WithCancel(ctx)
	defer stop()
	go svcTwo.Watch(watch)
	for !svcTwo.CachingReads() {
		time.Sleep(time.Millisecond)
	}

	// Wait until instance two caches, then change the asset on instance one.
	deadline := time.Now().Add(5 * time.Second)
	for _, name := range []string{"Renamed once", "Renamed twice"} {
		if _, err := svcTwo.Get(ctx, all, "bess-1"); err != nil {
			t.Fatal(err)
		}
		rename(t, svcOne, name)
		for {
			a, err := svcTwo.Get(ctx, all, "bess-1")
			if err != nil {
				t.Fatal(err)
			}
			if a.Name == name {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("instance two still reads %q after instance one wrote %q", a.Name, name)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
