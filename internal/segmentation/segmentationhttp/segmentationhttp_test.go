package segmentationhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/fcr"
	"atcp/internal/segmentation"
	"atcp/internal/segmentation/segmentationhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// commitments is a settable stand-in for the bid store: committed bid
// counts per asset id.
type commitments struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *commitments) set(assetID string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[assetID] = n
}

func (c *commitments) CommittedAfter(_ context.Context, assetID string, _ time.Time) (map[bids.Market]int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.counts[assetID]; n > 0 {
		return map[bids.Market]int{bids.AFRRCapacity: n}, nil
	}
	return nil, nil
}

type env struct {
	h                        *testkit.Harness
	bids                     *commitments
	acme, acmeRO, beta, none string
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), h.Clock)
	fake := &commitments{counts: map[string]int{}}
	svc := segmentation.NewService(b.Segmentations(), registry, fake, h.Clock)
	registry.SetVirtualResolver(svc)
	registry.AddDeletionGuard(svc)
	assetshttp.Register(h.Server, registry)
	segmentationhttp.Register(h.Server, svc)
	e := env{h: h, bids: fake,
		acme:   h.TokenFor("acme", auth.AssetRead, auth.AssetWrite),
		acmeRO: h.TokenFor("acme", auth.AssetRead),
		beta:   h.TokenFor("beta", auth.AssetRead, auth.AssetWrite),
		none:   h.TokenFor("acme", auth.MarketRead),
	}
	for _, a := range []struct{ id, org string }{{"bess-1", "acme"}, {"bess-2", "acme"}, {"b-1", "beta"}} {
		h.Do("POST", "/v1/assets", h.AdminToken(), map[string]any{
			"asset_id": a.id, "asset_name": "Battery " + a.id, "asset_type": "standalone", "location": "Leipzig",
			"organisation_id": a.org, "usable_power_capacity_mw": 10, "usable_energy_capacity_mwh": 20,
			"afrr_prequalified_capacity_neg_mw": 8,
		}).Expect(t, 201, "")
	}
	return e
}

func segment(id string, share float64) map[string]any {
	return map[string]any{"segment_id": id, "name": "Segment " + id, "share": share, "counterparty": "Trader " + id, "color": "#12ab9F"}
}

func body(mode string, segments ...map[string]any) map[string]any {
	return map[string]any{"mode": mode, "segments": segments}
}

const seg1 = "/v1/assets/bess-1/segmentation"

// ids returns the asset ids of GET /v1/assets.
func (e env) ids(t *testing.T, token string) []string {
	t.Helper()
	var list struct {
		Assets []struct {
			AssetID string `json:"asset_id"`
		} `json:"assets"`
	}
	e.h.Do("GET", "/v1/assets", token, nil).Expect(t, 200, "").JSON(t, &list)
	var out []string
	for _, a := range list.Assets {
		out = append(out, a.AssetID)
	}
	return out
}

func TestLifecycle(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		h.Do("GET", seg1, e.acme, nil).Expect(t, 404, "")
		h.Do("POST", seg1+"/activate", e.acme, nil).Expect(t, 404, "")
		h.Do("DELETE", seg1, e.acme, nil).Expect(t, 404, "")

		got := h.Do("PUT", seg1, e.acme, body("proportional", segment("a", 0.75), segment("b", 0.25))).Expect(t, 200, "").Map(t)
		if got["status"] != "draft" || got["version"] != 1.0 || got["mode"] != "proportional" || got["asset_id"] != "bess-1" {
			t.Fatalf("created: %v", got)
		}
		s0 := got["segments"].([]any)[0].(map[string]any)
		if s0["virtual_asset_id"] != "bess-1.a" || s0["share"] != 0.75 || s0["color"] != "#12ab9F" || s0["counterparty"] != "Trader a" {
			t.Fatalf("segment: %v", s0)
		}
		if r := h.Do("GET", seg1, e.acmeRO, nil).Expect(t, 200, "").Map(t); r["version"] != 1.0 {
			t.Fatalf("read: %v", r)
		}
		// A draft makes no virtual assets.
		if ids := e.ids(t, e.acme); !slices.Equal(ids, []string{"bess-1", "bess-2"}) {
			t.Fatalf("draft listed: %v", ids)
		}
		h.Do("GET", "/v1/assets/bess-1.a", e.acme, nil).Expect(t, 404, "")

		h.Clock.Advance(time.Minute)
		act := h.Do("POST", seg1+"/activate", e.acme, nil).Expect(t, 200, "").Map(t)
		if act["status"] != "active" || act["version"] != 1.0 || act["updated_at"] == got["updated_at"] {
			t.Fatalf("activated: %v", act)
		}
		h.Do("POST", seg1+"/activate", e.acme, nil).Expect(t, 409, "segmentation_active")
		if ids := e.ids(t, e.acme); !slices.Equal(ids, []string{"bess-1", "bess-1.a", "bess-1.b", "bess-2"}) {
			t.Fatalf("active listed: %v", ids)
		}
		if ids := e.ids(t, e.beta); !slices.Equal(ids, []string{"b-1"}) {
			t.Fatalf("beta sees: %v", ids)
		}
		va := h.Do("GET", "/v1/assets/bess-1.a", e.acmeRO, nil).Expect(t, 200, "").Map(t)
		if va["is_virtual"] != true || va["parent_asset_id"] != "bess-1" || va["organisation_id"] != "acme" ||
			va["usable_power_capacity_mw"] != 7.5 || va["usable_energy_capacity_mwh"] != 15.0 || va["afrr_prequalified_capacity_neg_mw"] != 6.0 {
			t.Fatalf("virtual asset: %v", va)
		}
		if p := h.Do("GET", "/v1/assets/bess-1", e.acme, nil).Expect(t, 200, "").Map(t); p["is_virtual"] != false || p["parent_asset_id"] != nil {
			t.Fatalf("parent: %v", p)
		}
		h.Do("GET", "/v1/assets/bess-1.a", e.beta, nil).Expect(t, 404, "")
		h.Do("GET", "/v1/assets/bess-1.zz", e.acme, nil).Expect(t, 404, "")

		// Virtual assets are changed through the parent only.
		h.Do("PUT", "/v1/assets/bess-1.a", e.acme, map[string]any{"asset_name": "x"}).Expect(t, 409, "virtual_asset")
		h.Do("DELETE", "/v1/assets/bess-1.a", e.acme, nil).Expect(t, 409, "virtual_asset")
		h.Do("PUT", "/v1/assets/bess-1.a/segmentation", e.acme, body("priority", segment("x", 0.5), segment("y", 0.5))).Expect(t, 409, "virtual_asset")
		h.Do("POST", "/v1/assets", e.acme, map[string]any{"asset_id": "bess-1.a", "asset_name": "x", "asset_type": "standalone",
			"location": "x", "organisation_id": "acme"}).Expect(t, 409, "asset_exists")
		h.Do("DELETE", "/v1/assets/bess-1", e.acme, nil).Expect(t, 409, "asset_in_use")

		// A replace keeps the status, bumps the version; the virtual assets follow.
		rep := h.Do("PUT", seg1, e.acme, body("priority", segment("a", 0.5), segment("c", 0.5))).Expect(t, 200, "").Map(t)
		if rep["status"] != "active" || rep["version"] != 2.0 || rep["mode"] != "priority" {
			t.Fatalf("replaced: %v", rep)
		}
		if ids := e.ids(t, e.acme); !slices.Equal(ids, []string{"bess-1", "bess-1.a", "bess-1.c", "bess-2"}) {
			t.Fatalf("after replace: %v", ids)
		}
		h.Do("GET", "/v1/assets/bess-1.b", e.acme, nil).Expect(t, 404, "")
		if va := h.Do("GET", "/v1/assets/bess-1.a", e.acme, nil).Expect(t, 200, "").Map(t); va["usable_power_capacity_mw"] != 5.0 {
			t.Fatalf("reallocated: %v", va)
		}

		// Committed bids of a virtual asset hold its segment.
		e.bids.set("bess-1.c", 2)
		h.Do("PUT", seg1, e.acme, body("priority", segment("a", 0.5), segment("d", 0.5))).Expect(t, 409, "segment_in_use")
		h.Do("DELETE", seg1, e.acme, nil).Expect(t, 409, "segmentation_in_use")
		if r := h.Do("GET", seg1, e.acme, nil).Expect(t, 200, "").Map(t); r["version"] != 2.0 {
			t.Fatalf("a refused write changed it: %v", r)
		}
		// Keeping the busy segment is fine.
		h.Do("PUT", seg1, e.acme, body("priority", segment("c", 0.4), segment("d", 0.6))).Expect(t, 200, "")
		e.bids.set("bess-1.c", 0)

		h.Do("DELETE", seg1, e.acme, nil).Expect(t, 204, "")
		h.Do("GET", seg1, e.acme, nil).Expect(t, 404, "")
		h.Do("GET", "/v1/assets/bess-1.c", e.acme, nil).Expect(t, 404, "")
		if ids := e.ids(t, e.acme); !slices.Equal(ids, []string{"bess-1", "bess-2"}) {
			t.Fatalf("after delete: %v", ids)
		}
		// A new design starts over as a draft.
		if r := h.Do("PUT", seg1, e.acme, body("proportional", segment("a", 0.5), segment("b", 0.5))).Expect(t, 200, "").Map(t); r["status"] != "draft" || r["version"] != 1.0 {
			t.Fatalf("recreated: %v", r)
		}
		h.Do("DELETE", "/v1/assets/bess-1", e.acme, nil).Expect(t, 204, "")
	})
}

func TestErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		valid := body("proportional", segment("a", 0.5), segment("b", 0.5))
		for _, r := range []struct{ method, path string }{{"GET", seg1}, {"PUT", seg1}, {"DELETE", seg1}, {"POST", seg1 + "/activate"}} {
			var req any
			if r.method == "PUT" {
				req = valid
			}
			h.Do(r.method, r.path, "", req).Expect(t, 401, "")
			h.Do(r.method, r.path, e.none, req).Expect(t, 403, "")
			h.Do(r.method, "/v1/assets/b-1/segmentation"+r.path[len(seg1):], e.acme, req).Expect(t, 404, "")
			h.Do(r.method, "/v1/assets/nope/segmentation"+r.path[len(seg1):], e.acme, req).Expect(t, 404, "")
			if r.method != "GET" {
				h.Do(r.method, r.path, e.acmeRO, req).Expect(t, 403, "")
			}
		}
		h.Do("PUT", seg1, e.acme, `{"mode":`).Expect(t, 400, "")
		for name, bad := range map[string]any{
			"shares below 1":   body("proportional", segment("a", 0.5), segment("b", 0.4)),
			"percent shares":   body("proportional", segment("a", 50), segment("b", 50)),
			"duplicate ids":    body("proportional", segment("a", 0.5), segment("a", 0.5)),
			"one segment":      body("proportional", segment("a", 1)),
			"unknown mode":     body("fair", segment("a", 0.5), segment("b", 0.5)),
			"bad colour":       body("proportional", map[string]any{"segment_id": "a", "name": "A", "share": 0.5, "color": "red"}, segment("b", 0.5)),
			"upper-case id":    body("proportional", segment("A", 0.5), segment("b", 0.5)),
			"missing segments": map[string]any{"mode": "priority"},
			"unknown field":    map[string]any{"mode": "priority", "segments": []any{segment("a", 0.5), segment("b", 0.5)}, "x": 1},
		} {
			t.Run(name, func(t *testing.T) {
				h.Do("PUT", seg1, e.acme, bad).Expect(t, 422, "")
			})
		}
		h.Do("GET", seg1, e.acme, nil).Expect(t, 404, "")

		// A virtual id that a physical asset has is refused.
		h.Do("POST", "/v1/assets", e.acme, map[string]any{"asset_id": "bess-1.x", "asset_name": "x", "asset_type": "standalone",
			"location": "x", "organisation_id": "acme"}).Expect(t, 201, "")
		h.Do("PUT", seg1, e.acme, body("priority", segment("x", 0.5), segment("y", 0.5))).Expect(t, 409, "virtual_asset_id_taken")
		// Optional fields may be left out; null colour and counterparty come back.
		r := h.Do("PUT", seg1, e.acme, body("priority", map[string]any{"segment_id": "a", "name": "A", "share": 0.3},
			map[string]any{"segment_id": "b", "name": "B", "share": 0.7})).Expect(t, 200, "").Map(t)
		if s := r["segments"].([]any)[0].(map[string]any); s["color"] != nil || s["counterparty"] != nil {
			t.Fatalf("optional fields: %v", s)
		}
	})
}

// TestConcurrentWrites proves the invariants under racing requests: every
// replace gets its own version and exactly one activation succeeds.
func TestConcurrentWrites(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		const n = 12
		versions := make(chan float64, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				r := e.h.Do("PUT", seg1, e.acme, body("proportional", segment("a", 0.5), segment(fmt.Sprintf("s%d", i), 0.5)))
				if r.Status != http.StatusOK {
					t.Errorf("put: %d %s", r.Status, r.Body)
					return
				}
				var s struct{ Version float64 }
				r.JSON(t, &s)
				versions <- s.Version
			})
		}
		wg.Wait()
		close(versions)
		var got []float64
		for v := range versions {
			got = append(got, v)
		}
		slices.Sort(got)
		for i, v := range got {
			if v != float64(i+1) {
				t.Fatalf("versions %v", got)
			}
		}

		statuses := make(chan int, n)
		for range n {
			wg.Go(func() { statuses <- e.h.Do("POST", seg1+"/activate", e.acme, nil).Status })
		}
		wg.Wait()
		close(statuses)
		ok := 0
		for s := range statuses {
			switch s {
			case http.StatusOK:
				ok++
			case http.StatusConflict:
			default:
				t.Fatalf("activate: %d", s)
			}
		}
		if ok != 1 {
			t.Fatalf("%d activations succeeded", ok)
		}
	})
}

// TestActivationRefusedWhileTheParentHoldsBids: the parent's committed
// future bids would come on top of its segments' bids.
func TestActivationRefusedWhileTheParentHoldsBids(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		const seg = "/v1/assets/bess-2/segmentation"
		e.h.Do("PUT", seg, e.acme, map[string]any{"mode": "proportional", "segments": []any{
			map[string]any{"segment_id": "a", "name": "A", "share": 0.5},
			map[string]any{"segment_id": "b", "name": "B", "share": 0.5},
		}}).Expect(t, 200, "")
		e.bids.set("bess-2", 2)
		e.h.Do("POST", seg+"/activate", e.acme, nil).Expect(t, 409, "asset_has_bids")
		if r := e.h.Do("GET", seg, e.acme, nil).Expect(t, 200, "").Map(t); r["status"] != "draft" {
			t.Fatalf("refused activation changed the design: %v", r)
		}
		e.bids.set("bess-2", 0)
		e.h.Do("POST", seg+"/activate", e.acme, nil).Expect(t, 200, "")
	})
}

// TestControlCharactersAreRefused: a NUL or another control character in
// a segment's name or counterparty is 422 naming the field on both stores
// (a NUL was a 500 on PostgreSQL), and nothing is stored.
func TestControlCharactersAreRefused(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		for _, c := range []struct{ field, value string }{
			{"name", "Trader\x00A"},
			{"name", "\x1b[31mTrader A"},
			{"counterparty", "Trader\x00"},
			{"counterparty", "Trader\u0085A"},
		} {
			s := segment("a", 0.5)
			s[c.field] = c.value
			r := e.h.Do("PUT", seg1, e.acme, body("proportional", s, segment("b", 0.5))).Expect(t, 422, "validation_failed")
			var p struct {
				Errors []struct {
					Location string `json:"location"`
				} `json:"errors"`
			}
			r.JSON(t, &p)
			if len(p.Errors) != 1 || p.Errors[0].Location != "body.segments[0]."+c.field {
				t.Fatalf("%s %q: %s", c.field, c.value, r.Body)
			}
		}
		e.h.Do("GET", seg1, e.acme, nil).Expect(t, 404, "")
	})
}

// TestWithTheServersBidStore runs the designs' checks against the bid
// store the server wires in rather than the stand-in. Those checks read
// bids inside the design's write transaction: on sqlite::memory: a read
// through the read pool waited 10 s for that transaction and the DELETE
// of an activated design failed with SQLITE_BUSY.
func TestWithTheServersBidStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		h := testkit.NewHarness(t, b)
		if err := identity.NewDirectory(b.Directory(), h.Clock, h.URL).EnsureOrganization(ctx, "acme", "acme"); err != nil {
			t.Fatal(err)
		}
		registry := assets.NewService(b.Assets(), h.Clock)
		svc := segmentation.NewService(b.Segmentations(), registry, b.Bids(), h.Clock)
		registry.SetVirtualResolver(svc)
		registry.AddDeletionGuard(svc)
		registry.AddDeletionGuard(bids.DeletionGuard{Store: b.Bids()})
		assetshttp.Register(h.Server, registry)
		segmentationhttp.Register(h.Server, svc)
		acme := h.TokenFor("acme", auth.AssetRead, auth.AssetWrite)
		timed := func(method, path string, body any, status int, code errs.Code) {
			t.Helper()
			start := time.Now()
			h.Do(method, path, acme, body).Expect(t, status, code)
			// A write waiting on its own transaction stalls until the busy timeout.
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("%s %s took %v", method, path, d)
			}
		}

		// The sequence of issue 10.
		timed("POST", "/v1/assets", map[string]any{
			"asset_id": "bess-1", "asset_name": "Battery", "asset_type": "standalone", "location": "Leipzig",
			"organisation_id": "acme", "usable_power_capacity_mw": 10, "usable_energy_capacity_mwh": 20,
			"fcr_enabled": true, "fcr_prequalified_capacity_mw": 10, "asset_operational_status": "live",
		}, 201, "")
		timed("PUT", seg1, body("proportional", segment("a", 0.5), segment("b", 0.5)), 200, "")
		timed("POST", seg1+"/activate", nil, 200, "")
		timed("DELETE", seg1, nil, 204, "")

		// The reads inside the transactions see a committed bid of a
		// virtual asset.
		timed("PUT", seg1, body("proportional", segment("a", 0.5), segment("b", 0.5)), 200, "")
		timed("POST", seg1+"/activate", nil, 200, "")
		block := time.Date(2026, 2, 2, 3, 0, 0, 0, time.UTC) // open at testkit.Start
		_, err := fcr.NewService(registry, b.Bids(), h.Clock, fcr.Config{}).Submit(ctx, auth.Visibility{OrganizationID: "acme"}, "bess-1.b",
			bids.Submission{Bids: []bids.NewBid{{Start: block, End: block.Add(4 * time.Hour), OfferedMW: 1, CapacityPrice: bids.PriceInput{Raw: []byte(`"10"`)}}}})
		if err != nil {
			t.Fatal(err)
		}
		timed("PUT", seg1, body("proportional", segment("a", 0.5), segment("c", 0.5)), 409, "segment_in_use")
		timed("DELETE", seg1, nil, 409, "segmentation_in_use")
		timed("PUT", seg1, body("proportional", segment("b", 0.5), segment("c", 0.5)), 200, "")
		timed("PUT", "/v1/assets/bess-1", map[string]any{"asset_operational_status": "maintenance"}, 200, "")
		timed("DELETE", "/v1/assets/bess-1", nil, 409, "asset_in_use")
	})
}
