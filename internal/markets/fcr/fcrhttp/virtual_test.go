package fcrhttp_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"atcp/internal/auth"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// segment splits acme's bess-1 (10 MW FCR prequalified) into a (40 %) and
// b (60 %) and activates the design.
func segment(t *testing.T, b store.Backend, e env) {
	t.Helper()
	ctx := context.Background()
	svc := segmentation.NewService(b.Segmentations(), e.assets, b.Bids(), e.h.Clock)
	e.assets.SetVirtualResolver(svc)
	acme := auth.Visibility{OrganizationID: "acme"}
	if _, err := svc.Put(ctx, acme, "bess-1", segmentation.Proportional,
		[]segmentation.Segment{{ID: "a", Name: "A", Share: 0.4}, {ID: "b", Name: "B", Share: 0.6}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Activate(ctx, acme, "bess-1"); err != nil {
		t.Fatal(err)
	}
}

const (
	virtualA = "/v1/assets/bess-1.a/markets/fcr"
	virtualB = "/v1/assets/bess-1.b/markets/fcr"
)

// Each virtual asset bids against its own share of the parent's ceiling;
// together they reach the physical ceiling and no more, and the parent
// itself no longer bids.
func TestVirtualAssetBids(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		segment(t, b, e)
		// 4 MW is bess-1.a's ceiling (0.4 x 10 MW).
		e.h.Do(http.MethodPost, virtualA+"/bids", e.rw, submit(bid(block1, "", 10, 5))).Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		var got submitted
		e.h.Do(http.MethodPost, virtualA+"/bids", e.rw, submit(bid(block1, "", 10, 4))).Expect(t, http.StatusCreated, "").JSON(t, &got)
		if len(got.Bids) != 1 || got.Bids[0].OfferedPowerMW != 4 {
			t.Fatalf("virtual bid %+v", got)
		}
		// bess-1.b takes the other 6 MW: the battery's 10 MW are used up.
		e.h.Do(http.MethodPost, virtualB+"/bids", e.rw, submit(bid(block1, "", 10, 7))).Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.h.Do(http.MethodPost, virtualB+"/bids", e.rw, submit(bid(block1, "", 10, 6))).Expect(t, http.StatusCreated, "")
		e.h.Do(http.MethodPost, virtualA+"/bids", e.rw, submit(bid(block1, "", 10, 1))).Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// The parent's capacity belongs to its segments.
		e.h.Do(http.MethodPost, asset+"/bids", e.rw, submit(bid(block2, "", 10, 1))).Expect(t, http.StatusConflict, "asset_segmented")
		// The bids are the virtual asset's own.
		var list submitted
		e.h.Do(http.MethodGet, virtualA+"/bids", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &list)
		if len(list.Bids) != 1 || list.Bids[0].ID != got.Bids[0].ID {
			t.Fatalf("bess-1.a bids %+v", list)
		}
		if n := len(e.list(t, "").Bids); n != 0 {
			t.Fatalf("the parent lists %d bids", n)
		}
		// An update is held to the same ceiling.
		path := virtualA + "/bids/" + got.Bids[0].ID
		e.h.Do(http.MethodPut, path, e.rw, put(block1, 10, 5)).Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.h.Do(http.MethodPut, path, e.rw, put(block1, 12, 3)).Expect(t, http.StatusOK, "")
		// Another organisation does not see the virtual asset.
		e.h.Do(http.MethodPost, virtualA+"/bids", e.beta, submit(bid(block2, "", 10, 1))).Expect(t, http.StatusNotFound, "")
		e.h.Do(http.MethodDelete, path, e.rw, nil).Expect(t, http.StatusNoContent, "")
	})
}

// Concurrent submissions on both segments and the parent's ceiling: the
// parent's row lock serialises them, so no segment overshoots its share.
func TestVirtualAssetBidsUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		segment(t, b, e)
		const n = 10
		var wg sync.WaitGroup
		statuses := make(chan int, 2*n)
		for i := range 2 * n {
			path := virtualA
			if i%2 == 1 {
				path = virtualB
			}
			wg.Go(func() {
				statuses <- e.h.Do(http.MethodPost, path+"/bids", e.rw, submit(bid(block3, "", 10, 2))).Status
			})
		}
		wg.Wait()
		close(statuses)
		created := 0
		for s := range statuses {
			switch s {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Fatalf("status %d", s)
			}
		}
		// 2 MW bids: two fit bess-1.a (4 MW), three bess-1.b (6 MW).
		if created != 5 {
			t.Fatalf("%d bids created, want 5", created)
		}
		var a, bb submitted
		e.h.Do(http.MethodGet, virtualA+"/bids", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &a)
		e.h.Do(http.MethodGet, virtualB+"/bids", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &bb)
		if len(a.Bids) != 2 || len(bb.Bids) != 3 {
			t.Fatalf("bess-1.a %d bids, bess-1.b %d", len(a.Bids), len(bb.Bids))
		}
	})
}

// A design that is not active yet leaves the battery bidding itself.
func TestDraftSegmentationKeepsTheParentBidding(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		svc := segmentation.NewService(b.Segmentations(), e.assets, b.Bids(), e.h.Clock)
		e.assets.SetVirtualResolver(svc)
		if _, err := svc.Put(context.Background(), auth.Visibility{OrganizationID: "acme"}, "bess-1", segmentation.Proportional,
			[]segmentation.Segment{{ID: "a", Name: "A", Share: 0.4}, {ID: "b", Name: "B", Share: 0.6}}); err != nil {
			t.Fatal(err)
		}
		e.h.Do(http.MethodPost, asset+"/bids", e.rw, submit(bid(block1, "", 10, 1))).Expect(t, http.StatusCreated, "")
		e.h.Do(http.MethodPost, virtualA+"/bids", e.rw, submit(bid(block1, "", 10, 1))).Expect(t, http.StatusNotFound, "")
	})
}
