package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/restrictions"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func restrictionInterval(org string, kind restrictions.Kind, start time.Duration, end *time.Duration) restrictions.Interval {
	iv := restrictions.Interval{Kind: kind, OrganizationID: org, AssetID: "a1", Start: testkit.Start.Add(start),
		Reason: restrictions.Fault, CreatedAt: testkit.Start}
	if end != nil {
		e := testkit.Start.Add(*end)
		iv.End = &e
	}
	if kind != restrictions.Unavailability {
		u, l := 1.5, -1.5
		iv.Upper, iv.Lower = &u, &l
	}
	return iv
}

// TestRestrictionIntervalsStore: round trip, visibility, and concurrent
// overlapping creations of which exactly one is stored.
func TestRestrictionIntervalsStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx, s := context.Background(), b.Restrictions()
		hour := time.Hour
		want := restrictionInterval("acme", restrictions.PowerLimit, 0, &hour)
		desc := "inverter"
		want.ReasonDescription = &desc
		insert := func(iv restrictions.Interval) error {
			_, err := s.MutateIntervals(ctx, "acme", "a1", iv.Kind, func(existing []restrictions.Interval) (restrictions.Change, error) {
				return restrictions.PlanCreate(existing, iv)
			})
			return err
		}
		if err := insert(want); err != nil {
			t.Fatal(err)
		}
		if err := insert(restrictionInterval("acme", restrictions.Unavailability, 30*time.Minute, nil)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Intervals(ctx, auth.Visibility{OrganizationID: "acme"}, "a1", restrictions.PowerLimit, restrictions.Window{})
		if err != nil || len(got) != 1 {
			t.Fatal(got, err)
		}
		g := got[0]
		if !g.Start.Equal(want.Start) || g.Start.Location() != time.UTC || !g.End.Equal(*want.End) || *g.Upper != 1.5 || *g.Lower != -1.5 ||
			*g.ReasonDescription != desc || g.Reason != restrictions.Fault || g.OrganizationID != "acme" || !g.CreatedAt.Equal(testkit.Start) {
			t.Fatalf("round trip %+v", g)
		}
		if all, _ := s.Intervals(ctx, auth.Visibility{All: true}, "a1", "", restrictions.Window{}); len(all) != 2 {
			t.Fatalf("all kinds %d", len(all))
		}
		if other, _ := s.Intervals(ctx, auth.Visibility{OrganizationID: "beta"}, "a1", "", restrictions.Window{}); len(other) != 0 {
			t.Fatalf("beta sees %d", len(other))
		}

		// Ten concurrent overlapping creations: exactly one wins.
		var wg sync.WaitGroup
		results := make([]error, 10)
		for i := range results {
			wg.Go(func() {
				results[i] = insert(restrictionInterval("acme", restrictions.EnergyLimit, time.Duration(i)*time.Minute, nil))
			})
		}
		wg.Wait()
		won := 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case !errs.Is(err, errs.Conflict):
				t.Fatalf("unexpected %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d overlapping creations won", won)
		}
	})
}

func TestRestrictionRequestsStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx, s := context.Background(), b.Restrictions()
		end := testkit.Start.Add(2 * time.Hour)
		upper := 0.0
		r := restrictions.Request{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "a1", Kind: restrictions.EnergyLimit,
			Action: restrictions.ActionCreate, Status: restrictions.Pending, Start: testkit.Start.Add(time.Hour), End: &end,
			Upper: &upper, Reason: restrictions.Other, RequestedBy: "alice", RequestedAt: testkit.Start}
		if err := s.CreateRequest(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Request(ctx, auth.Visibility{OrganizationID: "acme"}, r.ID)
		if err != nil || got.Kind != r.Kind || !got.End.Equal(end) || *got.Upper != 0 || got.Lower != nil || got.DecidedAt != nil {
			t.Fatalf("round trip %+v %v", got, err)
		}
		if _, err := s.Request(ctx, auth.Visibility{OrganizationID: "beta"}, r.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta reads %v", err)
		}
		if _, err := s.DecideRequest(ctx, auth.Visibility{OrganizationID: "beta"}, r.ID, nil); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta decides %v", err)
		}
		if list, _ := s.Requests(ctx, auth.Visibility{All: true}, restrictions.RequestFilter{Kind: restrictions.PowerLimit}); len(list) != 0 {
			t.Fatalf("kind filter %d", len(list))
		}
		// A failing decision writes nothing; an expiry is persisted with its error.
		now := testkit.Start.Add(3 * time.Hour)
		decided, err := s.DecideRequest(ctx, auth.Visibility{All: true}, r.ID, func(r restrictions.Request, _ []restrictions.Interval) (restrictions.Request, *restrictions.Change, error) {
			d, err := restrictions.Decide(r, restrictions.Decision{To: restrictions.Approved, By: "bob"}, now)
			return d, nil, err
		})
		if !errs.Is(err, errs.Conflict) || decided.Status != restrictions.Expired {
			t.Fatalf("expiry %v %v", decided.Status, err)
		}
		if got, _ := s.Request(ctx, auth.Visibility{All: true}, r.ID); got.Status != restrictions.Expired {
			t.Fatalf("stored %s", got.Status)
		}
	})
}

// TestRestrictionsActiveAt: every asset's intervals of every kind active
// at an instant, the boundaries half-open.
func TestRestrictionsActiveAt(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx, s := context.Background(), b.Restrictions()
		insert := func(iv restrictions.Interval) {
			t.Helper()
			_, err := s.MutateIntervals(ctx, iv.OrganizationID, iv.AssetID, iv.Kind, func(existing []restrictions.Interval) (restrictions.Change, error) {
				return restrictions.PlanCreate(existing, iv)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		hour, twoHours := time.Hour, 2*time.Hour
		insert(restrictionInterval("acme", restrictions.PowerLimit, 0, &hour))
		insert(restrictionInterval("acme", restrictions.PowerLimit, hour, &twoHours))
		insert(restrictionInterval("acme", restrictions.Unavailability, 30*time.Minute, nil))
		other := restrictionInterval("beta", restrictions.EnergyLimit, 0, nil)
		other.AssetID = "b1"
		insert(other)
		kinds := func(at time.Duration) []string {
			t.Helper()
			list, err := s.ActiveAt(ctx, testkit.Start.Add(at))
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, iv := range list {
				out = append(out, iv.AssetID+"/"+string(iv.Kind)+"@"+iv.Start.Sub(testkit.Start).String())
			}
			return out
		}
		for _, tc := range []struct {
			at   time.Duration
			want []string
		}{
			{-time.Second, []string{}},
			{0, []string{"a1/power_limit@0s", "b1/energy_limit@0s"}},
			{30 * time.Minute, []string{"a1/power_limit@0s", "a1/unavailability@30m0s", "b1/energy_limit@0s"}},
			{hour, []string{"a1/power_limit@1h0m0s", "a1/unavailability@30m0s", "b1/energy_limit@0s"}},
			{twoHours, []string{"a1/unavailability@30m0s", "b1/energy_limit@0s"}},
		} {
			got := kinds(tc.at)
			same := len(got) == len(tc.want)
			for i := 0; same && i < len(got); i++ {
				same = got[i] == tc.want[i]
			}
			if !same {
				t.Errorf("ActiveAt(+%v) = %v, want %v", tc.at, got, tc.want)
			}
		}
	})
}

// TestCurtailmentOpening: the domain's rule gets the asset's ongoing
// curtailment in the transaction, a refusal stores nothing, and of
// concurrent openings exactly one is stored.
func TestCurtailmentOpening(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx, s := context.Background(), b.Restrictions()
		curtailment := func(at time.Duration) restrictions.Curtailment {
			return restrictions.Curtailment{ID: uuid.NewString(), OrganizationID: "acme", AssetID: "a1",
				Start: testkit.Start.Add(at), MaxCurtailment: 3, MinCurtailment: 1}
		}
		var seen []*restrictions.Curtailment
		rule := func(ongoing *restrictions.Curtailment) error {
			seen = append(seen, ongoing)
			return restrictions.AllowCurtailment(ongoing)
		}
		first := curtailment(0)
		if err := s.OpenCurtailment(ctx, first, rule); err != nil {
			t.Fatal(err)
		}
		wantKind(t, s.OpenCurtailment(ctx, curtailment(time.Minute), rule), errs.Conflict, "curtailment_ongoing")
		if len(seen) != 2 || seen[0] != nil || seen[1] == nil || seen[1].ID != first.ID || !seen[1].Start.Equal(first.Start) {
			t.Fatalf("the rule saw %+v; want none, then %s", seen, first.ID)
		}
		list, err := s.Curtailments(ctx, auth.Visibility{All: true}, "a1", restrictions.Window{})
		if err != nil || len(list) != 1 {
			t.Fatalf("after a refused opening: %+v, %v", list, err)
		}

		if _, err := s.CloseCurtailment(ctx, "a1", testkit.Start.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errsOf := make([]error, 8)
		for i := range errsOf {
			wg.Go(func() {
				errsOf[i] = s.OpenCurtailment(ctx, curtailment(2*time.Hour), restrictions.AllowCurtailment)
			})
		}
		wg.Wait()
		opened := 0
		for _, err := range errsOf {
			switch {
			case err == nil:
				opened++
			case !errs.Is(err, errs.Conflict):
				t.Error(err)
			}
		}
		if opened != 1 {
			t.Fatalf("%d concurrent openings succeeded, want 1", opened)
		}
	})
}
