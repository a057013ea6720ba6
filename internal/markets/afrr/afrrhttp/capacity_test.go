package afrrhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/fcr"
	"atcp/internal/markets/fcr/fcrhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// Delivery day 2026-02-02 (CET): its tender blocks start at 23:00Z the
// day before; the harness clock (2026-02-01 06:00Z, 07:00 CET) is before
// the aFRR capacity recommended deadline (07:30Z) and gate (08:00Z).
var (
	capBlock1 = [2]string{"2026-02-01T23:00:00Z", "2026-02-02T03:00:00Z"}
	capBlock2 = [2]string{"2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z"}
	capBlock3 = [2]string{"2026-02-02T07:00:00Z", "2026-02-02T11:00:00Z"}
)

const (
	capDemo = "/v1/assets/cap-demo/markets/afrr/capacity" // neg 10 MW, pos 0 MW
	capBoth = "/v1/assets/cap-both/markets/afrr/capacity" // pos 5 MW, neg 10 MW
)

type capEnv struct {
	h      *testkit.Harness
	store  bids.Store
	assets *assets.Service
	// Tokens: acme market read-write, acme market read-only, acme without
	// market scopes, beta market read-write.
	rw, ro, none, beta string
}

// capSetup serves the aFRR capacity endpoints (and FCR's, to prove the
// two live on one server) over acme's cap-demo (like the demonstration
// asset: neg 10 MW, pos 0 MW), cap-both (pos 5, neg 10), cap-off (aFRR
// not enabled), cap-free (0 MW, disable_pq_capacity_check) and beta's
// cap-b.
func capSetup(t testing.TB, b store.Backend) *capEnv {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	as := assets.NewService(b.Assets(), h.Clock)
	for _, a := range []struct {
		id, org          string
		enabled, noCheck bool
		pos, neg         float64
	}{
		{"cap-demo", "acme", true, false, 0, 10}, {"cap-both", "acme", true, false, 5, 10},
		{"cap-off", "acme", false, false, 5, 10}, {"cap-free", "acme", true, true, 0, 0}, {"cap-b", "beta", true, false, 5, 10},
	} {
		x := assets.NewAsset(a.id, a.org, a.id, "Kiel", assets.Standalone)
		x.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		// FCR is on (with no capacity) so that its gate can be compared.
		x.AFRREnabled, x.FCREnabled, x.DisablePQCapacityCheck = a.enabled, true, a.noCheck
		x.AFRRPrequalifiedPosMW, x.AFRRPrequalifiedNegMW = a.pos, a.neg
		if err := as.EnsureAsset(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	afrrhttp.RegisterCapacity(h.Server, afrr.NewCapacityService(as, b.Bids(), h.Clock))
	fcrhttp.Register(h.Server, fcr.NewService(as, b.Bids(), h.Clock, fcr.Config{}))
	e := &capEnv{h: h, store: b.Bids(), assets: as}
	e.mint()
	return e
}

func (e *capEnv) mint() {
	e.rw = e.h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
	e.ro = e.h.TokenFor("acme", auth.MarketRead)
	e.none = e.h.TokenFor("acme", auth.AssetRead, auth.AssetWrite)
	e.beta = e.h.TokenFor("beta", auth.MarketRead, auth.MarketWrite)
}

// setClock moves the clock and mints fresh tokens (they last an hour).
func (e *capEnv) setClock(t time.Time) {
	e.h.Clock.Set(t)
	e.mint()
}

func capBid(block [2]string, product, key string, capPrice, energyPrice any, mw float64) map[string]any {
	b := map[string]any{"start_time": block[0], "end_time": block[1], "product": product,
		"capacity_price_eur_per_mw": capPrice, "energy_price_eur_per_mwh": energyPrice, "offered_power_mw": mw}
	if key != "" {
		b["idempotency_key"] = key
	}
	return b
}

func capSubmit(bs ...map[string]any) map[string]any { return map[string]any{"bids": bs} }

func capReplace(scope [2]string, product string, bs ...map[string]any) map[string]any {
	sc := map[string]any{"start_time": scope[0], "end_time": scope[1]}
	if product != "" {
		sc["product"] = product
	}
	return map[string]any{"mode": "REPLACE", "replace_scope": sc, "bids": bs}
}

type capWire struct {
	ID             string   `json:"id"`
	IdempotencyKey *string  `json:"idempotency_key"`
	Product        string   `json:"product"`
	StartTime      string   `json:"start_time"`
	EndTime        string   `json:"end_time"`
	CapacityPrice  float64  `json:"capacity_price_eur_per_mw"`
	EnergyPrice    float64  `json:"energy_price_eur_per_mwh"`
	OfferedPowerMW float64  `json:"offered_power_mw"`
	Status         string   `json:"status"`
	AwardedPowerMW *float64 `json:"awarded_power_mw"`
	LastEdit       *struct {
		Status          string `json:"status"`
		RequestedValues struct {
			OfferedPowerMW float64 `json:"offered_power_mw"`
			CapacityPrice  float64 `json:"capacity_price_eur_per_mw"`
			EnergyPrice    float64 `json:"energy_price_eur_per_mwh"`
		} `json:"requested_values"`
	} `json:"last_edit_attempt"`
}

type capSubmitted struct {
	Bids          []capWire `json:"bids"`
	Market        string    `json:"market"`
	CreatedCount  int       `json:"created_count"`
	DeletedCount  int       `json:"deleted_count"`
	DeletedBidIDs []string  `json:"deleted_bid_ids"`
	Warnings      []string  `json:"warnings"`
	UpdatedCount  *int      `json:"updated_count"`
}

func (e *capEnv) post(t *testing.T, base string, body any, status int, code errs.Code) capSubmitted {
	t.Helper()
	var out capSubmitted
	r := e.h.Do(http.MethodPost, base+"/bids", e.rw, body).Expect(t, status, code)
	if status == http.StatusCreated {
		r.JSON(t, &out)
	}
	return out
}

func (e *capEnv) list(t *testing.T, base, query string) capSubmitted {
	t.Helper()
	var out capSubmitted
	e.h.Do(http.MethodGet, base+"/bids"+query, e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
	return out
}

func (e *capEnv) expectStored(t *testing.T, base string, n int) {
	t.Helper()
	if got := len(e.list(t, base, "").Bids); got != n {
		t.Fatalf("%d bids stored, want %d", got, n)
	}
}

func capWindow(iv [2]string) string {
	return "start_time=" + url.QueryEscape(iv[0]) + "&end_time=" + url.QueryEscape(iv[1])
}

func TestCapacitySubmitListAndIdempotency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		out := e.post(t, capBoth, capSubmit(capBid(capBlock1, "neg", "k1", "12.50", -20, 4), capBid(capBlock1, "pos", "k1", 7.25, "150.5", 3),
			capBid(capBlock2, "neg", "", 0, 0, 1)), http.StatusCreated, "")
		if out.CreatedCount != 3 || out.DeletedCount != 0 || len(out.Warnings) != 0 || len(out.DeletedBidIDs) != 0 ||
			out.DeletedBidIDs == nil || out.Warnings == nil || out.UpdatedCount == nil || *out.UpdatedCount != 0 {
			t.Fatalf("unexpected result %+v", out)
		}
		b0, b1 := out.Bids[0], out.Bids[1]
		if b0.Product != "neg" || b0.CapacityPrice != 12.5 || b0.EnergyPrice != -20 || b0.Status != "PENDING" || b0.AwardedPowerMW != nil ||
			b0.LastEdit != nil || b1.Product != "pos" || b1.EnergyPrice != 150.5 || b0.ID == b1.ID || out.Bids[2].IdempotencyKey != nil {
			t.Fatalf("unexpected bids %+v", out.Bids)
		}
		// The same key in the same scope (interval and product) returns
		// the stored bid unchanged, even with other values.
		again := e.post(t, capBoth, capSubmit(capBid(capBlock1, "neg", "k1", 99, 99, 9), capBid(capBlock1, "pos", "k1", 1, 1, 1)), http.StatusCreated, "")
		if again.CreatedCount != 0 || again.Bids[0].ID != b0.ID || again.Bids[0].OfferedPowerMW != 4 || again.Bids[1].ID != b1.ID {
			t.Fatalf("retry changed something: %+v", again)
		}
		// The same key for another interval is another scope.
		other := e.post(t, capBoth, capSubmit(capBid(capBlock3, "neg", "k1", 5, 5, 1)), http.StatusCreated, "")
		if other.CreatedCount != 1 || other.Bids[0].ID == b0.ID {
			t.Fatalf("same key, other interval: %+v", other)
		}
		all := e.list(t, capBoth, "")
		if len(all.Bids) != 4 || all.Market != "capacity" {
			t.Fatalf("list %+v", all)
		}
		// Overlap filter on the half-open window, and the product filter.
		if got := e.list(t, capBoth, "?start_time="+url.QueryEscape(capBlock1[1])+"&end_time="+url.QueryEscape(capBlock2[1])); len(got.Bids) != 1 || got.Bids[0].ID != out.Bids[2].ID {
			t.Fatalf("filtered list %+v", got.Bids)
		}
		if got := e.list(t, capBoth, "?product=pos"); len(got.Bids) != 1 || got.Bids[0].ID != b1.ID {
			t.Fatalf("pos list %+v", got.Bids)
		}
		if got := e.list(t, capBoth, "?product=neg&"+capWindow(capBlock1)); len(got.Bids) != 1 || got.Bids[0].ID != b0.ID {
			t.Fatalf("neg block1 list %+v", got.Bids)
		}
		// Exact decimals as JSON numbers.
		raw := string(e.h.Do(http.MethodGet, capBoth+"/bids", e.ro, nil).Body)
		if !strings.Contains(raw, `"capacity_price_eur_per_mw":12.5,`) || !strings.Contains(raw, `"energy_price_eur_per_mwh":150.5,`) {
			t.Fatalf("prices not written as numbers: %s", raw)
		}
		// Read errors.
		e.h.Do(http.MethodGet, capBoth+"/bids?product=sym", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodGet, capBoth+"/bids?start_time="+url.QueryEscape(capBlock2[0])+"&end_time="+url.QueryEscape(capBlock1[0]), e.ro, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, capBoth+"/bids", "", nil).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodGet, capBoth+"/bids", e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, capBoth+"/bids", e.beta, nil).Expect(t, http.StatusNotFound, "not_found")
		// Bids that ended more than 30 days ago are not returned.
		e.setClock(e.h.Clock.Now().Add(32 * 24 * time.Hour))
		e.expectStored(t, capBoth, 0)
	})
}

func TestCapacitySubmitRejections(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		ok := capSubmit(capBid(capBlock1, "neg", "", 10, 50, 1))
		e.h.Do(http.MethodPost, capDemo+"/bids", "", ok).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodPost, capDemo+"/bids", e.ro, ok).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodPost, "/v1/assets/cap-b/markets/afrr/capacity/bids", e.rw, ok).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPost, "/v1/assets/nope/markets/afrr/capacity/bids", e.rw, ok).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPost, capDemo+"/bids", e.rw, `{"bids": [`).Expect(t, http.StatusBadRequest, "")
		e.h.Do(http.MethodPost, "/v1/assets/cap-off/markets/afrr/capacity/bids", e.rw, ok).Expect(t, http.StatusConflict, "market_not_enabled")

		// Not a tender interval: 422 with the tender blocks of the day.
		p := e.h.Do(http.MethodPost, capDemo+"/bids", e.rw, capSubmit(capBid([2]string{"2026-02-02T00:00:00Z", "2026-02-02T04:00:00Z"}, "neg", "", 10, 0, 1))).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed").Map(t)
		if vi, _ := p["valid_intervals"].([]any); len(vi) != 6 || vi[0].(map[string]any)["start_time"] != capBlock1[0] {
			t.Fatalf("valid_intervals %v", p["valid_intervals"])
		}
		for _, tc := range []struct {
			name string
			body any
			code errs.Code
		}{
			{"unaligned", capSubmit(capBid([2]string{"2026-02-01T23:07:00Z", capBlock1[1]}, "neg", "", 10, 0, 1)), "validation_failed"},
			{"capacity price above 15000", capSubmit(capBid(capBlock1, "neg", "", "15000.01", 0, 1)), "PRICE_OUT_OF_RANGE"},
			{"negative capacity price", capSubmit(capBid(capBlock1, "neg", "", -1, 0, 1)), "PRICE_OUT_OF_RANGE"},
			{"energy price below -15000", capSubmit(capBid(capBlock1, "neg", "", 1, "-15000.01", 1)), "PRICE_OUT_OF_RANGE"},
			{"energy price above 15000", capSubmit(capBid(capBlock1, "neg", "", 1, 15001, 1)), "PRICE_OUT_OF_RANGE"},
			{"three decimals", capSubmit(capBid(capBlock1, "neg", "", 1, "0.001", 1)), "validation_failed"},
			{"energy price not a number", capSubmit(capBid(capBlock1, "neg", "", 1, "abc", 1)), "validation_failed"},
			{"energy price missing", capSubmit(map[string]any{"start_time": capBlock1[0], "end_time": capBlock1[1], "product": "neg", "capacity_price_eur_per_mw": 1, "offered_power_mw": 1}), ""},
			{"energy price null", capSubmit(capBid(capBlock1, "neg", "", 1, nil, 1)), "validation_failed"},
			{"product missing", capSubmit(map[string]any{"start_time": capBlock1[0], "end_time": capBlock1[1], "capacity_price_eur_per_mw": 1, "energy_price_eur_per_mwh": 1, "offered_power_mw": 1}), ""},
			{"product na", capSubmit(capBid(capBlock1, "na", "", 1, 1, 1)), ""},
			{"power 0", capSubmit(capBid(capBlock1, "neg", "", 1, 1, 0)), ""},
			{"fractional power", capSubmit(capBid(capBlock1, "neg", "", 1, 1, 1.5)), ""},
			{"no bids", map[string]any{"bids": []any{}}, ""},
			{"repeated key", capSubmit(capBid(capBlock1, "neg", "same", 1, 1, 1), capBid(capBlock1, "neg", "same", 2, 1, 1)), "validation_failed"},
			{"REPLACE without scope", map[string]any{"mode": "REPLACE", "bids": []any{capBid(capBlock1, "neg", "", 1, 1, 1)}}, "validation_failed"},
			{"scope without REPLACE", map[string]any{"replace_scope": map[string]any{"start_time": capBlock1[0], "end_time": capBlock1[1]},
				"bids": []any{capBid(capBlock1, "neg", "", 1, 1, 1)}}, "validation_failed"},
			{"scope product sym", capReplace(capBlock1, "sym", capBid(capBlock1, "neg", "", 1, 1, 1)), ""},
			{"valid next to invalid", capSubmit(capBid(capBlock1, "neg", "", 1, 1, 1), capBid(capBlock2, "neg", "", 1, 20000, 1)), "PRICE_OUT_OF_RANGE"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.post(t, capDemo, tc.body, http.StatusUnprocessableEntity, tc.code)
			})
		}
		e.expectStored(t, capDemo, 0)
		// The bounds themselves are accepted.
		e.post(t, capDemo, capSubmit(capBid(capBlock1, "neg", "", 15000, -15000, 1), capBid(capBlock2, "neg", "", 0, "15000.00", 1)), http.StatusCreated, "")

		// Before the opening (D-7 10:00).
		far := [2]string{"2026-02-20T03:00:00Z", "2026-02-20T07:00:00Z"}
		e.post(t, capDemo, capSubmit(capBid(far, "neg", "", 10, 0, 1)), http.StatusConflict, "bidding_not_open")
		e.expectStored(t, capDemo, 2)
	})
}

func TestCapacityDirectionalCeiling(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		ctx := context.Background()
		// pos 0 MW: any pos bid is refused, and nothing else of the
		// request is stored.
		p := e.h.Do(http.MethodPost, capDemo+"/bids", e.rw, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 1), capBid(capBlock2, "pos", "", 10, 0, 1))).
			Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED").Map(t)
		periods, _ := p["periods"].([]any)
		if len(periods) != 16 {
			t.Fatalf("%d periods, want 16: %v", len(periods), p)
		}
		first := periods[0].(map[string]any)
		if first["period_start"] != capBlock2[0] || first["direction"] != "pos" || first["committed_mw"] != 0.0 ||
			first["requested_mw"] != 1.0 || first["ceiling_mw"] != 0.0 || first["overshoot_mw"] != 1.0 {
			t.Fatalf("period %v", first)
		}
		e.expectStored(t, capDemo, 0)
		// neg 10 MW: 6 + 4 fit, one more does not.
		e.post(t, capDemo, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 6), capBid(capBlock1, "neg", "", 10, 0, 4)), http.StatusCreated, "")
		p = e.h.Do(http.MethodPost, capDemo+"/bids", e.rw, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 1))).
			Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED").Map(t)
		first = p["periods"].([]any)[0].(map[string]any)
		if first["direction"] != "neg" || first["committed_mw"] != 10.0 || first["ceiling_mw"] != 10.0 {
			t.Fatalf("neg period %v", first)
		}
		// Directions are independent: pos 5 and neg 10 on cap-both.
		e.post(t, capBoth, capSubmit(capBid(capBlock1, "pos", "", 10, 0, 5), capBid(capBlock1, "neg", "", 10, 0, 10)), http.StatusCreated, "")
		e.post(t, capBoth, capSubmit(capBid(capBlock1, "pos", "", 10, 0, 1)), http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// Energy bids and FCR bids are other markets and do not count.
		energy := bids.Bid{ID: "00000000-0000-4000-8000-000000000001", Market: bids.AFRREnergy, Product: bids.Neg, Status: bids.Pending,
			Start: capAt(capBlock2[0]), End: capAt(capBlock2[0]).Add(15 * time.Minute), OfferedMW: 10, EnergyPrice: new(bids.EUR(1)),
			CreatedAt: e.h.Clock.Now(), UpdatedAt: e.h.Clock.Now()}
		err := e.store.Apply(ctx, auth.Visibility{OrganizationID: "acme"}, assets.Asset{ID: "cap-demo"}, bids.AFRREnergy, energy.Interval(),
			func(a assets.Asset, _ []bids.Bid) (bids.Changes, error) {
				energy.OrganizationID, energy.AssetID = a.OrganizationID, a.ID
				return bids.Changes{Insert: []bids.Bid{energy}}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		e.post(t, capDemo, capSubmit(capBid(capBlock2, "neg", "", 10, 0, 10)), http.StatusCreated, "")
		// A REJECTED bid releases its power; a partial award counts at
		// the power it won.
		out := e.post(t, capDemo, capSubmit(capBid(capBlock3, "neg", "", 10, 0, 10)), http.StatusCreated, "")
		ref := bids.Ref{AssetID: "cap-demo", ID: out.Bids[0].ID}
		if _, err := e.store.MarkSubmitted(ctx, []bids.Ref{ref}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		four := 4.0
		if _, err := e.store.RecordOutcomes(ctx, []bids.Outcome{{Ref: ref, Status: bids.Successful, AwardedMW: &four}}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.post(t, capDemo, capSubmit(capBid(capBlock3, "neg", "", 10, 0, 6)), http.StatusCreated, "")
		e.post(t, capDemo, capSubmit(capBid(capBlock3, "neg", "", 10, 0, 1)), http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// disable_pq_capacity_check skips the ceiling, even one of 0.
		e.post(t, "/v1/assets/cap-free/markets/afrr/capacity", capSubmit(capBid(capBlock1, "pos", "", 10, 0, 50), capBid(capBlock1, "neg", "", 10, 0, 50)),
			http.StatusCreated, "")
	})
}

func TestCapacityGate(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		out := e.post(t, capDemo, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 1), capBid(capBlock2, "neg", "", 10, 0, 1)), http.StatusCreated, "")
		// Between the recommended deadline (08:30 CET) and the gate
		// (09:00 CET): accepted with a warning.
		e.setClock(time.Date(2026, 2, 1, 7, 45, 0, 0, time.UTC))
		late := e.post(t, capDemo, capSubmit(capBid(capBlock3, "neg", "", 10, 0, 1)), http.StatusCreated, "")
		if len(late.Warnings) != 1 || !strings.Contains(late.Warnings[0], "recommended deadline") {
			t.Fatalf("warnings %v", late.Warnings)
		}
		// FCR's gate (08:00 CET) has passed; aFRR capacity's has not.
		e.h.Do(http.MethodPost, "/v1/assets/cap-demo/markets/fcr/bids", e.rw, map[string]any{"bids": []any{map[string]any{
			"start_time": capBlock3[0], "end_time": capBlock3[1], "capacity_price_eur_per_mw": 1, "offered_power_mw": 1}}}).
			Expect(t, http.StatusConflict, "gate_closed")
		// From the gate on nothing changes for the day.
		e.setClock(time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC))
		e.post(t, capDemo, capSubmit(capBid(capBlock3, "neg", "", 10, 0, 1)), http.StatusConflict, "gate_closed")
		e.h.Do(http.MethodPut, capDemo+"/bids/"+out.Bids[0].ID, e.rw, capPut(capBlock1, 10, 0, 2)).Expect(t, http.StatusConflict, "gate_closed")
		e.h.Do(http.MethodDelete, capDemo+"/bids/"+out.Bids[0].ID, e.rw, nil).Expect(t, http.StatusConflict, "gate_closed")
		e.h.Do(http.MethodDelete, capDemo+"/bids?"+capWindow(capBlock2), e.rw, nil).Expect(t, http.StatusConflict, "gate_closed")
		e.expectStored(t, capDemo, 3)
		// The next day's auction is still open.
		next := [2]string{"2026-02-02T23:00:00Z", "2026-02-03T03:00:00Z"}
		e.post(t, capDemo, capSubmit(capBid(next, "neg", "", 10, 0, 1)), http.StatusCreated, "")
	})
}

func TestCapacityReplace(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		old := e.post(t, capBoth, capSubmit(
			capBid(capBlock1, "pos", "", 10, 0, 5), capBid(capBlock1, "neg", "", 10, 0, 10),
			capBid(capBlock2, "pos", "", 10, 0, 5), capBid(capBlock2, "neg", "", 10, 0, 10),
			capBid(capBlock3, "neg", "", 10, 0, 10)), http.StatusCreated, "")
		scope := [2]string{capBlock1[0], capBlock2[1]}
		// Outside the scope, or of the other product: 422, nothing deleted.
		e.post(t, capBoth, capReplace(scope, "", capBid(capBlock3, "neg", "", 10, 0, 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, capBoth, capReplace(scope, "neg", capBid(capBlock1, "pos", "", 10, 0, 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.expectStored(t, capBoth, 5)

		// With product neg: only the neg bids of the window go, so 10 MW
		// neg fit again while pos stays full.
		out := e.post(t, capBoth, capReplace(scope, "neg", capBid(capBlock1, "neg", "r1", 11, 0, 10)), http.StatusCreated, "")
		if out.CreatedCount != 1 || out.DeletedCount != 2 || !capSameIDs(out.DeletedBidIDs, old.Bids[1].ID, old.Bids[3].ID) {
			t.Fatalf("replace neg %+v", out)
		}
		if got := e.list(t, capBoth, "?product=pos"); len(got.Bids) != 2 {
			t.Fatalf("pos bids after a neg REPLACE %+v", got.Bids)
		}
		// Retrying it keeps the bid it created and deletes nothing more.
		again := e.post(t, capBoth, capReplace(scope, "neg", capBid(capBlock1, "neg", "r1", 11, 0, 10)), http.StatusCreated, "")
		if again.CreatedCount != 0 || again.DeletedCount != 0 || again.Bids[0].ID != out.Bids[0].ID {
			t.Fatalf("replace retry %+v", again)
		}
		// pos is full: a pos bid breaches even in a REPLACE of neg's scope.
		e.post(t, capBoth, capReplace(scope, "", capBid(capBlock1, "pos", "", 10, 0, 5), capBid(capBlock1, "pos", "", 10, 0, 1)),
			http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.expectStored(t, capBoth, 4)

		// Without product: both directions of the window go first.
		out = e.post(t, capBoth, capReplace(scope, "", capBid(capBlock2, "pos", "", 12, 1, 5)), http.StatusCreated, "")
		if out.DeletedCount != 3 || !capSameIDs(out.DeletedBidIDs, old.Bids[0].ID, old.Bids[2].ID, again.Bids[0].ID) {
			t.Fatalf("replace both %+v", out)
		}
		list := e.list(t, capBoth, "")
		if len(list.Bids) != 2 || list.Bids[0].ID != out.Bids[0].ID || list.Bids[1].ID != old.Bids[4].ID {
			t.Fatalf("after replace %+v", list.Bids)
		}
		// Submitted bids are not deleted by a REPLACE and keep counting.
		if _, err := e.store.MarkSubmitted(context.Background(), []bids.Ref{{AssetID: "cap-both", ID: old.Bids[4].ID}}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		wide := [2]string{capBlock1[0], capBlock3[1]}
		e.post(t, capBoth, capReplace(wide, "", capBid(capBlock3, "neg", "", 10, 0, 1)), http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		out = e.post(t, capBoth, capReplace(wide, "", capBid(capBlock3, "pos", "", 10, 0, 5)), http.StatusCreated, "")
		if out.DeletedCount != 1 || out.DeletedBidIDs[0] != list.Bids[0].ID {
			t.Fatalf("replace deleted %+v, want only the PENDING block2 bid", out)
		}
		e.expectStored(t, capBoth, 2)
	})
}

func capSameIDs(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[string]bool{}
	for _, id := range got {
		seen[id] = true
	}
	for _, id := range want {
		if !seen[id] {
			return false
		}
	}
	return true
}

func capPut(block [2]string, capPrice, energyPrice any, mw float64) map[string]any {
	return map[string]any{"start_time": block[0], "end_time": block[1], "capacity_price_eur_per_mw": capPrice,
		"energy_price_eur_per_mwh": energyPrice, "offered_power_mw": mw}
}

func TestCapacityUpdate(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		ctx := context.Background()
		out := e.post(t, capDemo, capSubmit(capBid(capBlock1, "neg", "k", 10, 0, 4), capBid(capBlock1, "neg", "", 10, 0, 6), capBid(capBlock2, "neg", "", 10, 0, 2)),
			http.StatusCreated, "")
		id := out.Bids[0].ID
		path := capDemo + "/bids/" + id

		e.h.Do(http.MethodPut, path, e.ro, capPut(capBlock1, 11, 0, 4)).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodPut, path, "", capPut(capBlock1, 11, 0, 4)).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodPut, capDemo+"/bids/00000000-0000-0000-0000-000000000000", e.rw, capPut(capBlock1, 11, 0, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, capDemo+"/bids/not-a-uuid", e.rw, capPut(capBlock1, 11, 0, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, "/v1/assets/cap-b/markets/afrr/capacity/bids/"+id, e.beta, capPut(capBlock1, 11, 0, 4)).Expect(t, http.StatusNotFound, "not_found")
		// An FCR path does not reach an aFRR bid.
		e.h.Do(http.MethodPut, "/v1/assets/cap-demo/markets/fcr/bids/"+id, e.rw, map[string]any{"start_time": capBlock1[0], "end_time": capBlock1[1],
			"capacity_price_eur_per_mw": 1, "offered_power_mw": 1}).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, path, e.rw, `{"start_time":`).Expect(t, http.StatusBadRequest, "")
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock1, 11, "1.234", 4)).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock1, 11, -15001, 4)).Expect(t, http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock1, 15001, 0, 4)).Expect(t, http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock1, 10, 0, 0)).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodPut, path, e.rw, capWith(capPut(capBlock1, 10, 0, 4), "product", "pos")).Expect(t, http.StatusUnprocessableEntity, "")
		p := e.h.Do(http.MethodPut, path, e.rw, capPut([2]string{capBlock1[0], capBlock2[1]}, 10, 0, 4)).Expect(t, http.StatusUnprocessableEntity, "validation_failed").Map(t)
		if vi, _ := p["valid_intervals"].([]any); len(vi) != 6 {
			t.Fatalf("valid_intervals %v", p)
		}
		// Own power is not counted: 4 -> 4 next to 6 is fine; 5 is not.
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock1, "9.99", -5, 4)).Expect(t, http.StatusOK, "")
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock1, 10, 0, 5)).Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// A PENDING bid changes in place, also to another block.
		var got capSubmitted
		e.h.Do(http.MethodPut, path, e.rw, capWith(capPut(capBlock2, 8, "-12.5", 8), "idempotency_key", "k2")).Expect(t, http.StatusOK, "").JSON(t, &got)
		if g := got.Bids[0]; g.ID != id || g.StartTime != capBlock2[0] || g.Product != "neg" || g.OfferedPowerMW != 8 || g.CapacityPrice != 8 ||
			g.EnergyPrice != -12.5 || *g.IdempotencyKey != "k2" || g.LastEdit != nil || got.Warnings == nil {
			t.Fatalf("updated %+v", got)
		}
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock2, 8, 0, 9)).Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")

		// A SUBMITTED bid records a late edit and keeps its values.
		if n, err := e.store.MarkSubmitted(ctx, []bids.Ref{{AssetID: "cap-demo", ID: id}}, e.h.Clock.Now()); err != nil || n != 1 {
			t.Fatal(n, err)
		}
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock3, 8, 0, 8)).Expect(t, http.StatusConflict, "bid_not_pending")
		e.h.Do(http.MethodPut, path, e.rw, capWith(capPut(capBlock2, 8, 0, 8), "idempotency_key", "other")).Expect(t, http.StatusConflict, "bid_not_pending")
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock2, 8, 0, 9)).Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.h.Do(http.MethodPut, path, e.rw, capPut(capBlock2, "7.5", "3.25", 6)).Expect(t, http.StatusOK, "").JSON(t, &got)
		if g := got.Bids[0]; g.Status != "SUBMITTED" || g.OfferedPowerMW != 8 || g.CapacityPrice != 8 || g.EnergyPrice != -12.5 || g.LastEdit == nil ||
			g.LastEdit.Status != "PENDING_RESYNC" || g.LastEdit.RequestedValues.OfferedPowerMW != 6 ||
			g.LastEdit.RequestedValues.CapacityPrice != 7.5 || g.LastEdit.RequestedValues.EnergyPrice != 3.25 {
			t.Fatalf("late edit %+v", g)
		}
		if err := e.store.ResolveEdit(ctx, bids.Ref{AssetID: "cap-demo", ID: id}, true, "", "", e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		list := e.list(t, capDemo, "?"+capWindow(capBlock2))
		found := false
		for _, g := range list.Bids {
			if g.ID == id {
				found = true
				if g.OfferedPowerMW != 6 || g.CapacityPrice != 7.5 || g.EnergyPrice != 3.25 || g.LastEdit.Status != "APPLIED" {
					t.Fatalf("applied edit %+v", g)
				}
			}
		}
		if !found {
			t.Fatal("updated bid not listed")
		}
		// A cleared bid cannot change; nor can a bid of a switched-off market.
		other := out.Bids[2].ID
		if _, err := e.store.MarkFailed(ctx, []bids.Ref{{AssetID: "cap-demo", ID: other}}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.h.Do(http.MethodPut, capDemo+"/bids/"+other, e.rw, capPut(capBlock2, 8, 0, 1)).Expect(t, http.StatusConflict, "bid_not_pending")
		if _, err := e.assets.Update(ctx, auth.Visibility{OrganizationID: "acme"}, "cap-demo", assets.Update{AFRREnabled: assets.Some(false)}); err != nil {
			t.Fatal(err)
		}
		e.h.Do(http.MethodPut, capDemo+"/bids/"+out.Bids[1].ID, e.rw, capPut(capBlock1, 8, 0, 1)).Expect(t, http.StatusConflict, "market_not_enabled")
		// Its PENDING bids can still be withdrawn.
		e.h.Do(http.MethodDelete, capDemo+"/bids/"+out.Bids[1].ID, e.rw, nil).Expect(t, http.StatusNoContent, "")
	})
}

func capWith(body map[string]any, kv ...any) map[string]any {
	for i := 0; i < len(kv); i += 2 {
		body[kv[i].(string)] = kv[i+1]
	}
	return body
}

func TestCapacityDelete(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		ctx := context.Background()
		out := e.post(t, capBoth, capSubmit(capBid(capBlock1, "neg", "", 10, 0, 1), capBid(capBlock1, "pos", "", 10, 0, 1), capBid(capBlock1, "neg", "", 10, 0, 1),
			capBid(capBlock2, "neg", "", 10, 0, 1), capBid(capBlock2, "pos", "", 10, 0, 1), capBid(capBlock3, "neg", "", 10, 0, 1)), http.StatusCreated, "")
		if _, err := e.store.MarkSubmitted(ctx, []bids.Ref{{AssetID: "cap-both", ID: out.Bids[2].ID}}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.h.Do(http.MethodDelete, capBoth+"/bids?"+capWindow(capBlock1), e.ro, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodDelete, capBoth+"/bids?"+capWindow(capBlock1), "", nil).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodDelete, capBoth+"/bids", e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodDelete, capBoth+"/bids?start_time=yesterday&end_time=today", e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodDelete, capBoth+"/bids?"+capWindow([2]string{capBlock1[1], capBlock1[0]}), e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodDelete, capBoth+"/bids?product=sym&"+capWindow(capBlock1), e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodDelete, "/v1/assets/cap-b/markets/afrr/capacity/bids?"+capWindow(capBlock1), e.rw, nil).Expect(t, http.StatusNotFound, "not_found")
		type deleted struct {
			DeletedCount  int      `json:"deleted_count"`
			DeletedBidIDs []string `json:"deleted_bid_ids"`
		}
		var del deleted
		// Strict match: a window covering two blocks deletes nothing.
		e.h.Do(http.MethodDelete, capBoth+"/bids?"+capWindow([2]string{capBlock1[0], capBlock2[1]}), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 0 || del.DeletedBidIDs == nil || len(del.DeletedBidIDs) != 0 {
			t.Fatalf("non-strict delete %+v", del)
		}
		// With product: only that direction's PENDING bids go.
		e.h.Do(http.MethodDelete, capBoth+"/bids?product=neg&"+capWindow(capBlock1), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 1 || del.DeletedBidIDs[0] != out.Bids[0].ID {
			t.Fatalf("delete neg %+v", del)
		}
		// Without product: both directions.
		e.h.Do(http.MethodDelete, capBoth+"/bids?"+capWindow(capBlock2), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 2 || !capSameIDs(del.DeletedBidIDs, out.Bids[3].ID, out.Bids[4].ID) {
			t.Fatalf("delete both %+v", del)
		}
		// By id.
		e.h.Do(http.MethodDelete, capBoth+"/bids/"+out.Bids[2].ID, e.rw, nil).Expect(t, http.StatusConflict, "bid_not_pending")
		e.h.Do(http.MethodDelete, capBoth+"/bids/"+out.Bids[1].ID, e.ro, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodDelete, "/v1/assets/cap-b/markets/afrr/capacity/bids/"+out.Bids[1].ID, e.beta, nil).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodDelete, capBoth+"/bids/not-a-uuid", e.rw, nil).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodDelete, "/v1/assets/cap-both/markets/fcr/bids/"+out.Bids[1].ID, e.rw, nil).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodDelete, capBoth+"/bids/"+out.Bids[1].ID, e.rw, nil).Expect(t, http.StatusNoContent, "")
		e.h.Do(http.MethodDelete, capBoth+"/bids/"+out.Bids[1].ID, e.rw, nil).Expect(t, http.StatusNotFound, "not_found")
		list := e.list(t, capBoth, "")
		if len(list.Bids) != 2 || !capSameIDs([]string{list.Bids[0].ID, list.Bids[1].ID}, out.Bids[2].ID, out.Bids[5].ID) {
			t.Fatalf("left %+v", list.Bids)
		}
	})
}

func TestCapacityValidBidIntervals(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		type interval struct {
			StartTime   string `json:"start_time"`
			EndTime     string `json:"end_time"`
			DeliveryDay string `json:"delivery_day"`
			OpensAt     string `json:"opens_at"`
			Recommended string `json:"recommended_deadline"`
			Gate        string `json:"gate_closure"`
			Open        bool   `json:"bidding_open"`
		}
		var out struct {
			Intervals []interval `json:"intervals"`
		}
		path := capDemo + "/valid_bid_intervals"
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-02-02", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		want := interval{capBlock1[0], capBlock1[1], "2026-02-02", "2026-01-26T09:00:00Z", "2026-02-01T07:30:00Z", "2026-02-01T08:00:00Z", true}
		if len(out.Intervals) != 6 || out.Intervals[0] != want {
			t.Fatalf("intervals %+v", out.Intervals)
		}
		// Summer time: the gates follow local time (09:00 CEST = 07:00Z).
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-06-15", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		if out.Intervals[0].StartTime != "2026-06-14T22:00:00Z" || out.Intervals[0].Gate != "2026-06-14T07:00:00Z" || out.Intervals[0].Open {
			t.Fatalf("summer %+v", out.Intervals[0])
		}
		e.h.Do(http.MethodGet, path+"?"+capWindow([2]string{capBlock2[0], capBlock3[0]}), e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		if len(out.Intervals) != 1 || out.Intervals[0].StartTime != capBlock2[0] {
			t.Fatalf("window %+v", out.Intervals)
		}
		// Open now: delivery days 2026-02-02 to 2026-02-07.
		e.h.Do(http.MethodGet, path, e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		if len(out.Intervals) != 36 || out.Intervals[35].DeliveryDay != "2026-02-07" {
			t.Fatalf("open now: %d intervals", len(out.Intervals))
		}
		// At 10:00 CET bidding for 2026-02-08 opens; 2026-02-02 closed at 09:00.
		e.setClock(time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC))
		e.h.Do(http.MethodGet, path, e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		if len(out.Intervals) != 36 || out.Intervals[0].DeliveryDay != "2026-02-03" || out.Intervals[35].DeliveryDay != "2026-02-08" {
			t.Fatalf("open at 10:00: %d intervals", len(out.Intervals))
		}
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-02-02&"+capWindow(capBlock1), e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-02-31", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"?start_time="+url.QueryEscape(capBlock1[0]), e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"?start_time=2026-01-01T00:00:00Z&end_time=2026-03-01T00:00:00Z", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path, e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, path, "", nil).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodGet, "/v1/assets/cap-b/markets/afrr/capacity/valid_bid_intervals", e.ro, nil).Expect(t, http.StatusNotFound, "not_found")
	})
}

func TestCapacityResults(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		ctx := context.Background()
		out := e.post(t, capBoth, capSubmit(capBid(capBlock1, "neg", "", "10.5", -3, 5), capBid(capBlock2, "neg", "", 20, 0, 5),
			capBid(capBlock3, "pos", "", 30, "7.77", 5)), http.StatusCreated, "")
		refs := []bids.Ref{{AssetID: "cap-both", ID: out.Bids[0].ID}, {AssetID: "cap-both", ID: out.Bids[1].ID}}
		if n, err := e.store.MarkSubmitted(ctx, refs, e.h.Clock.Now()); err != nil || n != 2 {
			t.Fatal(n, err)
		}
		three, marginal, src, day, note := 3.0, bids.EUR(40), "modelled", "2026-02-02", "pro-rata share 0.6"
		n, err := e.store.RecordOutcomes(ctx, []bids.Outcome{
			{Ref: refs[0], Status: bids.Successful, AwardedMW: &three, SettlementPrice: &marginal, PriceSource: &src, SourceDay: &day, ClearingNote: &note},
			{Ref: refs[1], Status: bids.Rejected, PriceSource: &src},
		}, e.h.Clock.Now())
		if err != nil || n != 2 {
			t.Fatal(n, err)
		}
		var res struct {
			Results []map[string]any `json:"results"`
		}
		e.h.Do(http.MethodGet, capBoth+"/results", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 3 {
			t.Fatalf("results %v", res.Results)
		}
		r0, r1, r2 := res.Results[0], res.Results[1], res.Results[2]
		// Pay-as-bid: 3 MW x 10.50 EUR/MW/h x 4 h = 126 EUR.
		if r0["status"] != "SUCCESSFUL" || r0["awarded_power_mw"] != 3.0 || r0["capacity_price_eur_per_mw"] != 10.5 ||
			r0["energy_price_eur_per_mwh"] != -3.0 || r0["price_source"] != "modelled" || r0["bid_id"] != out.Bids[0].ID ||
			r0["source_day"] != "2026-02-02" || r0["clearing_note"] != "pro-rata share 0.6" ||
			r0["capacity_payment_eur"] != 126.0 || r0["product"] != "neg" || r0["offered_power_mw"] != 5.0 {
			t.Fatalf("successful %v", r0)
		}
		if r1["status"] != "REJECTED" || r1["capacity_payment_eur"] != nil || r2["status"] != "PENDING" || r2["awarded_power_mw"] != nil ||
			r2["price_source"] != nil || r2["capacity_payment_eur"] != nil || r2["energy_price_eur_per_mwh"] != 7.77 ||
			r2["source_day"] != nil || r2["clearing_note"] != nil {
			t.Fatalf("others %v %v", r1, r2)
		}
		e.h.Do(http.MethodGet, capBoth+"/results?product=pos", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 1 || res.Results[0]["bid_id"] != out.Bids[2].ID {
			t.Fatalf("pos results %v", res.Results)
		}
		e.h.Do(http.MethodGet, capBoth+"/results?start_time="+url.QueryEscape(capBlock2[0]), e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 2 {
			t.Fatalf("filtered results %v", res.Results)
		}
		e.h.Do(http.MethodGet, capBoth+"/results?"+capWindow([2]string{capBlock3[0], capBlock1[0]}), e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, capBoth+"/results?product=na", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodGet, capBoth+"/results", e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, capBoth+"/results", "", nil).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodGet, "/v1/assets/cap-b/markets/afrr/capacity/results", e.ro, nil).Expect(t, http.StatusNotFound, "not_found")
	})
}

// TestCapacityConcurrentCeiling fires 64 concurrent requests of 1 MW neg
// at a 10 MW ceiling: exactly 10 commit, the rest get the 409, none a 500.
func TestCapacityConcurrentCeiling(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		const n = 64
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := capSubmit(capBid(capBlock1, "neg", fmt.Sprintf("c%d", i), 10, 0, 1))
				statuses[i] = e.h.Do(http.MethodPost, capDemo+"/bids", e.rw, body).Status
			}()
		}
		wg.Wait()
		counts := map[int]int{}
		for _, s := range statuses {
			counts[s]++
		}
		if counts[http.StatusCreated] != 10 || counts[http.StatusConflict] != n-10 {
			t.Fatalf("statuses %v, want 10 created and %d conflicts", counts, n-10)
		}
		total := 0.0
		for _, b := range e.list(t, capDemo, "").Bids {
			total += b.OfferedPowerMW
		}
		if total != 10 {
			t.Fatalf("%v MW committed, ceiling 10", total)
		}
	})
}

func TestCapacityOpenAPI(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := capSetup(t, b)
		doc := string(e.h.Do(http.MethodGet, "/openapi.json", "", nil).Expect(t, http.StatusOK, "").Body)
		for _, op := range []string{"list-afrr-capacity-bids", "submit-afrr-capacity-bids", "delete-afrr-capacity-bids", "update-afrr-capacity-bid",
			"delete-afrr-capacity-bid", "list-afrr-capacity-valid-bid-intervals", "list-afrr-capacity-results"} {
			if !strings.Contains(doc, fmt.Sprintf("%q", op)) {
				t.Errorf("operation %s missing", op)
			}
		}
	})
}

// FuzzCapacitySubmitBody posts arbitrary bodies: never a 500, and what is
// accepted keeps the stored power within each direction's ceiling.
func FuzzCapacitySubmitBody(f *testing.F) {
	for _, s := range []string{
		`{"bids":[{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","product":"neg","capacity_price_eur_per_mw":"12.5","energy_price_eur_per_mwh":-3,"offered_power_mw":10}]}`,
		`{"mode":"REPLACE","replace_scope":{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T23:00:00Z","product":"pos"},"bids":[{"idempotency_key":"a","start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z","product":"pos","capacity_price_eur_per_mw":15000,"energy_price_eur_per_mwh":"15000","offered_power_mw":3}]}`,
		`{"bids":[{"start_time":"0001-01-01T00:00:00Z","end_time":"9999-12-31T23:45:00Z","product":"neg","capacity_price_eur_per_mw":1e400,"energy_price_eur_per_mwh":-1e400,"offered_power_mw":1e300}]}`,
		`{"bids":[{"energy_price_eur_per_mwh":[1]}]}`, `[]`, `{"bids":null}`, `nul`,
	} {
		f.Add(s)
	}
	e := capSetup(f, testkit.OpenSQLite(f))
	f.Fuzz(func(t *testing.T, body string) {
		// The harness reports through the running target, not f.
		e.h.T = t
		r := e.h.Do(http.MethodPost, capBoth+"/bids", e.rw, body)
		if r.Status >= 500 {
			t.Fatalf("%s -> %s", body, r)
		}
		per := map[string]float64{}
		for _, b := range e.list(t, capBoth, "").Bids {
			k := b.Product + " " + b.StartTime
			per[k] += b.OfferedPowerMW
			if limit := map[string]float64{"pos": 5, "neg": 10}[b.Product]; per[k] > limit {
				t.Fatalf("%v MW stored for %s", per[k], k)
			}
		}
	})
}

func capAt(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
