package afrrhttp_test

import (
	"context"
	"net/http"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// activateSegments splits acme's parent into x (40 %) and y (60 %) and
// activates the design, resolving virtual ids through registry.
func activateSegments(t *testing.T, b store.Backend, h *testkit.Harness, registry *assets.Service, parent string) {
	t.Helper()
	ctx := context.Background()
	svc := segmentation.NewService(b.Segmentations(), registry, b.Bids(), h.Clock)
	registry.SetVirtualResolver(svc)
	acme := auth.Visibility{OrganizationID: "acme"}
	if _, err := svc.Put(ctx, acme, parent, segmentation.Proportional,
		[]segmentation.Segment{{ID: "x", Name: "X", Share: 0.4}, {ID: "y", Name: "Y", Share: 0.6}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Activate(ctx, acme, parent); err != nil {
		t.Fatal(err)
	}
}

// aFRR capacity bids on virtual assets: each direction's ceiling is the
// segment's share of the parent's, and the segments together reach the
// parent's and no more.
func TestCapacityOnVirtualAssets(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		activateSegments(t, b, e.h, e.assets, "cap-both") // pos 5 MW, neg 10 MW
		const (
			x = "/v1/assets/cap-both.x/markets/afrr/capacity" // pos 2, neg 4
			y = "/v1/assets/cap-both.y/markets/afrr/capacity" // pos 3, neg 6
		)
		e.post(t, x, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 5)), http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.post(t, x, capSubmit(capBid(capBlock1, "pos", "", 10, 0, 3)), http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		got := e.post(t, x, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 4), capBid(capBlock1, "pos", "", 10, 0, 2)), http.StatusCreated, "")
		if got.CreatedCount != 2 {
			t.Fatalf("created %+v", got)
		}
		e.post(t, y, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 6), capBid(capBlock1, "pos", "", 10, 0, 3)), http.StatusCreated, "")
		e.post(t, y, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 1)), http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.expectStored(t, x, 2)
		e.expectStored(t, y, 2)
		// The parent bids through its segments only; reading and deleting
		// what it holds stays possible.
		e.post(t, capBoth, capSubmit(capBid(capBlock2, "neg", "", 10, 0, 1)), http.StatusConflict, "asset_segmented")
		e.expectStored(t, capBoth, 0)
		e.h.Do(http.MethodPost, x+"/bids", e.beta, capSubmit(capBid(capBlock2, "neg", "", 10, 0, 1))).Expect(t, http.StatusNotFound, "")
	})
}

// Backup-market overrides and defaults on a virtual asset are its own and
// are capped by its scaled prequalified capacity.
func TestBackupOnVirtualAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		activateSegments(t, b, e.h, e.assets, "a1") // pos 4 MW, neg 10 MW
		const (
			bids = "/v1/assets/a1.x/backup_markets/afrr/bids"    // pos 1.6, neg 4
			def  = "/v1/assets/a1.x/backup_markets/afrr/default" // pos 1.6, neg 4
		)
		o := e.h.Do("POST", bids, e.acme, body("neg", 8, 12, "price", 85.5, "max_capacity_mw", 4)).Expect(t, 201, "").Map(t)
		if o["asset_id"] != "a1.x" {
			t.Fatalf("override %v", o)
		}
		expectInvalid(t, e.h.Do("POST", bids, e.acme, body("neg", 12, 13, "max_capacity_mw", 5)), "body.max_capacity_mw")
		e.h.Do("POST", bids, e.acme, body("neg", 10, 14)).Expect(t, 409, "override_overlaps")
		// The parent's overrides are its own.
		e.h.Do("POST", bidsPath, e.acme, body("neg", 8, 12)).Expect(t, 201, "")
		if got := ids(t, e.h.Do("GET", bids, e.acmeRO, nil).Expect(t, 200, "")); len(got) != 1 || got[0] != o["id"] {
			t.Fatalf("virtual overrides %v", got)
		}
		e.h.Do("GET", bids, e.beta, nil).Expect(t, 404, "")
		e.h.Do("POST", bids, e.beta, body("neg", 20, 21)).Expect(t, 404, "")

		e.h.Do("GET", def+"?product=neg", e.acme, nil).Expect(t, 404, "no_default")
		d := e.h.Do("PUT", def, e.acme, map[string]any{"product": "neg", "default_price": "42.1", "default_max_capacity_mw": 4}).Expect(t, 200, "").Map(t)
		if d["asset_id"] != "a1.x" || d["default_price"] != "42.10" {
			t.Fatalf("default %v", d)
		}
		expectInvalid(t, e.h.Do("PUT", def, e.acme, map[string]any{"product": "pos", "default_price": 1, "default_max_capacity_mw": 2}),
			"body.default_max_capacity_mw")
		if got := e.h.Do("GET", def+"?product=neg", e.acmeRO, nil).Expect(t, 200, "").Map(t); got["default_price"] != "42.10" {
			t.Fatalf("read default %v", got)
		}
		e.h.Do("GET", defaultPath+"?product=neg", e.acme, nil).Expect(t, 404, "no_default")
		e.h.Do("DELETE", bids+"/"+o["id"].(string), e.acme, nil).Expect(t, 204, "")
	})
}
