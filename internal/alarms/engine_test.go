package alarms_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/dispatch"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

type noImmediates struct{}

func (noImmediates) ActiveImmediate(context.Context, time.Time) ([]dispatch.Immediate, error) {
	return nil, nil
}

// world is a store with acme's b1 and b2 and beta's c1 (10 MW, 20 MWh),
// the services on a manual clock, and an engine of one shard.
type world struct {
	b      store.Backend
	clk    *clock.Manual
	assets *assets.Service
	svc    *alarms.Service
	opened []alarms.OpenedAlarm
	mu     sync.Mutex
}

const staleAfter = 5 * time.Second

func newWorld(t *testing.T, b store.Backend) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{b: b, clk: clock.NewManual(testkit.Start)}
	dir := identity.NewDirectory(b.Directory(), w.clk, "http://atcp.test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	w.assets = assets.NewService(b.Assets(), w.clk)
	for _, x := range []struct{ id, org string }{{"b1", "acme"}, {"b2", "acme"}, {"c1", "beta"}} {
		a := assets.NewAsset(x.id, x.org, "Battery "+x.id, "Kiel", assets.Standalone)
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = new(10.0), new(20.0)
		if err := w.assets.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	w.svc = alarms.NewService(b.Alarms(), w.assets, w.clk)
	w.svc.OnOpened(func(_ context.Context, o alarms.OpenedAlarm) {
		w.mu.Lock()
		w.opened = append(w.opened, o)
		w.mu.Unlock()
	})
	return w
}

func (w *world) engine(t *testing.T) *alarms.Engine { return w.engineOn(t, w.b) }

// engineOn is an engine on b: another instance sharing the database.
func (w *world) engineOn(t *testing.T, b store.Backend) *alarms.Engine {
	t.Helper()
	e, err := alarms.NewEngine(alarms.EngineOptions{Service: w.svc, Store: b.Alarms(), Clock: w.clk, Fleet: w.assets,
		Latest: b.Telemetry(), Restrictions: b.Restrictions(), Immediates: noImmediates{}, StaleAfter: staleAfter, Shards: 1})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// report stores a healthy snapshot of the assets at the clock's now.
func (w *world) report(t *testing.T, ids ...string) {
	t.Helper()
	var snaps []telemetry.Snapshot
	for _, id := range ids {
		snaps = append(snaps, telemetry.Snapshot{AssetID: id, Measurements: telemetry.Measurements{
			Timestamp: w.clk.Now(), AssetStatus: 1, GridSwitchStatus: 1, Frequency: 50, SoCMin: 0, SoCMax: 20,
			AvailableDischargeEnergy: 10, AvailableChargeEnergy: 10, LANConnectedDevice1: 1, LTESignalDevice1: -70}})
	}
	if err := w.b.Telemetry().SaveLatest(context.Background(), snaps); err != nil {
		t.Fatal(err)
	}
}

var oneShard = alarms.Shard{Index: 0, Count: 1}

func (w *world) tick(t *testing.T, e *alarms.Engine) {
	t.Helper()
	w.clk.Advance(time.Second)
	if err := e.RunShard(context.Background(), oneShard); err != nil {
		t.Fatal(err)
	}
}

func (w *world) events(t *testing.T) []alarms.Event {
	t.Helper()
	list, _, err := w.b.Alarms().Events(context.Background(), auth.Visibility{All: true}, alarms.EventFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestEngineStaleTelemetry: an asset that stops reporting opens
// TELEMETRY-001 once its measurements are stale for the sustain time, the
// listeners hear of it, and it resolves when measurements are fresh again
// for the clear time; a healthy asset raises nothing.
func TestEngineStaleTelemetry(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		w := newWorld(t, b)
		e := w.engine(t)
		ctx := context.Background()
		w.report(t, "b1", "b2", "c1")
		key := alarms.Key{AssetID: "b1", RuleID: alarms.RuleTelemetry}
		rule, _ := alarms.RuleByID(alarms.RuleTelemetry)
		// b1 stops; the others report each second. Stale after 5 s, open
		// after 10 s more.
		var openedAt time.Time
		for range 30 {
			w.tick(t, e)
			w.report(t, "b2", "c1")
			if l, err := b.Alarms().Lifecycle(ctx, auth.Visibility{All: true}, key); err == nil && openedAt.IsZero() {
				openedAt = l.OpenedAt
			}
		}
		want := testkit.Start.Add(staleAfter + time.Second + rule.Sustain)
		if !openedAt.Equal(want) {
			t.Fatalf("opened at %s, want %s", openedAt, want)
		}
		events := w.events(t)
		if len(events) != 1 || events[0].Type != alarms.Opened || events[0].Key != key || events[0].OrganizationID != "acme" ||
			events[0].Evidence.SustainedSeconds != 10 || !strings.Contains(events[0].Message, "Stale telemetry on b1: latest measurements at") {
			t.Fatalf("events %+v", events)
		}
		if len(w.opened) != 1 || w.opened[0].Event.ID != events[0].ID || w.opened[0].Rule != rule {
			t.Fatalf("listeners heard %+v", w.opened)
		}
		// Reporting again: resolved 10 s after the first fresh evaluation.
		for range 12 {
			w.report(t, "b1", "b2", "c1")
			w.tick(t, e)
		}
		l, err := b.Alarms().Lifecycle(ctx, auth.Visibility{All: true}, key)
		if err != nil || l.Open || l.ResolvedAt == nil {
			t.Fatalf("after reporting again: %+v %v", l, err)
		}
		if events := w.events(t); len(events) != 2 || events[0].Type != alarms.Resolved || events[0].Evidence.SustainedSeconds != 10 {
			t.Fatalf("events %+v", events)
		}
		st, _ := b.Alarms().EngineState(ctx, oneShard)
		if len(st.Tracks) != 0 || len(st.Lifecycles) != 0 {
			t.Fatalf("state after resolving: %+v", st)
		}
	})
}

// TestEngineMutedAndDeletedAssets: a muted key opens muted without
// telling the listeners, its mute expires by itself (alarm.unmuted
// without a user), and the open alarms of an asset that is deleted
// resolve.
func TestEngineMutedAndDeletedAssets(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		w := newWorld(t, b)
		e := w.engine(t)
		ctx := context.Background()
		admin := auth.Principal{Subject: "ops", OrganizationID: auth.PlatformOrganization, Email: "ops@platform.example"}
		w.report(t, "b1", "b2", "c1")
		for range 20 { // b1 goes stale and opens
			w.tick(t, e)
			w.report(t, "b2", "c1")
		}
		if len(w.opened) != 1 {
			t.Fatalf("opened %+v", w.opened)
		}
		d := int64(60)
		if _, _, err := w.svc.Mute(ctx, admin, "b1:TELEMETRY-001", alarms.MuteRequest{Reason: "gateway swap", DurationSeconds: &d}); err != nil {
			t.Fatal(err)
		}
		// Fresh for 11 s: resolves; stale again: reopens muted, unheard.
		for range 11 {
			w.report(t, "b1", "b2", "c1")
			w.tick(t, e)
		}
		for range 17 {
			w.tick(t, e)
			w.report(t, "b2", "c1")
		}
		events := w.events(t)
		if events[0].Type != alarms.Opened || !events[0].Muted || len(w.opened) != 1 {
			t.Fatalf("reopened %+v, heard %d", events[0], len(w.opened))
		}
		// The mute expires at 60 s after it was set.
		for range 40 {
			w.tick(t, e)
			w.report(t, "b2", "c1")
		}
		events = w.events(t)
		if events[0].Type != alarms.Unmuted || events[0].UserID != nil || events[0].Notes == nil || *events[0].Notes != "mute expired" {
			t.Fatalf("expiry: %+v", events[0])
		}
		// b1 is deleted (it is not live): its open alarm resolves once the
		// engine reads the assets again.
		if err := w.assets.Delete(ctx, auth.Visibility{All: true}, "b1"); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			w.tick(t, e)
			w.report(t, "b2", "c1")
		}
		events = w.events(t)
		if events[0].Type != alarms.Resolved || !strings.Contains(events[0].Message, "deleted or offboarded") {
			t.Fatalf("after deletion: %+v", events[0])
		}
		if st, _ := b.Alarms().EngineState(ctx, oneShard); len(st.Lifecycles) != 0 || len(st.Tracks) != 0 {
			t.Fatalf("state after deletion: %+v", st)
		}
	})
}

// TestEnginesOnOneShard: two engines (two instances during a lease
// handover) evaluating the same shard at once open each alarm once.
func TestEnginesOnOneShard(t *testing.T) {
	check := func(t *testing.T, stores []store.Backend) {
		w := newWorld(t, stores[0])
		w.report(t, "b1", "b2", "c1")
		engines := make([]*alarms.Engine, 4)
		for i := range engines {
			engines[i] = w.engineOn(t, stores[i%len(stores)])
		}
		w.clk.Advance(time.Minute) // every asset is stale beyond the sustain time
		for range 5 {
			var wg sync.WaitGroup
			for _, e := range engines {
				wg.Go(func() {
					if err := e.RunShard(context.Background(), oneShard); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			w.clk.Advance(time.Second)
		}
		// Stale at the first run, held for the sustain time ten runs on.
		for range 10 {
			var wg sync.WaitGroup
			for _, e := range engines {
				wg.Go(func() { _ = e.RunShard(context.Background(), oneShard) })
			}
			wg.Wait()
			w.clk.Advance(time.Second)
		}
		opened := map[alarms.Key]int{}
		for _, e := range w.events(t) {
			opened[e.Key]++
		}
		if len(opened) != 3 {
			t.Fatalf("opened %v", opened)
		}
		for k, n := range opened {
			if n != 1 {
				t.Fatalf("%s opened %d times", k, n)
			}
		}
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) { check(t, []store.Backend{b}) })
	if testkit.PostgresURL() != "" {
		t.Run("postgres-two-instances", func(t *testing.T) { check(t, testkit.OpenPostgresInstances(t, 2)) })
	}
}

func TestEngineJobs(t *testing.T) {
	w := newWorld(t, testkit.OpenSQLite(t))
	e, err := alarms.NewEngine(alarms.EngineOptions{Service: w.svc, Store: w.b.Alarms(), Clock: w.clk, Fleet: w.assets,
		Latest: w.b.Telemetry(), Restrictions: w.b.Restrictions(), Immediates: noImmediates{}, LeaseTTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	jobs := e.Jobs()
	if len(jobs) != alarms.DefaultShards {
		t.Fatalf("%d jobs", len(jobs))
	}
	for i, j := range jobs {
		if j.Name != "alarms-"+string(rune('0'+i)) || j.Every != time.Second || j.LeaseTTL != 3*time.Second {
			t.Fatalf("job %+v", j)
		}
		// Spread over the second, clear of its start (the control loop's).
		if want := time.Duration(i+1) * time.Second / (alarms.DefaultShards + 1); j.Offset != want {
			t.Fatalf("job %s at offset %s, want %s", j.Name, j.Offset, want)
		}
		if err := j.Run(context.Background(), w.clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := alarms.NewEngine(alarms.EngineOptions{}); err == nil {
		t.Fatal("engine without options")
	}
}

// TestServiceCurrent: the key's current lifecycle for what checks an
// alarm_id (fault declaration); unknown, invisible or never opened keys
// are not found.
func TestServiceCurrent(t *testing.T) {
	w := newWorld(t, testkit.OpenSQLite(t))
	e := w.engine(t)
	ctx := context.Background()
	w.report(t, "b1", "b2", "c1")
	for range 20 {
		w.tick(t, e)
		w.report(t, "b2", "c1")
	}
	acme, beta := auth.Visibility{OrganizationID: "acme"}, auth.Visibility{OrganizationID: "beta"}
	l, err := w.svc.Current(ctx, acme, "b1:TELEMETRY-001")
	if err != nil || !l.Open || l.AlarmID != w.opened[0].Event.AlarmID || l.OrganizationID != "acme" {
		t.Fatalf("%+v %v", l, err)
	}
	for _, c := range []struct {
		v   auth.Visibility
		key string
	}{{beta, "b1:TELEMETRY-001"}, {acme, "b2:TELEMETRY-001"}, {acme, "b1:NOPE-1"}, {acme, "b1"}, {acme, "zz:GRID-001"}} {
		if _, err := w.svc.Current(ctx, c.v, c.key); !errs.Is(err, errs.NotFound) {
			t.Errorf("%s for %+v: %v, want not found", c.key, c.v, err)
		}
	}
}
