package store_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// withSegmentableAssets registers acme's bess-1 and bess-2 and beta's b-1.
func withSegmentableAssets(t *testing.T, b store.Backend) {
	t.Helper()
	withAssetOrganizations(t, b)
	for _, a := range []assets.Asset{
		assets.NewAsset("bess-1", "acme", "One", "Leipzig", assets.Standalone),
		assets.NewAsset("bess-2", "acme", "Two", "Leipzig", assets.Standalone),
		assets.NewAsset("b-1", "beta", "Beta", "Berlin", assets.Standalone),
	} {
		a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
		if _, err := b.Assets().Create(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
}

func design(assetID, org string, status segmentation.Status, version int64) segmentation.Segmentation {
	return segmentation.Segmentation{
		AssetID: assetID, OrganizationID: org, Mode: segmentation.Priority, Status: status, Version: version,
		UpdatedAt: testkit.Start.Add(time.Duration(version) * time.Minute),
		Segments: []segmentation.Segment{
			{ID: "a", Name: "A", Share: 0.625, Color: assetPtr("#00ff00"), Counterparty: assetPtr("Trader A")},
			{ID: "b", Name: "B", Share: 0.375},
		},
	}
}

// put stores want through Change, checking the organisation Change reports.
func put(t *testing.T, b store.Backend, want segmentation.Segmentation) {
	t.Helper()
	_, err := b.Segmentations().Change(context.Background(), assetAdmin, want.AssetID,
		func(_ context.Context, org string, _ *segmentation.Segmentation) (segmentation.Segmentation, error) {
			if org != want.OrganizationID {
				t.Errorf("organisation %q, want %q", org, want.OrganizationID)
			}
			return want, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSegmentationStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		withSegmentableAssets(t, b)
		s := b.Segmentations()

		if _, err := s.Get(ctx, assetAcme, "bess-1"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("none yet: %v", err)
		}
		want := design("bess-1", "acme", segmentation.Draft, 1)
		put(t, b, want)
		got, err := s.Get(ctx, assetAcme, "bess-1")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip:\n got %+v, %v\nwant %+v", got, err, want)
		}
		if _, err := s.Get(ctx, assetBeta, "bess-1"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another organisation reads it: %v", err)
		}
		if _, err := s.Change(ctx, assetBeta, "bess-1", func(context.Context, string, *segmentation.Segmentation) (segmentation.Segmentation, error) {
			t.Fatal("change called for an invisible asset")
			return segmentation.Segmentation{}, nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another organisation changes it: %v", err)
		}

		// Only active designs are listed, filtered by organisation.
		if list, err := s.ListActive(ctx, assetAdmin); err != nil || len(list) != 0 {
			t.Fatalf("active drafts: %v, %v", list, err)
		}
		put(t, b, design("bess-2", "acme", segmentation.Active, 3))
		put(t, b, design("b-1", "beta", segmentation.Active, 1))
		list, err := s.ListActive(ctx, assetAcme)
		if err != nil || len(list) != 1 || list[0].AssetID != "bess-2" || list[0].Version != 3 {
			t.Fatalf("acme active: %+v, %v", list, err)
		}
		if list, _ := s.ListActive(ctx, assetAdmin); len(list) != 2 || list[0].AssetID != "b-1" {
			t.Fatalf("all active: %+v", list)
		}

		// A failing change or check writes nothing.
		boom := errors.New("boom")
		if _, err := s.Change(ctx, assetAcme, "bess-1", func(_ context.Context, _ string, cur *segmentation.Segmentation) (segmentation.Segmentation, error) {
			if cur == nil || cur.Version != 1 {
				t.Errorf("current %+v", cur)
			}
			return segmentation.Segmentation{}, boom
		}); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, assetAcme, "bess-1", func(context.Context, segmentation.Segmentation) error { return boom }); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, assetAcme, "bess-1"); !reflect.DeepEqual(got, want) {
			t.Fatalf("a failed write changed it: %+v", got)
		}

		if err := s.Delete(ctx, assetBeta, "bess-1", func(context.Context, segmentation.Segmentation) error { return nil }); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another organisation deletes it: %v", err)
		}
		if err := s.Delete(ctx, assetAcme, "bess-1", func(_ context.Context, cur segmentation.Segmentation) error {
			if cur.Version != 1 {
				t.Errorf("check got %+v", cur)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, assetAcme, "bess-1"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted: %v", err)
		}
		if err := s.Delete(ctx, assetAcme, "bess-1", func(context.Context, segmentation.Segmentation) error { return nil }); !errs.Is(err, errs.NotFound) {
			t.Fatalf("deleted twice: %v", err)
		}

		// The design of a deleted asset disappears with it.
		if err := b.Assets().Delete(ctx, assetAcme, "bess-2", testkit.Start, func(context.Context, assets.Asset) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, assetAcme, "bess-2"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("design of a deleted asset: %v", err)
		}
		if list, _ := s.ListActive(ctx, assetAcme); len(list) != 0 {
			t.Fatalf("active design of a deleted asset listed: %+v", list)
		}
	})
}

// TestSegmentationStoreConcurrentChanges proves changes of one design are
// serialised: every replace bumps the version it read, and none is lost.
func TestSegmentationStoreConcurrentChanges(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withSegmentableAssets(t, b)
		const n = 20
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				_, err := b.Segmentations().Change(context.Background(), assetAcme, "bess-1",
					func(_ context.Context, org string, cur *segmentation.Segmentation) (segmentation.Segmentation, error) {
						next := design("bess-1", org, segmentation.Draft, 1)
						if cur != nil {
							next.Version = cur.Version + 1
						}
						return next, nil
					})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, err := b.Segmentations().Get(context.Background(), assetAcme, "bess-1")
		if err != nil || got.Version != n {
			t.Fatalf("version %d after %d changes, %v", got.Version, n, err)
		}
	})
}
