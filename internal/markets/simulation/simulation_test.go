package simulation_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/fcr"
	"atcp/internal/markets/fcr/fcrhttp"
	"atcp/internal/markets/replay"
	"atcp/internal/markets/simulation"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// Delivery day 2026-02-02: recommended deadline 06:30Z, last forwarding
// batch 06:55Z, gate 07:00Z, results 07:15Z (all on 2026-02-01). The
// replayed German FCR prices of its first two blocks are 42.90 and 65.20
// EUR/MW.
const path = "/v1/assets/bess-1/markets/fcr/bids"

var (
	block1 = [2]string{"2026-02-01T23:00:00Z", "2026-02-02T03:00:00Z"}
	block2 = [2]string{"2026-02-02T03:00:00Z", "2026-02-02T07:00:00Z"}
	block3 = [2]string{"2026-02-02T07:00:00Z", "2026-02-02T11:00:00Z"}
)

// setupAsset serves a harness on b with acme's asset bess-1, configured
// by configure.
func setupAsset(t *testing.T, b store.Backend, configure func(*assets.Asset)) (*testkit.Harness, *assets.Service) {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	if err := identity.NewDirectory(b.Directory(), h.Clock, h.URL).EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	as := assets.NewService(b.Assets(), h.Clock)
	a := assets.NewAsset("bess-1", "acme", "One", "Leipzig", assets.Standalone)
	a.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
	configure(&a)
	if err := as.EnsureAsset(ctx, a); err != nil {
		t.Fatal(err)
	}
	return h, as
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func bid(block [2]string, price float64, mw int) map[string]any {
	return map[string]any{"start_time": block[0], "end_time": block[1], "capacity_price_eur_per_mw": price, "offered_power_mw": mw}
}

type bidView struct {
	ID              string  `json:"id"`
	Start           string  `json:"start_time"`
	Status          string  `json:"status"`
	OfferedMW       float64 `json:"offered_power_mw"`
	CapacityPrice   float64 `json:"capacity_price_eur_per_mw"`
	LastEditAttempt *struct {
		Status string `json:"status"`
	} `json:"last_edit_attempt"`
}

func TestFCRLifecycle(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		h, as := setupAsset(t, b, func(a *assets.Asset) {
			a.FCREnabled, a.FCRPrequalifiedMW = true, 10
		})
		fcrhttp.Register(h.Server, fcr.NewService(as, b.Bids(), h.Clock, fcr.Config{}))
		market := simulation.New(b.Bids(), data)
		token := func() string { return h.TokenFor("acme", auth.MarketRead, auth.MarketWrite) }
		list := func() map[string]bidView {
			var out struct {
				Bids []bidView `json:"bids"`
			}
			h.Do(http.MethodGet, path, token(), nil).Expect(t, http.StatusOK, "").JSON(t, &out)
			m := map[string]bidView{}
			for _, b := range out.Bids {
				m[b.Start] = b
			}
			return m
		}
		run := func(job func(context.Context, time.Time) error, when string) {
			t.Helper()
			h.Clock.Set(at(when))
			if err := job(ctx, at(when)); err != nil {
				t.Fatal(err)
			}
		}

		// 07:00 CET: a cheap bid (below 42.90) and an expensive one (above 65.20).
		h.Do(http.MethodPost, path, token(), map[string]any{"bids": []any{bid(block1, 30, 4), bid(block2, 80, 5)}}).Expect(t, http.StatusCreated, "")
		run(market.Forward, "2026-02-01T06:10:00Z")
		if s := list()[block1[0]].Status; s != "PENDING" {
			t.Fatalf("forwarded before the recommended deadline: %s", s)
		}

		// From the recommended deadline the batches forward them.
		run(market.Forward, "2026-02-01T06:30:00Z")
		bids := list()
		if bids[block1[0]].Status != "SUBMITTED" || bids[block2[0]].Status != "SUBMITTED" {
			t.Fatalf("not submitted at the deadline: %+v", bids)
		}

		// A late edit of the expensive bid is forwarded within a minute.
		b2 := bids[block2[0]]
		h.Do(http.MethodPut, path+"/"+b2.ID, token(), map[string]any{"start_time": block2[0], "end_time": block2[1],
			"capacity_price_eur_per_mw": 60, "offered_power_mw": 5}).Expect(t, http.StatusOK, "")
		if e := list()[block2[0]].LastEditAttempt; e == nil || e.Status != "PENDING_RESYNC" {
			t.Fatalf("late edit %+v", e)
		}
		run(market.ForwardEdits, "2026-02-01T06:32:00Z")
		if b := list()[block2[0]]; b.LastEditAttempt == nil || b.LastEditAttempt.Status != "APPLIED" || b.CapacityPrice != 60 {
			t.Fatalf("edit not applied: %+v", b)
		}

		// A bid placed after the last batch never reaches the market.
		h.Clock.Set(at("2026-02-01T06:57:00Z"))
		h.Do(http.MethodPost, path, token(), map[string]any{"bids": []any{bid(block3, 10, 1)}}).Expect(t, http.StatusCreated, "")
		run(market.Forward, "2026-02-01T06:58:00Z")
		if s := list()[block3[0]].Status; s != "PENDING" {
			t.Fatalf("late bid %s before the gate", s)
		}
		run(market.Forward, "2026-02-01T07:00:00Z")
		if s := list()[block3[0]].Status; s != "FAILED" {
			t.Fatalf("late bid %s at the gate", s)
		}

		// Results fifteen minutes after the gate, at the replayed prices.
		run(market.Clear, "2026-02-01T07:14:00Z")
		if s := list()[block1[0]].Status; s != "SUBMITTED" {
			t.Fatalf("cleared before the results are due: %s", s)
		}
		run(market.Clear, "2026-02-01T07:15:00Z")
		bids = list()
		if bids[block1[0]].Status != "SUCCESSFUL" || bids[block2[0]].Status != "SUCCESSFUL" {
			// 30 <= 42.90 and 60 <= 65.20: both win at the uniform price.
			t.Fatalf("after clearing: %+v", bids)
		}
		var results struct {
			Results []map[string]any `json:"results"`
		}
		h.Do(http.MethodGet, "/v1/assets/bess-1/markets/fcr/results", token(), nil).Expect(t, http.StatusOK, "").JSON(t, &results)
		found := false
		for _, r := range results.Results {
			if r["start_time"] == block1[0] {
				found = true
				if r["awarded_power_mw"] != 4.0 || r["status"] != "SUCCESSFUL" || r["price_source"] != "published" {
					t.Fatalf("result %v", r)
				}
			}
		}
		if !found {
			t.Fatalf("no result for the first block: %v", results)
		}
	})
}

func TestExpensiveBidIsRejectedAndLateEditFailsAtTheGate(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		h, as := setupAsset(t, b, func(a *assets.Asset) {
			a.FCREnabled, a.FCRPrequalifiedMW = true, 10
		})
		fcrhttp.Register(h.Server, fcr.NewService(as, b.Bids(), h.Clock, fcr.Config{}))
		market := simulation.New(b.Bids(), data)
		token := h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)

		var created struct {
			Bids []bidView `json:"bids"`
		}
		h.Do(http.MethodPost, path, token, map[string]any{"bids": []any{bid(block2, 80, 5)}}).Expect(t, http.StatusCreated, "").JSON(t, &created)
		id := created.Bids[0].ID
		h.Clock.Set(at("2026-02-01T06:40:00Z"))
		if err := market.Forward(ctx, h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		token = h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
		h.Clock.Set(at("2026-02-01T06:59:30Z"))
		h.Do(http.MethodPut, path+"/"+id, token, map[string]any{"start_time": block2[0], "end_time": block2[1],
			"capacity_price_eur_per_mw": 50, "offered_power_mw": 5}).Expect(t, http.StatusOK, "")
		// The forwarder runs only after the gate: the edit fails, the bid stays.
		h.Clock.Set(at("2026-02-01T07:00:30Z"))
		if err := market.ForwardEdits(ctx, h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		h.Clock.Set(at("2026-02-01T07:20:00Z"))
		if err := market.Clear(ctx, h.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Bids []bidView `json:"bids"`
		}
		h.Do(http.MethodGet, path, token, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		got := out.Bids[0]
		if got.LastEditAttempt == nil || got.LastEditAttempt.Status != "FAILED_LATE_EDIT" || got.CapacityPrice != 80 || got.Status != "REJECTED" {
			t.Fatalf("bid %+v", got)
		}
	})
}

// TestAFRRCapacityPayAsBid: aFRR capacity clears an hour after FCR,
// pay-as-bid against the replayed marginal price (NEG 00-04: 3.32 EUR/MW/h).
func TestAFRRCapacityPayAsBid(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		h, as := setupAsset(t, b, func(a *assets.Asset) {
			a.AFRREnabled, a.AFRRPrequalifiedNegMW = true, 10
		})
		afrrhttp.RegisterCapacity(h.Server, afrr.NewCapacityService(as, b.Bids(), h.Clock))
		market := simulation.New(b.Bids(), data)
		const capacity = "/v1/assets/bess-1/markets/afrr/capacity/bids"
		capBid := func(block [2]string, price float64, mw int) map[string]any {
			return map[string]any{"start_time": block[0], "end_time": block[1], "product": "neg",
				"capacity_price_eur_per_mw": price, "energy_price_eur_per_mwh": 50, "offered_power_mw": mw}
		}
		token := h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
		h.Do(http.MethodPost, capacity, token, map[string]any{"bids": []any{capBid(block1, 3, 6), capBid(block2, 9, 4)}}).Expect(t, http.StatusCreated, "")
		for _, step := range []struct {
			job  func(context.Context, time.Time) error
			when string
		}{{market.Forward, "2026-02-01T07:35:00Z"}, {market.Clear, "2026-02-01T08:14:00Z"}, {market.Clear, "2026-02-01T08:15:00Z"}} {
			h.Clock.Set(at(step.when))
			if err := step.job(ctx, at(step.when)); err != nil {
				t.Fatal(err)
			}
		}
		var out struct {
			Bids []struct {
				Start     string   `json:"start_time"`
				Status    string   `json:"status"`
				AwardedMW *float64 `json:"awarded_power_mw"`
			} `json:"bids"`
		}
		h.Do(http.MethodGet, capacity, h.TokenFor("acme", auth.MarketRead), nil).Expect(t, http.StatusOK, "").JSON(t, &out)
		got := map[string]string{}
		for _, b := range out.Bids {
			got[b.Start] = b.Status
			if b.Status == "SUCCESSFUL" && (b.AwardedMW == nil || *b.AwardedMW != 6) {
				t.Fatalf("awarded %v", b.AwardedMW)
			}
		}
		// 3 <= 3.32 wins; 9 > 2.65 (NEG 04-08) loses.
		if got[block1[0]] != "SUCCESSFUL" || got[block2[0]] != "REJECTED" {
			t.Fatalf("statuses %v", got)
		}
	})
}

// TestAFRREnergyActivation: energy bids are forwarded at their closure and,
// once delivered, activated in each direction the replayed quarter-hour
// activated (both here) and settled at its marginal price.
func TestAFRREnergyActivation(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	// The first quarter-hour of the delivery day activating both directions.
	var qh replay.QuarterHourClearing
	for _, p := range (calendar.Day{Year: 2026, Month: 2, Day: 2}).Periods() {
		c, err := data.ClearQuarterHour(p.Start)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cleared && c.Pos.ActivatedMW >= 4 && c.Neg.ActivatedMW >= 4 {
			qh = c
			break
		}
	}
	if !qh.Cleared {
		t.Fatal("no quarter-hour activating both directions in the replayed day")
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		h, as := setupAsset(t, b, func(a *assets.Asset) {
			ten := 10.0
			a.UsablePowerCapacityMW = &ten
			a.AFRREnabled, a.AFRRPrequalifiedNegMW, a.AFRRPrequalifiedPosMW = true, 10, 10
		})
		afrrhttp.RegisterEnergy(h.Server, afrr.NewEnergyService(as, b.Bids(), h.Clock))
		market := simulation.New(b.Bids(), data)
		const energy = "/v1/assets/bess-1/markets/afrr/energy/bids"
		h.Clock.Set(at("2026-02-01T09:30:00Z")) // the energy market of the day is open
		token := h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
		var bidsIn []any
		for _, product := range []string{"pos", "neg"} {
			bidsIn = append(bidsIn, map[string]any{"start_time": qh.Period.Start.Format(time.RFC3339), "end_time": qh.Period.End.Format(time.RFC3339),
				"product": product, "energy_price_eur_per_mwh": -15000, "offered_power_mw": 4})
		}
		h.Do(http.MethodPost, energy, token, map[string]any{"bids": bidsIn}).Expect(t, http.StatusCreated, "")

		status := func() map[string]string {
			var out struct {
				Bids []struct {
					Product string `json:"product"`
					Status  string `json:"status"`
				} `json:"bids"`
			}
			h.Do(http.MethodGet, energy, h.TokenFor("acme", auth.MarketRead), nil).Expect(t, http.StatusOK, "").JSON(t, &out)
			m := map[string]string{}
			for _, b := range out.Bids {
				m[b.Product] = b.Status
			}
			return m
		}
		step := func(when time.Time) {
			t.Helper()
			h.Clock.Set(when)
			if err := market.Energy(ctx, when); err != nil {
				t.Fatal(err)
			}
		}
		step(qh.Period.Start.Add(-26 * time.Minute))
		if s := status(); s["pos"] != "PENDING" {
			t.Fatalf("forwarded before the closure: %v", s)
		}
		step(qh.Period.Start.Add(-25 * time.Minute))
		if s := status(); s["pos"] != "SUBMITTED" || s["neg"] != "SUBMITTED" {
			t.Fatalf("not forwarded at the closure: %v", s)
		}
		step(qh.Period.End.Add(-time.Second))
		if s := status(); s["pos"] != "SUBMITTED" {
			t.Fatalf("settled before delivery ended: %v", s)
		}
		step(qh.Period.End)
		if s := status(); s["pos"] != "SUCCESSFUL" || s["neg"] != "SUCCESSFUL" {
			t.Fatalf("both directions activated: statuses %v", s)
		}
		var results struct {
			Results []map[string]any `json:"results"`
		}
		h.Do(http.MethodGet, "/v1/assets/bess-1/markets/afrr/energy/results", h.TokenFor("acme", auth.MarketRead), nil).
			Expect(t, http.StatusOK, "").JSON(t, &results)
		if len(results.Results) != 2 {
			t.Fatalf("results %v", results)
		}
	})
}

// TestAwardCreatesItsEnergyBids: clearing a negative aFRR capacity award
// of 6 MW creates its energy bids, one per quarter-hour of the block at
// the capacity bid's energy price; the holder replaces one quarter-hour
// with its own price, which is forwarded at its closure and activated,
// while the award's own bids are forwarded as they stand.
func TestAwardCreatesItsEnergyBids(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	// A quarter-hour of the first block with a modelled negative
	// activation, whose closure comes after the block's first quarter-hour
	// was delivered: the holder's bid at -15000 EUR/MWh is in merit.
	var qh replay.QuarterHourClearing
	for p := at(block1[0]).Add(3 * calendar.PeriodLength); p.Before(at(block1[1])); p = p.Add(calendar.PeriodLength) {
		c, err := data.ClearQuarterHour(p)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cleared && c.Neg.ActivatedMW > 0 {
			qh = c
			break
		}
	}
	if !qh.Cleared {
		t.Fatal("no negative activation in the first block of the replayed day")
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		h, as := setupAsset(t, b, func(a *assets.Asset) {
			ten := 10.0
			a.UsablePowerCapacityMW = &ten
			a.AFRREnabled, a.AFRRPrequalifiedNegMW = true, 10
		})
		afrrhttp.RegisterCapacity(h.Server, afrr.NewCapacityService(as, b.Bids(), h.Clock))
		afrrhttp.RegisterEnergy(h.Server, afrr.NewEnergyService(as, b.Bids(), h.Clock))
		market := simulation.New(b.Bids(), data)
		const energy = "/v1/assets/bess-1/markets/afrr/energy"
		token := func() string { return h.TokenFor("acme", auth.MarketRead, auth.MarketWrite) }
		run := func(job func(context.Context, time.Time) error, when time.Time) {
			t.Helper()
			h.Clock.Set(when)
			if err := job(ctx, when); err != nil {
				t.Fatal(err)
			}
		}
		type energyBid struct {
			ID        string  `json:"id"`
			Key       *string `json:"idempotency_key"`
			Start     string  `json:"start_time"`
			Status    string  `json:"status"`
			Source    string  `json:"source"`
			OfferedMW float64 `json:"offered_power_mw"`
			Price     float64 `json:"energy_price_eur_per_mwh"`
		}
		list := func() map[string]energyBid {
			t.Helper()
			var out struct {
				Bids []energyBid `json:"bids"`
			}
			h.Do(http.MethodGet, energy+"/bids?product=neg", token(), nil).Expect(t, http.StatusOK, "").JSON(t, &out)
			m := map[string]energyBid{}
			for _, b := range out.Bids {
				if _, twice := m[b.Start]; twice {
					t.Fatalf("two energy bids at %s: %+v", b.Start, out.Bids)
				}
				m[b.Start] = b
			}
			return m
		}

		var placed struct {
			Bids []struct {
				ID string `json:"id"`
			} `json:"bids"`
		}
		h.Do(http.MethodPost, "/v1/assets/bess-1/markets/afrr/capacity/bids", token(), map[string]any{"bids": []any{map[string]any{
			"start_time": block1[0], "end_time": block1[1], "product": "neg", "capacity_price_eur_per_mw": 3,
			"energy_price_eur_per_mwh": 15000, "offered_power_mw": 6}}}).Expect(t, http.StatusCreated, "").JSON(t, &placed)
		run(market.Forward, at("2026-02-01T07:35:00Z"))
		if len(list()) != 0 {
			t.Fatal("energy bids before the award")
		}
		// Cleared at 09:15 CET (3 <= 3.32: awarded 6 MW); a second run
		// finds nothing to record and creates nothing.
		run(market.Clear, at("2026-02-01T08:15:00Z"))
		run(market.Clear, at("2026-02-01T08:16:00Z"))
		got := list()
		if len(got) != 16 {
			t.Fatalf("%d energy bids for a 4-hour award, want 16: %+v", len(got), got)
		}
		for p := at(block1[0]); p.Before(at(block1[1])); p = p.Add(calendar.PeriodLength) {
			e := got[p.Format(time.RFC3339)]
			if e.Source != "capacity_bid" || e.Status != "PENDING" || e.OfferedMW != 6 || e.Price != 15000 ||
				e.Key == nil || *e.Key != "capacity-bid:"+placed.Bids[0].ID {
				t.Fatalf("energy bid at %s: %+v", p.Format(time.RFC3339), e)
			}
		}

		// From 10:00 CET the holder offers its own price for one quarter-hour.
		h.Clock.Set(at("2026-02-01T09:30:00Z"))
		q := [2]string{qh.Period.Start.Format(time.RFC3339), qh.Period.End.Format(time.RFC3339)}
		var replaced struct {
			DeletedBidIDs []string `json:"deleted_bid_ids"`
		}
		h.Do(http.MethodPost, energy+"/bids", token(), map[string]any{"mode": "REPLACE",
			"replace_scope": map[string]any{"start_time": q[0], "end_time": q[1], "product": "neg"},
			"bids": []any{map[string]any{"idempotency_key": "own", "start_time": q[0], "end_time": q[1], "product": "neg",
				"energy_price_eur_per_mwh": -15000, "offered_power_mw": 6}}}).Expect(t, http.StatusCreated, "").JSON(t, &replaced)
		if len(replaced.DeletedBidIDs) != 1 || replaced.DeletedBidIDs[0] != got[q[0]].ID {
			t.Fatalf("REPLACE deleted %v, want the award's bid %s", replaced.DeletedBidIDs, got[q[0]].ID)
		}
		// The award's bids count against the ceiling like the holder's own:
		// 6 + 5 MW exceed the 10 MW prequalified.
		last := at(block1[1]).Add(-calendar.PeriodLength)
		h.Do(http.MethodPost, energy+"/bids", token(), map[string]any{"bids": []any{map[string]any{
			"start_time": last.Format(time.RFC3339), "end_time": block1[1], "product": "neg",
			"energy_price_eur_per_mwh": 10, "offered_power_mw": 5}}}).Expect(t, http.StatusConflict, "AFRR_PREQUALIFIED_CAPACITY_EXCEEDED")
		// ... and can be deleted like them.
		h.Do(http.MethodDelete, energy+"/bids/"+got[last.Format(time.RFC3339)].ID, token(), nil).Expect(t, http.StatusNoContent, "")

		run(market.Energy, qh.Period.Start.Add(-calendar.EnergyBidLeadTime))
		got = list()
		if own := got[q[0]]; own.Source != "api" || own.Status != "SUBMITTED" || own.Price != -15000 {
			t.Fatalf("the holder's bid at its closure: %+v", own)
		}
		// The award's first quarter-hour has been delivered by now: its bid
		// reached the market (at 15000 EUR/MWh it was not activated).
		if first := got[block1[0]]; first.Source != "capacity_bid" || first.Status != "REJECTED" {
			t.Fatalf("the award's first bid after its delivery: %+v", first)
		}
		if _, ok := got[last.Format(time.RFC3339)]; ok || len(got) != 15 {
			t.Fatalf("bids after a REPLACE and a DELETE: %+v", got)
		}
		run(market.Energy, qh.Period.End)
		if own := list()[q[0]]; own.Status != "SUCCESSFUL" {
			t.Fatalf("the holder's bid was not activated: %+v", own)
		}
		var results struct {
			Results []struct {
				Start        string   `json:"start_time"`
				Source       string   `json:"source"`
				ActivatedMWh *float64 `json:"activated_energy_mwh"`
			} `json:"results"`
		}
		h.Do(http.MethodGet, energy+"/results?product=neg", token(), nil).Expect(t, http.StatusOK, "").JSON(t, &results)
		for _, r := range results.Results {
			if r.Start == q[0] && (r.Source != "api" || r.ActivatedMWh == nil || *r.ActivatedMWh <= 0) {
				t.Fatalf("result of the holder's bid %+v", r)
			}
		}
	})
}

// TestResultsSayWhatTheyAre: each result says what its figures are.
// Delivery day 2026-02-02 is the replayed day: published, its own
// prices. 2026-02-03 has no published results and is cleared with
// 2026-02-02's: replayed. An aFRR award at exactly the marginal price is
// the model's share of a modelled margin: modelled. FCR results carry the
// capacity payment (awarded MW x settlement price per block).
func TestResultsSayWhatTheyAre(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	feb3 := [2]string{"2026-02-02T23:00:00Z", "2026-02-03T03:00:00Z"}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		h, as := setupAsset(t, b, func(a *assets.Asset) {
			a.FCREnabled, a.FCRPrequalifiedMW = true, 10
			a.AFRREnabled, a.AFRRPrequalifiedNegMW = true, 10
		})
		fcrhttp.Register(h.Server, fcr.NewService(as, b.Bids(), h.Clock, fcr.Config{}))
		afrrhttp.RegisterCapacity(h.Server, afrr.NewCapacityService(as, b.Bids(), h.Clock))
		market := simulation.New(b.Bids(), data)
		token := h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
		const capacity = "/v1/assets/bess-1/markets/afrr/capacity/bids"
		capBid := func(block [2]string, price float64, mw int) map[string]any {
			return map[string]any{"start_time": block[0], "end_time": block[1], "product": "neg",
				"capacity_price_eur_per_mw": price, "energy_price_eur_per_mwh": 50, "offered_power_mw": mw}
		}
		h.Do(http.MethodPost, path, token, map[string]any{"bids": []any{bid(block1, 30, 4), bid(feb3, 30, 3)}}).Expect(t, http.StatusCreated, "")
		// NEG 00-04 of 2026-02-02: marginal 3.32; 04-08: 2.65.
		h.Do(http.MethodPost, capacity, token, map[string]any{"bids": []any{capBid(block1, 3, 6), capBid(block2, 2.65, 4), capBid(feb3, 3, 2)}}).
			Expect(t, http.StatusCreated, "")
		// Both delivery days' auctions: 2026-02-02's on the 1st, 2026-02-03's on the 2nd.
		for _, when := range []string{"2026-02-01T07:35:00Z", "2026-02-01T08:15:00Z", "2026-02-02T07:35:00Z", "2026-02-02T08:15:00Z"} {
			h.Clock.Set(at(when))
			for _, job := range []func(context.Context, time.Time) error{market.Forward, market.Clear} {
				if err := job(ctx, at(when)); err != nil {
					t.Fatal(err)
				}
			}
		}
		results := func(p string) map[string]map[string]any {
			var out struct {
				Results []map[string]any `json:"results"`
			}
			h.Do(http.MethodGet, p, h.TokenFor("acme", auth.MarketRead), nil).Expect(t, http.StatusOK, "").JSON(t, &out)
			m := map[string]map[string]any{}
			for _, r := range out.Results {
				m[r["start_time"].(string)] = r
			}
			return m
		}
		check := func(name string, r map[string]any, status, source, day, note string, payment any) {
			t.Helper()
			n, _ := r["clearing_note"].(string)
			if r["status"] != status || r["price_source"] != source || r["source_day"] != day || !strings.Contains(n, note) ||
				r["capacity_payment_eur"] != payment {
				t.Errorf("%s: %v", name, r)
			}
		}
		f := results("/v1/assets/bess-1/markets/fcr/results")
		check("FCR replayed day", f[block1[0]], "SUCCESSFUL", "published", "2026-02-02",
			"cleared with the published German FCR settlement price of 2026-02-02 00:00-04:00", 4*42.9)
		check("FCR other day", f[feb3[0]], "SUCCESSFUL", "replayed", "2026-02-02",
			"no published results for 2026-02-03 here: cleared with the published German FCR settlement price of 2026-02-02 00:00-04:00", 3*42.9)
		a := results("/v1/assets/bess-1/markets/afrr/capacity/results")
		check("aFRR replayed day", a[block1[0]], "SUCCESSFUL", "published", "2026-02-02", "aFRR marginal price (neg) of 2026-02-02 00:00-04:00", 6*3*4.0)
		check("aFRR at the margin", a[block2[0]], "SUCCESSFUL", "modelled", "2026-02-02", "pro-rata share 1 of a modelled 5 MW margin", 4*2.65*4)
		check("aFRR other day", a[feb3[0]], "SUCCESSFUL", "replayed", "2026-02-02", "no published results for 2026-02-03", 2*3*4.0)
	})
}
