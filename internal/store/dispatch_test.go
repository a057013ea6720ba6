package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

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

// withDispatchAssets registers acme's a1 and beta's b1.
func withDispatchAssets(t *testing.T, b store.Backend) {
	t.Helper()
	withAssetOrganizations(t, b)
	for _, x := range []struct{ id, org string }{{"a1", "acme"}, {"b1", "beta"}} {
		a := assets.NewAsset(x.id, x.org, "Battery "+x.id, "Kiel", assets.Standalone)
		a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
		if _, err := b.Assets().Create(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
}

func immediateAt(asset, org string, start, end time.Duration, mw float64) dispatch.Immediate {
	return dispatch.Immediate{ID: uuid.NewString(), OrganizationID: org, AssetID: asset, Start: testkit.Start.Add(start),
		End: testkit.Start.Add(end), SetPowerMW: mw, CreatedAt: testkit.Start.Add(start)}
}

// TestImmediateDispatchStore: replacement cuts the one in force, a
// backdated one removes what starts after it, disable closes, reads are
// filtered by visibility and overlap.
func TestImmediateDispatchStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.Dispatch()
		acme := auth.Visibility{OrganizationID: "acme"}
		first := immediateAt("a1", "acme", 0, time.Hour, 5)
		if replaced, err := s.StartImmediate(ctx, first); err != nil || len(replaced) != 0 {
			t.Fatal(replaced, err)
		}
		second := immediateAt("a1", "acme", 10*time.Minute, 2*time.Hour, -3)
		replaced, err := s.StartImmediate(ctx, second)
		if err != nil || len(replaced) != 1 || replaced[0].ID != first.ID || !replaced[0].End.Equal(first.End) {
			t.Fatal(replaced, err)
		}
		list, err := s.Immediates(ctx, acme, "a1", dispatch.Window{})
		if err != nil || len(list) != 2 {
			t.Fatal(list, err)
		}
		if g := list[0]; !g.End.Equal(second.Start) || g.SetPowerMW != 5 || g.Start.Location() != time.UTC || g.OrganizationID != "acme" {
			t.Fatalf("cut %+v", g)
		}
		if g := list[1]; g.ID != second.ID || !g.Start.Equal(second.Start) || !g.End.Equal(second.End) || g.SetPowerMW != -3 || !g.CreatedAt.Equal(second.CreatedAt) {
			t.Fatalf("second %+v", g)
		}
		// Overlap filter (rule 5) and visibility.
		if l, _ := s.Immediates(ctx, acme, "a1", dispatch.Window{From: testkit.Start.Add(10 * time.Minute)}); len(l) != 1 {
			t.Fatalf("ending exactly at the start filter: %d", len(l))
		}
		if l, _ := s.Immediates(ctx, acme, "a1", dispatch.Window{To: testkit.Start.Add(10 * time.Minute)}); len(l) != 1 {
			t.Fatalf("starting exactly at the end filter: %d", len(l))
		}
		if l, _ := s.Immediates(ctx, auth.Visibility{OrganizationID: "beta"}, "a1", dispatch.Window{}); len(l) != 0 {
			t.Fatalf("beta sees %d", len(l))
		}
		// A backdated replacement starting at or before the last one's start removes it.
		third := immediateAt("a1", "acme", 10*time.Minute, 3*time.Hour, 1)
		if replaced, err := s.StartImmediate(ctx, third); err != nil || len(replaced) != 1 || replaced[0].ID != second.ID {
			t.Fatal(replaced, err)
		}
		if l, _ := s.Immediates(ctx, acme, "a1", dispatch.Window{}); len(l) != 2 || l[1].ID != third.ID {
			t.Fatalf("after backdated replacement %+v", l)
		}
		active, err := s.ActiveImmediate(ctx, testkit.Start.Add(30*time.Minute))
		if err != nil || len(active) != 1 || active[0].ID != third.ID {
			t.Fatal(active, err)
		}
		closed, err := s.EndImmediate(ctx, "a1", testkit.Start.Add(time.Hour))
		if err != nil || closed.ID != third.ID || !closed.End.Equal(testkit.Start.Add(time.Hour)) {
			t.Fatal(closed, err)
		}
		if _, err := s.EndImmediate(ctx, "a1", testkit.Start.Add(time.Hour)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("second disable: %v", err)
		}
		if active, _ := s.ActiveImmediate(ctx, testkit.Start.Add(time.Hour)); len(active) != 0 {
			t.Fatalf("active after disable %+v", active)
		}
		// Disabled at the instant it starts: removed, returned as closed.
		fourth := immediateAt("a1", "acme", 2*time.Hour, 3*time.Hour, 2)
		if _, err := s.StartImmediate(ctx, fourth); err != nil {
			t.Fatal(err)
		}
		closed, err = s.EndImmediate(ctx, "a1", fourth.Start)
		if err != nil || closed.ID != fourth.ID || !closed.End.Equal(fourth.Start) {
			t.Fatal(closed, err)
		}
		if l, _ := s.Immediates(ctx, acme, "a1", dispatch.Window{From: fourth.Start}); len(l) != 0 {
			t.Fatalf("after removal %+v", l)
		}
		if _, err := s.StartImmediate(ctx, immediateAt("nope", "acme", 0, time.Hour, 1)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown asset: %v", err)
		}
	})
}

// TestImmediateDispatchConcurrent: concurrent starts leave exactly one
// dispatch in force and no overlapping records.
func TestImmediateDispatchConcurrent(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.Dispatch()
		var wg sync.WaitGroup
		errors := make([]error, 12)
		for i := range errors {
			wg.Go(func() {
				_, errors[i] = s.StartImmediate(ctx, immediateAt("a1", "acme", time.Duration(i%4)*time.Millisecond, time.Hour, float64(i)))
			})
		}
		wg.Wait()
		for _, err := range errors {
			if err != nil {
				t.Fatal(err)
			}
		}
		active, err := s.ActiveImmediate(ctx, testkit.Start.Add(time.Minute))
		if err != nil || len(active) != 1 {
			t.Fatalf("active %+v %v", active, err)
		}
		list, _ := s.Immediates(ctx, auth.Visibility{All: true}, "a1", dispatch.Window{})
		for i := 1; i < len(list); i++ {
			if list[i].Start.Before(list[i-1].End) {
				t.Fatalf("overlapping records %+v", list)
			}
		}
	})
}

func eventAt(asset, org string, at time.Duration, mw float64) dispatch.Event {
	set := testkit.Start.Add(at)
	return dispatch.Event{OrganizationID: org, AssetID: asset, ControlMode: telemetry.BESSOnly, BESSPowerMW: &mw,
		SetTime: set, DeliveryTime: dispatch.BlockOf(set), CreatedAt: testkit.Start, RequestID: "req-" + asset, SourceID: "src"}
}

// TestDispatchEventsStore: replacement of a block range, the plan reads
// over every asset, and the report's idempotent outcomes.
func TestDispatchEventsStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.Dispatch()
		acme := auth.Visibility{OrganizationID: "acme"}
		m := time.Minute
		if err := s.ReplaceEvents(ctx, "a1", testkit.Start, testkit.Start.Add(45*m), []dispatch.Event{
			eventAt("a1", "acme", 0, 1), eventAt("a1", "acme", 5*m, 2), eventAt("a1", "acme", 20*m, 3), eventAt("a1", "acme", 40*m, 4),
		}); err != nil {
			t.Fatal(err)
		}
		poc := 2.5
		e := eventAt("b1", "beta", 7*m, 6)
		e.ControlMode, e.BESSPowerMW, e.PoCPowerMW = telemetry.PoCOnly, nil, &poc
		if err := s.ReplaceEvents(ctx, "b1", testkit.Start, testkit.Start.Add(15*m), []dispatch.Event{e}); err != nil {
			t.Fatal(err)
		}
		// Replace the middle block only.
		if err := s.ReplaceEvents(ctx, "a1", testkit.Start.Add(15*m), testkit.Start.Add(30*m), []dispatch.Event{eventAt("a1", "acme", 16*m, -5)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Events(ctx, acme, "a1", testkit.Start, testkit.Start.Add(time.Hour))
		if err != nil || len(got) != 4 {
			t.Fatal(got, err)
		}
		want := []float64{1, 2, -5, 4}
		for i, g := range got {
			if *g.BESSPowerMW != want[i] || g.ControlMode != telemetry.BESSOnly || g.RequestID != "req-a1" || g.SetTime.Location() != time.UTC ||
				!g.DeliveryTime.Equal(dispatch.BlockOf(g.SetTime)) {
				t.Fatalf("event %d %+v", i, g)
			}
		}
		if l, _ := s.Events(ctx, auth.Visibility{OrganizationID: "beta"}, "a1", testkit.Start, testkit.Start.Add(time.Hour)); len(l) != 0 {
			t.Fatalf("beta sees %d", len(l))
		}
		between, err := s.EventsBetween(ctx, testkit.Start, testkit.Start.Add(16*m))
		if err != nil || len(between) != 3 || between[1].AssetID != "b1" || *between[1].PoCPowerMW != 2.5 || between[1].BESSPowerMW != nil {
			t.Fatalf("between %+v %v", between, err)
		}
		current, err := s.CurrentEvents(ctx, testkit.Start.Add(10*m))
		if err != nil || len(current) != 2 || *current[0].BESSPowerMW != 2 || current[1].AssetID != "b1" {
			t.Fatalf("current %+v %v", current, err)
		}
		// In a block with no event yet at that instant: none for a1.
		if current, _ := s.CurrentEvents(ctx, testkit.Start.Add(15*m)); len(current) != 0 {
			t.Fatalf("current at block start %+v", current)
		}

		req := 2.0
		o := dispatch.Outcome{OrganizationID: "acme", AssetID: "a1", SetTime: testkit.Start.Add(5 * m), DeliveryTime: testkit.Start,
			ControlMode: telemetry.BESSOnly, RequestedPowerMW: &req, EffectivePowerMW: 2, Status: dispatch.Full, EmittedAt: testkit.Start.Add(5 * m)}
		orphan := o
		orphan.SetTime, orphan.Status, orphan.Reason, orphan.EffectivePowerMW = testkit.Start.Add(50*m), dispatch.Unknown, "catch_up", 0
		if err := s.RecordOutcomes(ctx, []dispatch.Outcome{o, orphan}); err != nil {
			t.Fatal(err)
		}
		o.Status, o.Reason, o.EffectivePowerMW = dispatch.Clipped, "power_limit", 1.5
		if err := s.RecordOutcomes(ctx, []dispatch.Outcome{o}); err != nil {
			t.Fatal(err)
		}
		report, err := s.Outcomes(ctx, acme, "a1", testkit.Start, testkit.Start.Add(time.Hour))
		if err != nil || len(report) != 2 {
			t.Fatal(report, err)
		}
		if r := report[0]; r.Status != dispatch.Clipped || r.EffectivePowerMW != 1.5 || r.Reason != "power_limit" || r.RequestID != "req-a1" ||
			r.SourceID != "src" || *r.RequestedPowerMW != 2 || !r.EmittedAt.Equal(o.EmittedAt) || r.EmittedAt.Location() != time.UTC {
			t.Fatalf("outcome %+v", r)
		}
		if r := report[1]; r.Status != dispatch.Unknown || r.RequestID != "" {
			t.Fatalf("orphan outcome %+v", r)
		}
		if l, _ := s.Outcomes(ctx, auth.Visibility{OrganizationID: "beta"}, "a1", testkit.Start, testkit.Start.Add(time.Hour)); len(l) != 0 {
			t.Fatalf("beta sees %d", len(l))
		}
		if err := s.RecordOutcomes(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkDispatchPlanTick is what the control loop reads from dispatch
// each second for 1,000 assets: the immediate dispatches in force and the
// events of the last second (every asset has a target each minute), plus
// CurrentEvents as on a restart.
func BenchmarkDispatchPlanTick(b *testing.B) {
	bench := func(b *testing.B, be store.Backend) {
		ctx := context.Background()
		dir := identity.NewDirectory(be.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
		if err := dir.EnsureOrganization(ctx, "acme", "Acme Storage"); err != nil {
			b.Fatal(err)
		}
		s := be.Dispatch()
		for i := range 1000 {
			id := fmt.Sprintf("bench-%04d", i)
			a := assets.NewAsset(id, "acme", id, "Kiel", assets.Standalone)
			a.CreatedAt, a.UpdatedAt = testkit.Start, testkit.Start
			if _, err := be.Assets().Create(ctx, a); err != nil {
				b.Fatal(err)
			}
			var events []dispatch.Event
			for m := range 60 {
				events = append(events, eventAt(id, "acme", time.Duration(m)*time.Minute, float64(m%7)))
			}
			if err := s.ReplaceEvents(ctx, id, testkit.Start, testkit.Start.Add(time.Hour), events); err != nil {
				b.Fatal(err)
			}
			if i%20 == 0 {
				if _, err := s.StartImmediate(ctx, immediateAt(id, "acme", 0, time.Hour, 1)); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run("tick", func(b *testing.B) {
			n := 0
			for b.Loop() {
				t := testkit.Start.Add(time.Duration(n%3600) * time.Second)
				n++
				if _, err := s.ActiveImmediate(ctx, t); err != nil {
					b.Fatal(err)
				}
				if _, err := s.EventsBetween(ctx, t.Add(-time.Second), t); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("current", func(b *testing.B) {
			for b.Loop() {
				if _, err := s.CurrentEvents(ctx, testkit.Start.Add(37*time.Minute)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("sqlite", func(b *testing.B) { bench(b, testkit.OpenSQLite(b)) })
	if testkit.PostgresURL() != "" {
		b.Run("postgres", func(b *testing.B) { bench(b, testkit.OpenPostgres(b)) })
	}
}

// TestDispatchPrune: what ended or was set before the horizon goes, the
// rest stays, on every asset.
func TestDispatchPrune(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.Dispatch()
		all := auth.Visibility{All: true}
		m := time.Minute
		for _, im := range []dispatch.Immediate{immediateAt("a1", "acme", 0, 10*m, 1), immediateAt("a1", "acme", 20*m, 40*m, 2),
			immediateAt("b1", "beta", 5*m, 30*m, 3)} {
			if _, err := s.StartImmediate(ctx, im); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.ReplaceEvents(ctx, "a1", testkit.Start, testkit.Start.Add(45*m),
			[]dispatch.Event{eventAt("a1", "acme", 0, 1), eventAt("a1", "acme", 30*m, 2)}); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceEvents(ctx, "b1", testkit.Start, testkit.Start.Add(15*m), []dispatch.Event{eventAt("b1", "beta", 10*m, 3)}); err != nil {
			t.Fatal(err)
		}
		outcome := func(asset, org string, at time.Duration) dispatch.Outcome {
			return dispatch.Outcome{OrganizationID: org, AssetID: asset, SetTime: testkit.Start.Add(at), DeliveryTime: testkit.Start,
				ControlMode: telemetry.BESSOnly, Status: dispatch.Full, EmittedAt: testkit.Start.Add(at)}
		}
		if err := s.RecordOutcomes(ctx, []dispatch.Outcome{outcome("a1", "acme", 0), outcome("a1", "acme", 30*m), outcome("b1", "beta", 10*m)}); err != nil {
			t.Fatal(err)
		}
		// Horizon at +10 min: a1's first dispatch (ends exactly then), a1's
		// event and outcome at +0 go; b1's at +10 min stay.
		n, err := s.Prune(ctx, testkit.Start.Add(10*m))
		if err != nil || n != 3 {
			t.Fatalf("pruned %d, %v; want 3", n, err)
		}
		window := dispatch.Window{}
		if l, _ := s.Immediates(ctx, all, "a1", window); len(l) != 1 || l[0].SetPowerMW != 2 {
			t.Fatalf("a1 immediates %+v", l)
		}
		if l, _ := s.Immediates(ctx, all, "b1", window); len(l) != 1 {
			t.Fatalf("b1 immediates %+v", l)
		}
		if l, _ := s.EventsBetween(ctx, testkit.Start.Add(-time.Hour), testkit.Start.Add(time.Hour)); len(l) != 2 {
			t.Fatalf("events left %+v", l)
		}
		if l, _ := s.Outcomes(ctx, all, "a1", testkit.Start, testkit.Start.Add(time.Hour)); len(l) != 1 {
			t.Fatalf("a1 outcomes %+v", l)
		}
		if l, _ := s.Outcomes(ctx, all, "b1", testkit.Start, testkit.Start.Add(time.Hour)); len(l) != 1 {
			t.Fatalf("b1 outcomes %+v", l)
		}
	})
}
