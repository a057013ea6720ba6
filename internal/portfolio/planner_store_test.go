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

// poolStore gives the planner the pools of the pools store.
type poolStore struct{ s pools.Store }

func (p poolStore) All(ctx context.Context) ([]portfolio.PoolDef, error) {
	list, err := p.s.All(ctx)
	var out []portfolio.PoolDef
	for _, pool := range list {
		out = append(out, portfolio.PoolDef{OrganizationID: pool.OrganizationID, ID: pool.ID, AssetIDs: pool.AssetIDs,
			Collateralisation: pool.AllowInternalCollateralisation})
	}
	return out, err
}

// TestPlannerOnTheStores: on both backends, a pool member unavailable
// with FCR and negative aFRR awards is covered by the others through the
// stores the server uses: FCR by the member offering na (the pool allows
// collateralisation), aFRR neg by the cheaper of two neg offers.
func TestPlannerOnTheStores(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, backend store.Backend) {
		qh := time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC)
		ctx, all := context.Background(), auth.Visibility{All: true}
		clk := clock.NewManual(qh.Add(-2 * time.Hour))
		if err := identity.NewDirectory(backend.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
			t.Fatal(err)
		}
		as := assets.NewService(backend.Assets(), clk)
		rs := restrictions.NewService(backend.Restrictions(), as, clk)
		backup := afrr.NewBackupService(backend.BackupMarket(), as, clk)
		var snaps []telemetry.Snapshot
		for _, id := range []string{"a", "b", "c"} {
			if err := as.EnsureAsset(ctx, battery(id, "acme")); err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, telemetry.Snapshot{AssetID: id, Measurements: telemetry.Measurements{Timestamp: qh, AssetStatus: 1,
				AvailableDischargeEnergy: 10, AvailableChargeEnergy: 10}})
		}
		a, err := as.Get(ctx, all, "a")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []bids.Market{bids.FCR, bids.AFRRCapacity} {
			mw, product := 3.0, bids.Sym
			if m == bids.AFRRCapacity {
				mw, product = 5, bids.Neg
			}
			price := bids.EUR(10)
			award := bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "a", Market: m, Product: product, Start: qh,
				End: qh.Add(4 * time.Hour), CapacityPrice: &price, OfferedMW: mw, AwardedMW: &mw, Status: bids.Successful}
			if err := backend.Bids().Apply(ctx, all, a, m, award.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
				return bids.Changes{Insert: []bids.Bid{award}}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []struct{ asset, product, price string }{{"b", "na", "12"}, {"b", "neg", "60"}, {"c", "neg", "40"}} {
			if _, err := backup.PutDefault(ctx, all, d.asset, afrr.DefaultRequest{Product: d.product, Price: d.price}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := rs.Create(ctx, all, "a", restrictions.Unavailability, restrictions.Draft{Start: qh, Reason: "maintenance"}); err != nil {
			t.Fatal(err)
		}
		if _, err := backend.Pools().Create(ctx, pools.Pool{OrganizationID: "acme", ID: "north", AssetIDs: []string{"a", "b", "c"},
			AllowInternalCollateralisation: true, CreatedAt: clk.Now(), UpdatedAt: clk.Now()}, func([]pools.Candidate) error { return nil }); err != nil {
			t.Fatal(err)
		}
		rec := telemetry.NewRecorder(backend.Telemetry(), telemetry.RecorderOptions{})
		if err := rec.Record(ctx, snaps); err != nil {
			t.Fatal(err)
		}
		if err := rec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		p, err := portfolio.NewPlanner(portfolio.PlannerOptions{Fleet: as, Pools: poolStore{backend.Pools()}, Awards: backend.Bids(),
			Restrictions: backend.Restrictions(), Latest: backend.Telemetry(), Offers: backup, Store: backend.CoverSteps(),
			StaleAfter: time.Hour, Every: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		clk.Set(qh)
		if err := p.Run(ctx, qh); err != nil {
			t.Fatal(err)
		}
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
	clk := clock.NewManual(qh.Add(-2 * time.Hour))
	if err := identity.NewDirectory(backend.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		b.Fatal(err)
	}
	as := assets.NewService(backend.Assets(), clk)
	rs := restrictions.NewService(backend.Restrictions(), as, clk)
	backup := afrr.NewBackupService(backend.BackupMarket(), as, clk)
	var snaps []telemetry.Snapshot
	members := map[int][]string{}
	for i := range n {
		id := fmt.Sprintf("bess-%04d", i)
		a := battery(id, "acme")
		if err := as.EnsureAsset(ctx, a); err != nil {
			b.Fatal(err)
		}
		a, err := as.Get(ctx, all, id)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []bids.Market{bids.FCR, bids.AFRRCapacity} {
			mw, product := 2.0, bids.Sym
			if m == bids.AFRRCapacity {
				product = bids.Neg
			}
			price := bids.EUR(10)
			award := bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: id, Market: m, Product: product, Start: qh,
				End: qh.Add(4 * time.Hour), CapacityPrice: &price, OfferedMW: mw, AwardedMW: &mw, Status: bids.Successful}
			if err := backend.Bids().Apply(ctx, all, a, m, award.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
				return bids.Changes{Insert: []bids.Bid{award}}, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		for _, p := range []string{"neg", "na"} {
			if _, err := backup.PutDefault(ctx, all, id, afrr.DefaultRequest{Product: p, Price: fmt.Sprint(10 + i%7)}); err != nil {
				b.Fatal(err)
			}
		}
		if i%20 == 0 {
			if _, err := rs.Create(ctx, all, id, restrictions.Unavailability, restrictions.Draft{Start: qh, Reason: "maintenance"}); err != nil {
				b.Fatal(err)
			}
		}
		members[i/20] = append(members[i/20], id)
		snaps = append(snaps, telemetry.Snapshot{AssetID: id, Measurements: telemetry.Measurements{Timestamp: qh, AssetStatus: 1,
			AvailableDischargeEnergy: 10, AvailableChargeEnergy: 10}})
	}
	for k := range len(members) {
		p := pools.Pool{OrganizationID: "acme", ID: fmt.Sprintf("pool-%02d", k), AssetIDs: members[k], AllowInternalCollateralisation: true,
			CreatedAt: clk.Now(), UpdatedAt: clk.Now()}
		if _, err := backend.Pools().Create(ctx, p, func([]pools.Candidate) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	rec := telemetry.NewRecorder(backend.Telemetry(), telemetry.RecorderOptions{})
	if err := rec.Record(ctx, snaps); err != nil {
		b.Fatal(err)
	}
	if err := rec.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	p, err := portfolio.NewPlanner(portfolio.PlannerOptions{Fleet: as, Pools: poolStore{backend.Pools()}, Awards: backend.Bids(),
		Restrictions: backend.Restrictions(), Latest: backend.Telemetry(), Offers: backup, Store: backend.CoverSteps(),
		StaleAfter: time.Hour, Every: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	clk.Set(qh)
	if err := p.Run(ctx, qh); err != nil {
		b.Fatal(err)
	}
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
