package afrrhttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/fcr"
	"atcp/internal/markets/fcr/fcrhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// feasEnv serves FCR, aFRR capacity and aFRR energy over acme's batteries
// of 10 MW and 20 MWh, prequalified for 10 MW in every market: mix (lenient),
// mix-strict (strict_validation) and mix-bare (strict, no usable power or
// energy recorded).
type feasEnv struct {
	h      *testkit.Harness
	assets *assets.Service
	rw     string
}

func feasSetup(t *testing.T, b store.Backend) *feasEnv {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	if err := dir.EnsureOrganization(ctx, "acme", "acme"); err != nil {
		t.Fatal(err)
	}
	as := assets.NewService(b.Assets(), h.Clock)
	for _, a := range []struct {
		id             string
		strict, usable bool
	}{{"mix", false, true}, {"mix-strict", true, true}, {"mix-bare", true, false}} {
		x := assets.NewAsset(a.id, "acme", a.id, "Kiel", assets.Standalone)
		x.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		x.FCREnabled, x.AFRREnabled, x.StrictValidation = true, true, a.strict
		x.FCRPrequalifiedMW, x.AFRRPrequalifiedPosMW, x.AFRRPrequalifiedNegMW = 10, 10, 10
		if a.usable {
			power, energy := 10.0, 20.0
			x.UsablePowerCapacityMW, x.UsableEnergyCapacityMWh = &power, &energy
		}
		if err := as.EnsureAsset(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	fcrhttp.Register(h.Server, fcr.NewService(as, b.Bids(), h.Clock, fcr.Config{}))
	afrrhttp.RegisterCapacity(h.Server, afrr.NewCapacityService(as, b.Bids(), h.Clock))
	afrrhttp.RegisterEnergy(h.Server, afrr.NewEnergyService(as, b.Bids(), h.Clock))
	e := &feasEnv{h: h, assets: as}
	e.at(h.Clock.Now())
	return e
}

func (e *feasEnv) at(t time.Time) {
	e.h.Clock.Set(t)
	e.rw = e.h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
}

func fcrPath(id string) string { return "/v1/assets/" + id + "/markets/fcr/bids" }
func capPath(id string) string { return "/v1/assets/" + id + "/markets/afrr/capacity/bids" }
func enPath(id string) string  { return "/v1/assets/" + id + "/markets/afrr/energy/bids" }

type feasAnswer struct {
	Bids []struct {
		ID string `json:"id"`
	} `json:"bids"`
	Warnings []string `json:"warnings"`
}

type feasProblem struct {
	Code       string `json:"code"`
	Violations []struct {
		Rule       string   `json:"rule"`
		Direction  string   `json:"direction"`
		StartTime  string   `json:"start_time"`
		EndTime    string   `json:"end_time"`
		BlockStart string   `json:"block_start"`
		FCRMW      float64  `json:"fcr_mw"`
		AFRRMW     *float64 `json:"afrr_mw"`
		AFRRNegMWh *float64 `json:"afrr_neg_mwh"`
		Committed  float64  `json:"committed"`
		Limit      float64  `json:"limit"`
		Overshoot  float64  `json:"overshoot"`
		Unit       string   `json:"unit"`
	} `json:"violations"`
}

func (e *feasEnv) do(t *testing.T, method, path string, body any, status int, code errs.Code) feasAnswer {
	t.Helper()
	var out feasAnswer
	r := e.h.Do(method, path, e.rw, body).Expect(t, status, code)
	if status < 300 {
		r.JSON(t, &out)
	}
	return out
}

func (e *feasEnv) problem(t *testing.T, method, path string, body any, code errs.Code) feasProblem {
	t.Helper()
	var p feasProblem
	e.h.Do(method, path, e.rw, body).Expect(t, http.StatusConflict, code).JSON(t, &p)
	return p
}

func (e *feasEnv) count(t *testing.T, path string) int {
	t.Helper()
	var out feasAnswer
	e.h.Do(http.MethodGet, path, e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
	return len(out.Bids)
}

func fcrOne(block [2]string, mw float64) map[string]any {
	return map[string]any{"bids": []any{map[string]any{"start_time": block[0], "end_time": block[1], "capacity_price_eur_per_mw": 10, "offered_power_mw": mw}}}
}

func capOne(block [2]string, product string, mw float64) map[string]any {
	return capSubmit(capBid(block, product, "", 5, 50, mw))
}

// TestFeasibilityWarnings: the case on a lenient asset, 10 MW of
// FCR and 10 MW of negative aFRR in one block of a 10 MW / 20 MWh
// battery, is stored with warnings naming both rules; an asset without
// usable figures gets none.
func TestFeasibilityWarnings(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := feasSetup(t, b)
		if got := e.do(t, http.MethodPost, fcrPath("mix"), fcrOne(capBlock2, 10), http.StatusCreated, ""); len(got.Warnings) != 0 {
			t.Fatalf("FCR alone at the usable power: warnings %q", got.Warnings)
		}
		got := e.do(t, http.MethodPost, capPath("mix"), capOne(capBlock2, "neg", 10), http.StatusCreated, "")
		want := []string{
			"2026-02-02T03:00:00Z/2026-02-02T07:00:00Z: the charge side commits 20 MW (FCR 10 + aFRR 10 + schedule 0), above the usable power capacity of 10 MW by 10 MW",
			"tender block 2026-02-02T03:00:00Z/2026-02-02T07:00:00Z: the reserves need 45 MWh of stored energy",
		}
		if len(got.Warnings) != 2 || got.Warnings[0] != want[0] || !strings.HasPrefix(got.Warnings[1], want[1]) {
			t.Fatalf("warnings %q", got.Warnings)
		}
		// Another market's view of the same commitments warns the same.
		if upd := e.do(t, http.MethodPut, fcrPath("mix")+"/"+e.firstID(t, fcrPath("mix")), map[string]any{
			"start_time": capBlock2[0], "end_time": capBlock2[1], "capacity_price_eur_per_mw": 11, "offered_power_mw": 10,
		}, http.StatusOK, ""); len(upd.Warnings) != 2 || upd.Warnings[0] != want[0] {
			t.Fatalf("PUT warnings %q", upd.Warnings)
		}
		// Neither rule applies without usable power and energy, strict or not.
		e.do(t, http.MethodPost, fcrPath("mix-bare"), fcrOne(capBlock2, 10), http.StatusCreated, "")
		if got := e.do(t, http.MethodPost, capPath("mix-bare"), capOne(capBlock2, "neg", 10), http.StatusCreated, ""); len(got.Warnings) != 0 {
			t.Fatalf("an asset without usable figures: warnings %q", got.Warnings)
		}
	})
}

func (e *feasEnv) firstID(t *testing.T, path string) string {
	t.Helper()
	var out feasAnswer
	e.h.Do(http.MethodGet, path, e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
	if len(out.Bids) == 0 {
		t.Fatalf("no bid at %s", path)
	}
	return out.Bids[0].ID
}

// TestFeasibilityStrict: with strict_validation a submission or a raise
// that breaks a rule is 409 with its violations and stores nothing, in
// every market; one that fits is stored without warnings; a change that
// leaves a violation as it was is stored with the warning.
func TestFeasibilityStrict(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := feasSetup(t, b)
		const id = "mix-strict"
		e.do(t, http.MethodPost, fcrPath(id), fcrOne(capBlock2, 4), http.StatusCreated, "")

		// 4 MW x 0.25 h x 2 + 6 MW x 4 h = 26 MWh > 20 MWh.
		p := e.problem(t, http.MethodPost, capPath(id), capOne(capBlock2, "neg", 6), "COMMITMENTS_EXCEED_ENERGY")
		if len(p.Violations) != 1 || p.Violations[0].Rule != "energy" || p.Violations[0].Direction != "both" ||
			p.Violations[0].StartTime != capBlock2[0] || p.Violations[0].EndTime != capBlock2[1] ||
			*p.Violations[0].AFRRNegMWh != 24 || p.Violations[0].Committed != 26 || p.Violations[0].Limit != 20 ||
			p.Violations[0].Overshoot != 6 || p.Violations[0].Unit != "MWh" {
			t.Fatalf("violations %+v", p.Violations)
		}
		if n := e.count(t, capPath(id)); n != 0 {
			t.Fatalf("%d aFRR bids stored after a 409", n)
		}
		// 2 + 16 = 18 MWh, 8 MW on the charge side: fits.
		if got := e.do(t, http.MethodPost, capPath(id), capOne(capBlock2, "neg", 4), http.StatusCreated, ""); len(got.Warnings) != 0 {
			t.Fatalf("a fitting bid: warnings %q", got.Warnings)
		}
		capID := e.firstID(t, capPath(id))
		// Raising aFRR to 5 MW: 2 + 20 = 22 MWh.
		e.problem(t, http.MethodPut, capPath(id)+"/"+capID, map[string]any{"start_time": capBlock2[0], "end_time": capBlock2[1],
			"capacity_price_eur_per_mw": 5, "energy_price_eur_per_mwh": 50, "offered_power_mw": 5}, "COMMITMENTS_EXCEED_ENERGY")
		// Raising FCR to 7 MW: 7 + 4 = 11 MW on the charge side (and 3.5 + 16
		// MWh, which fits): the power rule, one violation for the block.
		fcrID := e.firstID(t, fcrPath(id))
		p = e.problem(t, http.MethodPut, fcrPath(id)+"/"+fcrID, map[string]any{"start_time": capBlock2[0], "end_time": capBlock2[1],
			"capacity_price_eur_per_mw": 10, "offered_power_mw": 7}, "COMMITMENTS_EXCEED_POWER")
		if len(p.Violations) != 1 || p.Violations[0].Rule != "power" || p.Violations[0].Direction != "charge" ||
			p.Violations[0].StartTime != capBlock2[0] || p.Violations[0].EndTime != capBlock2[1] || p.Violations[0].BlockStart != capBlock2[0] ||
			p.Violations[0].FCRMW != 7 || *p.Violations[0].AFRRMW != 4 || p.Violations[0].Committed != 11 || p.Violations[0].Overshoot != 1 {
			t.Fatalf("violations %+v", p.Violations)
		}
		var stored struct {
			Bids []struct {
				OfferedPowerMW float64 `json:"offered_power_mw"`
			} `json:"bids"`
		}
		e.h.Do(http.MethodGet, fcrPath(id), e.rw, nil).Expect(t, http.StatusOK, "").JSON(t, &stored)
		if stored.Bids[0].OfferedPowerMW != 4 {
			t.Fatalf("FCR bid at %v MW after a refused raise", stored.Bids[0].OfferedPowerMW)
		}

		// A violation that was there before: recorded while the asset was
		// lenient (10 + 10 MW in block 3). A change that leaves it as it was
		// (the price) or eases it is stored, with the warning.
		strict := func(on bool) {
			if _, err := e.assets.Update(context.Background(), auth.Visibility{All: true}, id,
				assets.Update{StrictValidation: assets.Optional[bool]{Present: true, Value: on}}); err != nil {
				t.Fatal(err)
			}
		}
		strict(false)
		e.do(t, http.MethodPost, fcrPath(id), fcrOne(capBlock3, 10), http.StatusCreated, "")
		old := e.do(t, http.MethodPost, capPath(id), capOne(capBlock3, "neg", 10), http.StatusCreated, "")
		strict(true)
		for _, mw := range []float64{10, 9} {
			upd := e.do(t, http.MethodPut, capPath(id)+"/"+old.Bids[0].ID, map[string]any{"start_time": capBlock3[0], "end_time": capBlock3[1],
				"capacity_price_eur_per_mw": 6, "energy_price_eur_per_mwh": 50, "offered_power_mw": mw}, http.StatusOK, "")
			if len(upd.Warnings) != 2 || !strings.Contains(upd.Warnings[0], "the charge side commits") {
				t.Fatalf("%v MW: warnings %q", mw, upd.Warnings)
			}
		}
		// Raising it again is refused.
		e.problem(t, http.MethodPut, capPath(id)+"/"+old.Bids[0].ID, map[string]any{"start_time": capBlock3[0], "end_time": capBlock3[1],
			"capacity_price_eur_per_mw": 6, "energy_price_eur_per_mwh": 50, "offered_power_mw": 10}, "COMMITMENTS_EXCEED_POWER")

		// aFRR energy bids count too: 7 MW positive in one period next to
		// 4 MW of FCR is 11 MW on the discharge side; 6 MW fits (and its
		// quarter-hour, 1.5 MWh, fits the block's energy: 2 + 16 + 1.5).
		e.at(time.Date(2026, 2, 1, 9, 30, 0, 0, time.UTC))
		q := [2]string{capBlock2[0], "2026-02-02T03:15:00Z"}
		enBid := func(mw float64) map[string]any {
			return map[string]any{"bids": []any{map[string]any{"start_time": q[0], "end_time": q[1], "product": "pos",
				"energy_price_eur_per_mwh": 40, "offered_power_mw": mw}}}
		}
		p = e.problem(t, http.MethodPost, enPath(id), enBid(7), "COMMITMENTS_EXCEED_POWER")
		if len(p.Violations) != 1 || p.Violations[0].Direction != "discharge" || p.Violations[0].EndTime != q[1] {
			t.Fatalf("violations %+v", p.Violations)
		}
		if got := e.do(t, http.MethodPost, enPath(id), enBid(6), http.StatusCreated, ""); len(got.Warnings) != 0 {
			t.Fatalf("warnings %q", got.Warnings)
		}
	})
}
