package afrrhttp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// The harness clock, 2026-02-01 06:00Z (07:00 CET), is inside the energy
// window of the rest of 2026-02-01 (opened 2026-01-31 10:00 CET) and
// before that of 2026-02-02 (opens 2026-02-01 09:00Z). enQ1's closure is
// 07:35Z.
var (
	enQ1 = [2]string{"2026-02-01T08:00:00Z", "2026-02-01T08:15:00Z"}
	enQ2 = [2]string{"2026-02-01T08:15:00Z", "2026-02-01T08:30:00Z"}
	enQ3 = [2]string{"2026-02-01T08:30:00Z", "2026-02-01T08:45:00Z"}
)

const (
	enBase = "/v1/assets/e1/markets/afrr/energy"
	enOff  = "/v1/assets/e-off/markets/afrr/energy"
)

type energyEnv struct {
	h     *testkit.Harness
	store bids.Store
	// Tokens: acme market read-write, acme market read-only, acme without
	// market scopes, beta market read-write.
	rw, ro, none, beta string
}

// energySetup serves the energy endpoints over acme's e1 (aFRR enabled,
// 4 MW pos and 10 MW neg prequalified), e-off (aFRR not enabled), e-free
// (0 MW, disable_pq_capacity_check) and beta's e-b.
func energySetup(t *testing.T, b store.Backend) *energyEnv {
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
	}{{"e1", "acme", true, false, 4, 10}, {"e-off", "acme", false, false, 4, 10}, {"e-free", "acme", true, true, 0, 0}, {"e-b", "beta", true, false, 4, 10}} {
		x := assets.NewAsset(a.id, a.org, a.id, "Kiel", assets.Standalone)
		x.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		x.AFRREnabled, x.DisablePQCapacityCheck, x.AFRRPrequalifiedPosMW, x.AFRRPrequalifiedNegMW = a.enabled, a.noCheck, a.pos, a.neg
		if err := as.EnsureAsset(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	afrrhttp.RegisterEnergy(h.Server, afrr.NewEnergyService(as, b.Bids(), h.Clock))
	e := &energyEnv{h: h, store: b.Bids()}
	e.at(h.Clock.Now())
	return e
}

// at moves the clock and mints fresh tokens (they last an hour).
func (e *energyEnv) at(t time.Time) {
	e.h.Clock.Set(t)
	e.rw = e.h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
	e.ro = e.h.TokenFor("acme", auth.MarketRead)
	e.none = e.h.TokenFor("acme", auth.AssetRead, auth.AssetWrite)
	e.beta = e.h.TokenFor("beta", auth.MarketRead, auth.MarketWrite)
}

func enBid(q [2]string, product, key string, price any, mw float64) map[string]any {
	b := map[string]any{"start_time": q[0], "end_time": q[1], "product": product, "energy_price_eur_per_mwh": price, "offered_power_mw": mw}
	if key != "" {
		b["idempotency_key"] = key
	}
	return b
}

func enSubmit(bs ...map[string]any) map[string]any { return map[string]any{"bids": bs} }

type enBids struct {
	Bids []struct {
		ID             string  `json:"id"`
		IdempotencyKey *string `json:"idempotency_key"`
		Product        string  `json:"product"`
		StartTime      string  `json:"start_time"`
		EndTime        string  `json:"end_time"`
		EnergyPrice    float64 `json:"energy_price_eur_per_mwh"`
		OfferedPowerMW float64 `json:"offered_power_mw"`
		Status         string  `json:"status"`
		Source         string  `json:"source"`
	} `json:"bids"`
	Market        string   `json:"market"`
	CreatedCount  int      `json:"created_count"`
	DeletedCount  int      `json:"deleted_count"`
	DeletedBidIDs []string `json:"deleted_bid_ids"`
	Warnings      []string `json:"warnings"`
}

func (e *energyEnv) post(t *testing.T, body any, status int, code errs.Code) enBids {
	t.Helper()
	var out enBids
	r := e.h.Do(http.MethodPost, enBase+"/bids", e.rw, body).Expect(t, status, code)
	if status == http.StatusCreated {
		r.JSON(t, &out)
	}
	return out
}

func (e *energyEnv) list(t *testing.T, query string) enBids {
	t.Helper()
	var out enBids
	e.h.Do(http.MethodGet, enBase+"/bids"+query, e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
	return out
}

func (e *energyEnv) expectStored(t *testing.T, n int) {
	t.Helper()
	if got := len(e.list(t, "").Bids); got != n {
		t.Fatalf("%d energy bids stored, want %d", got, n)
	}
}

func TestEnergySubmitListAndIdempotency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		out := e.post(t, enSubmit(enBid(enQ1, "pos", "k1", "-12.50", 4), enBid(enQ1, "neg", "k1", 80.25, 10), enBid(enQ2, "neg", "", 0, 1)), http.StatusCreated, "")
		if out.CreatedCount != 3 || out.DeletedCount != 0 || len(out.Warnings) != 0 || len(out.DeletedBidIDs) != 0 {
			t.Fatalf("unexpected result %+v", out)
		}
		if g := out.Bids[0]; g.Product != "pos" || g.EnergyPrice != -12.5 || g.Status != "PENDING" || g.Source != "api" || g.StartTime != enQ1[0] || g.EndTime != enQ1[1] || *g.IdempotencyKey != "k1" {
			t.Fatalf("unexpected bid %+v", g)
		}
		if out.Bids[1].Product != "neg" || out.Bids[2].IdempotencyKey != nil {
			t.Fatalf("unexpected bids %+v", out.Bids)
		}
		// A retry in the same scope (period and product) returns the stored bid.
		again := e.post(t, enSubmit(enBid(enQ1, "pos", "k1", 99, 1)), http.StatusCreated, "")
		if again.CreatedCount != 0 || again.Bids[0].ID != out.Bids[0].ID || again.Bids[0].EnergyPrice != -12.5 {
			t.Fatalf("retry changed something: %+v", again)
		}
		e.expectStored(t, 3)
		list := e.list(t, "?product=neg")
		if len(list.Bids) != 2 || list.Market != "energy" || list.Bids[0].Source != "api" {
			t.Fatalf("neg list %+v", list)
		}
		if got := e.list(t, "?start_time="+url.QueryEscape(enQ1[1])); len(got.Bids) != 1 || got.Bids[0].ID != out.Bids[2].ID {
			t.Fatalf("overlap filter %+v", got.Bids)
		}
		e.h.Do(http.MethodGet, enBase+"/bids?product=sym", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodGet, enBase+"/bids?start_time="+url.QueryEscape(enQ2[0])+"&end_time="+url.QueryEscape(enQ1[0]), e.ro, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		raw := string(e.h.Do(http.MethodGet, enBase+"/bids", e.ro, nil).Body)
		if !strings.Contains(raw, `"energy_price_eur_per_mwh":-12.5,`) || !strings.Contains(raw, `"energy_price_eur_per_mwh":80.25,`) {
			t.Fatalf("prices not written as numbers: %s", raw)
		}
	})
}

func TestEnergySubmitRejections(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		ok := enSubmit(enBid(enQ1, "neg", "", 10, 1))
		e.h.Do(http.MethodPost, enBase+"/bids", "", ok).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodPost, enBase+"/bids", e.ro, ok).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, enBase+"/bids", e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodPost, "/v1/assets/e-b/markets/afrr/energy/bids", e.rw, ok).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodGet, enBase+"/bids", e.beta, nil).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPost, enBase+"/bids", e.rw, `{"bids": [`).Expect(t, http.StatusBadRequest, "")
		e.h.Do(http.MethodPost, enOff+"/bids", e.rw, ok).Expect(t, http.StatusConflict, "market_not_enabled")

		// One bid per quarter-hour: a run of periods is refused.
		p := e.h.Do(http.MethodPost, enBase+"/bids", e.rw, enSubmit(enBid(enQ1, "neg", "", 10, 1), enBid([2]string{enQ1[0], enQ2[1]}, "neg", "", 10, 1))).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed").Map(t)
		if !strings.Contains(p["detail"].(string)+toString(p["errors"]), "body.bids[1].end_time") {
			t.Fatalf("location missing: %v", p)
		}
		e.post(t, enSubmit(enBid([2]string{"2026-02-01T08:07:00Z", enQ1[1]}, "neg", "", 10, 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, enSubmit(enBid(enQ1, "sym", "", 10, 1)), http.StatusUnprocessableEntity, "")
		e.post(t, enSubmit(enBid(enQ1, "", "", 10, 1)), http.StatusUnprocessableEntity, "")
		e.post(t, enSubmit(enBid(enQ1, "neg", "", "15000.01", 1)), http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.post(t, enSubmit(enBid(enQ1, "neg", "", -15001, 1)), http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.post(t, enSubmit(enBid(enQ1, "neg", "", "1.001", 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, enSubmit(enBid(enQ1, "neg", "", 10, 0)), http.StatusUnprocessableEntity, "")
		e.post(t, enSubmit(enBid(enQ1, "neg", "", 10, 1.5)), http.StatusUnprocessableEntity, "")
		e.post(t, map[string]any{"bids": []any{}}, http.StatusUnprocessableEntity, "")
		e.post(t, map[string]any{"bids": []any{enBid(enQ1, "neg", "", 10, 1)}, "capacity_price_eur_per_mw": 1}, http.StatusUnprocessableEntity, "")
		e.expectStored(t, 0)

		// Bidding for tomorrow opens at 10:00 CET today; a period whose
		// closure (25 minutes before it) has passed is closed.
		tomorrow := [2]string{"2026-02-02T08:00:00Z", "2026-02-02T08:15:00Z"}
		e.post(t, enSubmit(enBid(tomorrow, "neg", "", 10, 1)), http.StatusConflict, "bidding_not_open")
		e.post(t, enSubmit(enBid([2]string{"2026-02-01T06:15:00Z", "2026-02-01T06:30:00Z"}, "neg", "", 10, 1)), http.StatusConflict, "gate_closed")
		e.at(time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC))
		e.post(t, enSubmit(enBid(tomorrow, "neg", "", 10, 1)), http.StatusCreated, "")
		e.at(time.Date(2026, 2, 1, 7, 34, 59, 0, time.UTC))
		e.post(t, enSubmit(enBid(enQ1, "neg", "", 10, 1)), http.StatusCreated, "")
		e.at(time.Date(2026, 2, 1, 7, 35, 0, 0, time.UTC))
		e.post(t, enSubmit(enBid(enQ1, "neg", "", 10, 1)), http.StatusConflict, "gate_closed")
		e.expectStored(t, 2)
	})
}

func toString(v any) string {
	var sb strings.Builder
	for _, x := range asSlice(v) {
		if m, ok := x.(map[string]any); ok {
			sb.WriteString(" ")
			sb.WriteString(m["location"].(string))
		}
	}
	return sb.String()
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestEnergyCeiling(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		// 4 MW pos, 10 MW neg, per direction and period.
		e.post(t, enSubmit(enBid(enQ1, "pos", "", 10, 3), enBid(enQ1, "neg", "", 10, 10)), http.StatusCreated, "")
		p := e.h.Do(http.MethodPost, enBase+"/bids", e.rw, enSubmit(enBid(enQ2, "pos", "", 10, 4), enBid(enQ1, "pos", "", 10, 2))).
			Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED").Map(t)
		periods := asSlice(p["periods"])
		if len(periods) != 1 {
			t.Fatalf("periods %v", p)
		}
		first := periods[0].(map[string]any)
		if first["period_start"] != enQ1[0] || first["direction"] != "pos" || first["committed_mw"] != 3.0 ||
			first["requested_mw"] != 2.0 || first["ceiling_mw"] != 4.0 || first["overshoot_mw"] != 1.0 {
			t.Fatalf("period %v", first)
		}
		e.expectStored(t, 2)
		// The other direction and the other period are independent.
		e.post(t, enSubmit(enBid(enQ1, "pos", "", 10, 1), enBid(enQ2, "neg", "", 10, 10)), http.StatusCreated, "")
		// Capacity bids do not count against the energy ceiling.
		err := e.store.Apply(context.Background(), auth.Visibility{OrganizationID: "acme"}, assets.Asset{ID: "e1"}, bids.AFRRCapacity,
			timeWindow(enQ1), func(a assets.Asset, _ []bids.Bid) (bids.Changes, error) {
				price := bids.EUR(1)
				start, _ := time.Parse(time.RFC3339, "2026-02-01T07:00:00Z")
				return bids.Changes{Insert: []bids.Bid{{ID: "00000000-0000-4000-8000-000000000001", OrganizationID: "acme", AssetID: "e1",
					Market: bids.AFRRCapacity, Product: bids.Pos, Start: start, End: start.Add(4 * time.Hour), CapacityPrice: &price, EnergyPrice: &price,
					OfferedMW: 4, Status: bids.Pending, CreatedAt: start, UpdatedAt: start}}}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		e.post(t, enSubmit(enBid(enQ3, "pos", "", 10, 4)), http.StatusCreated, "")
		// The energy bids alone still count: 4 MW pos are taken in enQ3.
		e.post(t, enSubmit(enBid(enQ3, "pos", "", 10, 1)), http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// disable_pq_capacity_check skips the ceiling, even one of 0.
		e.h.Do(http.MethodPost, "/v1/assets/e-free/markets/afrr/energy/bids", e.rw, enSubmit(enBid(enQ1, "pos", "", 10, 50))).Expect(t, http.StatusCreated, "")
	})
}

func timeWindow(q [2]string) calendar.Interval {
	start, _ := time.Parse(time.RFC3339, q[0])
	end, _ := time.Parse(time.RFC3339, q[1])
	return calendar.Interval{Start: start, End: end}
}

func TestEnergyReplace(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		old := e.post(t, enSubmit(enBid(enQ1, "pos", "", 10, 4), enBid(enQ1, "neg", "", 10, 10), enBid(enQ2, "neg", "", 10, 5), enBid(enQ3, "neg", "", 10, 5)), http.StatusCreated, "")
		scope := map[string]any{"start_time": enQ1[0], "end_time": enQ2[1], "product": "neg"}
		// A bid outside the scope, or of the other product: 422, nothing deleted.
		e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": scope, "bids": []any{enBid(enQ3, "neg", "", 10, 1)}}, http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": scope, "bids": []any{enBid(enQ1, "pos", "", 10, 1)}}, http.StatusUnprocessableEntity, "validation_failed")
		e.expectStored(t, 4)
		// The 10 MW neg of enQ1 are deleted first, so 10 MW fit again; pos stays.
		out := e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": scope, "bids": []any{enBid(enQ1, "neg", "r", 11, 10)}}, http.StatusCreated, "")
		if out.CreatedCount != 1 || out.DeletedCount != 2 || len(out.DeletedBidIDs) != 2 {
			t.Fatalf("replace %+v", out)
		}
		list := e.list(t, "")
		if len(list.Bids) != 3 || list.Bids[0].ID != out.Bids[0].ID || list.Bids[1].ID != old.Bids[0].ID || list.Bids[2].ID != old.Bids[3].ID {
			t.Fatalf("after replace %+v", list.Bids)
		}
		// Without a product both directions in the window go.
		both := map[string]any{"start_time": enQ1[0], "end_time": enQ3[1]}
		out = e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": both, "bids": []any{enBid(enQ3, "pos", "", 10, 4)}}, http.StatusCreated, "")
		if out.DeletedCount != 3 {
			t.Fatalf("replace without product %+v", out)
		}
		e.expectStored(t, 1)
		// A breach rolls the deletions back.
		e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": both, "bids": []any{enBid(enQ3, "pos", "", 10, 3), enBid(enQ3, "pos", "", 10, 2)}},
			http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.expectStored(t, 1)
	})
}

func enPut(q [2]string, price any, mw float64) map[string]any {
	return map[string]any{"start_time": q[0], "end_time": q[1], "energy_price_eur_per_mwh": price, "offered_power_mw": mw}
}

func TestEnergyUpdateAndDelete(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		ctx := context.Background()
		out := e.post(t, enSubmit(enBid(enQ1, "neg", "k", 10, 4), enBid(enQ1, "neg", "", 10, 6), enBid(enQ2, "neg", "k", 10, 2)), http.StatusCreated, "")
		id := out.Bids[0].ID
		path := enBase + "/bids/" + id

		e.h.Do(http.MethodPut, path, e.ro, enPut(enQ1, 11, 4)).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodPut, enBase+"/bids/00000000-0000-0000-0000-000000000000", e.rw, enPut(enQ1, 11, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, enBase+"/bids/not-a-uuid", e.rw, enPut(enQ1, 11, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, "/v1/assets/e-b/markets/afrr/energy/bids/"+id, e.beta, enPut(enQ1, 11, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, path, e.rw, enPut(enQ1, "-15000.01", 4)).Expect(t, http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.h.Do(http.MethodPut, path, e.rw, enPut([2]string{enQ1[0], enQ2[1]}, 10, 4)).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodPut, path, e.rw, enPut(enQ1, 10, 0)).Expect(t, http.StatusUnprocessableEntity, "")
		// The bid's own power is not counted: 4 -> 4 beside 6 is fine, 5 is not.
		e.h.Do(http.MethodPut, path, e.rw, enPut(enQ1, "-0.01", 4)).Expect(t, http.StatusOK, "")
		e.h.Do(http.MethodPut, path, e.rw, enPut(enQ1, 10, 5)).Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// Moving to enQ2 would take key k, in use there.
		e.h.Do(http.MethodPut, path, e.rw, enPut(enQ2, 10, 4)).Expect(t, http.StatusConflict, "idempotency_key_in_use")
		var got enBids
		e.h.Do(http.MethodPut, path, e.rw, map[string]any{"start_time": enQ3[0], "end_time": enQ3[1], "energy_price_eur_per_mwh": "7.5", "offered_power_mw": 8, "idempotency_key": "k3"}).
			Expect(t, http.StatusOK, "").JSON(t, &got)
		if g := got.Bids[0]; g.ID != id || g.StartTime != enQ3[0] || g.OfferedPowerMW != 8 || g.EnergyPrice != 7.5 || *g.IdempotencyKey != "k3" || g.Product != "neg" {
			t.Fatalf("updated %+v", g)
		}
		// A SUBMITTED energy bid has no late edit and cannot be deleted.
		if n, err := e.store.MarkSubmitted(ctx, []bids.Ref{{AssetID: "e1", ID: out.Bids[1].ID}}, e.h.Clock.Now()); err != nil || n != 1 {
			t.Fatal(n, err)
		}
		e.h.Do(http.MethodPut, enBase+"/bids/"+out.Bids[1].ID, e.rw, enPut(enQ1, 10, 6)).Expect(t, http.StatusConflict, "bid_not_pending")
		e.h.Do(http.MethodDelete, enBase+"/bids/"+out.Bids[1].ID, e.rw, nil).Expect(t, http.StatusConflict, "bid_not_pending")

		// Delete one.
		e.h.Do(http.MethodDelete, path, e.ro, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodDelete, "/v1/assets/e-b/markets/afrr/energy/bids/"+id, e.beta, nil).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodDelete, path, e.rw, nil).Expect(t, http.StatusNoContent, "")
		e.h.Do(http.MethodDelete, path, e.rw, nil).Expect(t, http.StatusNotFound, "not_found")
		e.expectStored(t, 2)
		// After the closure nothing changes.
		e.at(time.Date(2026, 2, 1, 7, 50, 0, 0, time.UTC))
		e.h.Do(http.MethodPut, enBase+"/bids/"+out.Bids[2].ID, e.rw, enPut(enQ2, 10, 1)).Expect(t, http.StatusConflict, "gate_closed")
		e.h.Do(http.MethodDelete, enBase+"/bids/"+out.Bids[2].ID, e.rw, nil).Expect(t, http.StatusConflict, "gate_closed")
		e.expectStored(t, 2)
	})
}

func TestEnergyDeleteInterval(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		out := e.post(t, enSubmit(enBid(enQ1, "pos", "", 10, 1), enBid(enQ1, "neg", "", 10, 1), enBid(enQ1, "neg", "", 10, 1), enBid(enQ2, "neg", "", 10, 1)), http.StatusCreated, "")
		q := func(iv [2]string, extra string) string {
			return enBase + "/bids?start_time=" + url.QueryEscape(iv[0]) + "&end_time=" + url.QueryEscape(iv[1]) + extra
		}
		e.h.Do(http.MethodDelete, q(enQ1, ""), e.ro, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodDelete, "/v1/assets/e-b/markets/afrr/energy/bids?start_time="+url.QueryEscape(enQ1[0])+"&end_time="+url.QueryEscape(enQ1[1]), e.rw, nil).
			Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodDelete, enBase+"/bids?start_time="+url.QueryEscape(enQ1[0]), e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodDelete, q([2]string{enQ1[0], "2026-02-01T08:10:00Z"}, ""), e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodDelete, q(enQ1, "&product=na"), e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "")
		// Strict match: the run enQ1..enQ2 matches nothing.
		var del struct {
			DeletedCount  int      `json:"deleted_count"`
			DeletedBidIDs []string `json:"deleted_bid_ids"`
		}
		e.h.Do(http.MethodDelete, q([2]string{enQ1[0], enQ2[1]}, ""), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 0 || del.DeletedBidIDs == nil {
			t.Fatalf("run deleted %+v", del)
		}
		e.h.Do(http.MethodDelete, q(enQ1, "&product=neg"), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 2 {
			t.Fatalf("neg deleted %+v", del)
		}
		e.h.Do(http.MethodDelete, q(enQ1, ""), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 1 || del.DeletedBidIDs[0] != out.Bids[0].ID {
			t.Fatalf("rest deleted %+v", del)
		}
		e.at(time.Date(2026, 2, 1, 7, 50, 0, 0, time.UTC))
		e.h.Do(http.MethodDelete, q(enQ2, ""), e.rw, nil).Expect(t, http.StatusConflict, "gate_closed")
		e.expectStored(t, 1)
	})
}

func TestEnergyValidIntervals(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		type interval struct {
			StartTime   string `json:"start_time"`
			EndTime     string `json:"end_time"`
			DeliveryDay string `json:"delivery_day"`
			OpensAt     string `json:"opens_at"`
			Recommended string `json:"recommended_deadline"`
			GateClosure string `json:"gate_closure"`
			BiddingOpen bool   `json:"bidding_open"`
		}
		var got struct {
			Intervals []interval `json:"intervals"`
		}
		// At 06:00Z the open periods are those of today from 06:30Z on (closure
		// 06:05Z) to the end of the day (23:00Z): 66 quarter-hours.
		e.h.Do(http.MethodGet, enBase+"/valid_bid_intervals", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &got)
		if n := len(got.Intervals); n != 66 {
			t.Fatalf("%d open periods, want 66", n)
		}
		if f := got.Intervals[0]; f.StartTime != "2026-02-01T06:30:00Z" || f.EndTime != "2026-02-01T06:45:00Z" || f.GateClosure != "2026-02-01T06:05:00Z" ||
			f.Recommended != f.GateClosure || f.OpensAt != "2026-01-31T09:00:00Z" || !f.BiddingOpen || f.DeliveryDay != "2026-02-01" {
			t.Fatalf("first %+v", f)
		}
		// After 10:00 CET tomorrow's 96 periods are open too.
		e.at(time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC))
		e.h.Do(http.MethodGet, enBase+"/valid_bid_intervals", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &got)
		if n := len(got.Intervals); n != 54+96 {
			t.Fatalf("%d open periods, want %d", n, 54+96)
		}
		// A delivery day lists all its periods, open or not; clock changes count.
		e.h.Do(http.MethodGet, enBase+"/valid_bid_intervals?delivery_day=2026-03-29", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &got)
		if n := len(got.Intervals); n != 92 || got.Intervals[0].BiddingOpen || got.Intervals[0].StartTime != "2026-03-28T23:00:00Z" {
			t.Fatalf("spring-forward day: %d %+v", n, got.Intervals[0])
		}
		e.h.Do(http.MethodGet, enBase+"/valid_bid_intervals?delivery_day=2026-02-01", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &got)
		if n := len(got.Intervals); n != 96 || got.Intervals[0].BiddingOpen || !got.Intervals[95].BiddingOpen {
			t.Fatalf("today: %d", n)
		}
		e.h.Do(http.MethodGet, enBase+"/valid_bid_intervals?delivery_day=2026-02-30", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, enBase+"/valid_bid_intervals", e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, "/v1/assets/e-b/markets/afrr/energy/valid_bid_intervals", e.ro, nil).Expect(t, http.StatusNotFound, "not_found")
	})
}

func TestEnergyResults(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		ctx := context.Background()
		out := e.post(t, enSubmit(enBid(enQ1, "neg", "", "-5.5", 10), enBid(enQ1, "pos", "", 200, 4), enBid(enQ2, "neg", "", 0, 2), enBid(enQ3, "neg", "", 1, 1)), http.StatusCreated, "")
		refs := []bids.Ref{{AssetID: "e1", ID: out.Bids[0].ID}, {AssetID: "e1", ID: out.Bids[1].ID}, {AssetID: "e1", ID: out.Bids[2].ID}}
		if n, err := e.store.MarkSubmitted(ctx, refs[:2], e.h.Clock.Now()); err != nil || n != 2 {
			t.Fatal(n, err)
		}
		activated, marginal, otherMarginal, fallbackPrice := 3.333, bids.Price(-1234), bids.Price(-4210), bids.Price(9999)
		modelled, dayAhead, day, note := "modelled", "fallback_day_ahead", "2026-02-02", "modelled from the replayed quarter-hour 2026-02-02 10:00"
		n, err := e.store.RecordOutcomes(ctx, []bids.Outcome{
			{Ref: refs[0], Status: bids.Successful, AwardedMW: &activated, SettlementPrice: &marginal, PriceSource: &modelled, SourceDay: &day, ClearingNote: &note},
			{Ref: refs[1], Status: bids.Rejected, SettlementPrice: &otherMarginal, PriceSource: &modelled},
			{Ref: refs[2], Status: bids.Fallback, SettlementPrice: &fallbackPrice, PriceSource: &dayAhead},
		}, e.h.Clock.Now())
		if err != nil || n != 3 {
			t.Fatal(n, err)
		}
		var res struct {
			Results []map[string]any `json:"results"`
		}
		e.h.Do(http.MethodGet, enBase+"/results", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 4 {
			t.Fatalf("results %v", res.Results)
		}
		byID := map[string]map[string]any{}
		for _, r := range res.Results {
			byID[r["bid_id"].(string)] = r
		}
		// 3.333 MW over 0.25 h = 0.83325 MWh at -12.34 EUR/MWh = -10.28 EUR.
		r0 := byID[out.Bids[0].ID]
		if r0["status"] != "SUCCESSFUL" || r0["activated_power_mw"] != 3.333 || r0["activated_energy_mwh"] != 0.83325 ||
			r0["marginal_price_eur_per_mwh"] != -12.34 || r0["settlement_amount_eur"] != -10.28 || r0["energy_price_eur_per_mwh"] != -5.5 ||
			r0["price_source"] != "modelled" || r0["product"] != "neg" || r0["source_day"] != day || r0["clearing_note"] != note {
			t.Fatalf("successful %v", r0)
		}
		if r1 := byID[out.Bids[1].ID]; r1["status"] != "REJECTED" || r1["activated_energy_mwh"] != 0.0 || r1["settlement_amount_eur"] != 0.0 || r1["marginal_price_eur_per_mwh"] != -42.1 {
			t.Fatalf("rejected %v", r1)
		}
		if r2 := byID[out.Bids[2].ID]; r2["status"] != "FALLBACK" || r2["marginal_price_eur_per_mwh"] != 99.99 || r2["price_source"] != dayAhead {
			t.Fatalf("fallback %v", r2)
		}
		if r3 := byID[out.Bids[3].ID]; r3["status"] != "PENDING" || r3["activated_energy_mwh"] != nil || r3["marginal_price_eur_per_mwh"] != nil || r3["settlement_amount_eur"] != nil ||
			r3["source_day"] != nil || r3["clearing_note"] != nil {
			t.Fatalf("pending %v", r3)
		}
		e.h.Do(http.MethodGet, enBase+"/results?product=pos", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 1 {
			t.Fatalf("pos results %v", res.Results)
		}
		e.h.Do(http.MethodGet, enBase+"/results?start_time="+url.QueryEscape(enQ3[0]), e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 1 {
			t.Fatalf("filtered results %v", res.Results)
		}
		e.h.Do(http.MethodGet, enBase+"/results?start_time="+url.QueryEscape(enQ3[0])+"&end_time="+url.QueryEscape(enQ1[0]), e.ro, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, enBase+"/results", e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, enBase+"/results", e.beta, nil).Expect(t, http.StatusNotFound, "not_found")
	})
}

// TestEnergyConcurrentCeiling races submissions that each fit alone: the
// ceiling holds across them on both backends.
func TestEnergyConcurrentCeiling(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		const n = 8
		var wg sync.WaitGroup
		codes := make([]int, n)
		for i := range n {
			wg.Go(func() {
				codes[i] = e.h.Do(http.MethodPost, enBase+"/bids", e.rw, enSubmit(enBid(enQ1, "neg", "", 10, 3))).Status
			})
		}
		wg.Wait()
		created := 0
		for _, c := range codes {
			switch c {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Fatalf("status %d", c)
			}
		}
		if created != 3 {
			t.Fatalf("%d of %d created, want 3 (10 MW / 3 MW)", created, n)
		}
		e.expectStored(t, 3)
	})
}

func TestEnergyOpenAPI(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := energySetup(t, b)
		doc := e.h.Server.API.OpenAPI()
		for path, ops := range map[string][]string{
			enBaseTemplate + "/bids":                {http.MethodGet, http.MethodPost, http.MethodDelete},
			enBaseTemplate + "/bids/{bid_id}":       {http.MethodPut, http.MethodDelete},
			enBaseTemplate + "/valid_bid_intervals": {http.MethodGet},
			enBaseTemplate + "/results":             {http.MethodGet},
		} {
			item := doc.Paths[path]
			if item == nil {
				t.Fatalf("missing %s", path)
			}
			for _, m := range ops {
				op := map[string]*huma.Operation{http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPut: item.Put, http.MethodDelete: item.Delete}[m]
				if op == nil || len(op.Security) == 0 {
					t.Fatalf("%s %s missing or without security", m, path)
				}
			}
		}
	})
}

const enBaseTemplate = "/v1/assets/{asset_id}/markets/afrr/energy"
