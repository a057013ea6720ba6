package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func opening(asset, org, rule string, at time.Time) alarms.Update {
	r, _ := alarms.RuleByID(rule)
	key := alarms.Key{AssetID: asset, RuleID: rule}
	measured := at.Add(-time.Second)
	return alarms.Update{Key: key, Visibility: auth.Visibility{All: true}, Decide: alarms.DecideOpen(alarms.Opening{
		Rule: r, Key: key, OrganizationID: org, At: at, AlarmID: alarms.NewAlarmID(at),
		Evidence: alarms.Evidence{Facts: []string{"fact one", "fact 2"}, MeasuredAt: &measured, SustainedSeconds: 10}})}
}

func shardOf(asset string) alarms.Shard {
	for i := range 4 {
		if s := (alarms.Shard{Index: i, Count: 4}); s.Has(asset) {
			return s
		}
	}
	panic("no shard")
}

// TestAlarmStore: tracks and lifecycles round-trip, a key opens once,
// acknowledgements, mutes and resolutions are recorded with their
// events, and reads filter by visibility, window, severity and type,
// newest first, with paging and totals.
func TestAlarmStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.Alarms()
		acme, beta, all := auth.Visibility{OrganizationID: "acme"}, auth.Visibility{OrganizationID: "beta"}, auth.Visibility{All: true}
		t0 := testkit.Start
		key := alarms.Key{AssetID: "a1", RuleID: alarms.RuleTelemetry}

		track := alarms.Track{Key: key, OrganizationID: "acme", Holding: true, Since: t0.Add(-10 * time.Second)}
		events, err := s.Apply(ctx, alarms.Batch{Tracks: []alarms.Track{track,
			{Key: alarms.Key{AssetID: "b1", RuleID: alarms.RuleGrid}, OrganizationID: "beta", Holding: true, Since: t0}},
			Updates: []alarms.Update{opening("a1", "acme", alarms.RuleTelemetry, t0)}})
		if err != nil || len(events) != 1 || events[0].ID <= 0 || events[0].Type != alarms.Opened {
			t.Fatalf("open: %+v %v", events, err)
		}
		opened := events[0]
		st, err := s.EngineState(ctx, shardOf("a1"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tr := range st.Tracks {
			if tr.Key == key {
				found = tr == track
			}
		}
		if !found || len(st.Lifecycles) == 0 {
			t.Fatalf("engine state: %+v", st)
		}
		l, err := s.Lifecycle(ctx, acme, key)
		if err != nil || !l.Open || l.AlarmID != opened.AlarmID || l.Severity != alarms.Major || l.Evidence.SustainedSeconds != 10 ||
			len(l.Evidence.Facts) != 2 || !l.Evidence.MeasuredAt.Equal(t0.Add(-time.Second)) || !l.OpenedAt.Equal(t0) || l.ResolvedAt != nil {
			t.Fatalf("lifecycle: %+v %v", l, err)
		}
		if _, err := s.Lifecycle(ctx, beta, key); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another organisation's lifecycle: %v", err)
		}

		// Opening again (another engine) records nothing.
		if events, err := s.Apply(ctx, alarms.Batch{Updates: []alarms.Update{opening("a1", "acme", alarms.RuleTelemetry, t0.Add(time.Second))}}); err != nil || len(events) != 0 {
			t.Fatalf("open again: %+v %v", events, err)
		}

		// Acknowledge once; again returns the first.
		person := alarms.Actor{UserID: "u1", Email: new("op@acme.example")}
		notes := "looking"
		ack, ev, err := s.Act(ctx, alarms.Update{Key: key, Visibility: acme,
			Decide: alarms.DecideAcknowledge(key, person, &notes, &opened.AlarmID, t0.Add(time.Minute))})
		if err != nil || ev == nil || !ack.Acknowledged || ack.AckEventID == nil || *ack.AckEventID != ev.ID || ev.ID <= opened.ID {
			t.Fatalf("acknowledge: %+v %+v %v", ack, ev, err)
		}
		again, ev2, err := s.Act(ctx, alarms.Update{Key: key, Visibility: acme, Decide: alarms.DecideAcknowledge(key, person, nil, nil, t0.Add(2*time.Minute))})
		if err != nil || ev2 != nil || *again.AckEventID != ev.ID || !again.AcknowledgedAt.Equal(t0.Add(time.Minute)) || *again.AckNotes != notes {
			t.Fatalf("acknowledge again: %+v %+v %v", again, ev2, err)
		}
		// Another organisation sees no row; a refused decision writes nothing.
		if _, _, err := s.Act(ctx, alarms.Update{Key: key, Visibility: beta, Decide: alarms.DecideAcknowledge(key, person, nil, nil, t0)}); !errs.Is(err, errs.Conflict) {
			t.Fatalf("acknowledge by another organisation: %v", err)
		}
		wrong := "0190aaaa-0000-7000-8000-000000000000"
		if _, _, err := s.Act(ctx, alarms.Update{Key: key, Visibility: acme, Decide: alarms.DecideMute(key, person, "x", t0.Add(time.Hour), &wrong, t0)}); !errs.Is(err, errs.Conflict) {
			t.Fatalf("mute with a stale alarm_id: %v", err)
		}

		// Mute, resolve with the track dropped, reopen muted.
		muted, mev, err := s.Act(ctx, alarms.Update{Key: key, Visibility: acme,
			Decide: alarms.DecideMute(key, person, "noisy", t0.Add(2*time.Hour), nil, t0.Add(3*time.Minute))})
		if err != nil || !muted.Muted || !muted.MuteExpiresAt.Equal(t0.Add(2*time.Hour)) || mev.Type != alarms.Muted || *mev.MuteReason != "noisy" {
			t.Fatalf("mute: %+v %+v %v", muted, mev, err)
		}
		events, err = s.Apply(ctx, alarms.Batch{DropTracks: []alarms.Key{key}, Updates: []alarms.Update{{Key: key, Visibility: all,
			Decide: alarms.DecideResolve(opened.AlarmID, "cleared", alarms.Evidence{Facts: []string{"fresh"}}, t0.Add(5*time.Minute))}}})
		if err != nil || len(events) != 1 || events[0].Type != alarms.Resolved || !events[0].Muted || !events[0].Acknowledged {
			t.Fatalf("resolve: %+v %v", events, err)
		}
		st, _ = s.EngineState(ctx, shardOf("a1"))
		for _, tr := range st.Tracks {
			if tr.Key == key {
				t.Fatalf("track not dropped: %+v", st.Tracks)
			}
		}
		events, err = s.Apply(ctx, alarms.Batch{Updates: []alarms.Update{opening("a1", "acme", alarms.RuleTelemetry, t0.Add(10*time.Minute))}})
		if err != nil || len(events) != 1 || !events[0].Muted || events[0].Acknowledged || events[0].AlarmID == opened.AlarmID {
			t.Fatalf("reopen: %+v %v", events, err)
		}
		if _, err := s.Apply(ctx, alarms.Batch{Updates: []alarms.Update{opening("b1", "beta", alarms.RuleGrid, t0.Add(11*time.Minute))}}); err != nil {
			t.Fatal(err)
		}

		// The history: acme's five events newest first (reopened, resolved, muted, acknowledged, opened), paged.
		list, total, err := s.Events(ctx, acme, alarms.EventFilter{From: t0, To: t0.Add(time.Hour), Limit: 2, Offset: 2})
		if err != nil || total != 5 || len(list) != 2 || list[0].Type != alarms.Muted || list[1].Type != alarms.Acknowledged {
			t.Fatalf("acme page: %d %+v %v", total, list, err)
		}
		if list[1].UserID == nil || *list[1].UserID != "u1" || *list[1].UserEmail != "op@acme.example" || *list[1].Notes != notes ||
			list[1].DatePartition() != "2026-02-01" || list[1].Key != key || list[1].OrganizationID != "acme" {
			t.Fatalf("acknowledged event: %+v", list[1])
		}
		if _, total, _ := s.Events(ctx, all, alarms.EventFilter{OrganizationID: "beta", From: t0, To: t0.Add(time.Hour), Limit: 10}); total != 1 {
			t.Fatalf("beta's events for an administrator: %d", total)
		}
		if _, total, _ := s.Events(ctx, acme, alarms.EventFilter{OrganizationID: "beta", From: t0, To: t0.Add(time.Hour), Limit: 10}); total != 0 {
			t.Fatalf("beta's events for acme: %d", total)
		}
		// Half-open window: the first event at t0 is in [t0, ...), not in [..., t0).
		if _, total, _ := s.Events(ctx, acme, alarms.EventFilter{From: t0.Add(-time.Hour), To: t0, Limit: 10}); total != 0 {
			t.Fatalf("window ending at the first event: %d", total)
		}
		list, total, _ = s.Events(ctx, all, alarms.EventFilter{AssetID: "a1", From: t0, To: t0.Add(time.Hour), Limit: 10,
			Types: []alarms.EventType{alarms.Opened, alarms.Resolved}})
		if total != 3 || list[0].Type != alarms.Opened || list[1].Type != alarms.Resolved {
			t.Fatalf("opened and resolved: %d %+v", total, list)
		}
		if _, total, _ := s.Events(ctx, all, alarms.EventFilter{From: t0, To: t0.Add(time.Hour), Limit: 10,
			Severities: []alarms.Severity{alarms.Critical}}); total != 1 {
			t.Fatalf("critical events: %d", total)
		}

		// Active alarms.
		active, total, err := s.Active(ctx, all, alarms.ActiveFilter{Limit: 10})
		if err != nil || total != 2 || active[0].Key.AssetID != "b1" || active[1].Key != key || !active[1].Muted {
			t.Fatalf("active: %d %+v %v", total, active, err)
		}
		if _, total, _ := s.Active(ctx, acme, alarms.ActiveFilter{Limit: 10, Severities: []alarms.Severity{alarms.Critical}}); total != 0 {
			t.Fatalf("acme's critical: %d", total)
		}
		if list, total, _ := s.Active(ctx, acme, alarms.ActiveFilter{AssetID: "a1", Limit: 1, Offset: 1}); total != 1 || len(list) != 0 {
			t.Fatalf("beyond the last page: %d %+v", total, list)
		}
	})
}

// TestAlarmStoreOpensAKeyOnce: engines writing the same shard at once
// (a lease handed over while the old holder still runs) never open two
// lifecycles of one key, and every event id is distinct.
func TestAlarmStoreOpensAKeyOnce(t *testing.T) {
	check := func(t *testing.T, stores []store.Backend) {
		withDispatchAssets(t, stores[0])
		ctx := context.Background()
		const rounds = 20
		var wg sync.WaitGroup
		results := make([][]alarms.Event, len(stores)*2)
		errList := make([]error, len(results))
		for i := range results {
			s := stores[i%len(stores)].Alarms()
			wg.Go(func() {
				for r := range rounds {
					at := testkit.Start.Add(time.Duration(r) * time.Second)
					ups := []alarms.Update{opening("a1", "acme", alarms.RuleTelemetry, at), opening("a1", "acme", alarms.RuleGrid, at),
						opening("b1", "beta", alarms.RuleTelemetry, at)}
					tracks := []alarms.Track{{Key: alarms.Key{AssetID: "a1", RuleID: alarms.RuleTelemetry}, OrganizationID: "acme", Holding: true, Since: at}}
					if i%2 == 1 {
						ups[0], ups[2] = ups[2], ups[0] // another order: the store sorts
					}
					events, err := s.Apply(ctx, alarms.Batch{Tracks: tracks, Updates: ups})
					if err != nil {
						errList[i] = err
						return
					}
					results[i] = append(results[i], events...)
				}
			})
		}
		wg.Wait()
		seen := map[int64]bool{}
		opened := map[alarms.Key]int{}
		for i, events := range results {
			if errList[i] != nil {
				t.Fatal(errList[i])
			}
			for _, e := range events {
				if seen[e.ID] {
					t.Fatalf("event id %d twice", e.ID)
				}
				seen[e.ID] = true
				opened[e.Key]++
			}
		}
		if len(opened) != 3 {
			t.Fatalf("opened %v", opened)
		}
		for k, n := range opened {
			if n != 1 {
				t.Fatalf("%s opened %d times", k, n)
			}
		}
		if _, total, _ := stores[0].Alarms().Events(ctx, auth.Visibility{All: true}, alarms.EventFilter{Limit: 100}); total != 3 {
			t.Fatalf("%d events stored", total)
		}
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) { check(t, []store.Backend{b}) })
	if testkit.PostgresURL() != "" {
		t.Run("postgres-two-instances", func(t *testing.T) { check(t, testkit.OpenPostgresInstances(t, 2)) })
	}
}

// TestAlarmEventIDsFollowCommitOrder: event ids become visible in
// increasing order, so that a reader resuming after the last id it saw
// misses nothing: whenever a reader sees an id, it sees every smaller id
// that is ever committed.
func TestAlarmEventIDsFollowCommitOrder(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.Alarms()
		all := auth.Visibility{All: true}
		toggle := func(rule string, at time.Time) alarms.Update {
			open := opening("a1", "acme", rule, at)
			return alarms.Update{Key: open.Key, Visibility: all, Decide: func(cur *alarms.Lifecycle) (*alarms.Lifecycle, *alarms.Event, error) {
				if cur != nil && cur.Open {
					return alarms.DecideResolve(cur.AlarmID, "cleared", alarms.Evidence{}, at)(cur)
				}
				return open.Decide(cur)
			}}
		}
		done := make(chan struct{})
		var snapshots [][]int64
		var reader sync.WaitGroup
		reader.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				list, _, err := s.Events(ctx, all, alarms.EventFilter{Limit: 1000})
				if err != nil {
					t.Error(err)
					return
				}
				ids := make([]int64, len(list))
				for i, e := range list {
					ids[i] = e.ID
				}
				snapshots = append(snapshots, ids)
			}
		})
		var writers sync.WaitGroup
		for i := range 6 {
			writers.Go(func() {
				for r := range 8 {
					rule := alarms.Rules()[(i+r)%len(alarms.Rules())].ID
					if _, err := s.Apply(ctx, alarms.Batch{Updates: []alarms.Update{toggle(rule, testkit.Start.Add(time.Duration(r)*time.Second))}}); err != nil {
						t.Error(err)
					}
				}
			})
		}
		writers.Wait()
		close(done)
		reader.Wait()
		final, total, err := s.Events(ctx, all, alarms.EventFilter{Limit: 1000})
		if err != nil || total != 48 {
			t.Fatalf("%d events, %v", total, err)
		}
		for _, ids := range snapshots {
			seen := map[int64]bool{}
			var highest int64
			for _, id := range ids {
				seen[id], highest = true, max(highest, id)
			}
			for _, e := range final {
				if e.ID < highest && !seen[e.ID] {
					t.Fatalf("a reader saw event %d before event %d", highest, e.ID)
				}
			}
		}
	})
}
