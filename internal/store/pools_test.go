package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/pools"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func testPool(org, id string, members ...string) pools.Pool {
	if members == nil {
		members = []string{}
	}
	return pools.Pool{OrganizationID: org, ID: id, AssetIDs: members, AllowInternalCollateralisation: true,
		CreatedAt: testkit.Start.Add(123456 * time.Microsecond), UpdatedAt: testkit.Start.Add(time.Second)}
}

// rule is the membership rule the service passes to the store.
func rule(p pools.Pool) func([]pools.Candidate) error {
	return func(c []pools.Candidate) error { return pools.CheckCandidates(p.OrganizationID, p.ID, c) }
}

func createPool(t *testing.T, s pools.Store, p pools.Pool) pools.Pool {
	t.Helper()
	got, err := s.Create(context.Background(), p, rule(p))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// withPoolAssets registers acme's bess-1 to bess-4 (bess-4 offboarded,
// bess-3 deleted) and beta's b-1.
func withPoolAssets(t *testing.T, b store.Backend) {
	t.Helper()
	withSegmentableAssets(t, b)
	ctx := context.Background()
	for _, id := range []string{"bess-3", "bess-4"} {
		a := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
		a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
		if id == "bess-4" {
			a.OperationalStatus = assets.Offboarded
		}
		if _, err := b.Assets().Create(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Assets().Delete(ctx, assetAcme, "bess-3", testkit.Start, func(context.Context, assets.Asset) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestPoolStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withPoolAssets(t, b)
		s := b.Pools()

		if list, err := s.List(ctx, "acme"); err != nil || list == nil || len(list) != 0 {
			t.Fatalf("no pools: %#v, %v", list, err)
		}
		// The check sees every listed id in list order: what the store
		// found of the organisation's assets and the pool each is in.
		var seen []pools.Candidate
		nord := testPool("acme", "nord", "bess-2", "b-1", "bess-1", "nope", "bess-3", "bess-4")
		_, err := s.Create(ctx, nord, func(c []pools.Candidate) error {
			seen = c
			return errs.Invalidf("list_asset_ids[1]", "b-1", "refused")
		})
		want := []pools.Candidate{
			{AssetID: "bess-2", Found: true, Status: assets.Onboarding}, {AssetID: "b-1"},
			{AssetID: "bess-1", Found: true, Status: assets.Onboarding}, {AssetID: "nope"}, {AssetID: "bess-3"},
			{AssetID: "bess-4", Found: true, Status: assets.Offboarded},
		}
		if !errs.Is(err, errs.Invalid) || !reflect.DeepEqual(seen, want) {
			t.Fatalf("create: %v\nseen %+v\nwant %+v", err, seen, want)
		}
		if list, _ := s.List(ctx, "acme"); len(list) != 0 {
			t.Fatalf("a refused create stored %+v", list)
		}

		// Members keep the customer's order; pools list by pool_id.
		nord = testPool("acme", "nord", "bess-2", "bess-1")
		if got := createPool(t, s, nord); !reflect.DeepEqual(got, nord) {
			t.Fatalf("create\n got %+v\nwant %+v", got, nord)
		}
		empty := createPool(t, s, testPool("acme", "a-empty"))
		if empty.AssetIDs == nil || len(empty.AssetIDs) != 0 {
			t.Fatalf("empty pool %#v", empty)
		}
		beta := createPool(t, s, testPool("beta", "nord", "b-1"))
		if list, err := s.List(ctx, "acme"); err != nil || !reflect.DeepEqual(list, []pools.Pool{empty, nord}) {
			t.Fatalf("list %+v, %v", list, err)
		}
		if got, err := s.Get(ctx, "acme", "nord"); err != nil || !reflect.DeepEqual(got, nord) {
			t.Fatalf("get %+v, %v", got, err)
		}
		if got, err := s.Get(ctx, "beta", "nord"); err != nil || !reflect.DeepEqual(got, beta) {
			t.Fatalf("beta's pool of the same id: %+v, %v", got, err)
		}
		if all, err := s.All(ctx); err != nil || !reflect.DeepEqual(all, []pools.Pool{empty, nord, beta}) {
			t.Fatalf("all %+v, %v", all, err)
		}
		if got, err := s.PoolOf(ctx, "bess-1"); err != nil || !reflect.DeepEqual(got, nord) {
			t.Fatalf("pool of bess-1: %+v, %v", got, err)
		}
		for _, id := range []string{"bess-4", "nope"} {
			if _, err := s.PoolOf(ctx, id); !errs.Is(err, errs.NotFound) {
				t.Fatalf("pool of %s: %v", id, err)
			}
		}

		// Isolation: a pool is found only in its organisation.
		if _, err := s.Get(ctx, "beta", "a-empty"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta reads acme's pool: %v", err)
		}
		if _, err := s.Replace(ctx, testPool("beta", "a-empty"), rule(testPool("beta", "a-empty"))); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta replaces acme's pool: %v", err)
		}
		if err := s.Delete(ctx, "beta", "a-empty"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta deletes acme's pool: %v", err)
		}

		// The same pool_id twice, and an asset in two pools.
		if _, err := s.Create(ctx, testPool("acme", "nord"), rule(testPool("acme", "nord"))); !isConflict(err, "pool_exists") {
			t.Fatalf("pool_id taken: %v", err)
		}
		sued := testPool("acme", "sued", "bess-1")
		if _, err := s.Create(ctx, sued, rule(sued)); !isConflict(err, "asset_in_other_pool") {
			t.Fatalf("claimed asset: %v", err)
		}
		// The database refuses it even when a check lets it through.
		if _, err := s.Create(ctx, sued, func([]pools.Candidate) error { return nil }); !isConflict(err, "asset_in_other_pool") {
			t.Fatalf("claimed asset past the check: %v", err)
		}
		if _, err := s.Get(ctx, "acme", "sued"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a refused create stored the pool: %v", err)
		}

		// Replace moves members between pools in one step each, keeps the
		// creation time and sees its own members as its own.
		seen = nil
		moved := pools.Pool{OrganizationID: "acme", ID: "nord", AssetIDs: []string{"bess-1"}, UpdatedAt: testkit.Start.Add(time.Hour)}
		got, err := s.Replace(ctx, moved, func(c []pools.Candidate) error { seen = c; return rule(moved)(c) })
		wantPool := moved
		wantPool.CreatedAt = nord.CreatedAt
		if err != nil || !reflect.DeepEqual(got, wantPool) || len(seen) != 1 || seen[0].PoolID != "nord" {
			t.Fatalf("replace %+v, %v (seen %+v)", got, err, seen)
		}
		filled := pools.Pool{OrganizationID: "acme", ID: "a-empty", AssetIDs: []string{"bess-2"}, UpdatedAt: testkit.Start.Add(time.Hour)}
		if _, err := s.Replace(ctx, filled, rule(filled)); err != nil {
			t.Fatalf("bess-2 left nord, may join another: %v", err)
		}
		// A refused replace changes nothing.
		if _, err := s.Replace(ctx, pools.Pool{OrganizationID: "acme", ID: "nord", AssetIDs: []string{"bess-2"}},
			rule(pools.Pool{OrganizationID: "acme", ID: "nord"})); !isConflict(err, "asset_in_other_pool") {
			t.Fatalf("replace claiming another pool's member: %v", err)
		}
		if read, _ := s.Get(ctx, "acme", "nord"); !reflect.DeepEqual(read, wantPool) {
			t.Fatalf("after a refused replace %+v", read)
		}
		if _, err := s.Replace(ctx, testPool("acme", "nobody"), rule(testPool("acme", "nobody"))); !errs.Is(err, errs.NotFound) {
			t.Fatalf("replace of an unknown pool: %v", err)
		}

		// Deleting a pool frees its members.
		if err := s.Delete(ctx, "acme", "nord"); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "acme", "nord"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted twice: %v", err)
		}
		if _, err := s.PoolOf(ctx, "bess-1"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a deleted pool's member: %v", err)
		}
		again := testPool("acme", "nord", "bess-1")
		createPool(t, s, again)
	})
}

func isConflict(err error, code string) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Kind == errs.Conflict && string(e.Code) == code
}

// TestPoolMembershipGoesWithItsAsset: deleting or offboarding an asset
// takes it out of its pool in the same transaction, and its pool never
// blocks either.
func TestPoolMembershipGoesWithItsAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withSegmentableAssets(t, b)
		s := b.Pools()
		createPool(t, s, testPool("acme", "nord", "bess-1", "bess-2"))
		if err := b.Assets().Delete(ctx, assetAcme, "bess-1", testkit.Start, func(context.Context, assets.Asset) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, "acme", "nord"); !reflect.DeepEqual(got.AssetIDs, []string{"bess-2"}) {
			t.Fatalf("after deleting bess-1: %+v", got)
		}
		// A deletion its check refuses keeps the membership.
		refused := errs.Conflictf("asset_in_use", "busy")
		if err := b.Assets().Delete(ctx, assetAcme, "bess-2", testkit.Start, func(context.Context, assets.Asset) error { return refused }); !errors.Is(err, refused) {
			t.Fatal(err)
		}
		// Any other update keeps it, offboarding ends it.
		for _, st := range []assets.OperationalStatus{assets.Maintenance, assets.Offboarded} {
			if _, err := b.Assets().Update(ctx, assetAcme, "bess-2", func(_ context.Context, a assets.Asset) (assets.Asset, bool, error) {
				a.OperationalStatus = st
				return a, true, nil
			}); err != nil {
				t.Fatal(err)
			}
			want := []string{"bess-2"}
			if st == assets.Offboarded {
				want = []string{}
			}
			if got, _ := s.Get(ctx, "acme", "nord"); !reflect.DeepEqual(got.AssetIDs, want) {
				t.Fatalf("after setting bess-2 %s: %+v", st, got)
			}
		}
	})
}

// TestPoolClaimsUnderConcurrency: concurrent creates and replaces that
// claim one asset: exactly one wins, the others are refused with
// asset_in_other_pool; concurrent creates of one pool_id: one wins, the
// others are pool_exists.
func TestPoolClaimsUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withSegmentableAssets(t, b)
		s := b.Pools()
		const tries = 8
		// Half the writers create a pool claiming bess-1 (with bess-2 in
		// a different position, to vary the lock order), half replace an
		// empty pool of their own with it.
		for i := range tries / 2 {
			createPool(t, s, testPool("acme", fmt.Sprintf("empty-%d", i)))
		}
		results := make([]error, tries)
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() {
				if i%2 == 0 {
					p := testPool("acme", fmt.Sprintf("new-%d", i), "bess-2", "bess-1")
					if i%4 == 0 {
						p.AssetIDs = []string{"bess-1", "bess-2"}
					}
					_, results[i] = s.Create(ctx, p, rule(p))
					return
				}
				p := testPool("acme", fmt.Sprintf("empty-%d", i/2), "bess-1")
				_, results[i] = s.Replace(ctx, p, rule(p))
			})
		}
		wg.Wait()
		won := 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case !isConflict(err, "asset_in_other_pool"):
				t.Fatalf("a loser's error: %v", err)
			}
		}
		all, err := s.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		holders := 0
		for _, p := range all {
			for _, id := range p.AssetIDs {
				if id == "bess-1" {
					holders++
				}
			}
		}
		if won != 1 || holders != 1 {
			t.Fatalf("%d writes won, %d pools hold bess-1; want 1 and 1", won, holders)
		}

		for i := range results {
			wg.Go(func() {
				p := testPool("beta", "same")
				_, results[i] = s.Create(ctx, p, rule(p))
			})
		}
		wg.Wait()
		won = 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case !isConflict(err, "pool_exists"):
				t.Fatalf("a loser's error: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d creates of one pool_id won", won)
		}
	})
}

// TestPoolClaimRacesDeletion: an asset claimed while it is deleted ends
// in no pool, whichever commits first.
func TestPoolClaimRacesDeletion(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withSegmentableAssets(t, b)
		s := b.Pools()
		for i := range 6 {
			id := fmt.Sprintf("race-%d", i)
			a := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
			a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
			if _, err := b.Assets().Create(ctx, a); err != nil {
				t.Fatal(err)
			}
			p := testPool("acme", id, id)
			var createErr, deleteErr error
			var wg sync.WaitGroup
			wg.Go(func() { _, createErr = s.Create(ctx, p, rule(p)) })
			wg.Go(func() {
				deleteErr = b.Assets().Delete(ctx, assetAcme, id, testkit.Start, func(context.Context, assets.Asset) error { return nil })
			})
			wg.Wait()
			if deleteErr != nil || (createErr != nil && !errs.Is(createErr, errs.Invalid)) {
				t.Fatalf("delete %v, create %v", deleteErr, createErr)
			}
			if got, err := s.PoolOf(ctx, id); !errs.Is(err, errs.NotFound) {
				t.Fatalf("the deleted %s is in pool %+v (%v)", id, got, err)
			}
		}
	})
}
