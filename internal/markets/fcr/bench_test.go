package fcr_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/fcr"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var acme = auth.Visibility{OrganizationID: "acme"}

// first is the first delivery day open at testkit.Start.
var first = calendar.Day{Year: 2026, Month: 2, Day: 2}

// benchEnv serves FCR on acme's asset bess (1000 MW prequalified) with
// days of existing bids (6 blocks a day from first on, 1 MW each).
func benchEnv(b *testing.B, backend store.Backend, days int) *fcr.Service {
	b.Helper()
	ctx := context.Background()
	clk := clock.NewManual(testkit.Start)
	if err := identity.NewDirectory(backend.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		b.Fatal(err)
	}
	as := assets.NewService(backend.Assets(), clk)
	a := assets.NewAsset("bess", "acme", "bess", "Kiel", assets.Standalone)
	a.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
	a.FCREnabled, a.FCRPrequalifiedMW = true, 1000
	if err := as.EnsureAsset(ctx, a); err != nil {
		b.Fatal(err)
	}
	price := bids.EUR(10)
	for d := range days {
		day := first.AddDays(d)
		err := backend.Bids().Apply(ctx, acme, assets.Asset{ID: "bess"}, bids.FCR, day.Span(), func(a assets.Asset, _ []bids.Bid) (bids.Changes, error) {
			var ch bids.Changes
			for _, blk := range day.TenderBlocks() {
				ch.Insert = append(ch.Insert, bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "bess", Market: bids.FCR, Product: bids.Sym,
					Start: blk.Start, End: blk.End, CapacityPrice: &price, OfferedMW: 1, Status: bids.Pending, CreatedAt: testkit.Start, UpdatedAt: testkit.Start})
			}
			return ch, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return fcr.NewService(as, backend.Bids(), clk, fcr.Config{})
}

func forEachBackend(b *testing.B, f func(b *testing.B, backend store.Backend)) {
	b.Run("sqlite", func(b *testing.B) { f(b, testkit.OpenSQLite(b)) })
	if testkit.PostgresURL() != "" {
		b.Run("postgres", func(b *testing.B) { f(b, testkit.OpenPostgres(b)) })
	}
}

func dayOfBids(day calendar.Day) bids.Submission {
	sub := bids.Submission{Mode: bids.Replace, Scope: &bids.ReplaceScope{Start: day.Span().Start, End: day.Span().End}}
	for _, blk := range day.TenderBlocks() {
		sub.Bids = append(sub.Bids, bids.NewBid{Start: blk.Start, End: blk.End, OfferedMW: 5, CapacityPrice: bids.PriceInput{Raw: []byte(`"12.34"`)}})
	}
	return sub
}

// BenchmarkSubmitDay places one delivery day of bids (6 blocks) in one
// request: a REPLACE of the day, so each run also deletes the previous
// run's 6 bids.
func BenchmarkSubmitDay(b *testing.B) {
	forEachBackend(b, func(b *testing.B, backend store.Backend) {
		svc := benchEnv(b, backend, 0)
		sub := dayOfBids(first.AddDays(1))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := svc.Submit(context.Background(), acme, "bess", sub); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSubmitDayWith30DaysOfBids is the same with 30 days of bids on
// the asset, the delivery day among them: the locked read and the ceiling
// check see that day's bids.
func BenchmarkSubmitDayWith30DaysOfBids(b *testing.B) {
	forEachBackend(b, func(b *testing.B, backend store.Backend) {
		svc := benchEnv(b, backend, 30)
		sub := dayOfBids(first.AddDays(1))
		sub.Mode, sub.Scope = bids.Create, nil
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			res, err := svc.Submit(ctx, acme, "bess", sub)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			for _, x := range res.Bids {
				if err := svc.Delete(ctx, acme, "bess", x.ID); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
	})
}

// BenchmarkList30Days lists 30 days of bids (180).
func BenchmarkList30Days(b *testing.B) {
	forEachBackend(b, func(b *testing.B, backend store.Backend) {
		svc := benchEnv(b, backend, 30)
		b.ReportAllocs()
		for b.Loop() {
			list, err := svc.List(context.Background(), acme, "bess", nil, nil, nil)
			if err != nil || len(list) != 180 {
				b.Fatal(len(list), err)
			}
		}
	})
}
