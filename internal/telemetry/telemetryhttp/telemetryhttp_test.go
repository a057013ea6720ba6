package telemetryhttp_test

import (
	"context"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
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
	"atcp/internal/telemetry/telemetryhttp"
	"atcp/internal/testkit"
)

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

// fakeHistory answers each measurement asked for (all when none is named)
// with one point per minute of the window, value index+1.
type fakeHistory struct{}

func (fakeHistory) History(_ context.Context, _ string, from, to time.Time, names []string, _ int) (map[string][]telemetry.Point, error) {
	if len(names) == 0 {
		names = append(telemetry.PointNames(), "available_soc_discharge", "available_soc_charge")
	}
	out := map[string][]telemetry.Point{}
	for _, n := range names {
		i, _ := telemetry.PointIndex(n)
		for t := from; t.Before(to); t = t.Add(time.Minute) {
			out[n] = append(out[n], telemetry.Point{Timestamp: t, Value: float64(i + 1)})
		}
	}
	return out, nil
}

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
	h         *testkit.Harness
	assets    *assets.Service
	restr     *restrictions.Service
	bids      bids.Store
	schedules fakeSchedules
	// Tokens: acme asset.read, acme without asset.read, beta asset.read.
	ro, noScope, beta string
}

var pvNames = []string{"pv_export_curtailment_dso", "pv_irradiance", "pv_power_dc_actual", "pv_inverter_self_consumption", "pv_switch_status"}

// sample is a snapshot whose value i is i+1, asset_status 1, PV only when pv.
func sample(ts time.Time, pv bool) telemetry.Measurements {
	values := make([]float64, len(telemetry.PointNames()))
	for i, name := range telemetry.PointNames() {
		values[i] = float64(i + 1)
		if name == "asset_status" {
			values[i] = 1
		}
		if !pv && slices.Contains(pvNames, name) {
			values[i] = math.NaN()
		}
	}
	return telemetry.MeasurementsFromValues(ts, values)
}

// setup serves the telemetry endpoints over acme's bess (10 MW, 20 MWh,
// segmented a 75 % / b 25 %, proportional), solo (10 MW, 20 MWh), pv
// (pv_active), quiet (never reported) and beta's other, with in-memory
// telemetry: every asset but quiet has a snapshot at the harness start.
func setup(t testing.TB, b store.Backend) *env {
	t.Helper()
	return serve(t, b, false)
}

// serve is setup; with stored, telemetry comes from the backend's store
// and telemetry.NewHistoryReader (empty until recorded).
func serve(t testing.TB, b store.Backend, stored bool) *env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	as := assets.NewService(b.Assets(), h.Clock)
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
	segs := segmentation.NewService(b.Segmentations(), as, b.Bids(), h.Clock)
	as.SetVirtualResolver(segs)
	acme := auth.Visibility{OrganizationID: "acme"}
	if _, err := segs.Put(ctx, acme, "bess", segmentation.Proportional,
		[]segmentation.Segment{{ID: "a", Name: "A", Share: 0.75}, {ID: "b", Name: "B", Share: 0.25}}); err != nil {
		t.Fatal(err)
	}
	if _, err := segs.Activate(ctx, acme, "bess"); err != nil {
		t.Fatal(err)
	}
	e := &env{h: h, assets: as, restr: restrictions.NewService(b.Restrictions(), as, h.Clock), bids: b.Bids(), schedules: fakeSchedules{}}
	var latest assetstate.LatestReader = tel
	var history telemetry.HistoryReader = fakeHistory{}
	if stored {
		latest = b.Telemetry()
		history = telemetry.NewHistoryReader(b.Telemetry())
	}
	telemetryhttp.Register(h.Server, assetstate.NewService(assetstate.Deps{Clock: h.Clock, Assets: as, Segmentations: segs,
		Restrictions: e.restr, Bids: e.bids, Schedules: e.schedules, Latest: latest, History: history}))
	e.mint()
	return e
}

func (e *env) mint() {
	e.ro = e.h.TokenFor("acme", auth.AssetRead)
	e.noScope = e.h.TokenFor("acme", auth.MarketRead, auth.AssetWrite)
	e.beta = e.h.TokenFor("beta", auth.AssetRead)
}

// at moves the clock and mints tokens valid then.
func (e *env) at(d time.Duration) {
	e.h.Clock.Set(testkit.Start.Add(d))
	e.mint()
}

func ts(d time.Duration) string { return testkit.Start.Add(d).Format(time.RFC3339) }

// q adds query parameters (repeatable) to path.
func q(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return path + "?" + v.Encode()
}

type state map[string][]struct {
	Timestamp time.Time `json:"timestamp"`
	Value     float64   `json:"value"`
}

func (e *env) state(t *testing.T, id string) state {
	t.Helper()
	var s state
	e.h.Do("GET", "/v1/assets/"+id+"/state", e.ro, nil).Expect(t, 200, "").JSON(t, &s)
	return s
}

func (s state) v(t *testing.T, name string) float64 {
	t.Helper()
	p, ok := s[name]
	if !ok || len(p) != 1 {
		t.Fatalf("%s: %+v", name, p)
	}
	return p[0].Value
}

func TestState(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		all := len(telemetry.PointNames()) + 2
		solo := e.state(t, "solo")
		if len(solo) != all-len(pvNames) {
			t.Fatalf("%d measurements, want %d", len(solo), all-len(pvNames))
		}
		for _, n := range pvNames {
			if _, ok := solo[n]; ok {
				t.Errorf("%s without pv_active", n)
			}
		}
		if solo.v(t, "available_soc_discharge") != solo.v(t, "available_discharge_energy") ||
			solo.v(t, "available_soc_charge") != solo.v(t, "available_charge_energy") {
			t.Error("aliases differ")
		}
		if p := solo["soc_max"][0]; !p.Timestamp.Equal(testkit.Start) {
			t.Errorf("timestamp %v", p.Timestamp)
		}
		pv := e.state(t, "pv")
		if len(pv) != all {
			t.Fatalf("pv asset: %d measurements, want %d", len(pv), all)
		}
		i, _ := telemetry.PointIndex("pv_irradiance")
		if pv.v(t, "pv_irradiance") != float64(i+1) {
			t.Errorf("pv_irradiance %v", pv.v(t, "pv_irradiance"))
		}
		// Never reported: an empty object.
		if r := e.h.Do("GET", "/v1/assets/quiet/state", e.ro, nil).Expect(t, 200, ""); strings.TrimSpace(string(r.Body)) != "{}" {
			t.Fatalf("never reported: %s", r.Body)
		}
		// A partial power limit leaves asset_status, a full
		// unavailability forces 0, on the parent also for its segments.
		ctx, acme := context.Background(), auth.Visibility{OrganizationID: "acme"}
		four := 4.0
		for _, r := range []struct {
			id    string
			kind  restrictions.Kind
			from  time.Duration
			upper *float64
		}{{"solo", restrictions.PowerLimit, time.Hour, &four}, {"solo", restrictions.Unavailability, 2 * time.Hour, nil},
			{"bess", restrictions.Unavailability, 2 * time.Hour, nil}} {
			end := testkit.Start.Add(r.from + time.Hour)
			if _, err := e.restr.Create(ctx, acme, r.id, r.kind, restrictions.Draft{Start: testkit.Start.Add(r.from), End: &end,
				Upper: r.upper, Reason: "maintenance"}); err != nil {
				t.Fatal(err)
			}
		}
		e.at(90 * time.Minute)
		if s := e.state(t, "solo"); s.v(t, "asset_status") != 1 {
			t.Errorf("partial limit: asset_status %v", s.v(t, "asset_status"))
		}
		e.at(150 * time.Minute)
		for _, id := range []string{"solo", "bess", "bess.a", "bess.b"} {
			if s := e.state(t, id); s.v(t, "asset_status") != 0 {
				t.Errorf("%s unavailable: asset_status %v", id, s.v(t, "asset_status"))
			}
		}
		e.at(4 * time.Hour)
		if s := e.state(t, "solo"); s.v(t, "asset_status") != 1 {
			t.Errorf("after: asset_status %v", s.v(t, "asset_status"))
		}
		// The segments add up to the parent (proportional: by share).
		parent, a, bb := e.state(t, "bess"), e.state(t, "bess.a"), e.state(t, "bess.b")
		for _, n := range []string{"battery_power_actual_ac", "available_discharge_energy", "available_soc_discharge", "discharge_throughput", "fcr_upper_limit"} {
			if got, want := a.v(t, n)+bb.v(t, n), parent.v(t, n); math.Abs(got-want) > 1e-9 || math.Abs(a.v(t, n)-0.75*want) > 1e-9 {
				t.Errorf("%s: %v + %v, parent %v", n, a.v(t, n), bb.v(t, n), want)
			}
		}
		if a.v(t, "frequency") != parent.v(t, "frequency") {
			t.Error("frequency not passed through")
		}

		e.h.Do("GET", "/v1/assets/other/state", e.ro, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/bess.zz/state", e.ro, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/nope/state", e.ro, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/bess.a/state", e.beta, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/other/state", e.beta, nil).Expect(t, 200, "")
		e.h.Do("GET", "/v1/assets/solo/state", e.noScope, nil).Expect(t, 403, "insufficient_scope")
		e.h.Do("GET", "/v1/assets/solo/state", "", nil).Expect(t, 401, "")
	})
}

type problem struct {
	Errors []struct {
		Location string `json:"location"`
		Value    any    `json:"value"`
	} `json:"errors"`
}

// expect422 checks a 422 naming location (and value, when not nil).
func (e *env) expect422(t *testing.T, path, location string, value any) {
	t.Helper()
	var p problem
	e.h.Do("GET", path, e.ro, nil).Expect(t, 422, "").JSON(t, &p)
	for _, f := range p.Errors {
		if f.Location == location && (value == nil || f.Value == value) {
			return
		}
	}
	t.Fatalf("%s: no error at %s (%v): %+v", path, location, value, p)
}

func TestStateHistory(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		const path = "/v1/assets/solo/state/history"
		var s state
		e.h.Do("GET", q(path, "start_time", ts(-5*time.Minute), "end_time", ts(0), "point_names", "soc_max,available_soc_charge",
			"point_names", "frequency", "point_names", "pv_irradiance"), e.ro, nil).Expect(t, 200, "").JSON(t, &s)
		keys := []string{}
		for k := range s {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"available_soc_charge", "frequency", "pv_irradiance", "soc_max"}) || len(s["soc_max"]) != 5 ||
			len(s["pv_irradiance"]) != 0 {
			t.Fatalf("history %v", s)
		}
		// Downsampled day, every measurement.
		s = state{}
		e.h.Do("GET", q(path, "start_time", ts(-24*time.Hour), "end_time", ts(0), "do_downsample", "true"), e.ro, nil).Expect(t, 200, "").JSON(t, &s)
		if len(s) != len(telemetry.PointNames())+2-len(pvNames) {
			t.Fatalf("%d measurements", len(s))
		}
		// Virtual: the parent's, split point by point.
		var parent, a state
		e.h.Do("GET", q("/v1/assets/bess/state/history", "start_time", ts(-2*time.Minute), "end_time", ts(0), "point_names", "dispatch_power_actual"), e.ro, nil).Expect(t, 200, "").JSON(t, &parent)
		e.h.Do("GET", q("/v1/assets/bess.a/state/history", "start_time", ts(-2*time.Minute), "end_time", ts(0), "point_names", "dispatch_power_actual"), e.ro, nil).Expect(t, 200, "").JSON(t, &a)
		if len(a["dispatch_power_actual"]) != 2 || a["dispatch_power_actual"][1].Value != 0.75*parent["dispatch_power_actual"][1].Value {
			t.Fatalf("virtual %v parent %v", a, parent)
		}

		e.expect422(t, q(path, "end_time", ts(0)), "query.start_time", nil)
		e.expect422(t, q(path, "start_time", ts(-time.Minute)), "query.end_time", nil)
		e.expect422(t, q(path, "start_time", ts(0), "end_time", ts(-time.Minute)), "query.end_time", nil)
		e.expect422(t, q(path, "start_time", ts(0), "end_time", ts(0)), "query.end_time", nil)
		e.expect422(t, q(path, "start_time", ts(-6*time.Minute), "end_time", ts(0)), "query.end_time", nil)
		e.expect422(t, q(path, "start_time", ts(-31*24*time.Hour), "end_time", ts(-30*24*time.Hour), "do_downsample", "true"), "query.start_time", nil)
		e.expect422(t, q(path, "start_time", ts(-time.Minute), "end_time", ts(0), "point_names", "soc_max,soc"), "query.point_names", "soc")
		e.expect422(t, q(path, "start_time", "yesterday", "end_time", ts(0)), "query.start_time", nil)
		window := []string{"start_time", ts(-time.Minute), "end_time", ts(0)}
		e.h.Do("GET", q("/v1/assets/other/state/history", window...), e.ro, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", q(path, window...), e.beta, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", q(path, window...), e.noScope, nil).Expect(t, 403, "insufficient_scope")
		e.h.Do("GET", q(path, window...), "", nil).Expect(t, 401, "")
	})
}

func addBid(t *testing.T, e *env, assetID string, market bids.Market, product bids.Product, from, to time.Duration, st bids.Status) string {
	t.Helper()
	ctx := context.Background()
	a, err := e.assets.Get(ctx, auth.Visibility{All: true}, assetID)
	if err != nil {
		t.Fatal(err)
	}
	capPrice, energyPrice, awarded, key := bids.Price(1250), bids.Price(-4599), 4.0, "k-"+string(market)
	bid := bids.Bid{ID: uuid.NewString(), OrganizationID: a.OrganizationID, AssetID: a.ID, Market: market, Product: product,
		Start: testkit.Start.Add(from), End: testkit.Start.Add(to), OfferedMW: 5, Status: st,
		CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
	if st == bids.Successful || st == bids.Fallback {
		bid.IdempotencyKey = &key
	}
	if market != bids.AFRREnergy {
		bid.CapacityPrice = &capPrice
	}
	if market != bids.FCR {
		bid.EnergyPrice = &energyPrice
	}
	if st == bids.Successful {
		bid.AwardedMW = &awarded
	}
	if err := e.bids.Apply(ctx, auth.Visibility{All: true}, a, market, calendar.Interval{Start: bid.Start, End: bid.End},
		func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Insert: []bids.Bid{bid}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	return bid.ID
}

func TestPlannedState(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		const path = "/v1/assets/solo/planned_state"
		h := time.Hour
		window := []string{"start_time", ts(h), "end_time", ts(6 * h)}

		// Nothing planned: every list is [] (not null).
		r := e.h.Do("GET", q(path, window...), e.ro, nil).Expect(t, 200, "")
		body := r.Map(t)
		for _, k := range []string{"scheduled_dispatch", "fcr_reservations", "afrr_capacity_reservations", "afrr_energy_reservations",
			"power_limits", "energy_limits", "unavailabilities", "curtailments", "feasibility"} {
			if l, ok := body[k].([]any); !ok || len(l) != 0 {
				t.Errorf("%s = %#v", k, body[k])
			}
		}
		if body["asset_id"] != "solo" || body["organization_id"] != "acme" || body["start_time"] != ts(h) || body["end_time"] != ts(6*h) {
			t.Fatalf("header %s", r.Body)
		}

		fcrID := addBid(t, e, "solo", bids.FCR, bids.Sym, 2*h, 6*h, bids.Successful)
		addBid(t, e, "solo", bids.FCR, bids.Sym, 2*h, 6*h, bids.Rejected)
		capID := addBid(t, e, "solo", bids.AFRRCapacity, bids.Neg, 2*h, 6*h, bids.Successful)
		energyID := addBid(t, e, "solo", bids.AFRREnergy, bids.Neg, 3*h, 3*h+15*time.Minute, bids.Fallback)
		addBid(t, e, "solo", bids.AFRREnergy, bids.Neg, 3*h+15*time.Minute, 3*h+30*time.Minute, bids.Pending)
		ctx, acme := context.Background(), auth.Visibility{OrganizationID: "acme"}
		four, two, eighteen := 4.0, 2.0, 18.0
		desc := "inverter swap"
		for _, r := range []struct {
			kind         restrictions.Kind
			from, to     time.Duration
			upper, lower *float64
		}{{restrictions.PowerLimit, h, 2 * h, &four, nil}, {restrictions.EnergyLimit, 2 * h, 3 * h, &eighteen, &two},
			{restrictions.Unavailability, 5 * h, 7 * h, nil, nil}} {
			end := testkit.Start.Add(r.to)
			if _, err := e.restr.Create(ctx, acme, "solo", r.kind, restrictions.Draft{Start: testkit.Start.Add(r.from), End: &end,
				Upper: r.upper, Lower: r.lower, Reason: "maintenance", ReasonDescription: &desc}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.restr.OpenCurtailment(ctx, "solo", e.h.Clock.Now(), 3, 1); err != nil {
			t.Fatal(err)
		}
		five := 5.0
		e.schedules["solo"] = []dispatch.Event{{AssetID: "solo", SetTime: testkit.Start.Add(h + 10*time.Minute), BESSPowerMW: &five}}

		var p struct {
			ScheduledDispatch []struct {
				SetPower float64   `json:"set_power"`
				SetTime  time.Time `json:"set_time"`
			} `json:"scheduled_dispatch"`
			FCR          []map[string]any `json:"fcr_reservations"`
			AFRRCapacity []map[string]any `json:"afrr_capacity_reservations"`
			AFRREnergy   []map[string]any `json:"afrr_energy_reservations"`
			PowerLimits  []map[string]any `json:"power_limits"`
			EnergyLimits []map[string]any `json:"energy_limits"`
			Unavailable  []map[string]any `json:"unavailabilities"`
			Curtailments []map[string]any `json:"curtailments"`
		}
		e.h.Do("GET", q(path, window...), e.ro, nil).Expect(t, 200, "").JSON(t, &p)
		if len(p.ScheduledDispatch) != 2 || p.ScheduledDispatch[0].SetPower != 5 || p.ScheduledDispatch[1].SetPower != 0 ||
			!p.ScheduledDispatch[1].SetTime.Equal(testkit.Start.Add(h+15*time.Minute)) {
			t.Fatalf("scheduled_dispatch %+v", p.ScheduledDispatch)
		}
		want := func(got []map[string]any, id string, fields map[string]any, absent ...string) {
			t.Helper()
			if len(got) != 1 || (id != "" && got[0]["id"] != id) {
				t.Fatalf("reservations %v, want %s", got, id)
			}
			for k, v := range fields {
				if got[0][k] != v {
					t.Errorf("%s = %#v, want %#v", k, got[0][k], v)
				}
			}
			for _, k := range absent {
				if _, ok := got[0][k]; ok {
					t.Errorf("%s present", k)
				}
			}
		}
		want(p.FCR, fcrID, map[string]any{"capacity_price": "12.5", "offered_power": 5.0, "awarded_power": 4.0, "status": "SUCCESSFUL",
			"idempotency_key": "k-fcr", "start_time": ts(2 * h), "end_time": ts(6 * h)}, "energy_price", "product")
		want(p.AFRRCapacity, capID, map[string]any{"capacity_price": "12.5", "energy_price": "-45.99", "product": "neg", "status": "SUCCESSFUL"})
		want(p.AFRREnergy, energyID, map[string]any{"energy_price": "-45.99", "product": "neg", "status": "FALLBACK", "awarded_power": nil}, "capacity_price")
		want(p.PowerLimits, "", map[string]any{"upper_limit": 4.0, "lower_limit": -10.0, "reason": "maintenance", "reason_description": desc,
			"start_time": ts(h), "end_time": ts(2 * h)})
		want(p.EnergyLimits, "", map[string]any{"upper_limit": 18.0, "lower_limit": 2.0})
		want(p.Unavailable, "", map[string]any{"start_time": ts(5 * h), "end_time": ts(7 * h), "reason": "maintenance"}, "availability_status")
		want(p.Curtailments, "", map[string]any{"start_time": ts(0), "end_time": nil, "max_curtailment": 3.0, "min_curtailment": 1.0})

		e.expect422(t, q(path, "end_time", ts(h)), "query.start_time", nil)
		e.expect422(t, q(path, "start_time", ts(h)), "query.end_time", nil)
		e.expect422(t, q(path, "start_time", ts(h), "end_time", ts(h)), "query.end_time", nil)
		e.expect422(t, q(path, "start_time", ts(h), "end_time", ts(h+8*24*h+time.Second)), "query.end_time", nil)
		e.expect422(t, q(path, "start_time", ts(-30*24*h-time.Minute), "end_time", ts(-29*24*h)), "query.start_time", nil)
		e.h.Do("GET", q(path, "start_time", ts(h), "end_time", ts(h+8*24*h)), e.ro, nil).Expect(t, 200, "")
		e.h.Do("GET", q("/v1/assets/bess.b/planned_state", window...), e.ro, nil).Expect(t, 200, "")
		e.h.Do("GET", q("/v1/assets/other/planned_state", window...), e.ro, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", q(path, window...), e.beta, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", q(path, window...), e.noScope, nil).Expect(t, 403, "insufficient_scope")
		e.h.Do("GET", q(path, window...), "", nil).Expect(t, 401, "")
	})
}

// TestOpenAPI: the three operations with their scope and the planned
// state's wire types under their own names.
func TestOpenAPI(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").JSON(t, &doc)
	for _, p := range []string{"/v1/assets/{asset_id}/state", "/v1/assets/{asset_id}/state/history", "/v1/assets/{asset_id}/planned_state"} {
		op, ok := doc.Paths[p]["get"]
		if !ok || !strings.Contains(string(op), `"asset.read"`) {
			t.Errorf("%s: %s", p, op)
		}
	}
	for _, s := range []string{"PlannedState", "FCRReservation", "AFRRCapacityReservation", "AFRREnergyReservation", "PlannedLimit",
		"PlannedUnavailability", "PlannedSetPoint", "Point", "Violation"} {
		if _, ok := doc.Components.Schemas[s]; !ok {
			t.Errorf("schema %s missing", s)
		}
	}
}

// TestStoredTelemetry reads what the recorder stored: two minutes of
// 1-second snapshots of solo and bess, through the backend's telemetry
// store and history reader.
func TestStoredTelemetry(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := serve(t, b, true)
		ctx := context.Background()
		rec := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
		from := testkit.Start.Add(-2 * time.Minute)
		for i := range 120 {
			m := sample(from.Add(time.Duration(i)*time.Second), false)
			m.BatteryPowerActualAC, m.SoCMax = float64(i%20)/2, 20
			if err := rec.Record(ctx, []telemetry.Snapshot{{AssetID: "solo", Measurements: m}, {AssetID: "bess", Measurements: m}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if st := e.state(t, "solo"); st.v(t, "battery_power_actual_ac") != 9.5 || !st["soc_max"][0].Timestamp.Equal(testkit.Start.Add(-time.Second)) {
			t.Fatalf("latest %+v", st["soc_max"])
		}
		e.h.Do("GET", "/v1/assets/quiet/state", e.ro, nil).Expect(t, 200, "")

		var raw state
		e.h.Do("GET", q("/v1/assets/solo/state/history", "start_time", ts(-2*time.Minute), "end_time", ts(0),
			"point_names", "battery_power_actual_ac,available_soc_charge"), e.ro, nil).Expect(t, 200, "").JSON(t, &raw)
		if p := raw["battery_power_actual_ac"]; len(p) != 120 || !p[0].Timestamp.Equal(from) || p[3].Value != 1.5 || len(raw["available_soc_charge"]) != 120 {
			t.Fatalf("raw history: %d points", len(p))
		}
		var down state
		e.h.Do("GET", q("/v1/assets/solo/state/history", "start_time", ts(-24*time.Hour), "end_time", ts(0), "do_downsample", "true"),
			e.ro, nil).Expect(t, 200, "").JSON(t, &down)
		if p := down["soc_max"]; len(p) == 0 || len(p) > assetstate.DownsampledPoints || p[0].Value != 20 {
			t.Fatalf("downsampled soc_max %+v", p)
		}

		series := func(id string) []float64 {
			var s state
			e.h.Do("GET", q("/v1/assets/"+id+"/state/history", "start_time", ts(-time.Minute), "end_time", ts(0),
				"point_names", "battery_power_actual_ac"), e.ro, nil).Expect(t, 200, "").JSON(t, &s)
			out := []float64{}
			for _, p := range s["battery_power_actual_ac"] {
				out = append(out, p.Value)
			}
			return out
		}
		parent, a, bb := series("bess"), series("bess.a"), series("bess.b")
		if len(parent) != 60 || len(a) != 60 || len(bb) != 60 {
			t.Fatalf("virtual history: %d, %d, %d points", len(parent), len(a), len(bb))
		}
		for i := range parent {
			if math.Abs(a[i]+bb[i]-parent[i]) > 1e-9 || math.Abs(a[i]-0.75*parent[i]) > 1e-9 {
				t.Fatalf("point %d: %v + %v, parent %v", i, a[i], bb[i], parent[i])
			}
		}
	})
}

// TestHistoryLiveEdge: right after the control loop recorded a tick, the
// history endpoint shows it, though the recorder writes each chunk only
// every 15 s: the unflushed tail is stored with the latest snapshot, so
// any instance serving the database reads it.
func TestHistoryLiveEdge(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := serve(t, b, true)
		ctx := context.Background()
		rec := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{FlushEvery: 15 * time.Second})
		from := testkit.Start.Add(-time.Minute)
		for i := range 60 {
			m := sample(from.Add(time.Duration(i)*time.Second), false)
			m.BatteryPowerActualAC = float64(i)
			if err := rec.Record(ctx, []telemetry.Snapshot{{AssetID: "solo", Measurements: m}}); err != nil {
				t.Fatal(err)
			}
			if i%7 != 0 && i != 59 {
				continue
			}
			var raw state
			e.h.Do("GET", q("/v1/assets/solo/state/history", "start_time", ts(-time.Minute), "end_time", ts(0),
				"point_names", "battery_power_actual_ac"), e.ro, nil).Expect(t, 200, "").JSON(t, &raw)
			p := raw["battery_power_actual_ac"]
			if len(p) != i+1 || p[i].Value != float64(i) || !p[i].Timestamp.Equal(m.Timestamp) {
				t.Fatalf("after tick %d: %d points, last %+v", i, len(p), p[len(p)-1:])
			}
		}
		// The day's chart of README step 12 ends with the last tick too.
		var down state
		e.h.Do("GET", q("/v1/assets/solo/state/history", "start_time", ts(-time.Hour), "end_time", ts(23*time.Hour),
			"do_downsample", "true", "point_names", "battery_power_actual_ac"), e.ro, nil).Expect(t, 200, "").JSON(t, &down)
		if p := down["battery_power_actual_ac"]; len(p) != 1 || p[0].Value != 29.5 {
			t.Fatalf("downsampled %+v", p)
		}
	})
}

// TestNonFiniteReadings: an adapter reading ±Inf (kept exactly by the
// chunk codec) is shown as absent by state and history, never as a
// response that cannot be encoded.
func TestNonFiniteReadings(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := serve(t, b, true)
		ctx := context.Background()
		rec := telemetry.NewRecorder(b.Telemetry(), telemetry.RecorderOptions{})
		from := testkit.Start.Add(-2 * time.Minute)
		for i := range 120 {
			m := sample(from.Add(time.Duration(i)*time.Second), false)
			m.Frequency = math.Inf(1 - 2*(i%2))
			if i == 60 {
				m.SoCMax = math.Inf(1)
			}
			if err := rec.Record(ctx, []telemetry.Snapshot{{AssetID: "solo", Measurements: m}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		st := e.state(t, "solo")
		if _, ok := st["frequency"]; ok || st.v(t, "battery_power_actual_ac") == 0 {
			t.Fatalf("state: %v", st)
		}
		var raw state
		e.h.Do("GET", q("/v1/assets/solo/state/history", "start_time", ts(-2*time.Minute), "end_time", ts(0),
			"point_names", "frequency,soc_max"), e.ro, nil).Expect(t, 200, "").JSON(t, &raw)
		if len(raw["frequency"]) != 0 || len(raw["soc_max"]) != 119 {
			t.Fatalf("raw: %d frequency, %d soc_max points", len(raw["frequency"]), len(raw["soc_max"]))
		}
		var down state
		e.h.Do("GET", q("/v1/assets/solo/state/history", "start_time", ts(-2*time.Minute), "end_time", ts(0), "do_downsample", "true"),
			e.ro, nil).Expect(t, 200, "").JSON(t, &down)
		if _, ok := down["frequency"]; ok || len(down["soc_max"]) == 0 {
			t.Fatalf("downsampled: %v", down["frequency"])
		}
		for _, p := range down["soc_max"] {
			if p.Value != st.v(t, "soc_max") {
				t.Fatalf("downsampled soc_max %v, want %v", p.Value, st.v(t, "soc_max"))
			}
		}
	})
}

// TestPlannedStateFeasibility: the feasibility list on the wire, one
// power violation with its figures (4 MW FCR + 4 MW negative aFRR + 3 MW
// charging scheduled > 10 MW).
func TestPlannedStateFeasibility(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := time.Hour
		addBid(t, e, "solo", bids.FCR, bids.Sym, 2*h, 6*h, bids.Successful)
		addBid(t, e, "solo", bids.AFRRCapacity, bids.Neg, 2*h, 6*h, bids.Successful)
		three := -3.0
		e.schedules["solo"] = []dispatch.Event{{AssetID: "solo", SetTime: testkit.Start.Add(2*h + 5*time.Minute), BESSPowerMW: &three}}
		var p struct {
			Feasibility []map[string]any `json:"feasibility"`
		}
		e.h.Do("GET", q("/v1/assets/solo/planned_state", "start_time", ts(h), "end_time", ts(6*h)), e.ro, nil).Expect(t, 200, "").JSON(t, &p)
		want := map[string]any{"rule": "power", "direction": "charge", "start_time": ts(2 * h), "end_time": ts(2*h + 15*time.Minute),
			"block_start": ts(h), "block_end": ts(5 * h), "fcr_mw": 4.0, "afrr_mw": 4.0, "schedule_mw": 3.0,
			"committed": 11.0, "limit": 10.0, "overshoot": 1.0, "unit": "MW"}
		if len(p.Feasibility) != 1 || len(p.Feasibility[0]) != len(want) {
			t.Fatalf("feasibility %v", p.Feasibility)
		}
		for k, v := range want {
			if p.Feasibility[0][k] != v {
				t.Errorf("%s = %#v, want %#v", k, p.Feasibility[0][k], v)
			}
		}
	})
}
