package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

var (
	obPlatform = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-p", Name: "Paula Platform", OrganizationID: auth.PlatformOrganization,
		Role: onboarding.RolePlatformOnboarding}
	obAcme = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-a", Name: "Anna Acme", OrganizationID: "acme"}
	obBeta = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-b", Name: "Bert Beta", OrganizationID: "beta"}
)

// onboardingFixture registers acme's full-control asset bess-1 and
// beta's b-1, both in status onboarding, and returns the service.
func onboardingFixture(t *testing.T, b store.Backend) (*onboarding.Service, *assets.Service, *clock.Manual) {
	t.Helper()
	withAssetOrganizations(t, b)
	clk := clock.NewManual(testkit.Start)
	registry := assets.NewService(b.Assets(), clk)
	for _, a := range []assets.Asset{
		assets.NewAsset("bess-1", "acme", "One", "Leipzig", assets.Standalone),
		assets.NewAsset("b-1", "beta", "Beta", "Berlin", assets.Standalone),
	} {
		it := assets.FullControl
		a.IntegrationType = &it
		if err := registry.EnsureAsset(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	return onboarding.NewService(b.Onboardings(), registry, clk), registry, clk
}

func obCode(err error, kind errs.Kind, code errs.Code) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Kind == kind && e.Code == code
}

func TestOnboardingStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, registry, clk := onboardingFixture(t, b)
		target := testkit.Start.AddDate(0, 2, 0)
		targetDay := calendar.DayOf(target)
		ob, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1", TargetHCDate: &targetDay, Notes: "first"})
		if err != nil {
			t.Fatal(err)
		}
		if ob.TemplateID != "fc_v1" || ob.Status != onboarding.InProgress || ob.OrganizationID != "acme" || len(ob.Gates) != 6 ||
			ob.StartedOn.String() != "2026-02-01" || ob.Notes != "first" || !ob.CreatedAt.Equal(testkit.Start) || ob.CreatedBy != "Paula Platform" {
			t.Fatalf("created %+v", ob)
		}
		for i, g := range ob.Gates {
			if g.Order != i+1 || g.Status != onboarding.GatePending || g.Ready != (i == 0) || g.Deadline == nil {
				t.Fatalf("gate %d: %+v", i, g)
			}
		}
		if last := ob.Gates[5]; last.Deadline.String() != targetDay.String() {
			t.Fatalf("go-live deadline %s, want the target date %s", last.Deadline, targetDay)
		}

		// Visibility: acme and the platform see it, beta does not.
		if _, err := svc.Get(ctx, obAcme, ob.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Get(ctx, obBeta, ob.ID); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("beta reads acme's onboarding: %v", err)
		}
		if _, err := b.Onboardings().Get(ctx, assetBeta, ob.ID); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("store read across organisations: %v", err)
		}
		if _, err := b.Onboardings().Get(ctx, assetAdmin, "not-a-uuid"); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("malformed id: %v", err)
		}
		if list, total, err := svc.List(ctx, obBeta, onboarding.ListQuery{ListFilter: onboarding.ListFilter{Limit: 10}}); err != nil || total != 0 || len(list) != 0 {
			t.Fatalf("beta's list: %v %d %v", list, total, err)
		}
		if list, total, err := svc.List(ctx, obPlatform, onboarding.ListQuery{ListFilter: onboarding.ListFilter{Limit: 10, AssetID: "bess-1"}}); err != nil || total != 1 || len(list[0].Gates) != 6 {
			t.Fatalf("platform's list: %v %d %v", list, total, err)
		}

		// A second in_progress workflow for the asset is refused.
		if _, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1"}); !obCode(err, errs.Conflict, "onboarding_exists") {
			t.Fatalf("second workflow: %v", err)
		}

		// A rolled-back Mutate leaves nothing: not the gate, not the audit entry.
		boom := errors.New("boom")
		err = svc.Mutate(ctx, obAcme, ob.ID, func(ctx context.Context, cur onboarding.Onboarding) error {
			if err := svc.TouchGate(ctx, cur, onboarding.KindRfI); err != nil {
				return err
			}
			if err := svc.Audit(ctx, obAcme, cur, "test.touched", onboarding.Target{Type: "gate", ID: cur.Gates[0].ID}, nil); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("mutate: %v", err)
		}
		if got, _ := svc.Get(ctx, obAcme, ob.ID); got.Gates[0].Status != onboarding.GatePending {
			t.Fatalf("rolled-back touch stored: %s", got.Gates[0].Status)
		}
		if entries, total, err := svc.AuditTrail(ctx, obAcme, ob.ID, onboarding.AuditFilter{ActionPrefix: "test.", Limit: 10}); err != nil || total != 0 || len(entries) != 0 {
			t.Fatalf("rolled-back audit entry: %v %d %v", entries, total, err)
		}

		// Pass the RfI, DPL and installation gates: the asset moves to
		// onboarding_testing inside the transaction, with the reason.
		for _, kind := range []string{onboarding.KindRfI, onboarding.KindDPL, onboarding.KindInstallation} {
			clk.Advance(time.Minute)
			cur, _ := svc.Get(ctx, obPlatform, ob.ID)
			g, _ := svc.GateForKind(ctx, cur, kind)
			if _, err := svc.Act(ctx, obPlatform, ob.ID, g.ID, onboarding.ActionSubmit, ""); err != nil {
				t.Fatalf("submit %s: %v", kind, err)
			}
			if g, err = svc.Act(ctx, obPlatform, ob.ID, g.ID, onboarding.ActionPass, "ok"); err != nil || g.Status != onboarding.GatePassed ||
				g.PassedBy != "Paula Platform" || g.PassedAt == nil || g.LastNote != "ok" {
				t.Fatalf("pass %s: %+v, %v", kind, g, err)
			}
		}
		a, err := registry.Get(ctx, assetAdmin, "bess-1")
		if err != nil || a.OperationalStatus != assets.OnboardingTesting || a.OperationalStatusReason == nil ||
			*a.OperationalStatusReason != "onboarding "+ob.ID+": Installation" || !a.UpdatedAt.Equal(clk.Now()) {
			t.Fatalf("asset after installation: %+v, %v", a, err)
		}
		if stored, err := b.Assets().Get(ctx, assetAdmin, "bess-1"); err != nil || stored.OperationalStatus != assets.OnboardingTesting {
			t.Fatalf("stored asset: %+v, %v", stored, err)
		}

		// An on-pass hook failing rolls back the gate and the asset move.
		hookErr := errs.Conflictf("test_refused", "refused")
		svc.AddOnPass(func(ctx context.Context, _ onboarding.Onboarding, g onboarding.Gate, def onboarding.GateDefinition, _ onboarding.Actor) error {
			if def.Kind == onboarding.KindGoLive {
				return hookErr
			}
			return nil
		})
		cur, _ := svc.Get(ctx, obPlatform, ob.ID)
		for _, kind := range []string{onboarding.KindCommTest, onboarding.KindPrequalification} {
			g, _ := svc.GateForKind(ctx, cur, kind)
			if _, err := svc.Act(ctx, obPlatform, ob.ID, g.ID, onboarding.ActionWaive, "not needed"); err != nil {
				t.Fatalf("waive %s: %v", kind, err)
			}
		}
		live, _ := svc.GateForKind(ctx, cur, onboarding.KindGoLive)
		if _, err := svc.Act(ctx, obPlatform, ob.ID, live.ID, onboarding.ActionSubmit, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Act(ctx, obPlatform, ob.ID, live.ID, onboarding.ActionPass, ""); !errors.Is(err, hookErr) {
			t.Fatalf("pass with a failing hook: %v", err)
		}
		if got, _ := svc.Get(ctx, obPlatform, ob.ID); got.Status != onboarding.InProgress || got.Gates[5].Status != onboarding.GateSubmitted {
			t.Fatalf("failed pass stored: %+v", got)
		}
		if a, _ := registry.Get(ctx, assetAdmin, "bess-1"); a.OperationalStatus != assets.OnboardingTesting {
			t.Fatalf("failed pass moved the asset: %s", a.OperationalStatus)
		}

		// The audit trail, newest first, filtered.
		entries, total, err := svc.AuditTrail(ctx, obAcme, ob.ID, onboarding.AuditFilter{ActionPrefix: "gate.", Limit: 3})
		if err != nil || total != 9 || len(entries) != 3 || entries[0].Action != "gate.submitted" || entries[0].Target.ID != live.ID ||
			entries[0].OrganizationID != "acme" || entries[0].OnboardingID != ob.ID ||
			entries[0].Actor.Name != "Paula Platform" || entries[0].Actor.Role != onboarding.RolePlatformOnboarding ||
			entries[0].Changes["status"] != [2]any{"pending", "submitted"} {
			t.Fatalf("audit: %d %+v %v", total, entries, err)
		}
		start := testkit.Start.Add(90 * time.Second)
		if entries, total, err := svc.AuditTrail(ctx, obPlatform, ob.ID, onboarding.AuditFilter{StartTime: &start, TargetType: "asset", Limit: 10}); err != nil ||
			total != 1 || entries[0].Action != "asset.status_changed" {
			t.Fatalf("audit since %s: %d %+v %v", start, total, entries, err)
		}
		if _, _, err := svc.AuditTrail(ctx, obBeta, ob.ID, onboarding.AuditFilter{Limit: 10}); !obCode(err, errs.NotFound, "onboarding_not_found") {
			t.Fatalf("beta's audit read: %v", err)
		}

		// Cancel closes the workflow; a new one may start.
		if got, err := svc.Cancel(ctx, obPlatform, ob.ID, "site sold"); err != nil || got.Status != onboarding.Cancelled || got.CancelReason != "site sold" || got.CancelledAt == nil {
			t.Fatalf("cancel: %+v, %v", got, err)
		}
		if _, err := svc.Update(ctx, obPlatform, ob.ID, onboarding.Patch{Notes: new(string)}); !obCode(err, errs.Conflict, "onboarding_closed") {
			t.Fatalf("update of a cancelled workflow: %v", err)
		}
		if _, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "b-1"}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOnboardingCreateConcurrently: of concurrent creates for one asset,
// exactly one succeeds, the others are 409 onboarding_exists.
func TestOnboardingCreateConcurrently(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		svc, _, _ := onboardingFixture(t, b)
		const n = 6
		var wg sync.WaitGroup
		results := make(chan error, n)
		for range n {
			wg.Go(func() {
				_, err := svc.Create(context.Background(), obPlatform, onboarding.CreateRequest{AssetID: "bess-1"})
				results <- err
			})
		}
		wg.Wait()
		close(results)
		ok := 0
		for err := range results {
			switch {
			case err == nil:
				ok++
			case !obCode(err, errs.Conflict, "onboarding_exists"):
				t.Errorf("create: %v", err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d creates succeeded", ok)
		}
		if _, total, err := svc.List(context.Background(), obPlatform, onboarding.ListQuery{ListFilter: onboarding.ListFilter{Limit: 10}}); err != nil || total != 1 {
			t.Fatalf("workflows: %d, %v", total, err)
		}
	})
}

// TestOnboardingOwnsAssetStatus: a workflow's creation and a status change
// through the asset API, run together, never both succeed (the asset's row
// lock orders them), and while the workflow is in progress the asset API
// cannot move the status.
func TestOnboardingOwnsAssetStatus(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, registry, _ := onboardingFixture(t, b)
		registry.SetStatusOwner(svc)
		all := auth.Visibility{All: true}
		for round := range 5 {
			var wg sync.WaitGroup
			var createErr, moveErr error
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, createErr = svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1"})
			}()
			go func() {
				defer wg.Done()
				_, moveErr = registry.Update(ctx, all, "bess-1", assets.Update{OperationalStatus: assets.Some(assets.Maintenance)})
			}()
			wg.Wait()
			switch {
			case createErr == nil && moveErr == nil:
				t.Fatalf("round %d: the workflow was created and the asset moved to maintenance", round)
			case createErr == nil:
				if !obCode(moveErr, errs.Conflict, assets.CodeOnboardingInProgress) {
					t.Fatalf("round %d: move: %v", round, moveErr)
				}
				ob, _, err := svc.OnboardingInProgress(ctx, "bess-1")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := svc.Cancel(ctx, obPlatform, ob, "again"); err != nil {
					t.Fatal(err)
				}
			case moveErr == nil:
				if !obCode(createErr, errs.Conflict, onboarding.CodeAssetNotOnboarding) {
					t.Fatalf("round %d: create: %v", round, createErr)
				}
			default:
				t.Fatalf("round %d: both refused: %v; %v", round, createErr, moveErr)
			}
			if _, err := registry.Update(ctx, all, "bess-1", assets.Update{OperationalStatus: assets.Some(assets.Onboarding)}); err != nil {
				t.Fatalf("round %d: back to onboarding: %v", round, err)
			}
		}
	})
}
