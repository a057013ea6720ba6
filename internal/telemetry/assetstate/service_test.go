package assetstate_test

import (
	"context"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/dispatch"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/restrictions"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/assetstate"
	"atcp/internal/testkit"
)

// fakeTelemetry serves latest snapshots from memory.
type fakeTelemetry struct {
	latest map[string]telemetry.Measurements
}

func (f *fakeTelemetry) Latest(_ context.Context, assetID string) (telemetry.Snapshot, error) {
	m, ok := f.latest[assetID]
	if !ok {
		return telemetry.Snapshot{}, errs.NotFoundf("asset %q never reported", assetID)
	}
	return telemetry.Snapshot{AssetID: assetID, Measurements: m}, nil
}

// fakeHistory answers every measurement asked for (all, aliases included,
// when none is named) with two points, value index+1 and twice that, except
// the names in missing; it records its last call.
type fakeHistory struct {
	missing   map[string]bool
	assetID   string
	names     []string
	maxPoints int
}

func (f *fakeHistory) History(_ context.Context, assetID string, from, _ time.Time, names []string, maxPoints int) (map[string][]telemetry.Point, error) {
	f.assetID, f.names, f.maxPoints = assetID, names, maxPoints
	if len(names) == 0 {
		names = telemetry.PointNames()
		for alias := range telemetry.Aliases {
			names = append(names, alias)
		}
	}
	out := map[string][]telemetry.Point{}
	for _, n := range names {
		if f.missing[n] {
			continue
		}
		i, _ := telemetry.PointIndex(n)
		v := float64(i + 1)
		out[n] = []telemetry.Point{{Timestamp: from, Value: v}, {Timestamp: from.Add(time.Second), Value: 2 * v}}
	}
	return out, nil
}

// fakeSchedules holds scheduled-dispatch events per asset.
type fakeSchedules map[string][]dispatch.Event

func (f fakeSchedules) Scheduled(_ context.Context, _ auth.Visibility, assetID string, from, to time.Time) ([]dispatch.Event, error) {
	var out []dispatch.Event
	for _, e := range f[assetID] {
		if !e.SetTime.Before(from) && e.SetTime.Before(to) {
			out = append(out, e)
		}
	}
	return out, nil
}

type env struct {
	clk       *clock.Manual
	assets    *assets.Service
	restr     *restrictions.Service
	bids      bids.Store
	telemetry *fakeTelemetry
	history   *fakeHistory
	schedules fakeSchedules
	deps      assetstate.Deps
	svc       *assetstate.Service
}

var (
	acme = auth.Visibility{OrganizationID: "acme"}
	all  = auth.Visibility{All: true}
)

// sample is a snapshot at ts whose value i is i+1 (PV values only when pv).
func sample(ts time.Time, pv bool) telemetry.Measurements {
	values := make([]float64, len(telemetry.PointNames()))
	for i, name := range telemetry.PointNames() {
		values[i] = float64(i + 1)
		if !pv && slices.Contains([]string{"pv_export_curtailment_dso", "pv_irradiance", "pv_power_dc_actual", "pv_inverter_self_consumption", "pv_switch_status"}, name) {
			values[i] = math.NaN()
		}
	}
	return telemetry.MeasurementsFromValues(ts, values)
}

// setup: acme's bess (10 MW, 20 MWh; segmented into a 60 % and b 40 %,
// priority), acme's solo (10 MW, 20 MWh), acme's pv (pv_active), acme's
// quiet (never reported) and beta's other. Every asset but quiet has a
// snapshot at the harness start.
func setup(t *testing.T, b store.Backend) *env {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewManual(testkit.Start)
	dir := identity.NewDirectory(b.Directory(), clk, "http://test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	as := assets.NewService(b.Assets(), clk)
	ten, twenty := 10.0, 20.0
	tel := &fakeTelemetry{latest: map[string]telemetry.Measurements{}}
	for _, x := range []struct {
		id, org string
		pv      bool
	}{{"bess", "acme", false}, {"solo", "acme", false}, {"pv", "acme", true}, {"quiet", "acme", false}, {"other", "beta", false}} {
		a := assets.NewAsset(x.id, x.org, x.id, "Kiel", assets.Standalone)
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh, a.PVActive = &ten, &twenty, x.pv
		if err := as.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
		if x.id != "quiet" {
			tel.latest[x.id] = sample(testkit.Start, x.pv)
		}
	}
	segs := segmentation.NewService(b.Segmentations(), as, b.Bids(), clk)
	as.SetVirtualResolver(segs)
	if _, err := segs.Put(ctx, acme, "bess", segmentation.Priority,
		[]segmentation.Segment{{ID: "a", Name: "A", Share: 0.6}, {ID: "b", Name: "B", Share: 0.4}}); err != nil {
		t.Fatal(err)
	}
	if _, err := segs.Activate(ctx, acme, "bess"); err != nil {
		t.Fatal(err)
	}
	e := &env{clk: clk, assets: as, restr: restrictions.NewService(b.Restrictions(), as, clk), bids: b.Bids(),
		telemetry: tel, history: &fakeHistory{}, schedules: fakeSchedules{}}
	e.deps = assetstate.Deps{Clock: clk, Assets: as, Segmentations: segs, Restrictions: e.restr,
		Bids: e.bids, Schedules: e.schedules, Latest: tel, History: e.history}
	e.svc = assetstate.NewService(e.deps)
	return e
}

func (e *env) restrict(t *testing.T, id string, kind restrictions.Kind, from, to time.Duration, upper, lower *float64) {
	t.Helper()
	end := testkit.Start.Add(to)
	if _, err := e.restr.Create(context.Background(), acme, id, kind, restrictions.Draft{Start: testkit.Start.Add(from), End: &end,
		Upper: upper, Lower: lower, Reason: "maintenance"}); err != nil {
		t.Fatal(err)
	}
}

func value(t *testing.T, st assetstate.State, name string) float64 {
	t.Helper()
	p, ok := st[name]
	if !ok || len(p) != 1 {
		t.Fatalf("%s: %v", name, p)
	}
	return p[0].Value
}

func TestState(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		if st, err := e.svc.State(ctx, acme, "quiet"); err != nil || st == nil || len(st) != 0 {
			t.Fatalf("never reported: %v %v", st, err)
		}
		if _, err := e.svc.State(ctx, acme, "other"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("other organisation: %v", err)
		}
		if _, err := e.svc.State(ctx, acme, "bess.zz"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown segment: %v", err)
		}
		plain, err := e.svc.State(ctx, acme, "solo")
		if err != nil {
			t.Fatal(err)
		}
		pv, err := e.svc.State(ctx, all, "pv")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(telemetry.PointNames()) + len(telemetry.Aliases); len(pv) != n || len(plain) != n-5 {
			t.Fatalf("%d names with PV, %d without, want %d and %d", len(pv), len(plain), n, n-5)
		}
		for _, name := range []string{"pv_irradiance", "pv_switch_status"} {
			if _, ok := plain[name]; ok {
				t.Errorf("%s shown for an asset without PV", name)
			}
			value(t, pv, name)
		}
		for alias, name := range telemetry.Aliases {
			if value(t, plain, alias) != value(t, plain, name) {
				t.Errorf("alias %s differs from %s", alias, name)
			}
		}
		if p := plain["frequency"][0]; !p.Timestamp.Equal(testkit.Start) {
			t.Fatalf("timestamp %v", p.Timestamp)
		}

		// asset_status: a partial power limit leaves it, a full
		// unavailability forces 0, also on the virtual assets of a parent.
		status := func(id string) float64 {
			t.Helper()
			st, err := e.svc.State(ctx, acme, id)
			if err != nil {
				t.Fatal(err)
			}
			return value(t, st, "asset_status")
		}
		four, zero := 4.0, 0.0
		e.restrict(t, "solo", restrictions.PowerLimit, time.Hour, 2*time.Hour, &four, nil)
		e.restrict(t, "solo", restrictions.Unavailability, 2*time.Hour, 3*time.Hour, nil, nil)
		e.restrict(t, "bess", restrictions.Unavailability, time.Hour, 2*time.Hour, nil, nil)
		e.restrict(t, "bess.b", restrictions.PowerLimit, 2*time.Hour, 3*time.Hour, &zero, &zero)
		for _, c := range []struct {
			at         time.Duration
			solo, a, b float64
		}{{0, 1, 1, 1}, {time.Hour, 1, 0, 0}, {2 * time.Hour, 0, 1, 0}, {3 * time.Hour, 1, 1, 1}} {
			e.clk.Set(testkit.Start.Add(c.at))
			if got := [3]float64{status("solo"), status("bess.a"), status("bess.b")}; got != [3]float64{c.solo, c.a, c.b} {
				t.Errorf("at +%v: asset_status solo, bess.a, bess.b = %v, want %v", c.at, got, [3]float64{c.solo, c.a, c.b})
			}
		}

		// The segments' states add up to the parent's.
		parent, err := e.svc.State(ctx, acme, "bess")
		if err != nil {
			t.Fatal(err)
		}
		a, _ := e.svc.State(ctx, acme, "bess.a")
		bb, _ := e.svc.State(ctx, acme, "bess.b")
		for name := range parent {
			sum, pa := value(t, a, name)+value(t, bb, name), value(t, parent, name)
			switch name {
			case "asset_status", "operational_status", "control_mode", "grid_switch_status", "redispatch_active", "frequency",
				"is_fcr_on", "is_afrr_on", "is_dispatch_on", "export_curtailment_dso", "import_curtailment_dso", "actual_battery_cycles",
				"lte_signal_device_1", "lte_signal_device_2", "lan_connected_device_1", "lan_connected_device_2":
				if value(t, a, name) != pa || value(t, bb, name) != pa {
					t.Errorf("%s not passed through: %v %v, parent %v", name, value(t, a, name), value(t, bb, name), pa)
				}
			default:
				if math.Abs(sum-pa) > 1e-9 {
					t.Errorf("%s: segments add up to %v, parent %v", name, sum, pa)
				}
			}
		}
		// Priority: a (60 % of 10 MW) is served first: of the parent's
		// 7 MW (value of index 6) it takes 6.
		if got := [2]float64{value(t, a, "fcr_power_actual"), value(t, bb, "fcr_power_actual")}; got != [2]float64{6, 1} {
			t.Errorf("fcr_power_actual of bess.a and bess.b: %v", got)
		}
	})
}

// TestStateStale: an asset whose latest snapshot is older than
// StaleAfter is not tradeable (asset_status 0, virtual assets too); its
// other values and the snapshot's timestamp stay as reported, and a fresh
// snapshot makes it tradeable again.
func TestStateStale(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		d := e.deps
		d.StaleAfter = 5 * time.Second
		svc := assetstate.NewService(d)
		ctx := context.Background()
		state := func(id string) assetstate.State {
			t.Helper()
			st, err := svc.State(ctx, acme, id)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		for _, c := range []struct {
			age    time.Duration
			status float64
		}{{0, 1}, {5 * time.Second, 1}, {5*time.Second + time.Microsecond, 0}, {time.Hour, 0}} {
			e.clk.Set(testkit.Start.Add(c.age))
			for _, id := range []string{"solo", "bess.a"} {
				st := state(id)
				if got := value(t, st, "asset_status"); got != c.status {
					t.Errorf("%s %v after its snapshot: asset_status %v, want %v", id, c.age, got, c.status)
				}
				if p := st["operational_status"][0]; p.Value != 2 || !p.Timestamp.Equal(testkit.Start) {
					t.Errorf("%s %v after its snapshot: operational_status %+v, want 2 at the snapshot's instant", id, c.age, p)
				}
			}
		}
		// Without a bound (the service's default) the state never goes
		// stale.
		if st, err := e.svc.State(ctx, acme, "solo"); err != nil || value(t, st, "asset_status") != 1 {
			t.Fatalf("no bound: %v %v", st["asset_status"], err)
		}
		e.telemetry.latest["solo"] = sample(e.clk.Now().Add(-time.Second), false)
		if got := value(t, state("solo"), "asset_status"); got != 1 {
			t.Fatalf("after a fresh snapshot: asset_status %v", got)
		}
	})
}

func TestHistory(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		from, to := testkit.Start.Add(-5*time.Minute), testkit.Start
		st, err := e.svc.History(ctx, acme, "solo", assetstate.HistoryQuery{Start: from, End: to,
			PointNames: []string{"soc_max,available_soc_charge", "pv_irradiance"}})
		if err != nil {
			t.Fatal(err)
		}
		if e.history.assetID != "solo" || !slices.Equal(e.history.names, []string{"soc_max", "available_soc_charge"}) || e.history.maxPoints != 0 {
			t.Fatalf("reader asked %s %v %d", e.history.assetID, e.history.names, e.history.maxPoints)
		}
		if keys := sortedKeys(st); !slices.Equal(keys, []string{"available_soc_charge", "pv_irradiance", "soc_max"}) ||
			len(st["soc_max"]) != 2 || st["pv_irradiance"] == nil || len(st["pv_irradiance"]) != 0 {
			t.Fatalf("history %v", st)
		}
		// Only PV names for an asset without PV: nothing to read.
		e.history.assetID = ""
		st, err = e.svc.History(ctx, acme, "solo", assetstate.HistoryQuery{Start: from, End: to, PointNames: []string{"pv_irradiance"}})
		if err != nil || len(st) != 1 || len(st["pv_irradiance"]) != 0 || e.history.assetID != "" {
			t.Fatalf("PV only: %v %v, read %q", st, err, e.history.assetID)
		}
		// All measurements, downsampled; PV left out; a named measurement
		// without data is an empty list.
		e.history.missing = map[string]bool{"frequency": true}
		st, err = e.svc.History(ctx, acme, "solo", assetstate.HistoryQuery{Start: testkit.Start.Add(-24 * time.Hour), End: to, Downsample: true})
		if err != nil || e.history.maxPoints != assetstate.DownsampledPoints || e.history.names != nil {
			t.Fatalf("downsampled: %v, reader %v %d", err, e.history.names, e.history.maxPoints)
		}
		if _, ok := st["pv_irradiance"]; ok || len(st) != len(telemetry.PointNames())+len(telemetry.Aliases)-5-1 {
			t.Fatalf("all measurements: %d names", len(st))
		}
		st, _ = e.svc.History(ctx, acme, "pv", assetstate.HistoryQuery{Start: from, End: to, PointNames: []string{"frequency", "pv_irradiance"}})
		if p, ok := st["frequency"]; !ok || len(p) != 0 || len(st["pv_irradiance"]) != 2 {
			t.Fatalf("named without data: %v", st)
		}
		// A virtual asset reads its parent's history, point by point.
		names := []string{"battery_power_actual_ac", "frequency", "soc_max"}
		e.history.missing = nil
		parent, _ := e.svc.History(ctx, acme, "bess", assetstate.HistoryQuery{Start: from, End: to, PointNames: names})
		a, err := e.svc.History(ctx, acme, "bess.a", assetstate.HistoryQuery{Start: from, End: to, PointNames: names})
		if err != nil || e.history.assetID != "bess" {
			t.Fatalf("virtual: %v, read %s", err, e.history.assetID)
		}
		bb, _ := e.svc.History(ctx, acme, "bess.b", assetstate.HistoryQuery{Start: from, End: to, PointNames: names})
		for _, n := range names {
			for i, p := range parent[n] {
				sum := a[n][i].Value + bb[n][i].Value
				if n == "frequency" {
					sum /= 2
				}
				if math.Abs(sum-p.Value) > 1e-9 || !a[n][i].Timestamp.Equal(p.Timestamp) {
					t.Errorf("%s[%d]: %v + %v, parent %v", n, i, a[n][i], bb[n][i], p)
				}
			}
		}
		if _, err := e.svc.History(ctx, acme, "other", assetstate.HistoryQuery{Start: from, End: to}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("other organisation: %v", err)
		}
		if _, err := e.svc.History(ctx, acme, "solo", assetstate.HistoryQuery{Start: from, End: to.Add(time.Second)}); !errs.Is(err, errs.Invalid) {
			t.Fatalf("raw window above 5 minutes: %v", err)
		}
	})
}

func sortedKeys(m assetstate.State) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// addBid stores a bid as the market would have moved it.
func (e *env) addBid(t *testing.T, assetID string, market bids.Market, product bids.Product, from, to time.Duration, st bids.Status) string {
	t.Helper()
	ctx := context.Background()
	a, err := e.assets.Get(ctx, all, assetID)
	if err != nil {
		t.Fatal(err)
	}
	price, awarded := bids.EUR(12), 3.0
	bid := bids.Bid{ID: uuid.NewString(), OrganizationID: a.OrganizationID, AssetID: a.ID, Market: market, Product: product,
		Start: testkit.Start.Add(from), End: testkit.Start.Add(to), EnergyPrice: &price, OfferedMW: 5, Status: st,
		CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
	if market != bids.AFRREnergy {
		cp := bids.Price(1250)
		bid.CapacityPrice = &cp
	}
	if market == bids.FCR {
		bid.EnergyPrice = nil
	}
	if st == bids.Successful {
		bid.AwardedMW = &awarded
	}
	err = e.bids.Apply(ctx, all, a, market, calendar.Interval{Start: bid.Start, End: bid.End}, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
		return bids.Changes{Insert: []bids.Bid{bid}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bid.ID
}

func mw(v float64) *float64 { return &v }

func TestPlanned(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		h := time.Hour
		fcrWon := e.addBid(t, "solo", bids.FCR, bids.Sym, 2*h, 6*h, bids.Successful)
		e.addBid(t, "solo", bids.FCR, bids.Sym, 6*h, 10*h, bids.Rejected)
		e.addBid(t, "solo", bids.FCR, bids.Sym, 10*h, 14*h, bids.Pending)
		e.addBid(t, "solo", bids.FCR, bids.Sym, 14*h, 18*h, bids.Successful) // after the window
		capWon := e.addBid(t, "solo", bids.AFRRCapacity, bids.Neg, 2*h, 6*h, bids.Successful)
		e.addBid(t, "solo", bids.AFRRCapacity, bids.Pos, 2*h, 6*h, bids.Failed)
		energyFallback := e.addBid(t, "solo", bids.AFRREnergy, bids.Neg, 3*h, 3*h+15*time.Minute, bids.Fallback)
		energyWon := e.addBid(t, "solo", bids.AFRREnergy, bids.Neg, 3*h+15*time.Minute, 3*h+30*time.Minute, bids.Successful)
		e.addBid(t, "solo", bids.AFRREnergy, bids.Neg, 3*h+30*time.Minute, 3*h+45*time.Minute, bids.Submitted)

		e.restrict(t, "solo", restrictions.PowerLimit, h, 2*h, mw(4), nil)
		e.restrict(t, "solo", restrictions.EnergyLimit, 3*h, 4*h, mw(18), mw(2))
		e.restrict(t, "solo", restrictions.Unavailability, 13*h, 15*h, nil, nil) // overlaps the end
		e.restrict(t, "solo", restrictions.Unavailability, 20*h, 21*h, nil, nil) // after
		e.clk.Set(testkit.Start.Add(30 * time.Minute))
		if _, err := e.restr.OpenCurtailment(ctx, "solo", e.clk.Now(), 3, 1); err != nil {
			t.Fatal(err)
		}
		e.schedules["solo"] = []dispatch.Event{
			{AssetID: "solo", SetTime: testkit.Start.Add(h + 5*time.Minute), BESSPowerMW: mw(5)},
			{AssetID: "solo", SetTime: testkit.Start.Add(h + 20*time.Minute), BESSPowerMW: mw(-2)},
		}
		start, end := testkit.Start.Add(h), testkit.Start.Add(14*h)
		p, err := e.svc.Planned(ctx, acme, "solo", start, end)
		if err != nil {
			t.Fatal(err)
		}
		ids := func(bs []bids.Bid) []string {
			out := []string{}
			for _, b := range bs {
				out = append(out, b.ID)
			}
			return out
		}
		if p.AssetID != "solo" || p.OrganizationID != "acme" || !p.Start.Equal(start) || !p.End.Equal(end) {
			t.Fatalf("header %+v", p)
		}
		if !slices.Equal(ids(p.FCR), []string{fcrWon}) || !slices.Equal(ids(p.AFRRCapacity), []string{capWon}) ||
			!slices.Equal(ids(p.AFRREnergy), []string{energyFallback, energyWon}) {
			t.Fatalf("reservations %v %v %v", ids(p.FCR), ids(p.AFRRCapacity), ids(p.AFRREnergy))
		}
		if len(p.PowerLimits) != 1 || *p.PowerLimits[0].Upper != 4 || *p.PowerLimits[0].Lower != -10 ||
			len(p.EnergyLimits) != 1 || len(p.Unavailabilities) != 1 || !p.Unavailabilities[0].Start.Equal(testkit.Start.Add(13*h)) {
			t.Fatalf("restrictions %+v %+v %+v", p.PowerLimits, p.EnergyLimits, p.Unavailabilities)
		}
		if len(p.Curtailments) != 1 || p.Curtailments[0].End != nil {
			t.Fatalf("curtailments %+v", p.Curtailments)
		}
		want := []assetstate.SetPoint{{SetTime: testkit.Start.Add(h + 5*time.Minute), PowerMW: 5},
			{SetTime: testkit.Start.Add(h + 15*time.Minute), PowerMW: 0},
			{SetTime: testkit.Start.Add(h + 20*time.Minute), PowerMW: -2},
			{SetTime: testkit.Start.Add(h + 30*time.Minute), PowerMW: 0}}
		if !slices.Equal(p.Dispatch, want) {
			t.Fatalf("dispatch %+v", p.Dispatch)
		}

		// A virtual asset: its own limits, its parent's unavailability too,
		// the physical asset's curtailments.
		e.restrict(t, "bess", restrictions.Unavailability, 2*h, 3*h, nil, nil)
		e.restrict(t, "bess.a", restrictions.Unavailability, h, 90*time.Minute, nil, nil)
		e.restrict(t, "bess.a", restrictions.PowerLimit, h, 90*time.Minute, mw(2), nil)
		if _, err := e.restr.OpenCurtailment(ctx, "bess", e.clk.Now(), 3, 1); err != nil {
			t.Fatal(err)
		}
		v, err := e.svc.Planned(ctx, acme, "bess.a", start, end)
		if err != nil {
			t.Fatal(err)
		}
		if v.AssetID != "bess.a" || v.OrganizationID != "acme" || len(v.PowerLimits) != 1 || len(v.Unavailabilities) != 2 ||
			!v.Unavailabilities[0].Start.Equal(start) || len(v.Curtailments) != 1 || len(v.FCR) != 0 || len(v.Dispatch) != 0 {
			t.Fatalf("virtual %+v", v)
		}
		if _, err := e.svc.Planned(ctx, acme, "other", start, end); !errs.Is(err, errs.NotFound) {
			t.Fatalf("other organisation: %v", err)
		}
		if _, err := e.svc.Planned(ctx, acme, "solo", start, start.Add(assetstate.PlannedWindow+time.Second)); !errs.Is(err, errs.Invalid) {
			t.Fatalf("beyond PlannedWindow: %v", err)
		}
	})
}
