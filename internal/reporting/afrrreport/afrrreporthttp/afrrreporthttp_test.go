package afrrreporthttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/reporting/afrrreport/afrrreporthttp"
	"atcp/internal/segmentation"
	"atcp/internal/segmentation/segmentationhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func event(asset string, slot time.Time, dir bids.Product, planned, set, accepted float64, reason string) afrrreport.Event {
	activation := afrrreport.ActivationID("50HZ", dir, slot)
	e := afrrreport.Event{ID: afrrreport.NewEventID(), OrganizationID: "acme", ActivationID: activation,
		RequestID: afrrreport.RequestID(activation, asset), AssetID: asset, CreatedAt: slot.Add(15 * time.Minute), Direction: dir,
		PlannedMW: planned, SetMW: set, AcceptedMW: accepted, Category: afrrreport.CapacityObligation, Slot: slot, FilterReason: reason}
	if reason != "" {
		e.FilterDetails = "an unavailability is active; from " + slot.Format(time.RFC3339) + ", 900 of 900 seconds"
	}
	e.Outcome = afrrreport.Classify(planned, set, accepted)
	return e
}

// TestAFRRReports: the three reports of an asset (JSON and CSV), their
// window, paging and granularity errors, the scope and the isolation.
func TestAFRRReports(t *testing.T) {
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
		afrrreporthttp.Register(h.Server, afrrreport.NewService(b.AFRRDispatchEvents(), registry, b.Bids(), h.Clock))
		admin := h.AdminToken()
		for _, a := range []struct{ id, org string }{{"bess-1", "acme"}, {"b-1", "beta"}} {
			h.Do("POST", "/v1/assets", admin, map[string]any{"asset_id": a.id, "asset_name": a.id, "asset_type": "standalone",
				"location": "Cottbus", "organisation_id": a.org}).Expect(t, 201, "")
		}
		// bess-1 in two segments: bess-1.a is a virtual asset.
		segments := segmentation.NewService(b.Segmentations(), registry, b.Bids(), h.Clock)
		registry.SetVirtualResolver(segments)
		segmentationhttp.Register(h.Server, segments)
		writer := h.TokenFor("acme", auth.AssetWrite)
		h.Do("PUT", "/v1/assets/bess-1/segmentation", writer, map[string]any{"mode": "proportional",
			"segments": []any{map[string]any{"segment_id": "a", "name": "A", "share": 0.5}, map[string]any{"segment_id": "b", "name": "B", "share": 0.5}}}).
			Expect(t, 200, "")
		h.Do("POST", "/v1/assets/bess-1/segmentation/activate", writer, nil).Expect(t, 200, "")
		now := h.Clock.Now() // 2026-02-01T06:00Z, 07:00 Berlin
		q := func(i int) time.Time { return now.Add(time.Duration(i-4) * 15 * time.Minute) }
		price := decimal.RequireFromString("-12.4")
		delivered := event("bess-1", q(0), bids.Neg, -5, -5, -4.99, "")
		delivered.EnergyPrice = &price
		cp := decimal.RequireFromString("5")
		delivered.CapacityPrice = &cp
		if _, err := b.AFRRDispatchEvents().Insert(ctx, []afrrreport.Event{
			delivered,
			event("bess-1", q(1), bids.Neg, -5, 0, 0, afrrreport.ReasonUnavailable),
			event("bess-1", q(2), bids.Neg, -5, -5, -2, ""),
			event("bess-1", q(2), bids.Pos, 1, 1, 1, ""),
		}); err != nil {
			t.Fatal(err)
		}
		// bess-1 holds 10 MW of negative aFRR capacity for 04:00-08:00 UTC
		// and offered 10 MW of energy in q(0) and q(2), 6 in q(1).
		a, err := registry.Get(ctx, auth.Visibility{All: true}, "bess-1")
		if err != nil {
			t.Fatal(err)
		}
		capPrice := bids.EUR(20)
		award := bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "bess-1", Market: bids.AFRRCapacity, Product: bids.Neg,
			Start: now.Add(-2 * time.Hour), End: now.Add(2 * time.Hour), CapacityPrice: &capPrice, OfferedMW: 10, AwardedMW: f(10), Status: bids.Successful}
		if err := b.Bids().Apply(ctx, auth.Visibility{All: true}, a, bids.AFRRCapacity, award.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Insert: []bids.Bid{award}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		marginal := bids.Price(-1240)
		var energy []bids.Bid
		for i, mw := range []float64{10, 6, 10} {
			e := bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "bess-1", Market: bids.AFRREnergy, Product: bids.Neg,
				Start: q(i), End: q(i + 1), OfferedMW: mw, AwardedMW: f(5), Status: bids.Successful, SettlementPrice: &marginal}
			ep := bids.Price(-100)
			e.EnergyPrice = &ep
			energy = append(energy, e)
		}
		if err := b.Bids().Apply(ctx, auth.Visibility{All: true}, a, bids.AFRREnergy, award.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Insert: energy}, nil
		}); err != nil {
			t.Fatal(err)
		}

		acme, beta := h.TokenFor("acme", auth.ReportRead), h.TokenFor("beta", auth.ReportRead)
		base := "/v1/assets/bess-1/reports/afrr/"

		// Dispatches.
		var list afrrreporthttp.DispatchList
		h.Do("GET", base+"dispatches", acme, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 4 || len(list.Dispatches) != 4 || list.Limit != 100 || list.Offset != 0 {
			t.Fatalf("dispatches: %+v", list)
		}
		d := list.Dispatches[0]
		if d.EventID != delivered.ID || d.Direction != "neg" || d.SetPower != -5 || d.Accepted != -4.99 || d.Outcome != nil ||
			d.FilterReason != nil || d.DispatchCategory != "capacity_obligation" || !d.DispatchSlotUTC.Equal(q(0)) ||
			*d.EnergyPrice != "-12.40" || *d.CapacityPrice != "5.0000" || d.ActivationID != delivered.ActivationID {
			t.Fatalf("first dispatch: %+v", d)
		}
		if s := list.Dispatches[1]; *s.Outcome != "skipped" || *s.FilterReason != "unavailable" || s.FilterDetails == nil || s.EnergyPrice != nil {
			t.Fatalf("skipped dispatch: %+v", s)
		}
		if list.Dispatches[2].Direction != "pos" || *list.Dispatches[3].Outcome != "partial" {
			t.Fatalf("order pos before neg: %+v", list.Dispatches[2:])
		}
		h.Do("GET", base+"dispatches?limit=1&offset=1", acme, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 4 || len(list.Dispatches) != 1 || list.Offset != 1 || list.Limit != 1 {
			t.Fatalf("page: %+v", list)
		}
		h.Do("GET", base+"dispatches?start_time="+q(3).Format(time.RFC3339), acme, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 0 {
			t.Fatalf("after the events: %+v", list)
		}
		csv := get(t, h, base+"dispatches", acme)
		lines := strings.Split(strings.TrimSpace(csv), "\r\n")
		if len(lines) != 5 || !strings.HasPrefix(lines[0], "event_id,activation_id,request_id,asset_id,created_at_utc,direction,") ||
			!strings.Contains(lines[1], ",-12.40,5.0000") || !strings.Contains(lines[2], ",skipped,unavailable,") {
			t.Fatalf("dispatches CSV:\n%s", csv)
		}

		// Performance: hourly by default; 06:00 UTC is outside the events.
		var perf afrrreporthttp.Performance
		h.Do("GET", base+"performance", acme, nil).Expect(t, 200, "").JSON(t, &perf)
		if perf.AssetID != "bess-1" || perf.Granularity != "hourly" || len(perf.Periods) != 24 {
			t.Fatalf("performance: %+v", perf)
		}
		p := perf.Periods[23] // 05:00-06:00 UTC
		if !p.PeriodStart.Equal(q(0)) || p.DispatchCount != 4 || p.DispatchedCount != 3 || p.FilteredCount != 1 ||
			p.TotalSetPower != 11 || p.TotalAccepted != 7.99 || p.FillRatePct == nil || *p.FillRatePct != 72.64 {
			t.Fatalf("the hour of the events: %+v", p)
		}
		if perf.Periods[0].DispatchCount != 0 || perf.Periods[0].FillRatePct != nil {
			t.Fatalf("an hour without events: %+v", perf.Periods[0])
		}
		h.Do("GET", base+"performance?granularity=fifteen_minutes&start_time="+q(0).Format(time.RFC3339), acme, nil).Expect(t, 200, "").JSON(t, &perf)
		if len(perf.Periods) != 4 || perf.Periods[1].FillRatePct != nil || perf.Periods[1].FilteredCount != 1 || *perf.Periods[0].FillRatePct != 99.8 {
			t.Fatalf("quarter-hours: %+v", perf.Periods)
		}
		h.Do("GET", base+"performance?granularity=daily", acme, nil).Expect(t, 200, "").JSON(t, &perf)
		if len(perf.Periods) != 2 || !perf.Periods[1].PeriodStart.Equal(time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC)) {
			t.Fatalf("Berlin days: %+v", perf.Periods)
		}
		csv = get(t, h, base+"performance?granularity=daily", acme)
		if lines := strings.Split(strings.TrimSpace(csv), "\r\n"); len(lines) != 3 ||
			lines[0] != "period_start,granularity,dispatch_count,dispatched_count,filtered_count,total_set_power,total_accepted,fill_rate_pct" ||
			!strings.HasSuffix(lines[1], ",daily,0,0,0,0,0,") {
			t.Fatalf("performance CSV:\n%s", csv)
		}

		// Obligations: the award's quarter-hours in the window (the last
		// 24 hours: 04:00-06:00 UTC).
		var obl afrrreporthttp.ObligationList
		h.Do("GET", base+"obligations", acme, nil).Expect(t, 200, "").JSON(t, &obl)
		if obl.Total != 8 || len(obl.Obligations) != 8 {
			t.Fatalf("obligations: %+v", obl)
		}
		o := obl.Obligations[4] // q(0)
		if !o.QuarterHour.Equal(q(0)) || o.Direction != "neg" || o.AwardedMW != 10 || o.CapacityPrice != "20.0000" || o.OfferedMW != 10 ||
			o.ShortfallMW != 0 || o.ActivatedMW != 5 || *o.MarginalPrice != "-12.40" || *o.DeliveredMW != 4.99 || o.Status != "fulfilled" {
			t.Fatalf("q(0): %+v", o)
		}
		if o := obl.Obligations[5]; o.ShortfallMW != 4 || o.Status != "offer_shortfall" {
			t.Fatalf("q(1): %+v", o)
		}
		if o := obl.Obligations[6]; o.Status != "delivery_shortfall" || *o.DeliveredMW != 2 {
			t.Fatalf("q(2): %+v", o)
		}
		if o := obl.Obligations[0]; o.OfferedMW != 0 || o.Status != "offer_shortfall" || o.DeliveredMW != nil || o.MarginalPrice != nil {
			t.Fatalf("04:00: %+v", o)
		}
		h.Do("GET", base+"obligations?limit=2&offset=7", acme, nil).Expect(t, 200, "").JSON(t, &obl)
		if obl.Total != 8 || len(obl.Obligations) != 1 {
			t.Fatalf("obligations page: %+v", obl)
		}
		csv = get(t, h, base+"obligations?limit=1&offset=4", acme)
		if lines := strings.Split(strings.TrimSpace(csv), "\r\n"); len(lines) != 2 ||
			lines[1] != q(0).Format(time.RFC3339)+",neg,10,20.0000,10,0,5,-12.40,4.99,fulfilled" {
			t.Fatalf("obligations CSV:\n%s", csv)
		}
		// A virtual asset: its battery's dispatches and performance, its own
		// obligations (it holds no award).
		h.Do("GET", "/v1/assets/bess-1.a/reports/afrr/dispatches", acme, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Total != 4 || list.Dispatches[0].AssetID != "bess-1" {
			t.Fatalf("the virtual asset's dispatches: %+v", list)
		}
		h.Do("GET", "/v1/assets/bess-1.a/reports/afrr/performance?granularity=daily", acme, nil).Expect(t, 200, "").JSON(t, &perf)
		if perf.AssetID != "bess-1.a" || perf.Periods[1].DispatchCount != 4 {
			t.Fatalf("the virtual asset's performance: %+v", perf)
		}
		h.Do("GET", "/v1/assets/bess-1.a/reports/afrr/obligations", acme, nil).Expect(t, 200, "").JSON(t, &obl)
		if obl.Total != 0 {
			t.Fatalf("the virtual asset's obligations: %+v", obl)
		}
		h.Do("GET", "/v1/assets/b-1/reports/afrr/obligations", beta, nil).Expect(t, 200, "").JSON(t, &obl)
		if obl.Total != 0 || obl.Obligations == nil {
			t.Fatalf("without awards: %+v", obl)
		}

		// Errors, on every report.
		for _, r := range []string{"dispatches", "performance", "obligations"} {
			path := base + r
			h.Do("GET", path, "", nil).Expect(t, 401, "")
			h.Do("GET", path, h.TokenFor("acme", auth.AssetRead), nil).Expect(t, 403, "insufficient_scope")
			h.Do("GET", path, beta, nil).Expect(t, 404, "not_found")
			h.Do("GET", "/v1/assets/nope/reports/afrr/"+r, acme, nil).Expect(t, 404, "not_found")
			at := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
			h.Do("GET", path+"?start_time="+at(0)+"&end_time="+at(0), acme, nil).Expect(t, 422, "validation_failed")
			h.Do("GET", path+"?start_time="+at(-91*24*time.Hour), acme, nil).Expect(t, 422, "validation_failed")
			h.Do("GET", path+"?start_time=yesterday", acme, nil).Expect(t, 422, "")
			h.Do("GET", path+"?start_time="+at(-90*24*time.Hour), acme, nil).Expect(t, 200, "")
			h.Do("GET", path, admin, nil).Expect(t, 200, "")
		}
		for _, bad := range []string{"limit=0", "limit=1001", "offset=-1"} {
			h.Do("GET", base+"dispatches?"+bad, acme, nil).Expect(t, 422, "")
			h.Do("GET", base+"obligations?"+bad, acme, nil).Expect(t, 422, "")
		}
		h.Do("GET", base+"performance?granularity=weekly", acme, nil).Expect(t, 422, "")
	})
}

func f(v float64) *float64 { return &v }

// get reads path as CSV.
func get(t *testing.T, h *testkit.Harness, path, token string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/csv")
	r := h.Send(req).Expect(t, 200, "")
	return string(r.Body)
}
