package settlement_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// fakeSteps are the cover steps of the pool dispatch, per quarter-hour.
type fakeSteps struct {
	mu    sync.Mutex
	steps map[time.Time][]settlement.CoverStep
	err   error
}

func (f *fakeSteps) StepsIn(_ context.Context, q time.Time) ([]settlement.CoverStep, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.steps[q], f.err
}

func at(hhmm string) time.Time {
	t, err := time.Parse(time.RFC3339, "2026-02-02T"+hhmm+":00Z")
	if err != nil {
		panic(err)
	}
	return t
}

// jobEnv registers acme with the assets h (award holder), c1 (coverer).
func jobEnv(t *testing.T, b store.Backend) {
	t.Helper()
	ctx := context.Background()
	if err := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"h", "c1"} {
		a := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
		a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
		if _, err := b.Assets().Create(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
}

var all = auth.Visibility{All: true}

func seed(t *testing.T, b store.Backend, x bids.Bid) {
	t.Helper()
	x.OrganizationID, x.CreatedAt, x.UpdatedAt = "acme", testkit.Start, testkit.Start
	if err := b.Bids().Apply(context.Background(), all, assets.Asset{ID: x.AssetID}, x.Market, x.Interval(),
		func(assets.Asset, []bids.Bid) (bids.Changes, error) { return bids.Changes{Insert: []bids.Bid{x}}, nil }); err != nil {
		t.Fatal(err)
	}
}

func energy(id string, q time.Time, status bids.Status) bids.Bid {
	price := bids.EUR(0)
	return bids.Bid{ID: id, AssetID: "h", Market: bids.AFRREnergy, Product: bids.Neg, Start: q, End: q.Add(calendar.PeriodLength),
		EnergyPrice: &price, OfferedMW: 10, Status: status}
}

// figures reads h's and c1's blocks as "asset hh:mm product revenue/fee/penalty"
// and their processed_at.
func figures(t *testing.T, b store.Backend) (map[string]string, map[string]time.Time) {
	t.Helper()
	blocks, err := b.Settlements().Blocks(context.Background(), all, "acme", []string{"h", "c1"},
		calendar.Interval{Start: at("00:00"), End: at("23:45")})
	if err != nil {
		t.Fatal(err)
	}
	out, processed := map[string]string{}, map[string]time.Time{}
	for _, x := range blocks {
		key := x.AssetID + " " + x.Start.Format("15:04")
		processed[key] = x.ProcessedAt
		for k, f := range x.Products {
			out[key+" "+string(k)] = fmt.Sprintf("%s/%s/%s", f.Revenue.StringFixed(2), f.BackupFee.StringFixed(2), f.Penalty.StringFixed(2))
		}
	}
	return out, processed
}

func expect(t *testing.T, got map[string]string, want map[string]string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("figures\n got %v\nwant %v", got, want)
	}
}

func progress(t *testing.T, b store.Backend) time.Time {
	t.Helper()
	p, ok, err := b.Settlements().Progress(context.Background())
	if err != nil || !ok {
		t.Fatalf("progress %v %v", ok, err)
	}
	return p
}

// TestSettler runs the job through a delivery: a quarter-hour waits for
// its energy outcome, identical recomputations keep processed_at, changed
// cover steps change it, a stuck bid waits only the lookback, and a run
// after a pause catches up.
func TestSettler(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		jobEnv(t, b)
		// 10 MW neg at its own 2.65 EUR/MW/h for 04-08 CET of 2026-02-02.
		price, awarded := bids.Price(265), 10.0
		seed(t, b, bids.Bid{ID: "00000000-0000-7000-8000-000000000001", AssetID: "h", Market: bids.AFRRCapacity, Product: bids.Neg,
			Start: at("03:00"), End: at("07:00"), CapacityPrice: &price, EnergyPrice: &price, OfferedMW: 10, AwardedMW: &awarded,
			Status: bids.Successful, SettlementPrice: &price})
		seed(t, b, energy("00000000-0000-7000-8000-000000000010", at("03:00"), bids.Rejected))
		seed(t, b, energy("00000000-0000-7000-8000-000000000011", at("03:15"), bids.Submitted))
		seed(t, b, energy("00000000-0000-7000-8000-000000000012", at("03:30"), bids.Submitted)) // never clears
		fifty := decimal.RequireFromString("50")
		steps := &fakeSteps{steps: map[time.Time][]settlement.CoverStep{at("03:15"): {
			{OrganizationID: "acme", QuarterHour: at("03:15"), Product: settlement.StepNeg, FailingAssetID: "h", CoveringAssetID: "c1",
				MW: 4, ObligationMW: 10, From: at("03:15"), To: at("03:20"), BackupPrice: &fifty},
			{OrganizationID: "acme", QuarterHour: at("03:15"), Product: settlement.StepNeg, FailingAssetID: "h",
				MW: 2, ObligationMW: 10, From: at("03:15"), To: at("03:30")},
		}}}
		clk := clock.NewManual(at("03:30").Add(10 * time.Second))
		job := settlement.NewSettler(b.Settlements(), steps, clk)
		if js := job.Jobs(); len(js) != 1 || js[0].Name != "settlement.compute" || js[0].Every != 5*time.Minute {
			t.Fatalf("jobs %+v", js)
		}

		// 03:30: 03:00 is settled (round(6.625) = 6.63 for the first
		// quarter-hour); 03:15 waits for its energy outcome.
		if err := job.Run(ctx, at("03:30")); err != nil {
			t.Fatal(err)
		}
		got, processed := figures(t, b)
		expect(t, got, map[string]string{"h 03:00 afrrc_neg_4h": "6.63/0.00/0.00", "h 03:00 afrre_neg": "0.00/0.00/0.00"})
		if p := progress(t, b); !p.Equal(at("03:15")) {
			t.Fatalf("progress %s", p)
		}
		first := processed["h 03:00"]

		// The outcome arrives: activated 3.1 MW at -123.05 (reBAP 04:15 CET).
		activated, marginal := 3.1, bids.Price(-12305)
		if _, err := b.Bids().RecordOutcomes(ctx, []bids.Outcome{{Ref: bids.Ref{AssetID: "h", ID: "00000000-0000-7000-8000-000000000011"},
			Status: bids.Successful, AwardedMW: &activated, SettlementPrice: &marginal}}, clk.Now()); err != nil {
			t.Fatal(err)
		}
		clk.Set(at("03:35").Add(10 * time.Second))
		if err := job.Run(ctx, at("03:35")); err != nil {
			t.Fatal(err)
		}
		settled := map[string]string{
			"h 03:00 afrrc_neg_4h": "6.63/0.00/0.00", "h 03:00 afrre_neg": "0.00/0.00/0.00",
			"h 03:15 afrrc_neg_4h": "6.62/0.00/1.32", "h 03:15 afrre_neg": "-76.29/5.17/19.07",
			"c1 03:15 afrre_neg_backup": "5.17/0.00/0.00",
		}
		got, processed = figures(t, b)
		expect(t, got, settled)
		if !processed["h 03:00"].Equal(first) || !processed["h 03:15"].Equal(clk.Now()) || !processed["c1 03:15"].Equal(clk.Now()) {
			t.Fatalf("processed_at %v", processed)
		}
		if p := progress(t, b); !p.Equal(at("03:30")) {
			t.Fatalf("progress %s", p)
		}

		// Nothing changed: processed_at stays.
		before := processed
		clk.Set(at("03:40").Add(10 * time.Second))
		if err := job.Run(ctx, at("03:40")); err != nil {
			t.Fatal(err)
		}
		got, processed = figures(t, b)
		expect(t, got, settled)
		if fmt.Sprint(processed) != fmt.Sprint(before) {
			t.Fatalf("processed_at moved without a change: %v, was %v", processed, before)
		}

		// A late cover step's price changes: 0.775 x 0.4 x 1/3 x 60 = 6.20.
		sixty := decimal.RequireFromString("60")
		steps.mu.Lock()
		steps.steps[at("03:15")][0].BackupPrice = &sixty
		steps.mu.Unlock()
		clk.Set(at("03:45").Add(10 * time.Second))
		if err := job.Run(ctx, at("03:45")); err != nil {
			t.Fatal(err)
		}
		settled["h 03:15 afrre_neg"], settled["c1 03:15 afrre_neg_backup"] = "-76.29/6.20/19.07", "6.20/0.00/0.00"
		got, processed = figures(t, b)
		expect(t, got, settled)
		if !processed["h 03:00"].Equal(first) || !processed["h 03:15"].Equal(clk.Now()) || !processed["c1 03:15"].Equal(clk.Now()) {
			t.Fatalf("processed_at %v", processed)
		}

		// 03:30's bid never clears: it waits while within the lookback...
		if p := progress(t, b); !p.Equal(at("03:30")) {
			t.Fatalf("progress %s", p)
		}
		if err := job.Run(ctx, at("05:30")); err != nil {
			t.Fatal(err)
		}
		if _, ok := processed["h 03:30"]; ok {
			t.Fatal("03:30 settled before its outcome")
		}
		if p := progress(t, b); !p.Equal(at("03:30")) {
			t.Fatalf("progress %s", p)
		}
		// ...and is settled without it once older: the bid reached the
		// market (no shortfall) but earned nothing.
		if err := job.Run(ctx, at("05:45")); err != nil {
			t.Fatal(err)
		}
		got, _ = figures(t, b)
		if got["h 03:30 afrrc_neg_4h"] != "6.63/0.00/0.00" || got["h 03:30 afrre_neg"] != "" {
			t.Fatalf("03:30 settled as %v", got)
		}
		if p := progress(t, b); !p.Equal(at("05:45")) {
			t.Fatalf("progress %s", p)
		}

		// A failing read stops the run and keeps the progress.
		steps.mu.Lock()
		steps.err = errors.New("pool store away")
		steps.mu.Unlock()
		if err := job.Run(ctx, at("12:00")); err == nil {
			t.Fatal("the run ignored the failing cover steps")
		}
		if p := progress(t, b); !p.Equal(at("05:45")) {
			t.Fatalf("progress after a failed run %s", p)
		}
		steps.mu.Lock()
		steps.err = nil
		steps.mu.Unlock()

		// After a pause the run catches up from its progress, beyond the
		// lookback: 06:45, the award's last quarter-hour, has its figures
		// (no energy offered: 10 MW shortfall withholds it all).
		if err := job.Run(ctx, at("12:00")); err != nil {
			t.Fatal(err)
		}
		got, _ = figures(t, b)
		if got["h 06:45 afrrc_neg_4h"] != "6.62/0.00/6.62" {
			t.Fatalf("06:45 settled as %q", got["h 06:45 afrrc_neg_4h"])
		}
		if p := progress(t, b); !p.Equal(at("12:00")) {
			t.Fatalf("progress %s", p)
		}
	})
}

// TestSettlerFirstRun: without progress, the first run settles the
// lookback only.
func TestSettlerFirstRun(t *testing.T) {
	b := testkit.OpenSQLite(t)
	jobEnv(t, b)
	price, awarded := bids.Price(265), 10.0
	seed(t, b, bids.Bid{ID: "00000000-0000-7000-8000-000000000001", AssetID: "h", Market: bids.AFRRCapacity, Product: bids.Neg,
		Start: at("03:00"), End: at("07:00"), CapacityPrice: &price, EnergyPrice: &price, OfferedMW: 10, AwardedMW: &awarded,
		Status: bids.Successful, SettlementPrice: &price})
	job := settlement.NewSettler(b.Settlements(), &fakeSteps{}, clock.NewManual(at("07:00")))
	if err := job.Run(context.Background(), at("07:00")); err != nil {
		t.Fatal(err)
	}
	_, processed := figures(t, b)
	if len(processed) != 8 {
		t.Fatalf("%d blocks, want the lookback's 8: %v", len(processed), processed)
	}
	for k := range processed {
		if k < "h 05:00" {
			t.Fatalf("block %s before the lookback", k)
		}
	}
}
