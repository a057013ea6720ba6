package settlementhttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/fcr"
	"atcp/internal/markets/replay"
	"atcp/internal/markets/simulation"
	"atcp/internal/settlement"
	"atcp/internal/settlement/settlementhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type noSteps struct{}

func (noSteps) StepsIn(context.Context, time.Time) ([]settlement.CoverStep, error) { return nil, nil }

type env struct {
	h                       *testkit.Harness
	b                       store.Backend
	settler                 *settlement.Settler
	acme, beta, none, admin string
	day                     calendar.Interval // 2026-02-02, Berlin
	fcr1, fcr2, afrrNeg0004 calendar.Interval
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// setup replays the market of the delivery day 2026-02-02 for acme: bess
// holds 2 MW FCR in 00-04 (cleared at 42.90 EUR/MW) and 3 MW in 04-08
// (65.20), bess-afrr 10 MW negative aFRR capacity in NEG_00_04 at 2.00
// EUR/MW/h (the marginal price is 3.32: pay-as-bid, it earns its own),
// offered as energy in every quarter-hour; idle has no data; beta's b-1
// neither. The settlement job then settles the day.
func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	ctx := context.Background()
	h := testkit.NewHarness(t, b)
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), h.Clock)
	ten := 10.0
	for _, a := range []struct{ id, org string }{{"bess", "acme"}, {"bess-afrr", "acme"}, {"idle", "acme"}, {"b-1", "beta"}} {
		x := assets.NewAsset(a.id, a.org, a.id, "Kiel", assets.Standalone)
		x.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		x.UsablePowerCapacityMW = &ten
		x.FCREnabled, x.FCRPrequalifiedMW = true, 10
		x.AFRREnabled, x.AFRRPrequalifiedNegMW = true, 10
		if err := registry.EnsureAsset(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	e := env{h: h, b: b,
		acme:  h.TokenFor("acme", auth.InvoiceRead),
		beta:  h.TokenFor("beta", auth.InvoiceRead),
		none:  h.TokenFor("acme", auth.ReportRead, auth.MarketRead),
		admin: h.AdminToken(),
		day:   calendar.Interval{Start: utc("2026-02-01T23:00:00Z"), End: utc("2026-02-02T23:00:00Z")},
	}
	e.fcr1 = calendar.Interval{Start: e.day.Start, End: e.day.Start.Add(4 * time.Hour)}
	e.fcr2 = calendar.Interval{Start: e.fcr1.End, End: e.fcr1.End.Add(4 * time.Hour)}
	e.afrrNeg0004 = e.fcr1

	acme := auth.Visibility{OrganizationID: "acme"}
	price := func(s string) bids.PriceInput { return bids.PriceInput{Raw: []byte(`"` + s + `"`)} }
	if _, err := fcr.NewService(registry, b.Bids(), h.Clock, fcr.Config{}).Submit(ctx, acme, "bess", bids.Submission{Bids: []bids.NewBid{
		{Start: e.fcr1.Start, End: e.fcr1.End, OfferedMW: 2, CapacityPrice: price("10")},
		{Start: e.fcr2.Start, End: e.fcr2.End, OfferedMW: 3, CapacityPrice: price("10")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := afrr.NewCapacityService(registry, b.Bids(), h.Clock).Submit(ctx, acme, "bess-afrr", bids.Submission{Bids: []bids.NewBid{
		{Product: bids.Neg, Start: e.afrrNeg0004.Start, End: e.afrrNeg0004.End, OfferedMW: 10, CapacityPrice: price("2.00"), EnergyPrice: price("-100")}}}); err != nil {
		t.Fatal(err)
	}
	h.Clock.Set(utc("2026-02-01T09:30:00Z")) // the energy bids of the day are open
	var energy []bids.NewBid
	for _, p := range calendar.Split(e.afrrNeg0004, calendar.PeriodLength) {
		energy = append(energy, bids.NewBid{Product: bids.Neg, Start: p.Start, End: p.End, OfferedMW: 10, EnergyPrice: price("-15000")})
	}
	if _, err := afrr.NewEnergyService(registry, b.Bids(), h.Clock).Submit(ctx, acme, "bess-afrr", bids.Submission{Bids: energy}); err != nil {
		t.Fatal(err)
	}
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	market := simulation.New(b.Bids(), data)
	for _, step := range []struct {
		job  func(context.Context, time.Time) error
		when time.Time
	}{
		{market.Forward, utc("2026-02-01T07:35:00Z")},
		{market.Clear, utc("2026-02-01T08:15:00Z")},
		{market.Energy, e.afrrNeg0004.End},
	} {
		h.Clock.Set(step.when)
		if err := step.job(ctx, step.when); err != nil {
			t.Fatal(err)
		}
	}
	s := b.Settlements()
	if err := s.SetProgress(ctx, e.day.Start); err != nil {
		t.Fatal(err)
	}
	e.settler = settlement.NewSettler(s, noSteps{}, h.Clock)
	h.Clock.Set(e.fcr2.End.Add(5 * time.Minute))
	if err := e.settler.Run(ctx, h.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	settlementhttp.Register(h.Server, settlement.NewService(settlement.Deps{Store: s, Assets: registry, Organizations: b.Directory(),
		Clock: h.Clock, Rule: settlement.NewRule(settlement.DefaultFinalLag)}))
	return e
}

type product struct {
	Revenue   string  `json:"revenue_total"`
	BackupFee *string `json:"backup_fee_total"`
	Penalty   string  `json:"penalty_total"`
}

type envelope struct {
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Assets   []struct {
		AssetID string           `json:"asset_id"`
		Blocks  []map[string]any `json:"blocks"`
		FCR     product          `json:"fcr"`
		Neg4h   product          `json:"afrrc_neg_4h"`
	} `json:"assets"`
	FCR       product `json:"fcr"`
	FCRBackup product `json:"fcr_backup"`
	Neg4h     product `json:"afrrc_neg_4h"`
}

func (e env) get(t *testing.T, token, query string) envelope {
	t.Helper()
	var out envelope
	e.h.Do(http.MethodGet, "/v1/settlements?"+query, token, nil).Expect(t, http.StatusOK, "").JSON(t, &out)
	return out
}

func (e env) dayQuery(status string) string {
	return "start=" + e.day.Start.Format(time.RFC3339) + "&end=" + e.day.End.Format(time.RFC3339) + "&status=" + status
}

func figure(t *testing.T, b map[string]any, key, field string) string {
	t.Helper()
	p, ok := b[key].(map[string]any)
	if !ok {
		return ""
	}
	return p[field].(string)
}

func TestSettlements(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)

		// The delivery day is not over: nothing is published in either set.
		e.h.Clock.Set(utc("2026-02-02T12:00:00Z"))
		for _, st := range []string{"PRELIMINARY", "FINAL"} {
			got := e.get(t, e.acme, e.dayQuery(st))
			if len(got.Assets) != 3 || got.Currency != "EUR" || got.Status != st || got.FCR.Revenue != "0.00" {
				t.Fatalf("%s before publication: %+v", st, got)
			}
			for _, a := range got.Assets {
				if len(a.Blocks) != 0 {
					t.Fatalf("%s before publication: %s has %d blocks", st, a.AssetID, len(a.Blocks))
				}
			}
		}

		// The day after: PRELIMINARY, in any case.
		e.h.Clock.Set(utc("2026-02-03T10:00:00Z"))
		pre := e.get(t, e.acme, e.dayQuery("Preliminary"))
		if pre.Status != "PRELIMINARY" || len(pre.Assets) != 3 {
			t.Fatalf("preliminary %+v", pre)
		}
		bess, afrrAsset, idle := pre.Assets[0], pre.Assets[1], pre.Assets[2]
		if bess.AssetID != "bess" || afrrAsset.AssetID != "bess-afrr" || idle.AssetID != "idle" {
			t.Fatalf("assets %s %s %s", bess.AssetID, afrrAsset.AssetID, idle.AssetID)
		}
		if idle.Blocks == nil || len(idle.Blocks) != 0 || idle.FCR.Revenue != "0.00" {
			t.Fatalf("idle %+v", idle)
		}
		// FCR: 2 MW x 42.90 = 85.80 over 16 quarter-hours (5.36, 5.37, ...)
		// and 3 MW x 65.20 = 195.60 (12.23, 12.22, ...), pay-as-cleared.
		if len(bess.Blocks) != 32 {
			t.Fatalf("bess has %d blocks", len(bess.Blocks))
		}
		for i, want := range map[int]string{0: "5.36", 1: "5.37", 16: "12.23", 17: "12.22"} {
			if got := figure(t, bess.Blocks[i], "fcr", "revenue_total"); got != want {
				t.Fatalf("bess block %d: fcr %s, want %s", i, got, want)
			}
		}
		if b0 := bess.Blocks[0]; b0["block_start"] != "2026-02-01T23:00:00Z" || b0["status"] != "PRELIMINARY" ||
			b0["final_at"] != "2026-03-02T23:00:00Z" || b0["delivery_day"] != "2026-02-02" || b0["afrrc_neg_4h"] != nil {
			t.Fatalf("block %v", b0)
		}
		if bess.FCR.Revenue != "281.40" || *bess.FCR.BackupFee != "0.00" || bess.FCR.Penalty != "0.00" {
			t.Fatalf("bess fcr %+v", bess.FCR)
		}
		// aFRR NEG_00_04 pay-as-bid: 10 MW x 2.00 EUR/MW/h x 0.25 h = 5.00 a
		// quarter-hour, not the 3.32 marginal price; all of it offered as
		// energy, no penalty.
		if len(afrrAsset.Blocks) != 16 {
			t.Fatalf("bess-afrr has %d blocks", len(afrrAsset.Blocks))
		}
		for _, blk := range afrrAsset.Blocks {
			if got := figure(t, blk, "afrrc_neg_4h", "revenue_total"); got != "5.00" || figure(t, blk, "afrrc_neg_4h", "penalty_total") != "0.00" {
				t.Fatalf("afrrc_neg_4h %v", blk)
			}
		}
		if afrrAsset.Neg4h.Revenue != "80.00" || pre.Neg4h.Revenue != "80.00" || pre.FCR.Revenue != "281.40" {
			t.Fatalf("totals: asset %+v, envelope %+v %+v", afrrAsset.Neg4h, pre.Neg4h, pre.FCR)
		}
		// The backup products carry no backup fee.
		if pre.FCRBackup.BackupFee != nil || pre.FCRBackup.Revenue != "0.00" {
			t.Fatalf("fcr_backup %+v", pre.FCRBackup)
		}
		if fin := e.get(t, e.acme, e.dayQuery("final")); len(fin.Assets[0].Blocks) != 0 || fin.FCR.Revenue != "0.00" {
			t.Fatalf("FINAL before the lag: %+v", fin)
		}

		// Recomputing with unchanged data keeps processed_at.
		first := bess.Blocks[0]["processed_at"]
		e.h.Clock.Set(utc("2026-02-03T11:00:00Z"))
		for _, q := range calendar.Split(e.fcr1, calendar.PeriodLength) {
			if _, err := e.settler.Settle(context.Background(), q.Start, false); err != nil {
				t.Fatal(err)
			}
		}
		if again := e.get(t, e.acme, e.dayQuery("PRELIMINARY")); again.Assets[0].Blocks[0]["processed_at"] != first {
			t.Fatalf("processed_at %v, was %v", again.Assets[0].Blocks[0]["processed_at"], first)
		}

		// A month after publication: FINAL, and no longer PRELIMINARY.
		e.h.Clock.Set(utc("2026-03-02T23:00:00Z"))
		fin := e.get(t, e.acme, e.dayQuery("FINAL"))
		if len(fin.Assets[0].Blocks) != 32 || fin.FCR.Revenue != "281.40" || fin.Assets[0].Blocks[0]["status"] != "FINAL" {
			t.Fatalf("final %+v", fin.FCR)
		}
		if pre := e.get(t, e.acme, e.dayQuery("PRELIMINARY")); len(pre.Assets[0].Blocks) != 0 || pre.FCR.Revenue != "0.00" {
			t.Fatalf("still preliminary: %+v", pre.FCR)
		}

		// asset_ids narrows; beta sees none of acme's; an administrator
		// names the organisation.
		if got := e.get(t, e.acme, e.dayQuery("FINAL")+"&asset_ids=idle,bess-afrr"); len(got.Assets) != 2 || got.Assets[0].AssetID != "bess-afrr" ||
			got.FCR.Revenue != "0.00" || got.Neg4h.Revenue != "80.00" {
			t.Fatalf("asset_ids: %+v", got)
		}
		if got := e.get(t, e.beta, e.dayQuery("FINAL")); len(got.Assets) != 1 || got.Assets[0].AssetID != "b-1" || len(got.Assets[0].Blocks) != 0 {
			t.Fatalf("beta: %+v", got)
		}
		if got := e.get(t, e.admin, e.dayQuery("FINAL")+"&organization_id=acme"); len(got.Assets) != 3 || got.FCR.Revenue != "281.40" {
			t.Fatalf("admin: %+v", got)
		}
	})
}

func TestSettlementErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ok := e.dayQuery("FINAL")
		e.h.Do(http.MethodGet, "/v1/settlements?"+ok, "", nil).Expect(t, http.StatusUnauthorized, "")
		e.h.Do(http.MethodGet, "/v1/settlements?"+ok, e.none, nil).Expect(t, http.StatusForbidden, "")
		for name, q := range map[string]string{
			"start not aligned":   "start=2026-02-01T23:05:00Z&end=2026-02-02T23:00:00Z&status=FINAL",
			"end not aligned":     "start=2026-02-01T23:00:00Z&end=2026-02-02T23:00:01Z&status=FINAL",
			"end before start":    "start=2026-02-02T23:00:00Z&end=2026-02-01T23:00:00Z&status=FINAL",
			"empty":               "start=2026-02-02T23:00:00Z&end=2026-02-02T23:00:00Z&status=FINAL",
			"window too long":     "start=2026-01-01T00:00:00Z&end=2026-04-04T00:15:00Z&status=FINAL",
			"missing start":       "end=2026-02-02T23:00:00Z&status=FINAL",
			"missing status":      "start=2026-02-01T23:00:00Z&end=2026-02-02T23:00:00Z",
			"bad status":          "start=2026-02-01T23:00:00Z&end=2026-02-02T23:00:00Z&status=SETTLED",
			"unknown asset":       ok + "&asset_ids=bess,nope",
			"another org's asset": ok + "&asset_ids=b-1",
			"empty asset id":      ok + "&asset_ids=bess,,idle",
			"bad start":           "start=yesterday&end=2026-02-02T23:00:00Z&status=FINAL",
		} {
			t.Run(name, func(t *testing.T) {
				e.h.Do(http.MethodGet, "/v1/settlements?"+q, e.acme, nil).Expect(t, http.StatusUnprocessableEntity, "")
			})
		}
		e.h.Do(http.MethodGet, "/v1/settlements?"+ok+"&organization_id=beta", e.acme, nil).
			Expect(t, http.StatusUnprocessableEntity, "organization_not_accessible")
		e.h.Do(http.MethodGet, "/v1/settlements?"+ok+"&organization_id=nobody", e.admin, nil).
			Expect(t, http.StatusUnprocessableEntity, "organization_not_accessible")
		// The exact 93 days are accepted.
		e.h.Do(http.MethodGet, "/v1/settlements?start=2026-01-01T00:00:00Z&end=2026-04-04T00:00:00Z&status=FINAL", e.acme, nil).
			Expect(t, http.StatusOK, "")
	})
}

// TestSettlementWire: the hand-written body is sent as JSON (also to a
// client preferring CSV, which the envelope has no form of), one
// document ending in a newline as the server's JSON encoder writes.
func TestSettlementWire(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.h.Clock.Set(utc("2026-02-03T10:00:00Z"))
		for _, accept := range []string{"", "text/csv"} {
			req, _ := http.NewRequest(http.MethodGet, e.h.URL+"/v1/settlements?"+e.dayQuery("PRELIMINARY"), nil)
			req.Header.Set("Authorization", "Bearer "+e.acme)
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			res := e.h.Send(req)
			var env map[string]any
			if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "application/json" ||
				!strings.HasSuffix(string(res.Body), "}\n") || json.Unmarshal(res.Body, &env) != nil || env["currency"] != "EUR" {
				t.Fatalf("Accept %q: %d %v %.200s", accept, res.Status, res.Header, res.Body)
			}
		}
	})
}

func TestQualityGates(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.h.Clock.Set(utc("2026-02-03T10:00:00Z"))
		path := "/v1/settlements/quality-gates?start=2026-02-01T23:00:00Z&end=2026-02-03T23:00:00Z"
		var got struct {
			Gates []struct {
				AssetID    string     `json:"asset_id"`
				Gate       string     `json:"gate"`
				Start      time.Time  `json:"start"`
				End        time.Time  `json:"end"`
				BlockCount int        `json:"block_count"`
				Until      *time.Time `json:"until"`
				Detail     string     `json:"detail"`
			} `json:"gates"`
			Total int `json:"total"`
		}
		e.h.Do(http.MethodGet, path, e.acme, nil).Expect(t, http.StatusOK, "").JSON(t, &got)
		type run struct {
			asset, gate string
			blocks      int
			until       string
		}
		var runs []run
		for _, g := range got.Gates {
			u := ""
			if g.Until != nil {
				u = g.Until.Format(time.RFC3339)
			}
			runs = append(runs, run{g.AssetID, g.Gate, g.BlockCount, u})
		}
		// The settled day is PRELIMINARY until 3 March; 3 February is not
		// over (published 4 February 00:00); the job has not settled the
		// quarter-hours after 08:05 CET of 2 February (the test ran it once).
		want := map[run]bool{
			{"bess", "awaiting_tso_settlement", 32, "2026-03-02T23:00:00Z"}:      true,
			{"bess-afrr", "awaiting_tso_settlement", 16, "2026-03-02T23:00:00Z"}: true,
		}
		for _, id := range []string{"bess", "bess-afrr", "idle"} {
			want[run{id, "not_published", 96, "2026-02-03T23:00:00Z"}] = true
		}
		for _, r := range runs {
			if r.gate == "not_computed" || r.gate == "recently_changed" || r.gate == "changed_after_publication" {
				continue
			}
			if !want[r] {
				t.Errorf("unexpected run %+v", r)
			}
			delete(want, r)
		}
		if len(want) != 0 {
			t.Errorf("missing runs %v in %+v", want, runs)
		}
		if got.Total != len(got.Gates) {
			t.Fatalf("total %d", got.Total)
		}
		// Paging and CSV.
		var page struct {
			Gates []any `json:"gates"`
			Total int   `json:"total"`
		}
		e.h.Do(http.MethodGet, path+"&limit=1&offset=1", e.acme, nil).Expect(t, http.StatusOK, "").JSON(t, &page)
		if len(page.Gates) != 1 || page.Total != got.Total {
			t.Fatalf("page %+v", page)
		}
		req, _ := http.NewRequest(http.MethodGet, e.h.URL+path+"&asset_ids=idle", nil)
		req.Header.Set("Authorization", "Bearer "+e.acme)
		req.Header.Set("Accept", "text/csv")
		csv := e.h.Send(req)
		if csv.Status != http.StatusOK || !strings.HasPrefix(string(csv.Body), "asset_id,gate,start,end,block_count,until,processed_at,detail\r\nidle,") {
			t.Fatalf("csv %s", csv)
		}
		// Errors.
		e.h.Do(http.MethodGet, path, e.none, nil).Expect(t, http.StatusForbidden, "")
		e.h.Do(http.MethodGet, path+"&asset_ids=b-1", e.acme, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"&limit=1001", e.acme, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodGet, path+"&organization_id=acme", e.beta, nil).Expect(t, http.StatusUnprocessableEntity, "organization_not_accessible")
		e.h.Do(http.MethodGet, "/v1/settlements/quality-gates?start=2026-02-01T23:10:00Z&end=2026-02-03T23:00:00Z", e.acme, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		// beta sees only its own asset.
		var other struct {
			Gates []struct {
				AssetID string `json:"asset_id"`
			} `json:"gates"`
		}
		e.h.Do(http.MethodGet, path, e.beta, nil).Expect(t, http.StatusOK, "").JSON(t, &other)
		for _, g := range other.Gates {
			if g.AssetID != "b-1" {
				t.Fatalf("beta sees %s", g.AssetID)
			}
		}
	})
}

func TestRevenue(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.h.Clock.Set(utc("2026-02-03T10:00:00Z"))
		path := "/v1/reports/revenue?start_time=2026-02-01T23:00:00Z&end_time=2026-02-02T23:00:00Z"
		var got struct {
			Rows []struct {
				PeriodStart time.Time `json:"period_start"`
				AssetID     string    `json:"asset_id"`
				Product     string    `json:"product"`
				Revenue     string    `json:"revenue_total"`
				Net         string    `json:"net_total"`
				Status      string    `json:"status"`
				Blocks      int       `json:"block_count"`
			} `json:"rows"`
			Totals []struct {
				Product string `json:"product"`
				Revenue string `json:"revenue_total"`
			} `json:"totals"`
			Status string `json:"status"`
		}
		e.h.Do(http.MethodGet, path, e.acme, nil).Expect(t, http.StatusOK, "").JSON(t, &got)
		rows := map[string]string{}
		for _, r := range got.Rows {
			if !r.PeriodStart.Equal(e.day.Start) || r.Status != "PRELIMINARY" {
				t.Fatalf("row %+v", r)
			}
			rows[r.AssetID+"/"+r.Product] = r.Revenue
		}
		if rows["bess/fcr"] != "281.40" || rows["bess-afrr/afrrc_neg_4h"] != "80.00" || got.Status != "PRELIMINARY" {
			t.Fatalf("rows %v, status %s", rows, got.Status)
		}
		if len(got.Totals) != 10 || got.Totals[0].Product != "fcr" || got.Totals[0].Revenue != "281.40" {
			t.Fatalf("totals %+v", got.Totals)
		}
		// Monthly: the same sums in February's row.
		var monthly struct {
			Rows []struct {
				PeriodStart time.Time `json:"period_start"`
				PeriodEnd   time.Time `json:"period_end"`
			} `json:"rows"`
		}
		e.h.Do(http.MethodGet, path+"&granularity=monthly", e.acme, nil).Expect(t, http.StatusOK, "").JSON(t, &monthly)
		if len(monthly.Rows) == 0 || !monthly.Rows[0].PeriodStart.Equal(utc("2026-01-31T23:00:00Z")) || !monthly.Rows[0].PeriodEnd.Equal(utc("2026-02-28T23:00:00Z")) {
			t.Fatalf("monthly %+v", monthly)
		}
		req, _ := http.NewRequest(http.MethodGet, e.h.URL+path+"&asset_ids=bess", nil)
		req.Header.Set("Authorization", "Bearer "+e.acme)
		req.Header.Set("Accept", "text/csv")
		csv := e.h.Send(req)
		if csv.Status != http.StatusOK || !strings.Contains(string(csv.Body), "\r\n2026-02-01T23:00:00Z,2026-02-02T23:00:00Z,bess,fcr,281.40,0.00,0.00,281.40,PRELIMINARY,32\r\n") {
			t.Fatalf("csv %s", csv)
		}
		e.h.Do(http.MethodGet, path, e.none, nil).Expect(t, http.StatusForbidden, "")
		e.h.Do(http.MethodGet, path+"&granularity=weekly", e.acme, nil).Expect(t, http.StatusUnprocessableEntity, "")
		e.h.Do(http.MethodGet, path+"&asset_ids=b-1", e.acme, nil).Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, "/v1/reports/revenue?start_time=2026-01-01T00:00:00Z&end_time=2026-06-01T00:00:00Z", e.acme, nil).
			Expect(t, http.StatusUnprocessableEntity, "validation_failed")
		e.h.Do(http.MethodGet, path+"&organization_id=acme", e.beta, nil).Expect(t, http.StatusUnprocessableEntity, "organization_not_accessible")
		var beta struct {
			Rows []any `json:"rows"`
		}
		e.h.Do(http.MethodGet, path, e.beta, nil).Expect(t, http.StatusOK, "").JSON(t, &beta)
		if len(beta.Rows) != 0 {
			t.Fatalf("beta sees %v", beta.Rows)
		}
	})
}
