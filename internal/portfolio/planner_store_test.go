package portfolio_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/pools"
	"atcp/internal/portfolio"
	"atcp/internal/restrictions"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

// storeFleet is the planner over the stores a server uses, with the
// services that write its inputs.
type storeFleet struct {
	backend store.Backend
	clk     *clock.Manual
	as      *assets.Service
	rs      *restrictions.Service
	backup  *afrr.BackupService
}

func newStoreFleet(tb testing.TB, backend store.Backend, now time.Time) *storeFleet {
	tb.Helper()
	clk := clock.NewManual(now)
	if err := identity.NewDirectory(backend.Directory(), clk, "http://atcp.test").EnsureOrganization(context.Background(), "acme", "Acme"); err != nil {
		tb.Fatal(err)
	}
	as := assets.NewService(backend.Assets(), clk)
	return &storeFleet{backend: backend, clk: clk, as: as, rs: restrictions.NewService(backend.Restrictions(), as, clk),
		backup: afrr.NewBackupService(backend.BackupMarket(), as, clk)}
}

// award stores a SUCCESSFUL award of mw for the 4 hours from start.
func (f *storeFleet) award(tb testing.TB, assetID string, m bids.Market, product bids.Product, mw float64, start time.Time) {
	tb.Helper()
	ctx, all := context.Background(), auth.Visibility{All: true}
	a, err := f.as.Get(ctx, all, assetID)
	if err != nil {
		tb.Fatal(err)
	}
	price := bids.EUR(10)
	award := bids.Bid{ID: uuid.NewString(), OrganizationID: a.OrganizationID, AssetID: assetID, Market: m, Product: product, Start: start,
		End: start.Add(4 * time.Hour), CapacityPrice: &price, OfferedMW: mw, AwardedMW: &mw, Status: bids.Successful}
	if err := f.backend.Bids().Apply(ctx, all, a, m, award.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
		return bids.Changes{Insert: []bids.Bid{award}}, nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// reporting records a healthy snapshot of each asset at at.
func (f *storeFleet) reporting(tb testing.TB, at time.Time, ids ...string) {
	tb.Helper()
	var snaps []telemetry.Snapshot
	for _, id := range ids {
		snaps = append(snaps, telemetry.Snapshot{AssetID: id, Measurements: telemetry.Measurements{Timestamp: at, AssetStatus: 1,
			AvailableDischargeEnergy: 10, AvailableChargeEnergy: 10}})
	}
	rec := telemetry.NewRecorder(f.backend.Telemetry(), telemetry.RecorderOptions{})
	if err := rec.Record(context.Background(), snaps); err != nil {
		tb.Fatal(err)
	}
	if err := rec.Flush(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// planner is the planner over the stores, run once at at.
func (f *storeFleet) planner(tb testing.TB, at time.Time) *portfolio.Planner {
	tb.Helper()
	p, err := portfolio.NewPlanner(portfolio.PlannerOptions{Fleet: f.as, Pools: portfolio.PoolsOf(f.backend.Pools()), Awards: f.backend.Bids(),
		Restrictions: f.backend.Restrictions(), Latest: f.backend.Telemetry(), Offers: f.backup, Store: f.backend.CoverSteps(),
		StaleAfter: time.Hour, Every: time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	f.clk.Set(at)
	if err := p.Run(context.Background(), at); err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestPlannerOnTheStores: on both backends, a pool member unavailable
// with FCR and negative aFRR awards is covered by the others through the
// stores the server uses: FCR by the member offering na (the pool allows
// collateralisation), aFRR neg by the cheaper of two neg offers.
func TestPlannerOnTheStores(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, backend store.Backend) {
		qh := time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC)
		ctx, all := context.Background(), auth.Visibility{All: true}
		f := newStoreFleet(t, backend, qh.Add(-2*time.Hour))
		for _, id := range []string{"a", "b", "c"} {
			if err := f.as.EnsureAsset(ctx, battery(id, "acme")); err != nil {
				t.Fatal(err)
			}
		}
		f.award(t, "a", bids.FCR, bids.Sym, 3, qh)
		f.award(t, "a", bids.AFRRCapacity, bids.Neg, 5, qh)
		for _, d := range []struct{ asset, product, price string }{{"b", "na", "12"}, {"b", "neg", "60"}, {"c", "neg", "40"}} {
			if _, err := f.backup.PutDefault(ctx, all, d.asset, afrr.DefaultRequest{Product: d.product, Price: d.price}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.rs.Create(ctx, all, "a", restrictions.Unavailability, restrictions.Draft{Start: qh, Reason: "maintenance"}); err != nil {
			t.Fatal(err)
		}
		if _, err := backend.Pools().Create(ctx, pools.Pool{OrganizationID: "acme", ID: "north", AssetIDs: []string{"a", "b", "c"},
			AllowInternalCollateralisation: true, CreatedAt: f.clk.Now(), UpdatedAt: f.clk.Now()}, func([]pools.Candidate) error { return nil }); err != nil {
			t.Fatal(err)
		}
		f.reporting(t, qh, "a", "b", "c")
		f.planner(t, qh)
		steps, err := backend.CoverSteps().OpenAt(ctx, qh)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range steps {
			got = append(got, fmt.Sprintf("%s %s<-%s %g/%g @%s %s %s", s.PoolID, s.Failing, s.Covering, s.MW, s.ObligationMW,
				s.Price.StringFixed(2), s.PriceSource, s.Product))
		}
		slices.Sort(got)
		if want := []string{"north a<-b 3/3 @12.00 default fcr", "north a<-c 5/5 @40.00 default neg"}; !slices.Equal(got, want) {
			t.Fatalf("steps %q, want %q", got, want)
		}
	})
}

// BenchmarkPlanner1000AssetsSQLite is BenchmarkPlanner1000Assets on the
// embedded store: the assets, pools, awards, restrictions, latest
// measurements and backup offers are read from SQLite, as in a server;
// every pool has a failing member, so every member's offers are read.
func BenchmarkPlanner1000AssetsSQLite(b *testing.B) {
	const n = 1000
	qh := time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC)
	backend := testkit.OpenSQLite(b)
	ctx, all := context.Background(), auth.Visibility{All: true}
	f := newStoreFleet(b, backend, qh.Add(-2*time.Hour))
	var ids []string
	members := map[int][]string{}
	for i := range n {
		id := fmt.Sprintf("bess-%04d", i)
		if err := f.as.EnsureAsset(ctx, battery(id, "acme")); err != nil {
			b.Fatal(err)
		}
		f.award(b, id, bids.FCR, bids.Sym, 2, qh)
		f.award(b, id, bids.AFRRCapacity, bids.Neg, 2, qh)
		for _, p := range []string{"neg", "na"} {
			if _, err := f.backup.PutDefault(ctx, all, id, afrr.DefaultRequest{Product: p, Price: fmt.Sprint(10 + i%7)}); err != nil {
				b.Fatal(err)
			}
		}
		if i%20 == 0 {
			if _, err := f.rs.Create(ctx, all, id, restrictions.Unavailability, restrictions.Draft{Start: qh, Reason: "maintenance"}); err != nil {
				b.Fatal(err)
			}
		}
		members[i/20] = append(members[i/20], id)
		ids = append(ids, id)
	}
	for k := range len(members) {
		p := pools.Pool{OrganizationID: "acme", ID: fmt.Sprintf("pool-%02d", k), AssetIDs: members[k], AllowInternalCollateralisation: true,
			CreatedAt: f.clk.Now(), UpdatedAt: f.clk.Now()}
		if _, err := backend.Pools().Create(ctx, p, func([]pools.Candidate) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	f.reporting(b, qh, ids...)
	p := f.planner(b, qh)
	if steps, err := backend.CoverSteps().OpenAt(ctx, qh); err != nil || len(steps) != 100 {
		b.Fatalf("%d steps in force, %v", len(steps), err)
	}
	var runs []time.Duration
	b.ResetTimer()
	for b.Loop() {
		began := time.Now()
		if err := p.Run(ctx, qh.Add(time.Minute)); err != nil {
			b.Fatal(err)
		}
		runs = append(runs, time.Since(began))
	}
	slices.Sort(runs)
	b.ReportMetric(float64(runs[len(runs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(runs[len(runs)*99/100].Microseconds())/1000, "p99-ms")
}
