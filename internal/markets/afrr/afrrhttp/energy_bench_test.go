package afrrhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// benchDay is a delivery day whose 96 energy periods are all open at
// benchNow (after D-1 10:00 CET).
var (
	benchDay = calendar.Day{Year: 2026, Month: 2, Day: 2}
	benchNow = time.Date(2026, 2, 1, 9, 30, 0, 0, time.UTC)
)

// energyBenchEnv registers assets asset (a1 ... aN) of acme with aFRR
// enabled, each holding one delivery day of energy bids (96 periods, pos
// and neg: 192 bids), plus the asset "bench" without bids, and serves the
// energy endpoints.
func energyBenchEnv(b *testing.B, backend store.Backend, n int) (*testkit.Harness, *afrr.EnergyService) {
	b.Helper()
	ctx := context.Background()
	h := testkit.NewHarness(b, backend)
	h.Clock.Set(benchNow)
	if err := identity.NewDirectory(backend.Directory(), h.Clock, h.URL).EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		b.Fatal(err)
	}
	as := assets.NewService(backend.Assets(), h.Clock)
	price := bids.EUR(50)
	for i := range n + 1 {
		id := fmt.Sprintf("a%d", i)
		if i == n {
			id = "bench"
		}
		a := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
		a.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		a.AFRREnabled, a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW = true, 100, 100
		if err := as.EnsureAsset(ctx, a); err != nil {
			b.Fatal(err)
		}
		if id == "bench" {
			break
		}
		err := backend.Bids().Apply(ctx, auth.Visibility{All: true}, assets.Asset{ID: id}, bids.AFRREnergy, benchDay.Span(), func(a assets.Asset, _ []bids.Bid) (bids.Changes, error) {
			var ch bids.Changes
			for _, p := range benchDay.Periods() {
				for _, prod := range []bids.Product{bids.Pos, bids.Neg} {
					ch.Insert = append(ch.Insert, bids.Bid{ID: bids.NewID(), OrganizationID: "acme", AssetID: id, Market: bids.AFRREnergy, Product: prod,
						Start: p.Start, End: p.End, EnergyPrice: &price, OfferedMW: 5, Status: bids.Pending, CreatedAt: benchNow, UpdatedAt: benchNow})
				}
			}
			return ch, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	svc := afrr.NewEnergyService(as, backend.Bids(), h.Clock)
	afrrhttp.RegisterEnergy(h.Server, svc)
	return h, svc
}

// forEachBenchBackend runs f on SQLite and, when configured, PostgreSQL.
// analyze refreshes the planner statistics after seeding: PostgreSQL
// planning with the statistics of an empty table picks a plan that makes
// a submission several times slower, while autovacuum would have analysed
// a long-lived database long ago.
func forEachBenchBackend(b *testing.B, f func(b *testing.B, backend store.Backend, analyze func())) {
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

// dayOfEnergyBids is a REPLACE of the whole delivery day with 96 neg bids,
// so each run also deletes the previous run's 96.
func dayOfEnergyBids() bids.Submission {
	span := benchDay.Span()
	sub := bids.Submission{Mode: bids.Replace, Scope: &bids.ReplaceScope{Start: span.Start, End: span.End}}
	for _, p := range benchDay.Periods() {
		sub.Bids = append(sub.Bids, bids.NewBid{Product: bids.Neg, Start: p.Start, End: p.End, OfferedMW: 5,
			EnergyPrice: bids.PriceInput{Raw: []byte(`"-12.34"`)}})
	}
	return sub
}

// BenchmarkEnergySubmitDay places one delivery day of energy bids (96) in
// one request on an asset, with 10 to 1,000 other assets' days of bids
// (192 each) in the database: through the service, and as the HTTP POST
// (token check, JSON and schema validation included).
func BenchmarkEnergySubmitDay(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("assets=%d", n), func(b *testing.B) {
			forEachBenchBackend(b, func(b *testing.B, backend store.Backend, analyze func()) {
				h, svc := energyBenchEnv(b, backend, n)
				analyze()
				sub := dayOfEnergyBids()
				b.Run("service", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := svc.Submit(context.Background(), auth.Visibility{OrganizationID: "acme"}, "bench", sub); err != nil {
							b.Fatal(err)
						}
					}
				})
				body := map[string]any{"mode": "REPLACE", "replace_scope": map[string]any{"start_time": sub.Scope.Start, "end_time": sub.Scope.End}}
				list := make([]any, len(sub.Bids))
				for i, nb := range sub.Bids {
					list[i] = map[string]any{"product": "neg", "start_time": nb.Start, "end_time": nb.End, "energy_price_eur_per_mwh": "-12.34", "offered_power_mw": 5}
				}
				body["bids"] = list
				token := h.TokenFor("acme", auth.MarketWrite)
				b.Run("http", func(b *testing.B) {
					b.ReportAllocs()
					var took []time.Duration
					for b.Loop() {
						start := time.Now()
						if r := h.Do(http.MethodPost, "/v1/assets/bench/markets/afrr/energy/bids", token, body); r.Status != http.StatusCreated {
							b.Fatal(r)
						}
						took = append(took, time.Since(start))
					}
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
				})
			})
		})
	}
}
