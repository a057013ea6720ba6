package portfolio_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/portfolio"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
)

// world is the planner's inputs, as fakes a test changes between runs.
type world struct {
	fleet    []assets.Asset
	pools    []portfolio.PoolDef
	awards   []bids.Bid
	active   []restrictions.Interval
	latest   map[string]telemetry.Measurements
	defaults map[string]afrr.Default // asset id + product
	store    memStore
}

// memStore keeps the steps in memory: what Supersede does is the stores'
// contract (internal/store/cover_steps_test.go).
type memStore struct {
	steps  []portfolio.Step
	writes int
}

func (w *world) List(context.Context, auth.Visibility) ([]assets.Asset, error) { return w.fleet, nil }
func (w *world) All(context.Context) ([]portfolio.PoolDef, error)              { return w.pools, nil }
func (w *world) Covering(_ context.Context, m bids.Market, s bids.Status, at time.Time) ([]bids.Bid, error) {
	var out []bids.Bid
	for _, b := range w.awards {
		if b.Market == m && b.Status == s && b.Interval().Contains(at) {
			out = append(out, b)
		}
	}
	return out, nil
}
func (w *world) ActiveAt(context.Context, time.Time) ([]restrictions.Interval, error) {
	return w.active, nil
}
func (w *world) LatestMany(_ context.Context, ids []string) ([]telemetry.Snapshot, error) {
	var out []telemetry.Snapshot
	for _, id := range ids {
		if m, ok := w.latest[id]; ok {
			out = append(out, telemetry.Snapshot{AssetID: id, Measurements: m})
		}
	}
	return out, nil
}
func (w *world) Offers(_ context.Context, _ auth.Visibility, id string, p afrr.Product, iv calendar.Interval) ([]afrr.Offer, error) {
	var defs []afrr.Default
	if d, ok := w.defaults[id+string(p)]; ok {
		defs = append(defs, d)
	}
	return []afrr.Offer{afrr.EffectiveBackupOffer(defs, nil, p, iv.Start)}, nil
}

func (w *memStore) OpenAt(_ context.Context, t time.Time) ([]portfolio.Step, error) {
	var out []portfolio.Step
	for _, s := range w.steps {
		if !s.From.After(t) && s.To.After(t) {
			out = append(out, s)
		}
	}
	return out, nil
}
func (w *memStore) Supersede(_ context.Context, t time.Time, closing, opening []portfolio.Step) error {
	w.writes++
	for _, c := range closing {
		i := slices.IndexFunc(w.steps, func(s portfolio.Step) bool { return s.ID == c.ID })
		if w.steps[i].From.Equal(t) {
			w.steps = slices.Delete(w.steps, i, i+1)
		} else {
			w.steps[i].To = t
		}
	}
	w.steps = append(w.steps, opening...)
	return nil
}
func (w *memStore) StepsIn(context.Context, time.Time) ([]portfolio.Step, error) { return nil, nil }
func (w *memStore) List(context.Context, auth.Visibility, portfolio.Filter) ([]portfolio.Step, error) {
	return nil, nil
}

func (w *world) describe(qh time.Time) string {
	var out []string
	for _, s := range w.store.steps {
		p := "-"
		if s.Price != nil {
			p = s.Price.String() + " " + s.PriceSource
		}
		out = append(out, fmt.Sprintf("%s/%s %s %s<-%q %g/%g @%s %s-%s", s.OrganizationID, s.PoolID, s.Product, s.Failing, s.Covering,
			s.MW, s.ObligationMW, p, s.From.Sub(qh), s.To.Sub(qh)))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func battery(id, org string) assets.Asset {
	a := assets.NewAsset(id, org, id, "Kiel", assets.Standalone)
	power, energy := 10.0, 20.0
	a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = &power, &energy
	a.FCRPrequalifiedMW, a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW = 10, 10, 10
	a.OperationalStatus, a.ControlEnabled, a.FCREnabled, a.AFRREnabled = assets.Live, true, true, true
	return a
}

func TestPlanner(t *testing.T) {
	qh := time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC) // 10:00 in Berlin
	at := func(d time.Duration) time.Time { return qh.Add(d) }
	award := func(asset string, m bids.Market, p bids.Product, mw float64) bids.Bid {
		return bids.Bid{ID: asset + string(m), AssetID: asset, Market: m, Product: p, Start: qh.Add(-time.Hour), End: qh.Add(3 * time.Hour),
			OfferedMW: mw, AwardedMW: &mw, Status: bids.Successful}
	}
	healthy := func(t time.Time) telemetry.Measurements {
		return telemetry.Measurements{Timestamp: t, AssetStatus: 1, AvailableDischargeEnergy: 10, AvailableChargeEnergy: 10}
	}
	w := &world{
		fleet: []assets.Asset{battery("a1", "acme"), battery("a2", "acme"), battery("a3", "acme"), battery("b1", "beta")},
		pools: []portfolio.PoolDef{{OrganizationID: "acme", ID: "p1", AssetIDs: []string{"a1", "a2"}}},
		awards: []bids.Bid{award("a1", bids.AFRRCapacity, bids.Neg, 10), award("a3", bids.FCR, bids.Sym, 2),
			award("b1", bids.AFRRCapacity, bids.Pos, 5)},
		defaults: map[string]afrr.Default{"a2neg": {AssetID: "a2", Product: afrr.Neg, Price: decimal.RequireFromString("45.5")}},
	}
	p, err := portfolio.NewPlanner(portfolio.PlannerOptions{Fleet: w, Pools: w, Awards: w, Restrictions: w, Latest: w, Offers: w, Store: &w.store,
		StaleAfter: 5 * time.Second, Every: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	run := func(d time.Duration, want string) {
		t.Helper()
		for id, m := range w.latest {
			m.Timestamp = at(d) // still reporting
			w.latest[id] = m
		}
		if err := p.Run(context.Background(), at(d)); err != nil {
			t.Fatal(err)
		}
		if got := w.describe(qh); got != strings.TrimSpace(want) {
			t.Fatalf("at %s:\n%s\nwant\n%s", d, got, strings.TrimSpace(want))
		}
	}
	w.latest = map[string]telemetry.Measurements{"a1": healthy(qh), "a2": healthy(qh), "b1": healthy(qh)}
	// a3 never reported: its adapter does not reach it, and nobody covers
	// an asset in no pool.
	run(0, `acme/ fcr a3<-"" 2/2 @- 0s-15m0s`)

	// a1 becomes unavailable at 10:07: a2 covers it at its default price.
	w.active = []restrictions.Interval{{Kind: restrictions.Unavailability, AssetID: "a1", Start: at(7 * time.Minute)}}
	run(7*time.Minute, `
acme/ fcr a3<-"" 2/2 @- 0s-15m0s
acme/p1 neg a1<-"a2" 10/10 @45.5 default 7m0s-15m0s`)
	writes := w.store.writes
	run(8*time.Minute, `
acme/ fcr a3<-"" 2/2 @- 0s-15m0s
acme/p1 neg a1<-"a2" 10/10 @45.5 default 7m0s-15m0s`)
	if w.store.writes != writes {
		t.Fatalf("an unchanged plan wrote %d times", w.store.writes-writes)
	}

	// a2 fills up at 10:10: 1 MWh of charge left sustains 4 MW; the rest
	// of a1's obligation is uncovered from then on.
	w.latest["a2"] = telemetry.Measurements{AssetStatus: 1, AvailableDischargeEnergy: 19, AvailableChargeEnergy: 1}
	run(10*time.Minute, `
acme/ fcr a3<-"" 2/2 @- 0s-15m0s
acme/p1 neg a1<-"" 6/10 @- 10m0s-15m0s
acme/p1 neg a1<-"a2" 10/10 @45.5 default 7m0s-10m0s
acme/p1 neg a1<-"a2" 4/10 @45.5 default 10m0s-15m0s`)

	// b1's gateway drops (asset_status 0), a1 is limited to 3 MW of
	// charge: nobody in p1 has room left, b1 is in no pool.
	w.latest["b1"] = telemetry.Measurements{AssetStatus: 0}
	w.latest["a2"] = healthy(qh)
	w.active = []restrictions.Interval{{Kind: restrictions.PowerLimit, AssetID: "a1", Start: at(7 * time.Minute), Upper: new(10.0), Lower: new(-3.0)}}
	run(12*time.Minute, `
acme/ fcr a3<-"" 2/2 @- 0s-15m0s
acme/p1 neg a1<-"" 6/10 @- 10m0s-12m0s
acme/p1 neg a1<-"a2" 10/10 @45.5 default 7m0s-10m0s
acme/p1 neg a1<-"a2" 4/10 @45.5 default 10m0s-12m0s
acme/p1 neg a1<-"a2" 7/10 @45.5 default 12m0s-15m0s
beta/ pos b1<-"" 5/5 @- 12m0s-15m0s`)

	// The next quarter-hour starts afresh: a1's unavailability has ended,
	// though its newest snapshot, a second old, still has the asset_status
	// 0 the unavailability gave it; b1 reports asset_status 1 again, but
	// its newest snapshot is 10 s old.
	end := at(15 * time.Minute)
	w.active, w.store.steps = []restrictions.Interval{{Kind: restrictions.Unavailability, AssetID: "a1", Start: at(7 * time.Minute), End: &end}}, nil
	w.latest["a1"] = telemetry.Measurements{Timestamp: end.Add(-time.Second), AvailableChargeEnergy: 10, AvailableDischargeEnergy: 10}
	w.latest["a2"] = healthy(end)
	w.latest["b1"] = telemetry.Measurements{Timestamp: at(15*time.Minute - 10*time.Second), AssetStatus: 1, AvailableChargeEnergy: 10, AvailableDischargeEnergy: 10}
	if err := p.Run(context.Background(), at(15*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, want := w.describe(qh), `acme/ fcr a3<-"" 2/2 @- 15m0s-30m0s
beta/ pos b1<-"" 5/5 @- 15m0s-30m0s`; got != want {
		t.Fatalf("next quarter-hour:\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkPlanner1000Assets is one planning run over 1,000 batteries in
// 50 pools of 20, all awarded FCR and aFRR neg, one member of each pool
// unavailable and covered by the others (every member offers both).
func BenchmarkPlanner1000Assets(b *testing.B) {
	qh := time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC)
	w := &world{latest: map[string]telemetry.Measurements{}, defaults: map[string]afrr.Default{}}
	for i := range 1000 {
		id := fmt.Sprintf("bess-%04d", i)
		w.fleet = append(w.fleet, battery(id, "acme"))
		if i%20 == 0 {
			w.pools = append(w.pools, portfolio.PoolDef{OrganizationID: "acme", ID: fmt.Sprintf("pool-%02d", i/20), Collateralisation: true})
			w.active = append(w.active, restrictions.Interval{Kind: restrictions.Unavailability, AssetID: id, Start: qh})
		}
		pool := &w.pools[len(w.pools)-1]
		pool.AssetIDs = append(pool.AssetIDs, id)
		for _, m := range []bids.Market{bids.FCR, bids.AFRRCapacity} {
			mw := 2.0
			product := bids.Sym
			if m == bids.AFRRCapacity {
				product = bids.Neg
			}
			w.awards = append(w.awards, bids.Bid{AssetID: id, Market: m, Product: product, Start: qh, End: qh.Add(4 * time.Hour),
				OfferedMW: mw, AwardedMW: &mw, Status: bids.Successful})
		}
		w.latest[id] = telemetry.Measurements{Timestamp: qh, AssetStatus: 1, AvailableDischargeEnergy: 10, AvailableChargeEnergy: 10}
		for _, p := range []afrr.Product{afrr.Neg, afrr.NA} {
			w.defaults[id+string(p)] = afrr.Default{AssetID: id, Product: p, Price: decimal.NewFromInt(int64(10 + i%7))}
		}
	}
	p, err := portfolio.NewPlanner(portfolio.PlannerOptions{Fleet: w, Pools: w, Awards: w, Restrictions: w, Latest: w, Offers: w,
		Store: &w.store, StaleAfter: time.Minute, Every: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := p.Run(ctx, qh); err != nil {
		b.Fatal(err)
	}
	if len(w.store.steps) != 100 { // FCR and aFRR neg of each pool's failing member
		b.Fatalf("%d steps", len(w.store.steps))
	}
	var runs []time.Duration
	b.ReportAllocs()
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
