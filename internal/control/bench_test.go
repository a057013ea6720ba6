package control

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
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/portfolio"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

type fakeAssets []assets.Asset

func (f fakeAssets) List(context.Context, auth.Visibility) ([]assets.Asset, error) { return f, nil }

type fakeRestrictions []restrictions.Interval

func (f fakeRestrictions) ActiveAt(context.Context, time.Time) ([]restrictions.Interval, error) {
	return f, nil
}

type fakeCurtailments struct{}

func (fakeCurtailments) OpenCurtailment(context.Context, string, time.Time, float64, float64) (restrictions.Curtailment, error) {
	return restrictions.Curtailment{}, nil
}

func (fakeCurtailments) CloseCurtailment(context.Context, string, time.Time) (restrictions.Curtailment, error) {
	return restrictions.Curtailment{}, nil
}

type fakeBids map[bids.Market][]bids.Bid

func (f fakeBids) Covering(_ context.Context, m bids.Market, s bids.Status, _ time.Time) ([]bids.Bid, error) {
	var out []bids.Bid
	for _, b := range f[m] {
		if b.Status == s {
			out = append(out, b)
		}
	}
	return out, nil
}

// discard is a Recorder that keeps nothing, so that the benchmark
// measures the loop alone.
type discard struct{}

func (discard) Record(context.Context, []telemetry.Snapshot) error { return nil }
func (discard) Flush(context.Context) error                        { return nil }
func (discard) Forget()                                            {}
func (discard) Latest(_ context.Context, id string) (telemetry.Snapshot, error) {
	return telemetry.Snapshot{}, errs.NotFoundf("no state of %s", id)
}

// BenchmarkTick1000Assets is one second of the control loop for 1,000
// assets (half with PV, all with an FCR award and a schedule target, a
// tenth under a power limit): inputs, commands, physics and snapshots,
// with in-memory fakes for the stores, the plan and the recorder.
func BenchmarkTick1000Assets(b *testing.B) { benchTick(b, false) }

// BenchmarkTick1000AssetsInPools is the same second with the 1,000
// assets in 50 pools of 20, each also awarded 2 MW of negative aFRR, and
// in every pool one member unavailable whose obligations two others
// cover (100 cover steps in force).
func BenchmarkTick1000AssetsInPools(b *testing.B) { benchTick(b, true) }

// BenchmarkTick1000AssetsAFRR is the same second with every asset also
// awarded 2 MW of negative aFRR and activated for 1 MW: the loop without
// the aFRR dispatch records (off) and with them (on: accumulated each
// second, handed to a sink at each quarter-hour's end).
func BenchmarkTick1000AssetsAFRR(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) { benchTickAFRR(b, false, true, on) })
	}
}

type discardEvents struct{}

func (discardEvents) Hand([]afrrreport.Event) {}

func benchTick(b *testing.B, pools bool) { benchTickAFRR(b, pools, false, false) }

// benchTickAFRR: afrr adds the aFRR awards and activation, record the
// aFRR dispatch records.
func benchTickAFRR(b *testing.B, pools, afrr, record bool) {
	const n = 1000
	var covers fakeCovers
	list := make(fakeAssets, n)
	awards := fakeBids{}
	plan := newFakePlan()
	var limits fakeRestrictions
	for i := range list {
		id := fmt.Sprintf("bess-%04d", i)
		a := assets.NewAsset(id, "acme", id, "Leipzig", assets.Standalone)
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = f(10), f(20)
		a.ChargeEfficiency, a.DischargeEfficiency = f(0.95), f(0.95)
		a.MaxPosRampRateMWPerSec, a.MinNegRampRateMWPerSec = f(1), f(1)
		a.ControlEnabled, a.PVActive = true, i%2 == 0
		list[i] = a
		awards[bids.FCR] = append(awards[bids.FCR], bids.Bid{AssetID: id, Market: bids.FCR, Product: bids.Sym,
			Start: fcrBlock.Start, End: fcrBlock.End, OfferedMW: 1, AwardedMW: f(1), Status: bids.Successful})
		plan.schedule("acme", id, t0, float64(i%11-5))
		if i%10 == 0 {
			limits = append(limits, restrictions.Interval{Kind: restrictions.PowerLimit, AssetID: id, Start: t0, Upper: f(3), Lower: f(-3)})
		}
		if afrr {
			awards[bids.AFRRCapacity] = append(awards[bids.AFRRCapacity], bids.Bid{AssetID: id, Market: bids.AFRRCapacity, Product: bids.Neg,
				Start: fcrBlock.Start, End: fcrBlock.End, OfferedMW: 2, AwardedMW: f(2), Status: bids.Successful})
			awards[bids.AFRREnergy] = append(awards[bids.AFRREnergy], bids.Bid{AssetID: id, Market: bids.AFRREnergy, Product: bids.Neg,
				Start: fcrBlock.Start, End: fcrBlock.End, OfferedMW: 1, Status: bids.Submitted})
		}
		if !pools {
			continue
		}
		awards[bids.AFRRCapacity] = append(awards[bids.AFRRCapacity], bids.Bid{AssetID: id, Market: bids.AFRRCapacity, Product: bids.Neg,
			Start: fcrBlock.Start, End: fcrBlock.End, OfferedMW: 2, AwardedMW: f(2), Status: bids.Successful})
		if i%20 == 0 { // the pool's failing member, covered by the next two
			limits = append(limits, restrictions.Interval{Kind: restrictions.Unavailability, AssetID: id, Start: t0})
			for k, product := range []portfolio.Product{portfolio.FCR, portfolio.AFRRNeg} {
				covers = append(covers, portfolio.Step{Assignment: portfolio.Assignment{Product: product, Failing: id,
					Covering: fmt.Sprintf("bess-%04d", i+1+k), MW: []float64{1, 2}[k], ObligationMW: []float64{1, 2}[k]}})
			}
		}
	}
	o := simulatedOptions(1)
	o.Assets, o.Plan, o.Restrictions, o.Curtailments = list, plan, limits, fakeCurtailments{}
	o.Bids, o.Covers, o.Recorder, o.Latest = awards, covers, discard{}, discard{}
	if afrr {
		o.Activations = fixedActivations{}
	}
	if record {
		o.AFRREvents = discardEvents{}
	}
	l, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := l.Run(ctx, t0); err != nil {
		b.Fatal(err)
	}
	due := t0
	var ticks []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		due = due.Add(time.Second)
		began := time.Now()
		if err := l.Run(ctx, due); err != nil {
			b.Fatal(err)
		}
		ticks = append(ticks, time.Since(began))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/asset")
	// The tail: a second every minute also reads the awards and covers.
	slices.Sort(ticks)
	b.ReportMetric(float64(ticks[len(ticks)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ticks[len(ticks)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkTick1000AssetsSQLite is the same second with the assets,
// restrictions and awards read from the embedded store (one ActiveAt
// query a second; awards once a minute).
func BenchmarkTick1000AssetsSQLite(b *testing.B) {
	const n = 1000
	backend := testkit.OpenSQLite(b)
	ctx := context.Background()
	clk := clock.NewManual(t0)
	if err := identity.NewDirectory(backend.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		b.Fatal(err)
	}
	as := assets.NewService(backend.Assets(), clk)
	rs := restrictions.NewService(backend.Restrictions(), as, clk)
	plan := newFakePlan()
	for i := range n {
		id := fmt.Sprintf("bess-%04d", i)
		a := assets.NewAsset(id, "acme", id, "Leipzig", assets.Standalone)
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = f(10), f(20)
		a.ControlEnabled, a.PVActive, a.FCREnabled, a.FCRPrequalifiedMW = true, i%2 == 0, true, 1
		if err := as.EnsureAsset(ctx, a); err != nil {
			b.Fatal(err)
		}
		a, err := as.Get(ctx, auth.Visibility{All: true}, id)
		if err != nil {
			b.Fatal(err)
		}
		price := bids.EUR(10)
		award := bids.Bid{ID: uuid.NewString(), OrganizationID: "acme", AssetID: id, Market: bids.FCR, Product: bids.Sym,
			Start: fcrBlock.Start, End: fcrBlock.End, CapacityPrice: &price, OfferedMW: 1, AwardedMW: f(1), Status: bids.Successful}
		if err := backend.Bids().Apply(ctx, auth.Visibility{All: true}, a, bids.FCR, award.Interval(), func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Insert: []bids.Bid{award}}, nil
		}); err != nil {
			b.Fatal(err)
		}
		if i%10 == 0 {
			if _, err := rs.Create(ctx, auth.Visibility{All: true}, id, restrictions.PowerLimit,
				restrictions.Draft{Start: t0, Upper: f(3), Lower: f(-3), Reason: "maintenance"}); err != nil {
				b.Fatal(err)
			}
		}
		plan.schedule("acme", id, t0, float64(i%11-5))
	}
	o := simulatedOptions(1)
	o.Assets, o.Plan, o.Restrictions, o.Curtailments = as, plan, backend.Restrictions(), rs
	o.Bids, o.Covers, o.Recorder, o.Latest = backend.Bids(), backend.CoverSteps(), discard{}, discard{}
	l, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Run(ctx, t0); err != nil {
		b.Fatal(err)
	}
	due := t0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		due = due.Add(time.Second)
		clk.Set(due)
		if err := l.Run(ctx, due); err != nil {
			b.Fatal(err)
		}
	}
}
