package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/clock"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/onboarding/reminders"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestOnboardingRateMarkStore: a workflow's marks are read by kind and
// subject after an instant, keyed by the organisation, and a write prunes
// the workflow's marks (every kind) at or before its prune instant, never
// another workflow's.
func TestOnboardingRateMarkStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, _, ob := flowFixture(t, b)
		other, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "b-1"})
		if err != nil {
			t.Fatal(err)
		}
		s := b.Onboardings()
		at := func(minutes int) time.Time { return testkit.SecurityStart.Add(time.Duration(minutes) * time.Minute) }
		add := func(o onboarding.Onboarding, kind, subject string, minutes int, prune time.Time) {
			t.Helper()
			if err := s.AddRateMark(ctx, onboarding.RateMark{OrganizationID: o.OrganizationID, OnboardingID: o.ID, Kind: kind, Subject: subject,
				At: at(minutes)}, prune); err != nil {
				t.Fatal(err)
			}
		}
		marks := func(o onboarding.Onboarding, org, kind, subject string, since time.Time) []time.Time {
			t.Helper()
			got, err := s.RateMarks(ctx, org, o.ID, kind, subject, since)
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(got, time.Time.Compare)
			return got
		}
		for _, m := range []int{0, 10, 20} {
			add(ob, "send", "link-1", m, time.Time{})
		}
		add(ob, "send", "link-2", 5, time.Time{})
		add(ob, "remind", "link-1", 5, time.Time{})
		add(other, "send", "link-1", 0, time.Time{})

		if got := marks(ob, "acme", "send", "link-1", at(0)); !slices.EqualFunc(got, []time.Time{at(10), at(20)}, time.Time.Equal) {
			t.Fatalf("after minute 0: %v", got)
		}
		if got := marks(ob, "acme", "send", "link-1", at(-1)); len(got) != 3 || !got[0].Equal(at(0)) || got[0].Location() != time.UTC {
			t.Fatalf("all of link-1: %v", got)
		}
		if got := marks(ob, "beta", "send", "link-1", at(-1)); len(got) != 0 {
			t.Fatalf("beta reads acme's marks: %v", got)
		}
		if got := marks(ob, "acme", "send", "link-2", at(-1)); len(got) != 1 || !got[0].Equal(at(5)) {
			t.Fatalf("link-2: %v", got)
		}

		// A write prunes this workflow's marks at or before minute 10, of
		// every kind and subject.
		add(ob, "remind", "gate-1", 70, at(10))
		if got := marks(ob, "acme", "send", "link-1", at(-1)); !slices.EqualFunc(got, []time.Time{at(20)}, time.Time.Equal) {
			t.Fatalf("link-1 after the prune: %v", got)
		}
		if got := marks(ob, "acme", "send", "link-2", at(-1)); len(got) != 0 {
			t.Fatalf("link-2 after the prune: %v", got)
		}
		if got := marks(ob, "acme", "remind", "link-1", at(-1)); len(got) != 0 {
			t.Fatalf("another kind after the prune: %v", got)
		}
		if got := marks(other, "beta", "send", "link-1", at(-1)); len(got) != 1 {
			t.Fatalf("the other workflow's mark was pruned: %v", got)
		}
		// A malformed workflow id has no marks.
		if got, err := s.RateMarks(ctx, "acme", "nope", "send", "link-1", at(-1)); err != nil || len(got) != 0 {
			t.Fatalf("malformed id: %v %v", got, err)
		}

		// A mark written in a Mutate that fails is rolled back with it.
		limit := onboarding.RateLimit{Kind: "send", Max: 5, Window: time.Hour}
		err = svc.Mutate(ctx, obAcme, ob.ID, func(ctx context.Context, o onboarding.Onboarding) error {
			if err := svc.MarkRate(ctx, o, limit.Kind, "link-3", at(30)); err != nil {
				return err
			}
			return errRefused
		})
		if !errors.Is(err, errRefused) {
			t.Fatalf("mutate: %v", err)
		}
		if got := marks(ob, "acme", "send", "link-3", at(-1)); len(got) != 0 {
			t.Fatalf("a rolled-back mark stayed: %v", got)
		}
	})
}

var errRefused = errors.New("refused")

// TestOnboardingRateLimitRace: requests racing for a limit of 3 inside
// the workflow's Mutate pass exactly 3 times, on one instance and on
// two instances sharing one PostgreSQL.
func TestOnboardingRateLimitRace(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		svc, _, ob := flowFixture(t, b)
		raceRateLimit(t, ob, svc, svc)
	})
	if testkit.PostgresURL() != "" {
		t.Run("postgres-instances", func(t *testing.T) {
			instances := testkit.OpenPostgresInstances(t, 2)
			svc, _, ob := flowFixture(t, instances[0])
			clk := clock.NewManual(testkit.Start)
			second := onboarding.NewService(instances[1].Onboardings(), assets.NewService(instances[1].Assets(), clk), clk)
			raceRateLimit(t, ob, svc, second)
		})
	}
}

func raceRateLimit(t *testing.T, ob onboarding.Onboarding, services ...*onboarding.Service) {
	t.Helper()
	ctx := context.Background()
	limit := onboarding.RateLimit{Kind: "race", Max: 3, Window: time.Hour}
	now := testkit.SecurityStart
	var passed, limited atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 {
		svc := services[i%len(services)]
		wg.Go(func() {
			var wait time.Duration
			err := svc.Mutate(ctx, obAcme, ob.ID, func(ctx context.Context, o onboarding.Onboarding) error {
				var err error
				if wait, err = svc.RateWait(ctx, o, limit, "subject", now); err != nil || wait > 0 {
					return err
				}
				return svc.MarkRate(ctx, o, limit.Kind, "subject", now)
			})
			switch {
			case err != nil:
				t.Error(err)
			case wait > 0:
				limited.Add(1)
			default:
				passed.Add(1)
			}
		})
	}
	wg.Wait()
	if passed.Load() != 3 || limited.Load() != 9 {
		t.Fatalf("%d passed and %d were limited, want 3 and 9", passed.Load(), limited.Load())
	}
}

// TestOnboardingRateLimitsFitTheWindow: every limit's marks (and the
// running communication test's) live no longer than RateWindow, which a
// write prunes at; no two limits share a kind.
func TestOnboardingRateLimitsFitTheWindow(t *testing.T) {
	kinds := map[string]bool{}
	for _, l := range []onboarding.RateLimit{contacts.SendLimit, reminders.ManualLimit, dplsvc.TestLimit} {
		if l.Window > onboarding.RateWindow || l.Max < 1 || kinds[l.Kind] {
			t.Fatalf("limit %+v", l)
		}
		kinds[l.Kind] = true
	}
	if 2*dplsvc.TestTimeout > onboarding.RateWindow {
		t.Fatal("a running test's mark would be pruned while it runs")
	}
}
