package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/prequal"
	"atcp/internal/onboarding/reminders"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// flowFixture starts bess-1's workflow; bess-1 gets 10 MW usable power
// and the TSO 50HZ.
func flowFixture(t *testing.T, b store.Backend) (*onboarding.Service, *assets.Service, onboarding.Onboarding) {
	t.Helper()
	ctx := context.Background()
	svc, registry, _ := onboardingFixture(t, b)
	if _, err := registry.Update(ctx, auth.Visibility{All: true}, "bess-1", assets.Update{
		UsablePowerCapacityMW: assets.Set(10.0), TSO: assets.Set(assets.TSO50Hertz)}); err != nil {
		t.Fatal(err)
	}
	ob, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, registry, ob
}

func TestOnboardingCommentStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, _, ob := flowFixture(t, b)
		cs := comments.NewService(svc, b.OnboardingComments(), clock.NewManual(testkit.Start), nil)
		gate := ob.Gates[0].ID
		if _, err := cs.Post(ctx, obAcme, ob.ID, comments.PostRequest{Body: "internal note", Visibility: "internal"}); err != nil {
			t.Fatal(err)
		}
		c, err := cs.Post(ctx, obPlatform, ob.ID, comments.PostRequest{Body: "please fill in", GateID: gate})
		if err != nil {
			t.Fatal(err)
		}
		if c.Visibility != comments.Shared || c.AuthorName != "Paula Platform" || c.AuthorRole != onboarding.RolePlatformOnboarding {
			t.Fatalf("posted %+v", c)
		}
		all, total, err := cs.List(ctx, obAcme, ob.ID, comments.Query{Limit: 10})
		if err != nil || total != 2 || len(all) != 2 {
			t.Fatalf("list %d %+v %v", total, all, err)
		}
		got, _, _ := cs.List(ctx, obPlatform, ob.ID, comments.Query{GateID: gate, Limit: 10})
		if len(got) != 1 || got[0].ID != c.ID || got[0].Body != "please fill in" || !got[0].CreatedAt.Equal(c.CreatedAt) || got[0].GateID != gate {
			t.Fatalf("by gate %+v, want %+v", got, c)
		}
		got, _, _ = cs.List(ctx, obAcme, ob.ID, comments.Query{Visibility: "internal", Limit: 10})
		if len(got) != 1 || got[0].Body != "internal note" {
			t.Fatalf("internal %+v", got)
		}
		if _, _, err := cs.List(ctx, obBeta, ob.ID, comments.Query{Limit: 10}); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("beta lists acme's comments: %v", err)
		}
		// The store filters by visibility itself.
		if l, err := b.OnboardingComments().List(ctx, auth.Visibility{OrganizationID: "beta"}, ob.ID, comments.Filter{}); err != nil || len(l) != 0 {
			t.Fatalf("beta's store read %+v %v", l, err)
		}
	})
}

func TestOnboardingPrequalificationStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, registry, ob := flowFixture(t, b)
		ps := prequal.NewService(svc, b.OnboardingPrequalifications(), registry, nil, clock.NewManual(testkit.Start))
		p, err := ps.Create(ctx, obPlatform, ob.ID, prequal.CreateRequest{Product: "fcr", RequestedMW: 8, TSOReference: "PQ-1"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ps.Get(ctx, obAcme, ob.ID, p.ID)
		if err != nil || got.TSO != assets.TSO50Hertz || got.RequestedMW != 8 || got.Status != prequal.Submitted || got.SubmittedOn != p.SubmittedOn ||
			!got.CreatedAt.Equal(p.CreatedAt) || got.PrequalifiedMW != nil || got.TSOReference != "PQ-1" {
			t.Fatalf("get %+v %v", got, err)
		}
		half := 5.0
		if _, err := ps.Result(ctx, obPlatform, ob.ID, p.ID, prequal.ResultRequest{Status: "partially_granted", PrequalifiedMW: &half}); err != nil {
			t.Fatal(err)
		}
		a, err := registry.Get(ctx, auth.Visibility{All: true}, "bess-1")
		if err != nil || a.FCRPrequalifiedMW != 5 {
			t.Fatalf("asset fcr %v %v", a.FCRPrequalifiedMW, err)
		}
		got, _ = ps.Get(ctx, obPlatform, ob.ID, p.ID)
		if got.Status != prequal.PartiallyGranted || got.PrequalifiedMW == nil || *got.PrequalifiedMW != 5 || got.DecidedOn == nil {
			t.Fatalf("decided %+v", got)
		}
		if _, err := ps.Get(ctx, obBeta, ob.ID, p.ID); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("beta reads acme's prequalification: %v", err)
		}
		if _, err := b.OnboardingPrequalifications().Get(ctx, auth.Visibility{OrganizationID: "beta"}, ob.ID, p.ID); !obCode(err, errs.NotFound, "prequalification_not_found") {
			t.Fatalf("beta's store read: %v", err)
		}
		if _, err := ps.Withdraw(ctx, obPlatform, ob.ID, p.ID, "wrong figure"); err != nil {
			t.Fatal(err)
		}
		if a, _ := registry.Get(ctx, auth.Visibility{All: true}, "bess-1"); a.FCRPrequalifiedMW != 0 {
			t.Fatalf("withdrawn, asset fcr %v", a.FCRPrequalifiedMW)
		}
		list, err := ps.List(ctx, obAcme, ob.ID)
		if err != nil || len(list) != 1 || list[0].Status != prequal.Withdrawn || list[0].WithdrawReason != "wrong figure" {
			t.Fatalf("list %+v %v", list, err)
		}
	})
}

// Two concurrent creates of the same product: one wins, the other is 409
// prequalification_exists; a withdrawn one does not count.
func TestOnboardingPrequalificationOnePerProduct(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, registry, ob := flowFixture(t, b)
		ps := prequal.NewService(svc, b.OnboardingPrequalifications(), registry, nil, clock.NewManual(testkit.Start))
		const n = 4
		errsOut := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errsOut[i] = ps.Create(ctx, obPlatform, ob.ID, prequal.CreateRequest{Product: "afrr_pos", RequestedMW: 4})
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errsOut {
			switch {
			case err == nil:
				ok++
			case !obCode(err, errs.Conflict, "prequalification_exists"):
				t.Fatalf("concurrent create: %v", err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d creates succeeded, want 1", ok)
		}
		// The store's index decides without the service's lock too.
		list, _ := ps.List(ctx, obPlatform, ob.ID)
		dup := list[0]
		dup.ID = "0b0b0b0b-0000-4000-8000-000000000001"
		if err := b.OnboardingPrequalifications().Insert(ctx, dup); !obCode(err, errs.Conflict, "prequalification_exists") {
			t.Fatalf("second insert: %v", err)
		}
		if _, err := ps.Withdraw(ctx, obPlatform, ob.ID, list[0].ID, "resubmit"); err != nil {
			t.Fatal(err)
		}
		if err := b.OnboardingPrequalifications().Insert(ctx, dup); err != nil {
			t.Fatalf("insert after withdrawal: %v", err)
		}
	})
}

// everyone finds one contact of every role asked for.
type everyone struct{}

func (everyone) ForGate(_ context.Context, _ onboarding.Onboarding, _ onboarding.Gate, roles []onboarding.TaskRole) ([]reminders.Recipient, error) {
	out := make([]reminders.Recipient, len(roles))
	for i, r := range roles {
		out[i] = reminders.Recipient{Role: r, ContactID: "c-" + string(r), Name: "Contact " + string(r)}
	}
	return out, nil
}

// The job records each due point once, also when two runs race; the
// policy and the manual reminders are kept.
func TestOnboardingReminderStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, _, ob := flowFixture(t, b)
		clk, sec := clock.NewManual(testkit.Start), clock.NewManual(testkit.SecurityStart)
		rs := reminders.NewService(reminders.Deps{Core: svc, Store: b.OnboardingReminders(), Recipients: everyone{}, Clock: clk, Security: sec})
		p, _, _, err := rs.List(ctx, obAcme, ob.ID, "", 10, 0)
		if err != nil || !slices.Equal(p.DaysBefore, []int{7, 1}) || !p.Enabled {
			t.Fatalf("default policy %+v %v", p, err)
		}
		// The RfI gate's deadline is 14 days after the start: its 7-day point.
		rfi := ob.Gates[0]
		due := rfi.Deadline.AddDays(-7).Local(9, 0)
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if err := rs.Run(ctx, due); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		_, list, total, err := rs.List(ctx, obAcme, ob.ID, "", 10, 0)
		if err != nil || total != 1 || list[0].GateID != rfi.ID || list[0].Kind != reminders.BeforeDeadline ||
			list[0].DueOn != rfi.Deadline.AddDays(-7) || len(list[0].Recipients) != 1 || list[0].Recipients[0].Role != onboarding.RoleAssetOwner ||
			list[0].Delivery != reminders.NotSent || list[0].CreatedBy != "system" {
			t.Fatalf("after the runs %d %+v %v", total, list, err)
		}
		// Overdue the day after: to the owner and the managers.
		if err := rs.Run(ctx, rfi.Deadline.AddDays(1).Local(0, 30)); err != nil {
			t.Fatal(err)
		}
		_, list, _, _ = rs.List(ctx, obAcme, ob.ID, rfi.ID, 10, 0)
		if len(list) != 2 || list[0].Kind != reminders.Overdue || len(list[0].Recipients) != 2 {
			t.Fatalf("overdue %+v", list)
		}

		// Policy.
		np := reminders.Policy{DaysBefore: []int{3}, OverdueEveryDays: 2, MaxOverdueReminders: 1, Enabled: true}
		if _, err := rs.SetPolicy(ctx, obAcme, ob.ID, np); err != nil {
			t.Fatal(err)
		}
		if p, _, _, _ := rs.List(ctx, obPlatform, ob.ID, "", 10, 0); !slices.Equal(p.DaysBefore, []int{3}) || p.MaxOverdueReminders != 1 {
			t.Fatalf("policy %+v", p)
		}
		if _, err := b.OnboardingReminders().Policy(ctx, auth.Visibility{OrganizationID: "beta"}, ob.ID); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("beta reads the policy: %v", err)
		}

		// Manual: once an hour of security time per gate, also when
		// requests race: exactly one of them passes.
		dpl := ob.Gates[1]
		var passed []reminders.Reminder
		var mu sync.Mutex
		for range 6 {
			wg.Go(func() {
				r, err := rs.Remind(ctx, obAcme, ob.ID, dpl.ID, "please")
				var rl *reminders.RateLimitedError
				switch {
				case err == nil:
					mu.Lock()
					passed = append(passed, r)
					mu.Unlock()
				case !errors.As(err, &rl) || rl.RetryAfter != time.Hour:
					t.Errorf("a racing manual reminder: %v", err)
				}
			})
		}
		wg.Wait()
		if len(passed) != 1 {
			t.Fatalf("%d racing manual reminders passed, want 1", len(passed))
		}
		if r := passed[0]; r.Kind != reminders.Manual || r.Message != "please" || r.Recipients[0].Role != onboarding.RoleEMSProvider ||
			!r.EnqueuedAt.Equal(clk.Now()) {
			t.Fatalf("manual %+v", r)
		}
		var rl *reminders.RateLimitedError
		// The reminder row keeps platform time; the limit is security time.
		clk.Advance(2 * time.Hour)
		sec.Advance(59 * time.Minute)
		if _, err := rs.Remind(ctx, obAcme, ob.ID, dpl.ID, ""); !errors.As(err, &rl) || rl.RetryAfter != time.Minute {
			t.Fatalf("a platform hour later: %v", err)
		}
		sec.Advance(time.Minute)
		if _, err := rs.Remind(ctx, obAcme, ob.ID, dpl.ID, ""); err != nil {
			t.Fatalf("a security hour later: %v", err)
		}
		if l, err := b.OnboardingReminders().List(ctx, auth.Visibility{OrganizationID: "beta"}, ob.ID, ""); err != nil || len(l) != 0 {
			t.Fatalf("beta's store read %+v %v", l, err)
		}
	})
}
