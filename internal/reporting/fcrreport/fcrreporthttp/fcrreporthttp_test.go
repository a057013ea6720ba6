package fcrreporthttp_test

import (
	"context"
	"encoding/csv"
	"math"
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
	"atcp/internal/portfolio"
	"atcp/internal/reporting/fcrreport"
	"atcp/internal/reporting/fcrreport/fcrreporthttp"
	"atcp/internal/restrictions"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/chunk"
	"atcp/internal/testkit"
)

// writeHistory stores the asset's 1-second history of [from, to) as
// 10-minute chunks holding only the reports' columns (the others absent),
// directly through the telemetry store. gen returns the values of
// fcrreport.SampleNames for a second, ok false for a second without one.
func writeHistory(tb testing.TB, ts telemetry.Store, assetID string, from, to time.Time, gen func(t time.Time) ([]float64, bool)) {
	tb.Helper()
	cols := make([]int, len(fcrreport.SampleNames))
	width := 0
	for i, n := range fcrreport.SampleNames {
		cols[i], _ = telemetry.PointIndex(n)
		width = max(width, cols[i]+1)
	}
	var batch []telemetry.Chunk
	for start := from; start.Before(to); start = start.Add(10 * time.Minute) {
		end := min(start.Add(10*time.Minute).UnixMilli(), to.UnixMilli())
		var b chunk.Block
		b.Columns = make([][]float64, width)
		for t := start; t.UnixMilli() < end; t = t.Add(time.Second) {
			v, ok := gen(t)
			if !ok {
				continue
			}
			b.Times = append(b.Times, t.UnixMilli())
			for c := range b.Columns {
				b.Columns[c] = append(b.Columns[c], math.NaN())
			}
			for i, c := range cols {
				b.Columns[c][len(b.Times)-1] = v[i]
			}
		}
		if len(b.Times) == 0 {
			continue
		}
		data, err := chunk.Encode(b)
		if err != nil {
			tb.Fatal(err)
		}
		batch = append(batch, telemetry.Chunk{AssetID: assetID, Start: start, End: start.Add(10 * time.Minute), Points: len(b.Times), Data: data})
		if len(batch) == 100 {
			if err := ts.PutChunks(context.Background(), batch); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ts.PutChunks(context.Background(), batch); err != nil {
		tb.Fatal(err)
	}
}

type fixture struct {
	h          *testkit.Harness
	assets     *assets.Service
	acme, beta string
	t0         time.Time // an hour boundary, two hours before now
}

func setup(t *testing.T, b store.Backend) fixture {
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
	fcrreporthttp.Register(h.Server, fcrreport.NewService(fcrreport.Deps{Assets: registry, Bids: b.Bids(), Covers: b.CoverSteps(),
		Restrictions: b.Restrictions(), Telemetry: b.Telemetry(), Clock: h.Clock}))
	admin := h.AdminToken()
	for _, a := range []struct{ id, org string }{{"bess-1", "acme"}, {"bess-2", "acme"}, {"b-1", "beta"}} {
		h.Do("POST", "/v1/assets", admin, map[string]any{"asset_id": a.id, "asset_name": a.id, "asset_type": "standalone",
			"location": "Cottbus", "organisation_id": a.org}).Expect(t, 201, "")
	}
	now := h.Clock.Now()
	return fixture{h: h, assets: registry, acme: h.TokenFor("acme", auth.ReportRead), beta: h.TokenFor("beta", auth.ReportRead),
		t0: now.Truncate(time.Hour).Add(-2 * time.Hour)}
}

func (f fixture) window(from, to time.Duration) string {
	return "start_time=" + f.t0.Add(from).Format(time.RFC3339) + "&end_time=" + f.t0.Add(to).Format(time.RFC3339)
}

// csvOf asks for the CSV form and returns its records.
func (f fixture) csvOf(t *testing.T, path string) [][]string {
	t.Helper()
	req, err := http.NewRequest("GET", f.h.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.acme)
	req.Header.Set("Accept", "text/csv")
	r := f.h.Send(req).Expect(t, 200, "")
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("content type %s", ct)
	}
	recs, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// errorsOf checks the errors every report shares.
func (f fixture) errorsOf(t *testing.T, path string) {
	t.Helper()
	h := f.h
	h.Do("GET", "/v1/assets/bess-1/"+path, h.TokenFor("acme", auth.AssetRead), nil).Expect(t, 403, "insufficient_scope")
	h.Do("GET", "/v1/assets/bess-1/"+path, f.beta, nil).Expect(t, 404, "not_found")
	h.Do("GET", "/v1/assets/nope/"+path, f.acme, nil).Expect(t, 404, "not_found")
	h.Do("GET", "/v1/assets/bess-1/"+path, "", nil).Expect(t, 401, "")
	h.Do("GET", "/v1/assets/bess-1/"+path+"?"+f.window(time.Hour, time.Hour), f.acme, nil).Expect(t, 422, "validation_failed")
	h.Do("GET", "/v1/assets/bess-1/"+path+"?start_time=yesterday", f.acme, nil).Expect(t, 422, "")
}

func TestReservations(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := setup(t, b)
		ctx, all := context.Background(), auth.Visibility{All: true}
		a, err := assets.NewService(b.Assets(), f.h.Clock).Get(ctx, all, "bess-1")
		if err != nil {
			t.Fatal(err)
		}
		price, settled, mw := bids.EUR(10), bids.Price(1234), 8.0
		award := func(start time.Time, status bids.Status) bids.Bid {
			return bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "bess-1", Market: bids.FCR, Product: bids.Sym,
				Start: start, End: start.Add(4 * time.Hour), CapacityPrice: &price, SettlementPrice: &settled, OfferedMW: mw, AwardedMW: &mw, Status: status}
		}
		first, second, rejected := award(f.t0.Add(-2*time.Hour), bids.Successful), award(f.t0.Add(2*time.Hour), bids.Successful),
			award(f.t0.Add(6*time.Hour), bids.Rejected)
		for _, bid := range []bids.Bid{first, second, rejected} {
			if err := b.Bids().Apply(ctx, all, a, bids.FCR, bid.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
				return bids.Changes{Insert: []bids.Bid{bid}}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		// bess-1 fails 4 of its 8 MW for an hour, bess-2 covers; bess-1
		// covers 1 MW of bess-2's for two hours.
		qh, cover := f.t0, decimal.RequireFromString("20")
		steps := []portfolio.Step{
			{ID: uuid.NewString(), OrganizationID: "acme", PoolID: "north", QuarterHour: qh, From: f.t0, To: f.t0.Add(time.Hour),
				Assignment: portfolio.Assignment{Product: portfolio.FCR, Failing: "bess-1", Covering: "bess-2", MW: 4, ObligationMW: 8, Price: &cover, PriceSource: "default"}},
			{ID: uuid.NewString(), OrganizationID: "acme", PoolID: "north", QuarterHour: qh, From: f.t0.Add(-time.Hour), To: f.t0.Add(time.Hour),
				Assignment: portfolio.Assignment{Product: portfolio.FCR, Failing: "bess-2", Covering: "bess-1", MW: 1, ObligationMW: 1, Price: &cover, PriceSource: "default"}},
		}
		if err := b.CoverSteps().Supersede(ctx, qh, nil, steps); err != nil {
			t.Fatal(err)
		}
		path := "/v1/assets/bess-1/reports/fcr/reservations?" + f.window(-time.Hour, 3*time.Hour)
		var got fcrreporthttp.ReservationList
		f.h.Do("GET", path, f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Total != 2 || len(got.Reservations) != 2 || got.Limit != 100 {
			t.Fatalf("reservations: %+v", got)
		}
		r := got.Reservations[0]
		if r.BidID != first.ID || !r.BlockStart.Equal(first.Start) || r.AwardedMW != 8 || *r.SettlementPrice != "12.34" ||
			*r.CapacityPayment != "98.72" || r.CoveredByPoolMW != 1 || r.UncoveredMW != 0 || r.CoveredForOthersMW != 0.5 || r.Status != "delivered" {
			t.Fatalf("the delivered block: %+v", r)
		}
		if got.Reservations[1].Status != "in_delivery" || got.Reservations[1].CoveredByPoolMW != 0 {
			t.Fatalf("the block in delivery: %+v", got.Reservations[1])
		}
		f.h.Do("GET", path+"&limit=1&offset=1", f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Total != 2 || len(got.Reservations) != 1 || got.Reservations[0].BidID != second.ID {
			t.Fatalf("second page: %+v", got)
		}
		// The overlap rule: a window ending where the first block starts.
		f.h.Do("GET", "/v1/assets/bess-1/reports/fcr/reservations?"+f.window(-4*time.Hour, -2*time.Hour), f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Total != 0 || got.Reservations == nil {
			t.Fatalf("before the blocks: %+v", got)
		}
		recs := f.csvOf(t, path)
		if len(recs) != 3 || recs[0][0] != "bid_id" || recs[1][4] != "12.34" || recs[1][5] != "98.72" || recs[1][9] != "delivered" {
			t.Fatalf("CSV: %q", recs)
		}
		f.errorsOf(t, "reports/fcr/reservations")
		f.h.Do("GET", path+"&limit=1001", f.acme, nil).Expect(t, 422, "validation_failed")
		f.h.Do("GET", path+"&offset=-1", f.acme, nil).Expect(t, 422, "validation_failed")
		f.h.Do("GET", "/v1/assets/bess-1/reports/fcr/reservations?"+f.window(-91*24*time.Hour, 0), f.acme, nil).Expect(t, 422, "validation_failed")
	})
}

// history writes bess-1's two hours from t0: FCR 4 MW reserved at 49.9 Hz
// delivering 2 MW (exactly the droop) the first hour; the second hour at
// 50.1 Hz delivering only -1 MW of the -2 required, asset_status 0 from
// +1:00 to +1:15, no telemetry from +1:45.
func history(t *testing.T, f fixture) {
	writeHistory(t, f.h.Backend.Telemetry(), "bess-1", f.t0, f.t0.Add(2*time.Hour), func(at time.Time) ([]float64, bool) {
		d := at.Sub(f.t0)
		switch {
		case d < time.Hour:
			return []float64{49.9, 4, 2, 5, 5, 1}, true
		case d < 75*time.Minute:
			return []float64{50.1, 4, -1, 5, 5, 0}, true
		case d < 105*time.Minute:
			return []float64{50.1, 4, -1, 5, 5, 1}, true
		}
		return nil, false
	})
}

func TestDelivery(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := setup(t, b)
		history(t, f)
		path := "/v1/assets/bess-1/reports/fcr/delivery?" + f.window(0, 2*time.Hour)
		var got fcrreporthttp.DeliveryReport
		f.h.Do("GET", path, f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Granularity != "hourly" || got.MeasuredAssetID != "bess-1" || len(got.Periods) != 2 {
			t.Fatalf("delivery: %+v", got)
		}
		p0, p1 := got.Periods[0], got.Periods[1]
		if p0.Seconds != 3600 || p0.ReservedSeconds != 3600 || *p0.ReservedMeanMW != 4 || p0.RequiredPosMWh != 2 || p0.DeliveredPosMWh != 2 ||
			*p0.FillRatePct != 100 || p0.SecondsOutsideTolerance != 0 || p0.SecondsWithoutTelemetry != 0 {
			t.Fatalf("first hour: %+v", p0)
		}
		if p1.ReservedSeconds != 2700 || p1.RequiredNegMWh != 1.5 || p1.DeliveredNegMWh != 0.75 || *p1.FillRatePct != 50 ||
			p1.SecondsOutsideTolerance != 2700 || p1.SecondsWithoutTelemetry != 900 {
			t.Fatalf("second hour: %+v", p1)
		}
		f.h.Do("GET", path+"&granularity=fifteen_minutes", f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Periods) != 8 || got.Periods[7].SecondsWithoutTelemetry != 900 {
			t.Fatalf("quarter-hours: %+v", got.Periods)
		}
		recs := f.csvOf(t, path)
		if len(recs) != 3 || recs[0][0] != "period_start" || recs[2][9] != "50" {
			t.Fatalf("CSV: %q", recs)
		}
		f.errorsOf(t, "reports/fcr/delivery")
		f.h.Do("GET", path+"&granularity=weekly", f.acme, nil).Expect(t, 422, "validation_failed")
		// At most 30 days, and no further back than the retention.
		now := f.h.Clock.Now()
		f.h.Do("GET", "/v1/assets/bess-1/reports/fcr/delivery?start_time="+now.Add(-31*24*time.Hour).Format(time.RFC3339), f.acme, nil).
			Expect(t, 422, "validation_failed")
		f.h.Do("GET", "/v1/assets/bess-1/reports/fcr/delivery?start_time="+now.Add(-30*24*time.Hour).Format(time.RFC3339), f.acme, nil).
			Expect(t, 200, "")
		f.h.Do("GET", "/v1/assets/bess-1/reports/fcr/delivery?start_time="+now.Add(-32*24*time.Hour).Format(time.RFC3339)+
			"&end_time="+now.Add(-31*24*time.Hour).Format(time.RFC3339), f.acme, nil).Expect(t, 422, "validation_failed")
	})
}

func TestActivations(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := setup(t, b)
		history(t, f)
		path := "/v1/assets/bess-1/reports/fcr/activations?" + f.window(0, 2*time.Hour)
		var got fcrreporthttp.ActivationReport
		f.h.Do("GET", path, f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.Granularity != nil || len(got.Periods) != 1 || got.Periods[0].FrequencySeconds != 6300 || len(got.Periods[0].Bands) != 9 {
			t.Fatalf("activations: %+v", got)
		}
		below, above := got.Periods[0].Bands[2], got.Periods[0].Bands[6]
		if below.Band != "below_50_100" || *below.MinDeviationMHz != -100 || below.Seconds != 3600 || *below.MeanRequiredMW != 2 ||
			*below.MeanDeliveredMW != 2 || below.RequiredMWh != 2 {
			t.Fatalf("below 50 Hz: %+v", below)
		}
		if above.Band != "above_50_100" || above.Seconds != 2700 || *above.MeanRequiredMW != -2 || *above.MeanDeliveredMW != -1 ||
			above.DeliveredMWh != -0.75 || above.ReservedSeconds != 2700 {
			t.Fatalf("above 50 Hz: %+v", above)
		}
		f.h.Do("GET", path+"&granularity=hourly", f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if *got.Granularity != "hourly" || len(got.Periods) != 2 || got.Periods[1].Bands[6].Seconds != 2700 {
			t.Fatalf("hourly: %+v", got)
		}
		recs := f.csvOf(t, path)
		if len(recs) != 10 || recs[3][4] != "below_50_100" || recs[1][5] != "" {
			t.Fatalf("CSV: %q", recs)
		}
		f.errorsOf(t, "reports/fcr/activations")
		f.h.Do("GET", path+"&granularity=minutely", f.acme, nil).Expect(t, 422, "validation_failed")
	})
}

func TestAvailability(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := setup(t, b)
		history(t, f)
		// A full unavailability from +1:30 to +1:50, a partial power limit
		// over the first half hour.
		upper, lower := 5.0, -5.0
		end1, end2 := f.t0.Add(110*time.Minute), f.t0.Add(30*time.Minute)
		for _, iv := range []restrictions.Interval{
			{Kind: restrictions.Unavailability, OrganizationID: "acme", AssetID: "bess-1", Start: f.t0.Add(90 * time.Minute), End: &end1, Reason: "maintenance"},
			{Kind: restrictions.PowerLimit, OrganizationID: "acme", AssetID: "bess-1", Start: f.t0, End: &end2, Upper: &upper, Lower: &lower, Reason: "grid_event"},
		} {
			if _, err := b.Restrictions().MutateIntervals(context.Background(), "acme", "bess-1", iv.Kind, func([]restrictions.Interval) (restrictions.Change, error) {
				return restrictions.Change{Op: restrictions.OpInsert, Interval: iv}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		path := "/v1/assets/bess-1/reports/availability?" + f.window(0, 2*time.Hour)
		var got fcrreporthttp.AvailabilityReport
		f.h.Do("GET", path, f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if len(got.Periods) != 2 {
			t.Fatalf("availability: %+v", got)
		}
		p0, p1 := got.Periods[0], got.Periods[1]
		if p0.SecondsLimited != 1800 || p0.SecondsAvailable != 1800 || p0.AvailabilityPct != 100 {
			t.Fatalf("first hour: %+v", p0)
		}
		if p1.SecondsStatusZero != 900 || p1.SecondsAvailable != 900 || p1.SecondsUnavailable != 1200 || p1.SecondsNoTelemetry != 600 ||
			p1.AvailabilityPct != 25 {
			t.Fatalf("second hour: %+v", p1)
		}
		recs := f.csvOf(t, path+"&granularity=daily")
		if len(recs) != 2 || recs[0][8] != "availability_pct" || recs[1][2] != "7200" {
			t.Fatalf("CSV: %q", recs)
		}
		f.errorsOf(t, "reports/availability")
		f.h.Do("GET", path+"&granularity=yearly", f.acme, nil).Expect(t, 422, "validation_failed")
	})
}

// A virtual asset lists its own awards, bearing its share of its
// battery's shortfall and covering nobody; its measured reports are its
// battery's.
func TestVirtualAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := setup(t, b)
		ctx, all := context.Background(), auth.Visibility{All: true}
		svc := segmentation.NewService(b.Segmentations(), f.assets, b.Bids(), f.h.Clock)
		f.assets.SetVirtualResolver(svc)
		acme := auth.Visibility{OrganizationID: "acme"}
		if _, err := svc.Put(ctx, acme, "bess-1", segmentation.Proportional,
			[]segmentation.Segment{{ID: "a", Name: "A", Share: 0.5}, {ID: "b", Name: "B", Share: 0.5}}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Activate(ctx, acme, "bess-1"); err != nil {
			t.Fatal(err)
		}
		va, err := f.assets.Get(ctx, all, "bess-1.a")
		if err != nil {
			t.Fatal(err)
		}
		price, mw := bids.Price(1000), 4.0
		award := bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "bess-1.a", Market: bids.FCR, Product: bids.Sym,
			Start: f.t0, End: f.t0.Add(4 * time.Hour), CapacityPrice: &price, SettlementPrice: &price, OfferedMW: mw, AwardedMW: &mw, Status: bids.Successful}
		if err := b.Bids().Apply(ctx, all, va, bids.FCR, award.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Insert: []bids.Bid{award}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		cover := decimal.RequireFromString("20")
		steps := []portfolio.Step{
			{ID: uuid.NewString(), OrganizationID: "acme", PoolID: "north", QuarterHour: f.t0, From: f.t0, To: f.t0.Add(time.Hour),
				Assignment: portfolio.Assignment{Product: portfolio.FCR, Failing: "bess-1", Covering: "bess-2", MW: 4, ObligationMW: 8, Price: &cover, PriceSource: "default"}},
			{ID: uuid.NewString(), OrganizationID: "acme", PoolID: "north", QuarterHour: f.t0, From: f.t0, To: f.t0.Add(time.Hour),
				Assignment: portfolio.Assignment{Product: portfolio.FCR, Failing: "bess-2", Covering: "bess-1", MW: 1, ObligationMW: 1, Price: &cover, PriceSource: "default"}},
		}
		if err := b.CoverSteps().Supersede(ctx, f.t0, nil, steps); err != nil {
			t.Fatal(err)
		}
		var got fcrreporthttp.ReservationList
		f.h.Do("GET", "/v1/assets/bess-1.a/reports/fcr/reservations?"+f.window(0, time.Hour), f.acme, nil).Expect(t, 200, "").JSON(t, &got)
		if got.AssetID != "bess-1.a" || len(got.Reservations) != 1 || got.Reservations[0].CoveredByPoolMW != 0.5 ||
			got.Reservations[0].CoveredForOthersMW != 0 || *got.Reservations[0].CapacityPayment != "40.00" {
			t.Fatalf("the segment's reservations: %+v", got)
		}
		history(t, f)
		var d fcrreporthttp.DeliveryReport
		f.h.Do("GET", "/v1/assets/bess-1.a/reports/fcr/delivery?"+f.window(0, time.Hour), f.acme, nil).Expect(t, 200, "").JSON(t, &d)
		if d.AssetID != "bess-1.a" || d.MeasuredAssetID != "bess-1" || len(d.Periods) != 1 || d.Periods[0].RequiredPosMWh != 2 {
			t.Fatalf("the segment's delivery: %+v", d)
		}
		f.h.Do("GET", "/v1/assets/bess-1.a/reports/availability?"+f.window(0, time.Hour), f.beta, nil).Expect(t, 404, "not_found")
		f.h.Do("GET", "/v1/assets/bess-1.c/reports/fcr/activations", f.acme, nil).Expect(t, 404, "not_found")
	})
}
