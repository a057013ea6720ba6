package afrrhttp_test

import (
	"context"
	"net/http"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/bids"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// notLiveSetup serves the aFRR capacity and energy endpoints over acme's
// live asset n-live and n-onb, still onboarding (both 10 MW each way);
// opts go to the engines.
func notLiveSetup(t *testing.T, b store.Backend, opts ...bids.Option) (*testkit.Harness, *assets.Service, string) {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	if err := identity.NewDirectory(b.Directory(), h.Clock, h.URL).EnsureOrganization(ctx, "acme", "acme"); err != nil {
		t.Fatal(err)
	}
	as := assets.NewService(b.Assets(), h.Clock)
	for id, status := range map[string]assets.OperationalStatus{"n-live": assets.Live, "n-onb": assets.Onboarding} {
		x := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
		x.OperationalStatus, x.AFRREnabled, x.AFRRPrequalifiedPosMW, x.AFRRPrequalifiedNegMW = status, true, 10, 10
		if err := as.EnsureAsset(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	afrrhttp.RegisterCapacity(h.Server, afrr.NewCapacityService(as, b.Bids(), h.Clock, opts...))
	afrrhttp.RegisterEnergy(h.Server, afrr.NewEnergyService(as, b.Bids(), h.Clock, opts...))
	return h, as, h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
}

// TestAFRRAssetNotLive: aFRR capacity and energy bids of an asset that is
// not live are 409 asset_not_live before the prequalified ceiling; its
// bids can be lowered and withdrawn, not raised.
func TestAFRRAssetNotLive(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h, as, rw := notLiveSetup(t, b)
		capOnb, enOnb := "/v1/assets/n-onb/markets/afrr/capacity/bids", "/v1/assets/n-onb/markets/afrr/energy/bids"
		h.Do(http.MethodPost, capOnb, rw, capSubmit(capBid(capBlock1, "neg", "", 1, 1, 5))).Expect(t, http.StatusConflict, "asset_not_live")
		h.Do(http.MethodPost, capOnb, rw, capSubmit(capBid(capBlock1, "neg", "", 1, 1, 50))).Expect(t, http.StatusConflict, "asset_not_live")
		h.Do(http.MethodPost, enOnb, rw, enSubmit(enBid(enQ1, "neg", "", 10, 5))).Expect(t, http.StatusConflict, "asset_not_live")
		h.Do(http.MethodPost, enOnb, rw, enSubmit(enBid(enQ1, "neg", "", 10, 50))).Expect(t, http.StatusConflict, "asset_not_live")

		capLive, enLive := "/v1/assets/n-live/markets/afrr/capacity/bids", "/v1/assets/n-live/markets/afrr/energy/bids"
		var capOut, enOut struct {
			Bids []struct {
				ID string `json:"id"`
			} `json:"bids"`
		}
		h.Do(http.MethodPost, capLive, rw, capSubmit(capBid(capBlock1, "neg", "", 1, 1, 5))).Expect(t, http.StatusCreated, "").JSON(t, &capOut)
		h.Do(http.MethodPost, enLive, rw, enSubmit(enBid(enQ1, "neg", "", 10, 5))).Expect(t, http.StatusCreated, "").JSON(t, &enOut)
		if _, err := as.Update(context.Background(), auth.Visibility{OrganizationID: "acme"}, "n-live",
			assets.Update{OperationalStatus: assets.Some(assets.Maintenance)}); err != nil {
			t.Fatal(err)
		}
		capBidPath, enBidPath := capLive+"/"+capOut.Bids[0].ID, enLive+"/"+enOut.Bids[0].ID
		h.Do(http.MethodPut, capBidPath, rw, capPut(capBlock1, 1, 1, 6)).Expect(t, http.StatusConflict, "asset_not_live")
		h.Do(http.MethodPut, capBidPath, rw, capPut(capBlock2, 1, 1, 5)).Expect(t, http.StatusConflict, "asset_not_live")
		h.Do(http.MethodPut, enBidPath, rw, enPut(enQ1, 10, 6)).Expect(t, http.StatusConflict, "asset_not_live")
		h.Do(http.MethodPut, capBidPath, rw, capPut(capBlock1, 2, 2, 4)).Expect(t, http.StatusOK, "")
		h.Do(http.MethodPut, enBidPath, rw, enPut(enQ1, 11, 4)).Expect(t, http.StatusOK, "")
		h.Do(http.MethodDelete, capBidPath, rw, nil).Expect(t, http.StatusNoContent, "")
		h.Do(http.MethodDelete, enBidPath, rw, nil).Expect(t, http.StatusNoContent, "")
	})
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		h, _, rw := notLiveSetup(t, b, bids.AllowNotLive())
		h.Do(http.MethodPost, "/v1/assets/n-onb/markets/afrr/capacity/bids", rw, capSubmit(capBid(capBlock1, "neg", "", 1, 1, 5))).Expect(t, http.StatusCreated, "")
		h.Do(http.MethodPost, "/v1/assets/n-onb/markets/afrr/energy/bids", rw, enSubmit(enBid(enQ1, "neg", "", 10, 5))).Expect(t, http.StatusCreated, "")
		h.Do(http.MethodPost, "/v1/assets/n-onb/markets/afrr/energy/bids", rw, enSubmit(enBid(enQ2, "neg", "", 10, 50))).
			Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
	})
}
