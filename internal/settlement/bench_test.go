package settlement_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

const benchAssets = 1000

// benchQ is 10:15-10:30 CET of 2026-02-02, in the FCR and aFRR block 08-12.
var benchQ = time.Date(2026, 2, 2, 9, 15, 0, 0, time.UTC)

// benchInputs are a quarter-hour of benchAssets assets: each holds an FCR
// award, a neg aFRR capacity award and an activated neg energy bid; every
// asset fails 1 or 2 MW (alt) of its neg obligation for the quarter-hour,
// covered for the first five minutes by the next asset at a backup price
// and uncovered for the rest.
func benchInputs(alt float64) ([]bids.Bid, []settlement.CoverStep) {
	block := calendar.Interval{Start: time.Date(2026, 2, 2, 7, 0, 0, 0, time.UTC), End: time.Date(2026, 2, 2, 11, 0, 0, 0, time.UTC)}
	fcrPrice, capPrice, marginal, energyPrice := bids.Price(5153), bids.Price(100), bids.Price(-12989), bids.Price(-5000)
	ten, activated := 10.0, 3.1
	backup := decimal.RequireFromString("85.50")
	var in []bids.Bid
	var steps []settlement.CoverStep
	for i := range benchAssets {
		id := fmt.Sprintf("bench-%04d", i)
		in = append(in,
			bids.Bid{ID: fmt.Sprintf("00000000-0000-7000-8001-%012d", i), OrganizationID: "acme", AssetID: id, Market: bids.FCR, Product: bids.Sym,
				Start: block.Start, End: block.End, CapacityPrice: &fcrPrice, OfferedMW: 10, AwardedMW: &ten, Status: bids.Successful, SettlementPrice: &fcrPrice},
			bids.Bid{ID: fmt.Sprintf("00000000-0000-7000-8002-%012d", i), OrganizationID: "acme", AssetID: id, Market: bids.AFRRCapacity, Product: bids.Neg,
				Start: block.Start, End: block.End, CapacityPrice: &capPrice, EnergyPrice: &energyPrice, OfferedMW: 10, AwardedMW: &ten,
				Status: bids.Successful, SettlementPrice: &capPrice},
			bids.Bid{ID: fmt.Sprintf("00000000-0000-7000-8003-%012d", i), OrganizationID: "acme", AssetID: id, Market: bids.AFRREnergy, Product: bids.Neg,
				Start: benchQ, End: benchQ.Add(calendar.PeriodLength), EnergyPrice: &energyPrice, OfferedMW: 10, AwardedMW: &activated,
				Status: bids.Successful, SettlementPrice: &marginal},
		)
		steps = append(steps,
			settlement.CoverStep{OrganizationID: "acme", QuarterHour: benchQ, Product: settlement.StepNeg, FailingAssetID: id,
				CoveringAssetID: fmt.Sprintf("bench-%04d", (i+1)%benchAssets), MW: alt, ObligationMW: 10,
				From: benchQ, To: benchQ.Add(5 * time.Minute), BackupPrice: &backup},
			settlement.CoverStep{OrganizationID: "acme", QuarterHour: benchQ, Product: settlement.StepNeg, FailingAssetID: id,
				MW: alt, ObligationMW: 10, From: benchQ.Add(5 * time.Minute), To: benchQ.Add(calendar.PeriodLength)},
		)
	}
	return in, steps
}

// BenchmarkCompute: the figures of one quarter-hour of 1,000 assets, the
// arithmetic alone.
func BenchmarkCompute(b *testing.B) {
	in, steps := benchInputs(1)
	b.ReportAllocs()
	for b.Loop() {
		blocks, err := settlement.Compute(benchQ, in, steps)
		if err != nil || len(blocks) != benchAssets {
			b.Fatal(len(blocks), err)
		}
	}
}

// BenchmarkSettle: one quarter-hour of 1,000 assets through the store:
// reading its bids, computing, comparing with what is stored; unchanged
// (the job's every run over the lookback) and with every block changed
// (the first computation, or new cover steps for all).
func BenchmarkSettle(b *testing.B) {
	forEachSettleBackend(b, func(b *testing.B, backend store.Backend, analyze func()) {
		ctx := context.Background()
		in, steps := benchInputs(1)
		_, other := benchInputs(2)
		if err := identity.NewDirectory(backend.Directory(), clock.NewManual(testkit.Start), "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
			b.Fatal(err)
		}
		for i := range benchAssets {
			a := assets.NewAsset(fmt.Sprintf("bench-%04d", i), "acme", "bench", "Kiel", assets.Standalone)
			a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
			if _, err := backend.Assets().Create(ctx, a); err != nil {
				b.Fatal(err)
			}
		}
		for _, x := range in {
			x.CreatedAt, x.UpdatedAt = testkit.Start, testkit.Start
			if err := backend.Bids().Apply(ctx, all, assets.Asset{ID: x.AssetID}, x.Market, x.Interval(),
				func(assets.Asset, []bids.Bid) (bids.Changes, error) { return bids.Changes{Insert: []bids.Bid{x}}, nil }); err != nil {
				b.Fatal(err)
			}
		}
		analyze()
		src := &fakeSteps{steps: map[time.Time][]settlement.CoverStep{benchQ: steps}}
		clk := clock.NewManual(benchQ.Add(20 * time.Minute))
		job := settlement.NewSettler(backend.Settlements(), src, clk)
		if _, err := job.Settle(ctx, benchQ, true); err != nil {
			b.Fatal(err)
		}
		b.Run("unchanged", func(b *testing.B) {
			for b.Loop() {
				if _, err := job.Settle(ctx, benchQ, true); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("all changed", func(b *testing.B) {
			sets := [][]settlement.CoverStep{other, steps}
			i := 0
			for b.Loop() {
				src.mu.Lock()
				src.steps[benchQ] = sets[i%2]
				src.mu.Unlock()
				i++
				clk.Advance(time.Second)
				if _, err := job.Settle(ctx, benchQ, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// forEachSettleBackend runs f on a SQLite file and, when configured,
// PostgreSQL, analysed after seeding (as a long-lived database is by
// autovacuum).
func forEachSettleBackend(b *testing.B, f func(b *testing.B, backend store.Backend, analyze func())) {
	b.Run("sqlite", func(b *testing.B) { f(b, testkit.OpenSQLiteFile(b), func() {}) })
	if testkit.PostgresURL() == "" {
		return
	}
	b.Run("postgres", func(b *testing.B) {
		ctx := context.Background()
		url := testkit.PostgresSchemaURL(b)
		backend, err := store.Open(ctx, url, "")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { backend.Close() })
		if err := backend.Migrate(ctx); err != nil {
			b.Fatal(err)
		}
		f(b, backend, func() {
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
				b.Fatal(err)
			}
		})
	})
}
