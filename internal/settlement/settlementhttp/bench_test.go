package settlementhttp

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// benchAssets is the fleet of the benchmark.
const benchAssets = 100

// seedMonth stores February 2026 (28 Berlin days, 2,688 quarter-hours)
// for benchAssets assets: the quarter-hours q with q%3 == 0 hold an FCR
// figure, q%3 == 1 an aFRR capacity and an aFRR energy figure (with a
// backup fee every 4th), every 50th also an fcr_backup figure; q%3 == 2
// nothing. 100 x 2,688 slots: 89,600 blocks with FCR, 89,600 with aFRR,
// 5,400 fcr_backup rows: about 270,000 figure rows and 180,000 blocks.
func seedMonth(b *testing.B, be store.Backend) (*settlement.Service, calendar.Interval) {
	b.Helper()
	ctx := context.Background()
	clk := clock.NewManual(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) // every day of February is PRELIMINARY (FINAL from 2 March on)
	if err := identity.NewDirectory(be.Directory(), clk, "http://bench").EnsureOrganization(ctx, "acme", "acme"); err != nil {
		b.Fatal(err)
	}
	registry := assets.NewService(be.Assets(), clk)
	ids := make([]string, benchAssets)
	for i := range ids {
		ids[i] = fmt.Sprintf("bess-%03d", i)
		if err := registry.EnsureAsset(ctx, assets.NewAsset(ids[i], "acme", ids[i], "Kiel", assets.Standalone)); err != nil {
			b.Fatal(err)
		}
	}
	month := calendar.Interval{Start: time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC), End: time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC)}
	s := be.Settlements()
	cents := func(n int64) decimal.Decimal { return decimal.New(n, -2) }
	for n, p := range calendar.Split(month, calendar.PeriodLength) {
		if n%3 == 2 {
			continue
		}
		blocks := make([]settlement.Block, 0, benchAssets)
		for i, id := range ids {
			bl := settlement.Block{OrganizationID: "acme", AssetID: id, Start: p.Start, Products: map[settlement.ProductKey]settlement.Figure{}}
			if n%3 == 0 {
				bl.Products[settlement.FCR] = settlement.Figure{Revenue: cents(int64(1223 + i)), Penalty: cents(int64(i % 7))}
			} else {
				bl.Products[settlement.AFRRCNeg4h] = settlement.Figure{Revenue: cents(662), Penalty: cents(132)}
				fee := int64(0)
				if n%4 == 1 {
					fee = 2170
				}
				bl.Products[settlement.AFRRENeg] = settlement.Figure{Revenue: cents(-7629 + int64(i)), BackupFee: cents(fee), Penalty: cents(1907)}
			}
			if n%50 == 0 {
				bl.Products[settlement.FCRBackup] = settlement.Figure{Revenue: cents(300)}
			}
			blocks = append(blocks, bl)
		}
		if _, err := s.Save(ctx, p.Start, blocks, p.End); err != nil {
			b.Fatal(err)
		}
	}
	svc := settlement.NewService(settlement.Deps{Store: s, Assets: registry, Organizations: be.Directory(), Clock: clk,
		Rule: settlement.NewRule(settlement.DefaultFinalLag)})
	return svc, month
}

// BenchmarkSettlementMonth reads February for 100 assets as the endpoint
// does (Service.Rendered: the rendered days) and then writes the body
// (AppendJSON), reporting p50 and p99 of each and the seeding's time (the
// job's Save rendering the days as it goes).
//
//	go test ./internal/settlement/settlementhttp -run '^$' -bench SettlementMonth -benchtime 30x
func BenchmarkSettlementMonth(b *testing.B) {
	backends := map[string]func(testing.TB) store.Backend{"sqlite": testkit.OpenSQLite}
	if testkit.PostgresURL() != "" {
		backends["postgres"] = testkit.OpenPostgres
	}
	for name, open := range backends {
		b.Run(name, func(b *testing.B) {
			t0 := time.Now()
			svc, month := seedMonth(b, open(b))
			seed := time.Since(t0)
			p := &auth.Principal{OrganizationID: "acme"}
			q := settlement.Query{Start: month.Start, End: month.End, Status: "PRELIMINARY"}
			var read, encode []time.Duration
			size := 0
			for b.Loop() {
				t0 := time.Now()
				r, err := svc.Rendered(context.Background(), p, q)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				body := r.AppendJSON(nil)
				read, encode = append(read, t1.Sub(t0)), append(encode, time.Since(t1))
				size = len(body)
				if n := r.Blocks(); n != 1792*benchAssets {
					b.Fatalf("%d blocks", n)
				}
			}
			pct := func(d []time.Duration, p float64) float64 {
				slices.Sort(d)
				return float64(d[min(len(d)-1, int(p*float64(len(d))))].Milliseconds())
			}
			b.ReportMetric(pct(read, 0.5), "read-p50-ms")
			b.ReportMetric(pct(read, 0.99), "read-p99-ms")
			b.ReportMetric(pct(encode, 0.5), "encode-p50-ms")
			b.ReportMetric(pct(encode, 0.99), "encode-p99-ms")
			b.ReportMetric(float64(size)/1e6, "MB")
			b.ReportMetric(seed.Seconds(), "seed-s")
		})
	}
}
