package portfoliohttp_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/pools"
	"atcp/internal/pools/poolshttp"
	"atcp/internal/portfolio"
	"atcp/internal/portfolio/portfoliohttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func TestAssetCovers(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h := testkit.NewHarness(t, b)
		ctx := context.Background()
		dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
		for _, org := range []string{"acme", "beta"} {
			if err := dir.EnsureOrganization(ctx, org, org); err != nil {
				t.Fatal(err)
			}
		}
		registry := assets.NewService(b.Assets(), h.Clock)
		assetshttp.Register(h.Server, registry)
		pl := pools.NewService(pools.Deps{Store: b.Pools(), Assets: registry, Organizations: b.Directory(), Latest: b.Telemetry(),
			Reservations: b.Bids(), Restrictions: b.Restrictions(), Clock: h.Clock})
		poolshttp.Register(h.Server, pl)
		portfoliohttp.Register(h.Server, portfolio.NewService(b.CoverSteps(), registry, h.Clock), pl)
		admin := h.AdminToken()
		for _, a := range []struct{ id, org string }{{"bess-1", "acme"}, {"bess-2", "acme"}, {"bess-3", "acme"}, {"b-1", "beta"}} {
			h.Do("POST", "/v1/assets", admin, map[string]any{"asset_id": a.id, "asset_name": a.id, "asset_type": "standalone",
				"location": "Cottbus", "organisation_id": a.org}).Expect(t, 201, "")
		}
		now := h.Clock.Now()
		qh := now.Truncate(15 * time.Minute).Add(-15 * time.Minute)
		price := decimal.RequireFromString("45.5")
		steps := []portfolio.Step{
			{ID: uuid.NewString(), OrganizationID: "acme", PoolID: "north", QuarterHour: qh, From: qh.Add(7 * time.Minute), To: qh.Add(15 * time.Minute),
				Assignment: portfolio.Assignment{Product: portfolio.AFRRNeg, Failing: "bess-1", Covering: "bess-2", MW: 8, ObligationMW: 10,
					Price: &price, PriceSource: "default"}},
			{ID: uuid.NewString(), OrganizationID: "acme", PoolID: "north", QuarterHour: qh, From: qh.Add(7 * time.Minute), To: qh.Add(15 * time.Minute),
				Assignment: portfolio.Assignment{Product: portfolio.AFRRNeg, Failing: "bess-1", MW: 2, ObligationMW: 10}},
			{ID: uuid.NewString(), OrganizationID: "beta", QuarterHour: qh, From: qh, To: qh.Add(15 * time.Minute),
				Assignment: portfolio.Assignment{Product: portfolio.FCR, Failing: "b-1", MW: 1, ObligationMW: 1}},
		}
		if err := b.CoverSteps().Supersede(ctx, qh, nil, steps); err != nil {
			t.Fatal(err)
		}
		acme, beta := h.TokenFor("acme", auth.MarketRead), h.TokenFor("beta", auth.MarketRead)
		var got portfoliohttp.CoverList
		h.Do("GET", "/v1/assets/bess-1/covers", acme, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 2 || got.Covers[0].CoveringAssetID != nil || *got.Covers[1].CoveringAssetID != "bess-2" ||
			*got.Covers[1].Price != "45.50" || *got.Covers[1].PriceSource != "default" || got.Covers[1].MW != 8 ||
			*got.Covers[1].PoolID != "north" || !got.Covers[1].StartTime.Equal(qh.Add(7*time.Minute)) || got.Covers[0].Price != nil {
			t.Fatalf("bess-1's covers: %+v", got.Covers)
		}
		h.Do("GET", "/v1/assets/bess-2/covers", acme, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 1 || got.Covers[0].FailingAssetID != "bess-1" {
			t.Fatalf("the coverer's covers: %+v", got.Covers)
		}
		h.Do("GET", "/v1/assets/bess-3/covers", acme, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 0 {
			t.Fatalf("an asset without steps: %+v", got.Covers)
		}
		// The overlap filter: a window ending when the steps begin.
		h.Do("GET", "/v1/assets/bess-1/covers?end_time="+qh.Add(7*time.Minute).Format(time.RFC3339), acme, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 0 {
			t.Fatalf("window before the steps: %+v", got.Covers)
		}
		h.Do("GET", "/v1/assets/bess-1/covers?limit=1", acme, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 1 {
			t.Fatalf("limit 1: %+v", got.Covers)
		}

		// Authorisation: another organisation's asset and an unknown one
		// are 404, a token without market.read is 403.
		h.Do("GET", "/v1/assets/bess-1/covers", beta, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/assets/nope/covers", acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/assets/bess-1/covers", h.TokenFor("acme", auth.AssetRead), nil).Expect(t, 403, "insufficient_scope")
		h.Do("GET", "/v1/assets/bess-1/covers", "", nil).Expect(t, 401, "")
		h.Do("GET", "/v1/assets/b-1/covers", admin, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 1 || got.Covers[0].Product != "fcr" {
			t.Fatalf("a platform administrator reads beta's: %+v", got.Covers)
		}

		// The window.
		at := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
		h.Do("GET", "/v1/assets/bess-1/covers?start_time="+at(0)+"&end_time="+at(0), acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", "/v1/assets/bess-1/covers?start_time="+at(-32*24*time.Hour), acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", "/v1/assets/bess-1/covers?limit=1001", acme, nil).Expect(t, 422, "")
		h.Do("GET", "/v1/assets/bess-1/covers?start_time=yesterday", acme, nil).Expect(t, 422, "")

		// A pool's steps.
		poolAdmin := h.TokenFor("acme", auth.PoolRead, auth.PoolWrite)
		h.Do("POST", "/v1/pools", poolAdmin, map[string]any{"pool_id": "north", "list_asset_ids": []string{"bess-1", "bess-2"}}).Expect(t, 201, "")
		h.Do("GET", "/v1/pools/north/covers", poolAdmin, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 2 || got.Covers[1].FailingAssetID != "bess-1" || *got.Covers[1].CoveringAssetID != "bess-2" {
			t.Fatalf("the pool's covers: %+v", got.Covers)
		}
		h.Do("GET", "/v1/pools/north/covers?organization_id=acme", admin, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Covers) != 2 {
			t.Fatalf("the pool's covers read by a platform administrator: %+v", got.Covers)
		}
		h.Do("GET", "/v1/pools/north/covers", h.TokenFor("beta", auth.PoolRead), nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/pools/south/covers", poolAdmin, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/pools/north/covers", acme, nil).Expect(t, 403, "insufficient_scope")
		h.Do("GET", "/v1/pools/north/covers?organization_id=beta", poolAdmin, nil).Expect(t, 422, "organization_not_accessible")
		h.Do("GET", "/v1/pools/north/covers?limit=0", poolAdmin, nil).Expect(t, 422, "")
	})
}
