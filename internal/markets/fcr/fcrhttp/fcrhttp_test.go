package fcrhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/fcr"
	"atcp/internal/markets/fcr/fcrhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// Delivery day 2026-02-02 (CET): its tender blocks start at 23:00Z the
// day before; the harness clock (2026-02-01 06:00Z, 07:00 CET) is before
// its recommended deadline (06:30Z) and gate (07:00Z).
var (
	block1 = [2]string{"2026-02-01T23:00:00Z", "2026-02-02T03:00:00Z"}
	block2 = [2]string{"2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z"}
	block3 = [2]string{"2026-02-02T07:00:00Z", "2026-02-02T11:00:00Z"}
)

type env struct {
	h      *testkit.Harness
	store  bids.Store
	assets *assets.Service
	// Tokens: acme market read-write, acme market read-only, acme without
	// market scopes, beta market read-write.
	rw, ro, none, beta string
}

const (
	asset   = "/v1/assets/bess-1/markets/fcr"
	offPath = "/v1/assets/bess-off/markets/fcr"
)

// setup serves the FCR endpoints over acme's bess-1 (FCR enabled, 10 MW
// prequalified), acme's bess-off (FCR not enabled), acme's bess-free (0 MW
// prequalified, disable_pq_capacity_check) and beta's bess-b, all live;
// opts go to the engine.
func setup(t testing.TB, b store.Backend, opts ...bids.Option) env {
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
		prequalified     float64
	}{{"bess-1", "acme", true, false, 10}, {"bess-off", "acme", false, false, 10}, {"bess-b", "beta", true, false, 10}, {"bess-free", "acme", true, true, 0}} {
		x := assets.NewAsset(a.id, a.org, a.id, "Leipzig", assets.Standalone)
		x.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		x.FCREnabled, x.FCRPrequalifiedMW, x.DisablePQCapacityCheck = a.enabled, a.prequalified, a.noCheck
		if err := as.EnsureAsset(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	fcrhttp.Register(h.Server, fcr.NewService(as, b.Bids(), h.Clock, fcr.Config{}, opts...))
	return env{
		h: h, store: b.Bids(), assets: as,
		rw:   h.TokenFor("acme", auth.MarketRead, auth.MarketWrite),
		ro:   h.TokenFor("acme", auth.MarketRead),
		none: h.TokenFor("acme", auth.AssetRead, auth.AssetWrite),
		beta: h.TokenFor("beta", auth.MarketRead, auth.MarketWrite),
	}
}

// setClock moves the clock and mints fresh tokens (they last an hour).
func (e *env) setClock(t time.Time) {
	e.h.Clock.Set(t)
	e.rw = e.h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
	e.ro = e.h.TokenFor("acme", auth.MarketRead)
	e.beta = e.h.TokenFor("beta", auth.MarketRead, auth.MarketWrite)
}

func bid(block [2]string, key string, price any, mw float64) map[string]any {
	b := map[string]any{"start_time": block[0], "end_time": block[1], "capacity_price_eur_per_mw": price, "offered_power_mw": mw}
	if key != "" {
		b["idempotency_key"] = key
	}
	return b
}

func submit(bs ...map[string]any) map[string]any { return map[string]any{"bids": bs} }

type submitted struct {
	Bids []struct {
		ID             string   `json:"id"`
		IdempotencyKey *string  `json:"idempotency_key"`
		StartTime      string   `json:"start_time"`
		CapacityPrice  float64  `json:"capacity_price_eur_per_mw"`
		OfferedPowerMW float64  `json:"offered_power_mw"`
		Status         string   `json:"status"`
		AwardedPowerMW *float64 `json:"awarded_power_mw"`
		LastEdit       *struct {
			Status          string `json:"status"`
			RequestedValues struct {
				OfferedPowerMW float64 `json:"offered_power_mw"`
				CapacityPrice  float64 `json:"capacity_price_eur_per_mw"`
			} `json:"requested_values"`
		} `json:"last_edit_attempt"`
	} `json:"bids"`
	CreatedCount  int      `json:"created_count"`
	DeletedCount  int      `json:"deleted_count"`
	DeletedBidIDs []string `json:"deleted_bid_ids"`
	Warnings      []string `json:"warnings"`
}

func (e env) post(t *testing.T, body any, status int, code errs.Code) submitted {
	t.Helper()
	var out submitted
	r := e.h.Do(http.MethodPost, asset+"/bids", e.rw, body).Expect(t, status, code)
	if status == http.StatusCreated {
		r.JSON(t, &out)
	}
	return out
}

func (e env) list(t *testing.T, query string) submitted {
	t.Helper()
	var out submitted
	e.h.Do(http.MethodGet, asset+"/bids"+query, e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
	return out
}

func (e env) expectStored(t *testing.T, n int) {
	t.Helper()
	if got := len(e.list(t, "").Bids); got != n {
		t.Fatalf("%d bids stored, want %d", got, n)
	}
}

func TestSubmitListAndIdempotency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		out := e.post(t, submit(bid(block1, "k1", "12.50", 4), bid(block2, "k2", 7.25, 3), bid(block3, "", 0, 1)), http.StatusCreated, "")
		if out.CreatedCount != 3 || out.DeletedCount != 0 || len(out.Warnings) != 0 || len(out.DeletedBidIDs) != 0 {
			t.Fatalf("unexpected result %+v", out)
		}
		if out.Bids[0].CapacityPrice != 12.5 || out.Bids[1].CapacityPrice != 7.25 || out.Bids[0].Status != "PENDING" ||
			out.Bids[0].AwardedPowerMW != nil || out.Bids[0].LastEdit != nil || out.Bids[2].IdempotencyKey != nil {
			t.Fatalf("unexpected bids %+v", out.Bids)
		}
		// A retry returns the stored bids unchanged, even with other values.
		again := e.post(t, submit(bid(block1, "k1", 99, 9), bid(block2, "k2", 7.25, 3)), http.StatusCreated, "")
		if again.CreatedCount != 0 || again.Bids[0].ID != out.Bids[0].ID || again.Bids[0].OfferedPowerMW != 4 || again.Bids[1].ID != out.Bids[1].ID {
			t.Fatalf("retry changed something: %+v", again)
		}
		// The same key for another interval is another bid.
		other := e.post(t, submit(bid(block3, "k1", 5, 1)), http.StatusCreated, "")
		if other.CreatedCount != 1 || other.Bids[0].ID == out.Bids[0].ID {
			t.Fatalf("same key, other interval: %+v", other)
		}
		e.expectStored(t, 4)
		// Overlap filter on the half-open window.
		if got := e.list(t, "?start_time="+url.QueryEscape(block1[1])+"&end_time="+url.QueryEscape(block2[1])); len(got.Bids) != 1 || got.Bids[0].ID != out.Bids[1].ID {
			t.Fatalf("filtered list %+v", got.Bids)
		}
		// The body as text shows the exact decimals.
		raw := string(e.h.Do(http.MethodGet, asset+"/bids", e.ro, nil).Body)
		if !strings.Contains(raw, `"capacity_price_eur_per_mw":12.5,`) || !strings.Contains(raw, `"capacity_price_eur_per_mw":7.25,`) {
			t.Fatalf("prices not written as numbers: %s", raw)
		}
		// Bids that ended more than 30 days ago are not returned.
		e.setClock(e.h.Clock.Now().Add(32 * 24 * time.Hour))
		e.expectStored(t, 0)
	})
}

func TestSubmitRejections(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ok := submit(bid(block1, "", 10, 1))
		e.h.Do(http.MethodPost, asset+"/bids", "", ok).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodPost, asset+"/bids", e.ro, ok).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, asset+"/bids", e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodPost, "/v1/assets/bess-b/markets/fcr/bids", e.rw, ok).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPost, "/v1/assets/nope/markets/fcr/bids", e.rw, ok).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodGet, asset+"/bids", e.beta, nil).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPost, asset+"/bids", e.rw, `{"bids": [`).Expect(t, http.StatusBadRequest, "")
		e.h.Do(http.MethodPost, offPath+"/bids", e.rw, ok).Expect(t, http.StatusConflict, "market_not_enabled")

		// Not a tender interval: 422 with the tender blocks of the day.
		p := e.h.Do(http.MethodPost, asset+"/bids", e.rw, submit(bid([2]string{"2026-02-02T00:00:00Z", "2026-02-02T04:00:00Z"}, "", 10, 1))).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed").Map(t)
		vi, _ := p["valid_intervals"].([]any)
		if len(vi) != 6 || vi[0].(map[string]any)["start_time"] != block1[0] {
			t.Fatalf("valid_intervals %v", p["valid_intervals"])
		}
		e.post(t, submit(bid([2]string{"2026-02-01T23:07:00Z", block1[1]}, "", 10, 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, submit(bid(block1, "", "15000.01", 1)), http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.post(t, submit(bid(block1, "", -1, 1)), http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.post(t, submit(bid(block1, "", "1.001", 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, submit(bid(block1, "", "abc", 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, submit(bid(block1, "", true, 1)), http.StatusUnprocessableEntity, "")
		e.post(t, submit(bid(block1, "", 10, 0)), http.StatusUnprocessableEntity, "")
		e.post(t, submit(bid(block1, "", 10, 1.5)), http.StatusUnprocessableEntity, "")
		e.post(t, map[string]any{"bids": []any{}}, http.StatusUnprocessableEntity, "")
		e.post(t, submit(bid(block1, "same", 10, 1), bid(block1, "same", 11, 1)), http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, map[string]any{"bids": []any{bid(block1, "", 10, 1)}, "mode": "REPLACE"}, http.StatusUnprocessableEntity, "validation_failed")
		e.post(t, map[string]any{"bids": []any{bid(block1, "", 10, 1)}, "replace_scope": map[string]any{"start_time": block1[0], "end_time": block1[1]}},
			http.StatusUnprocessableEntity, "validation_failed")
		// A valid bid next to an invalid one: nothing is stored.
		e.post(t, submit(bid(block1, "", 10, 1), bid(block2, "", 20000, 1)), http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")

		// Before the opening (D-7 11:00) and after the gate.
		far := [2]string{"2026-02-20T03:00:00Z", "2026-02-20T07:00:00Z"}
		e.post(t, submit(bid(far, "", 10, 1)), http.StatusConflict, "bidding_not_open")

		// Ceiling: 10 MW prequalified.
		e.post(t, submit(bid(block1, "a", 10, 6)), http.StatusCreated, "")
		p = e.h.Do(http.MethodPost, asset+"/bids", e.rw, submit(bid(block1, "b", 10, 3), bid(block1, "c", 10, 2))).
			Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED").Map(t)
		periods, _ := p["periods"].([]any)
		if len(periods) != 16 {
			t.Fatalf("%d periods, want 16: %v", len(periods), p)
		}
		first := periods[0].(map[string]any)
		if first["period_start"] != block1[0] || first["direction"] != "sym" || first["committed_mw"] != 6.0 ||
			first["requested_mw"] != 5.0 || first["ceiling_mw"] != 10.0 || first["overshoot_mw"] != 1.0 {
			t.Fatalf("period %v", first)
		}
		e.expectStored(t, 1)
		// disable_pq_capacity_check skips the ceiling, even a ceiling of 0.
		e.h.Do(http.MethodPost, "/v1/assets/bess-free/markets/fcr/bids", e.rw, submit(bid(block1, "", 10, 50), bid(block1, "", 10, 50))).
			Expect(t, http.StatusCreated, "")

		// Between the recommended deadline and the gate: accepted with a warning.
		e.setClock(time.Date(2026, 2, 1, 6, 45, 0, 0, time.UTC))
		late := e.post(t, submit(bid(block2, "", 10, 1)), http.StatusCreated, "")
		if len(late.Warnings) != 1 || !strings.Contains(late.Warnings[0], "recommended deadline") {
			t.Fatalf("warnings %v", late.Warnings)
		}
		e.setClock(time.Date(2026, 2, 1, 7, 0, 0, 0, time.UTC))
		e.post(t, submit(bid(block2, "", 10, 1)), http.StatusConflict, "gate_closed")
		e.expectStored(t, 2)
	})
}

func TestReplace(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		old := e.post(t, submit(bid(block1, "", 10, 10), bid(block2, "", 10, 5), bid(block3, "", 10, 5)), http.StatusCreated, "")
		scope := map[string]any{"start_time": block1[0], "end_time": block2[1]}
		// Outside the scope: 422, nothing deleted.
		e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": scope, "bids": []any{bid(block3, "", 10, 1)}}, http.StatusUnprocessableEntity, "validation_failed")
		// The 10 MW of block1 would be deleted, so 10 MW fit again.
		out := e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": scope, "bids": []any{bid(block1, "r1", 11, 10)}}, http.StatusCreated, "")
		if out.CreatedCount != 1 || out.DeletedCount != 2 || len(out.DeletedBidIDs) != 2 {
			t.Fatalf("replace result %+v", out)
		}
		list := e.list(t, "")
		if len(list.Bids) != 2 || list.Bids[0].ID != out.Bids[0].ID || list.Bids[1].ID != old.Bids[2].ID {
			t.Fatalf("after replace %+v", list.Bids)
		}
		// Retrying the REPLACE keeps the bid it created.
		again := e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": scope, "bids": []any{bid(block1, "r1", 11, 10)}}, http.StatusCreated, "")
		if again.CreatedCount != 0 || again.DeletedCount != 0 || again.Bids[0].ID != out.Bids[0].ID {
			t.Fatalf("replace retry %+v", again)
		}
		// A breach rolls the deletions back.
		wide := map[string]any{"start_time": block1[0], "end_time": block3[1]}
		e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": wide, "bids": []any{bid(block3, "", 10, 6), bid(block3, "", 10, 5)}},
			http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.expectStored(t, 2)
		// Submitted bids are not deleted by a REPLACE and keep counting.
		if _, err := e.store.MarkSubmitted(context.Background(), []bids.Ref{{AssetID: "bess-1", ID: old.Bids[2].ID}}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": wide, "bids": []any{bid(block3, "", 10, 6)}},
			http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		out = e.post(t, map[string]any{"mode": "REPLACE", "replace_scope": wide, "bids": []any{bid(block3, "", 10, 5)}}, http.StatusCreated, "")
		if out.DeletedCount != 1 {
			t.Fatalf("replace deleted %d, want only the PENDING block1 bid", out.DeletedCount)
		}
		e.expectStored(t, 2)
	})
}

func put(block [2]string, price any, mw float64) map[string]any {
	return map[string]any{"start_time": block[0], "end_time": block[1], "capacity_price_eur_per_mw": price, "offered_power_mw": mw}
}

func TestUpdate(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		out := e.post(t, submit(bid(block1, "k", 10, 4), bid(block1, "", 10, 6), bid(block2, "", 10, 2)), http.StatusCreated, "")
		id := out.Bids[0].ID
		path := asset + "/bids/" + id

		e.h.Do(http.MethodPut, path, e.ro, put(block1, 11, 4)).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodPut, asset+"/bids/00000000-0000-0000-0000-000000000000", e.rw, put(block1, 11, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, asset+"/bids/not-a-uuid", e.rw, put(block1, 11, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, "/v1/assets/bess-b/markets/fcr/bids/"+id, e.beta, put(block1, 11, 4)).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodPut, path, e.rw, put(block1, "1.234", 4)).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodPut, path, e.rw, put(block1, 15001, 4)).Expect(t, http.StatusUnprocessableEntity, "PRICE_OUT_OF_RANGE")
		e.h.Do(http.MethodPut, path, e.rw, put(block1, 10, 0)).Expect(t, http.StatusUnprocessableEntity, "")
		p := e.h.Do(http.MethodPut, path, e.rw, put([2]string{block1[0], block2[1]}, 10, 4)).Expect(t, http.StatusUnprocessableEntity, "validation_failed").Map(t)
		if vi, _ := p["valid_intervals"].([]any); len(vi) != 6 {
			t.Fatalf("valid_intervals %v", p)
		}
		// Own power is not counted: 4 -> 4 with 6 others is fine; 5 is not.
		e.h.Do(http.MethodPut, path, e.rw, put(block1, "9.99", 4)).Expect(t, http.StatusOK, "")
		e.h.Do(http.MethodPut, path, e.rw, put(block1, 10, 5)).Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// A PENDING bid moves in place, also to another block.
		var got submitted
		e.h.Do(http.MethodPut, path, e.rw, with(put(block2, 8, 8), "idempotency_key", "k2")).Expect(t, http.StatusOK, "").JSON(t, &got)
		if g := got.Bids[0]; g.ID != id || g.StartTime != block2[0] || g.OfferedPowerMW != 8 || g.CapacityPrice != 8 || *g.IdempotencyKey != "k2" || g.LastEdit != nil {
			t.Fatalf("updated %+v", g)
		}
		e.h.Do(http.MethodPut, path, e.rw, put(block2, 8, 9)).Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")

		// A SUBMITTED bid records a late edit and keeps its values.
		if n, err := e.store.MarkSubmitted(ctx, []bids.Ref{{AssetID: "bess-1", ID: id}}, e.h.Clock.Now()); err != nil || n != 1 {
			t.Fatal(n, err)
		}
		e.h.Do(http.MethodPut, path, e.rw, put(block3, 8, 8)).Expect(t, http.StatusConflict, "bid_not_pending")
		e.h.Do(http.MethodPut, path, e.rw, with(put(block2, 8, 8), "idempotency_key", "other")).Expect(t, http.StatusConflict, "bid_not_pending")
		e.h.Do(http.MethodPut, path, e.rw, put(block2, 8, 9)).Expect(t, http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
		e.h.Do(http.MethodPut, path, e.rw, put(block2, "7.5", 6)).Expect(t, http.StatusOK, "").JSON(t, &got)
		if g := got.Bids[0]; g.Status != "SUBMITTED" || g.OfferedPowerMW != 8 || g.CapacityPrice != 8 || g.LastEdit == nil ||
			g.LastEdit.Status != "PENDING_RESYNC" || g.LastEdit.RequestedValues.OfferedPowerMW != 6 || g.LastEdit.RequestedValues.CapacityPrice != 7.5 {
			t.Fatalf("late edit %+v", g)
		}
		if err := e.store.ResolveEdit(ctx, bids.Ref{AssetID: "bess-1", ID: id}, true, "", "", e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		list := e.list(t, "?start_time="+url.QueryEscape(block2[0])+"&end_time="+url.QueryEscape(block2[1]))
		for _, g := range list.Bids {
			if g.ID == id && (g.OfferedPowerMW != 6 || g.CapacityPrice != 7.5 || g.LastEdit.Status != "APPLIED") {
				t.Fatalf("applied edit %+v", g)
			}
		}
		// A cleared bid cannot change; after the gate nothing can.
		other := out.Bids[2].ID
		if _, err := e.store.MarkFailed(ctx, []bids.Ref{{AssetID: "bess-1", ID: other}}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.h.Do(http.MethodPut, asset+"/bids/"+other, e.rw, put(block2, 8, 1)).Expect(t, http.StatusConflict, "bid_not_pending")
		e.setClock(time.Date(2026, 2, 1, 7, 0, 0, 0, time.UTC))
		e.h.Do(http.MethodPut, asset+"/bids/"+out.Bids[1].ID, e.rw, put(block1, 8, 1)).Expect(t, http.StatusConflict, "gate_closed")
	})
}

func TestMarketSwitchedOff(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		out := e.post(t, submit(bid(block1, "", 10, 1), bid(block2, "", 10, 1)), http.StatusCreated, "")
		var got struct {
			Warnings []string `json:"warnings"`
		}
		e.h.Do(http.MethodPut, asset+"/bids/"+out.Bids[0].ID, e.rw, put(block1, 10, 2)).Expect(t, http.StatusOK, "").JSON(t, &got)
		if got.Warnings == nil || len(got.Warnings) != 0 {
			t.Fatalf("warnings %v, want []", got.Warnings)
		}
		if _, err := e.assets.Update(context.Background(), auth.Visibility{OrganizationID: "acme"}, "bess-1",
			assets.Update{FCREnabled: assets.Some(false)}); err != nil {
			t.Fatal(err)
		}
		e.post(t, submit(bid(block3, "", 10, 1)), http.StatusConflict, "market_not_enabled")
		e.h.Do(http.MethodPut, asset+"/bids/"+out.Bids[0].ID, e.rw, put(block1, 10, 1)).Expect(t, http.StatusConflict, "market_not_enabled")
		// Its PENDING bids can still be withdrawn.
		e.h.Do(http.MethodDelete, asset+"/bids/"+out.Bids[0].ID, e.rw, nil).Expect(t, http.StatusNoContent, "")
		e.h.Do(http.MethodDelete, asset+"/bids?start_time="+url.QueryEscape(block2[0])+"&end_time="+url.QueryEscape(block2[1]), e.rw, nil).
			Expect(t, http.StatusOK, "")
		e.expectStored(t, 0)
	})
}

// TestAssetNotLive: an asset that is not live takes no new commitment
// (409 asset_not_live, before the prequalified ceiling), but its bids can
// be lowered, repriced and withdrawn; the demonstration environment's
// option turns the check off.
func TestAssetNotLive(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		out := e.post(t, submit(bid(block1, "", 10, 4), bid(block2, "", 10, 4)), http.StatusCreated, "")
		for _, status := range []assets.OperationalStatus{assets.Onboarding, assets.OnboardingTesting, assets.Maintenance, assets.Offboarded} {
			if _, err := e.assets.Update(context.Background(), auth.Visibility{OrganizationID: "acme"}, "bess-1",
				assets.Update{OperationalStatus: assets.Some(status)}); err != nil {
				t.Fatal(err)
			}
			p := e.h.Do(http.MethodPost, asset+"/bids", e.rw, submit(bid(block3, "", 10, 1))).Expect(t, http.StatusConflict, "asset_not_live").Map(t)
			if d, _ := p["detail"].(string); !strings.Contains(d, string(status)) {
				t.Fatalf("%s: detail %q does not name the status", status, d)
			}
		}
		// Before the ceiling: 11 MW of a 10 MW prequalification is not live first.
		e.post(t, submit(bid(block3, "", 10, 11)), http.StatusConflict, "asset_not_live")
		// Raising edits are refused: more power, another interval.
		path := asset + "/bids/" + out.Bids[0].ID
		e.h.Do(http.MethodPut, path, e.rw, put(block1, 10, 5)).Expect(t, http.StatusConflict, "asset_not_live")
		e.h.Do(http.MethodPut, path, e.rw, put(block3, 10, 4)).Expect(t, http.StatusConflict, "asset_not_live")
		// Lowering and repricing commit nothing new; withdrawing is always possible.
		e.h.Do(http.MethodPut, path, e.rw, put(block1, 9, 3)).Expect(t, http.StatusOK, "")
		e.h.Do(http.MethodDelete, path, e.rw, nil).Expect(t, http.StatusNoContent, "")
		e.h.Do(http.MethodDelete, asset+"/bids?start_time="+url.QueryEscape(block2[0])+"&end_time="+url.QueryEscape(block2[1]), e.rw, nil).
			Expect(t, http.StatusOK, "")
		e.expectStored(t, 0)
	})
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, bids.AllowNotLive())
		if _, err := e.assets.Update(context.Background(), auth.Visibility{OrganizationID: "acme"}, "bess-1",
			assets.Update{OperationalStatus: assets.Some(assets.Onboarding)}); err != nil {
			t.Fatal(err)
		}
		out := e.post(t, submit(bid(block1, "", 10, 4)), http.StatusCreated, "")
		e.h.Do(http.MethodPut, asset+"/bids/"+out.Bids[0].ID, e.rw, put(block1, 10, 5)).Expect(t, http.StatusOK, "")
		// The ceiling still applies.
		e.post(t, submit(bid(block1, "", 10, 6)), http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
	})
}

func with(body map[string]any, kv ...any) map[string]any {
	for i := 0; i < len(kv); i += 2 {
		body[kv[i].(string)] = kv[i+1]
	}
	return body
}

func TestDelete(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		out := e.post(t, submit(bid(block1, "", 10, 1), bid(block1, "", 10, 1), bid(block2, "", 10, 1), bid(block3, "", 10, 1)), http.StatusCreated, "")
		if _, err := e.store.MarkSubmitted(ctx, []bids.Ref{{AssetID: "bess-1", ID: out.Bids[1].ID}}, e.h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		q := func(iv [2]string) string {
			return "?start_time=" + url.QueryEscape(iv[0]) + "&end_time=" + url.QueryEscape(iv[1])
		}
		e.h.Do(http.MethodDelete, asset+"/bids"+q(block1), e.ro, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodDelete, asset+"/bids", e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodDelete, asset+"/bids?start_time=yesterday&end_time=today", e.rw, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodDelete, "/v1/assets/bess-b/markets/fcr/bids"+q(block1), e.rw, nil).Expect(t, http.StatusNotFound, "not_found")
		// Strict match: a window covering block1 and block2 deletes nothing.
		var del struct {
			DeletedCount  int      `json:"deleted_count"`
			DeletedBidIDs []string `json:"deleted_bid_ids"`
		}
		e.h.Do(http.MethodDelete, asset+"/bids"+q([2]string{block1[0], block2[1]}), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 0 || len(del.DeletedBidIDs) != 0 {
			t.Fatalf("non-strict delete %+v", del)
		}
		// Only the PENDING bid of block1 goes.
		e.h.Do(http.MethodDelete, asset+"/bids"+q(block1), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &del)
		if del.DeletedCount != 1 || del.DeletedBidIDs[0] != out.Bids[0].ID {
			t.Fatalf("delete %+v", del)
		}
		// By id.
		e.h.Do(http.MethodDelete, asset+"/bids/"+out.Bids[1].ID, e.rw, nil).Expect(t, http.StatusConflict, "bid_not_pending")
		e.h.Do(http.MethodDelete, asset+"/bids/"+out.Bids[2].ID, e.ro, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodDelete, "/v1/assets/bess-b/markets/fcr/bids/"+out.Bids[2].ID, e.beta, nil).Expect(t, http.StatusNotFound, "not_found")
		e.h.Do(http.MethodDelete, asset+"/bids/"+out.Bids[2].ID, e.rw, nil).Expect(t, http.StatusNoContent, "")
		e.h.Do(http.MethodDelete, asset+"/bids/"+out.Bids[2].ID, e.rw, nil).Expect(t, http.StatusNotFound, "not_found")
		e.expectStored(t, 2)
		// After the gate.
		e.setClock(time.Date(2026, 2, 1, 7, 0, 0, 0, time.UTC))
		e.h.Do(http.MethodDelete, asset+"/bids/"+out.Bids[3].ID, e.rw, nil).Expect(t, http.StatusConflict, "gate_closed")
		e.h.Do(http.MethodDelete, asset+"/bids"+q(block3), e.rw, nil).Expect(t, http.StatusConflict, "gate_closed")
		e.expectStored(t, 2)
	})
}

func TestValidBidIntervals(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
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
		path := asset + "/valid_bid_intervals"
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-02-02", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		want := interval{block1[0], block1[1], "2026-02-02", "2026-01-26T10:00:00Z", "2026-02-01T06:30:00Z", "2026-02-01T07:00:00Z", true}
		if len(out.Intervals) != 6 || out.Intervals[0] != want {
			t.Fatalf("intervals %+v", out.Intervals)
		}
		// Spring forward: the first block lasts 3 hours, gates in CET.
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-03-29", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		if out.Intervals[0].StartTime != "2026-03-28T23:00:00Z" || out.Intervals[0].EndTime != "2026-03-29T02:00:00Z" || out.Intervals[0].Open {
			t.Fatalf("spring forward %+v", out.Intervals[0])
		}
		e.h.Do(http.MethodGet, path+"?start_time="+url.QueryEscape(block2[0])+"&end_time="+url.QueryEscape(block3[0]), e.ro, nil).
			Expect(t, http.StatusOK, "").JSON(t, &out)
		if len(out.Intervals) != 1 || out.Intervals[0].StartTime != block2[0] {
			t.Fatalf("window %+v", out.Intervals)
		}
		// Now: open windows are delivery days 2026-02-02 to 2026-02-07
		// (D-7 11:00 has not come for 2026-02-08).
		e.h.Do(http.MethodGet, path, e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		if len(out.Intervals) != 36 || out.Intervals[35].DeliveryDay != "2026-02-07" {
			t.Fatalf("open now: %d intervals, last %+v", len(out.Intervals), out.Intervals[len(out.Intervals)-1])
		}
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-02-02&start_time="+url.QueryEscape(block1[0])+"&end_time="+url.QueryEscape(block1[1]), e.ro, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"?delivery_day=2026-02-31", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"?start_time="+url.QueryEscape(block1[0]), e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"?start_time=2026-01-01T00:00:00Z&end_time=2026-03-01T00:00:00Z", e.ro, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path, e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, path, "", nil).Expect(t, http.StatusUnauthorized, "invalid_token")
		e.h.Do(http.MethodGet, "/v1/assets/bess-b/markets/fcr/valid_bid_intervals", e.ro, nil).Expect(t, http.StatusNotFound, "not_found")
	})
}

func TestResults(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		out := e.post(t, submit(bid(block1, "", "10.5", 5), bid(block2, "", 20, 5), bid(block3, "", 30, 5)), http.StatusCreated, "")
		refs := []bids.Ref{{AssetID: "bess-1", ID: out.Bids[0].ID}, {AssetID: "bess-1", ID: out.Bids[1].ID}}
		if n, err := e.store.MarkSubmitted(ctx, refs, e.h.Clock.Now()); err != nil || n != 2 {
			t.Fatal(n, err)
		}
		three, price, src, day, note := 3.0, bids.Price(1234), "replayed", "2026-02-02", "cleared with block 1"
		n, err := e.store.RecordOutcomes(ctx, []bids.Outcome{
			{Ref: refs[0], Status: bids.Successful, AwardedMW: &three, SettlementPrice: &price, PriceSource: &src, SourceDay: &day, ClearingNote: &note},
			{Ref: refs[1], Status: bids.Rejected},
		}, e.h.Clock.Now())
		if err != nil || n != 2 {
			t.Fatal(n, err)
		}
		var res struct {
			Results []map[string]any `json:"results"`
		}
		e.h.Do(http.MethodGet, asset+"/results", e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 3 {
			t.Fatalf("results %v", res.Results)
		}
		r0, r1, r2 := res.Results[0], res.Results[1], res.Results[2]
		if r0["status"] != "SUCCESSFUL" || r0["awarded_power_mw"] != 3.0 || r0["settlement_price_eur_per_mw"] != 12.34 ||
			r0["capacity_price_eur_per_mw"] != 10.5 || r0["price_source"] != "replayed" || r0["bid_id"] != out.Bids[0].ID ||
			r0["source_day"] != "2026-02-02" || r0["clearing_note"] != "cleared with block 1" {
			t.Fatalf("successful %v", r0)
		}
		// Pay-as-cleared: 3 MW x 12.34 EUR/MW for the block.
		if r0["capacity_payment_eur"] != 37.02 {
			t.Fatalf("capacity payment %v", r0["capacity_payment_eur"])
		}
		for _, r := range []map[string]any{r1, r2} {
			for _, k := range []string{"capacity_payment_eur", "source_day", "clearing_note"} {
				if v, ok := r[k]; !ok || v != nil {
					t.Fatalf("%s of %v: want null", k, r)
				}
			}
		}
		if r1["status"] != "REJECTED" || r2["status"] != "PENDING" || r2["awarded_power_mw"] != nil || r2["settlement_price_eur_per_mw"] != nil {
			t.Fatalf("others %v %v", r1, r2)
		}
		e.h.Do(http.MethodGet, asset+"/results?start_time="+url.QueryEscape(block3[0]), e.ro, nil).Expect(t, http.StatusOK, "").JSON(t, &res)
		if len(res.Results) != 1 {
			t.Fatalf("filtered results %v", res.Results)
		}
		e.h.Do(http.MethodGet, asset+"/results?start_time="+url.QueryEscape(block3[0])+"&end_time="+url.QueryEscape(block1[0]), e.ro, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, asset+"/results", e.none, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		e.h.Do(http.MethodGet, "/v1/assets/bess-b/markets/fcr/results", e.ro, nil).Expect(t, http.StatusNotFound, "not_found")
		// A successful partial award counts only at the power it won:
		// 3 awarded + 7 new = 10 fits.
		e.post(t, submit(bid(block1, "", 10, 7)), http.StatusCreated, "")
		e.post(t, submit(bid(block1, "", 10, 1)), http.StatusConflict, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED")
	})
}

func TestOpenAPI(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		r := e.h.Do(http.MethodGet, "/openapi.json", "", nil).Expect(t, http.StatusOK, "")
		doc := string(r.Body)
		var spec struct {
			Components struct {
				Schemas map[string]struct {
					Properties map[string]struct {
						Type  any   `json:"type"`
						OneOf []any `json:"oneOf"`
					} `json:"properties"`
				} `json:"schemas"`
			} `json:"components"`
		}
		r.JSON(t, &spec)
		// Prices: a number or a string in, a number out.
		if in := spec.Components.Schemas["BidInput"].Properties["capacity_price_eur_per_mw"]; len(in.OneOf) != 2 {
			t.Errorf("input price schema %+v", in)
		}
		if out := spec.Components.Schemas["Bid"].Properties["capacity_price_eur_per_mw"]; out.Type != "number" {
			t.Errorf("output price schema %+v", out)
		}
		for _, op := range []string{"list-fcr-bids", "submit-fcr-bids", "delete-fcr-bids", "update-fcr-bid", "delete-fcr-bid", "list-fcr-valid-bid-intervals", "list-fcr-results"} {
			if !strings.Contains(doc, fmt.Sprintf("%q", op)) {
				t.Errorf("operation %s missing", op)
			}
		}
	})
}

// FuzzSubmitBody posts arbitrary bodies: never a 500, and whatever is
// accepted keeps the stored power within the ceiling.
func FuzzSubmitBody(f *testing.F) {
	for _, s := range []string{
		`{"bids":[{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":"12.5","offered_power_mw":10}]}`,
		`{"mode":"REPLACE","replace_scope":{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T23:00:00Z"},"bids":[{"idempotency_key":"a","start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z","capacity_price_eur_per_mw":15000,"offered_power_mw":3}]}`,
		`{"bids":[{"start_time":"0001-01-01T00:00:00Z","end_time":"9999-12-31T23:45:00Z","capacity_price_eur_per_mw":1e400,"offered_power_mw":1e300}]}`,
		`{"bids":[{"capacity_price_eur_per_mw":[1]}]}`, `[]`, `{"bids":null}`, `nul`,
	} {
		f.Add(s)
	}
	e := setup(f, testkit.OpenSQLite(f))
	f.Fuzz(func(t *testing.T, body string) {
		// The harness reports through the running target, not f.
		e.h.T = t
		r := e.h.Do(http.MethodPost, asset+"/bids", e.rw, body)
		if r.Status >= 500 {
			t.Fatalf("%s -> %s", body, r)
		}
		var list submitted
		e.h.Do(http.MethodGet, asset+"/bids", e.ro, nil).JSON(t, &list)
		perStart := map[string]float64{}
		for _, b := range list.Bids {
			perStart[b.StartTime] += b.OfferedPowerMW
			if perStart[b.StartTime] > 10 {
				t.Fatalf("%v MW stored from %s", perStart[b.StartTime], b.StartTime)
			}
		}
	})
}

// TestControlCharactersInIdempotencyKeys: a NUL or another control
// character in an idempotency key is 422 naming it, on submission and on
// change, on both stores (a NUL was a 500 on PostgreSQL), and nothing is
// stored or changed.
func TestControlCharactersInIdempotencyKeys(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		fields := func(r *testkit.Response) string {
			var p struct {
				Errors []struct {
					Location string `json:"location"`
				} `json:"errors"`
			}
			r.JSON(t, &p)
			var locs []string
			for _, f := range p.Errors {
				locs = append(locs, f.Location)
			}
			return strings.Join(locs, ",")
		}
		for _, key := range []string{"desk-7\x00", "\x1b[2Jdesk-7"} {
			r := e.h.Do(http.MethodPost, asset+"/bids", e.rw, submit(bid(block1, "ok", 10, 1), bid(block2, key, 10, 1))).
				Expect(t, http.StatusUnprocessableEntity, "validation_failed")
			if got := fields(r); got != "body.bids[1].idempotency_key" {
				t.Fatalf("key %q: fields %s: %s", key, got, r.Body)
			}
		}
		e.expectStored(t, 0)

		out := e.post(t, submit(bid(block1, "desk-7", 10, 4)), http.StatusCreated, "")
		id := out.Bids[0].ID
		for _, key := range []string{"desk-8\x00", "desk-8\u0085"} {
			change := put(block1, 11, 3)
			change["idempotency_key"] = key
			r := e.h.Do(http.MethodPut, asset+"/bids/"+id, e.rw, change).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
			if got := fields(r); got != "body.idempotency_key" {
				t.Fatalf("key %q: fields %s: %s", key, got, r.Body)
			}
		}
		if got := e.list(t, "").Bids; len(got) != 1 || *got[0].IdempotencyKey != "desk-7" || got[0].OfferedPowerMW != 4 {
			t.Fatalf("a refused change changed the bid: %+v", got)
		}
	})
}

// Issue 9, item 8: a year-0 instant used to panic while the response was
// encoded (200 or 422 in the access log, "error marshaling response" as
// the body). It is refused at the edge, and nothing is stored.
func TestInstantsOutOfRange(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		r := e.h.Do(http.MethodPost, asset+"/bids", e.rw, submit(bid(block1, "ok", 10, 1),
			bid([2]string{"0000-01-01T00:00:00Z", "0000-01-01T04:00:00Z"}, "", 10, 1))).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		// The first out of range in the text: a map's members go out sorted.
		if !strings.Contains(string(r.Body), `"location":"body.bids[1].end_time"`) {
			t.Fatalf("not located: %s", r.Body)
		}
		e.expectStored(t, 0)
		e.h.Do(http.MethodGet, asset+"/valid_bid_intervals?delivery_day=0000-01-01", e.ro, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, asset+"/bids?start_time=9999-12-31T00:00:00Z", e.ro, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
	})
}
