package onboarding_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/testkit"
)

var (
	platform = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-p", Name: "Paula", OrganizationID: auth.PlatformOrganization, Role: onboarding.RolePlatformOnboarding}
	acme     = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-a", Name: "Anna", OrganizationID: "acme"}
	acme2    = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-a2", Name: "Arne", OrganizationID: "acme"}
	beta     = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-b", Name: "Bert", OrganizationID: "beta"}
)

type fixture struct {
	svc      *onboarding.Service
	registry *assets.Service
	clk      *clock.Manual
}

// newFixture registers acme's assets fc (full_control), mon
// (monitoring_only), none (no integration type) and live (status live).
func newFixture(t *testing.T, at time.Time) fixture {
	t.Helper()
	ctx := context.Background()
	b := testkit.OpenSQLite(t)
	clk := clock.NewManual(at)
	dir := identity.NewDirectory(b.Directory(), clk, "http://atcp.test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), clk)
	for _, c := range []struct {
		id     string
		it     assets.IntegrationType
		status assets.OperationalStatus
	}{{"fc", assets.FullControl, assets.Onboarding}, {"mon", assets.MonitoringOnly, assets.Onboarding}, {"none", "", assets.Onboarding},
		{"live", assets.FullControl, assets.Live}} {
		a := assets.NewAsset(c.id, "acme", c.id, "Kiel", assets.Standalone)
		if c.it != "" {
			a.IntegrationType = &c.it
		}
		a.OperationalStatus = c.status
		if err := registry.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	return fixture{onboarding.NewService(b.Onboardings(), registry, clk), registry, clk}
}

func code(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func day(s string) *calendar.Day {
	d, err := calendar.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return &d
}

func TestCreate(t *testing.T) {
	ctx := context.Background()
	// 23:30 UTC on 28 March is 00:30 on the clock-change day in Berlin.
	f := newFixture(t, time.Date(2026, 3, 28, 23, 30, 0, 0, time.UTC))
	for _, c := range []struct {
		name  string
		actor onboarding.Actor
		req   onboarding.CreateRequest
		want  string
	}{
		{"organisation user", acme, onboarding.CreateRequest{AssetID: "fc"}, "platform_only"},
		{"unknown asset", platform, onboarding.CreateRequest{AssetID: "nope"}, "asset_not_found"},
		{"live asset", platform, onboarding.CreateRequest{AssetID: "live"}, "asset_not_onboarding"},
		{"other integration type", platform, onboarding.CreateRequest{AssetID: "fc", TemplateID: "mon_v1"}, "validation_failed"},
		{"unknown template", platform, onboarding.CreateRequest{AssetID: "fc", TemplateID: "x"}, "validation_failed"},
		{"no integration type", platform, onboarding.CreateRequest{AssetID: "none"}, "validation_failed"},
		{"target before start", platform, onboarding.CreateRequest{AssetID: "fc", StartedOn: day("2026-04-01"), TargetHCDate: day("2026-03-31")}, "validation_failed"},
		{"unknown override", platform, onboarding.CreateRequest{AssetID: "fc", GateOverrides: map[string]onboarding.GateOverride{"mon_rfi": {}}}, "validation_failed"},
		{"waive go-live", platform, onboarding.CreateRequest{AssetID: "fc", GateOverrides: map[string]onboarding.GateOverride{"fc_go_live": {Waived: true, Note: "x"}}}, "validation_failed"},
		{"waive without note", platform, onboarding.CreateRequest{AssetID: "fc", GateOverrides: map[string]onboarding.GateOverride{"fc_rfi": {Waived: true}}}, "validation_failed"},
	} {
		if _, err := f.svc.Create(ctx, c.actor, c.req); code(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}

	ob, err := f.svc.Create(ctx, platform, onboarding.CreateRequest{AssetID: "mon"})
	if err != nil || ob.TemplateID != "mon_v1" || ob.StartedOn.String() != "2026-03-29" || len(ob.Gates) != 5 {
		t.Fatalf("mon: %+v, %v", ob, err)
	}
	if ob.Gates[0].Deadline.String() != "2026-04-12" || ob.Gates[4].Deadline.String() != "2026-07-05" {
		t.Fatalf("deadlines %s %s", ob.Gates[0].Deadline, ob.Gates[4].Deadline)
	}

	// Overrides: a deadline and a waived installation gate, whose on-pass
	// effect moves the asset at once.
	ob, err = f.svc.Create(ctx, platform, onboarding.CreateRequest{AssetID: "none", TemplateID: "fc_v1", StartedOn: day("2026-04-01"),
		GateOverrides: map[string]onboarding.GateOverride{
			"fc_rfi":          {Deadline: day("2026-04-03")},
			"fc_installation": {Waived: true, Note: "installed before"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if g := ob.Gates[0]; g.Deadline.String() != "2026-04-03" || g.Status != onboarding.GatePending {
		t.Fatalf("rfi %+v", g)
	}
	if g := ob.Gates[2]; g.Status != onboarding.GateWaived || g.LastNote != "installed before" || g.PassedBy != "Paula" {
		t.Fatalf("installation %+v", g)
	}
	if a, _ := f.registry.Get(ctx, auth.Visibility{All: true}, "none"); a.OperationalStatus != assets.OnboardingTesting {
		t.Fatalf("asset %s", a.OperationalStatus)
	}
	entries, _, err := f.svc.AuditTrail(ctx, platform, ob.ID, onboarding.AuditFilter{Limit: 10})
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	if err != nil || !slices.Equal(actions, []string{"asset.status_changed", "gate.waived", "onboarding.created"}) {
		t.Fatalf("audit %v, %v", actions, err)
	}
}

// flow creates fc's workflow and returns it.
func flow(t *testing.T, f fixture) onboarding.Onboarding {
	t.Helper()
	ob, err := f.svc.Create(context.Background(), platform, onboarding.CreateRequest{AssetID: "fc"})
	if err != nil {
		t.Fatal(err)
	}
	return ob
}

func gate(t *testing.T, f fixture, ob onboarding.Onboarding, kind string) onboarding.Gate {
	t.Helper()
	cur, err := f.svc.Get(context.Background(), platform, ob.ID)
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.svc.GateForKind(context.Background(), cur, kind)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type notice struct{ action, gate, note string }

type recorder struct{ got []notice }

func (r *recorder) GateChanged(_ context.Context, _ onboarding.Onboarding, g onboarding.Gate, action string, _ onboarding.Actor, note string) error {
	r.got = append(r.got, notice{action, g.DefinitionID, note})
	return nil
}

func TestGateActions(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, testkit.Start)
	rec := &recorder{}
	f.svc.SetNotifier(rec)
	ob := flow(t, f)
	rfi, dpl := gate(t, f, ob, onboarding.KindRfI), gate(t, f, ob, onboarding.KindDPL)
	act := func(actor onboarding.Actor, g onboarding.Gate, a onboarding.Action, note string) string {
		_, err := f.svc.Act(ctx, actor, ob.ID, g.ID, a, note)
		return code(err)
	}
	for _, c := range []struct {
		name  string
		actor onboarding.Actor
		g     onboarding.Gate
		a     onboarding.Action
		note  string
		want  string
	}{
		{"other organisation", beta, rfi, onboarding.ActionSubmit, "", "onboarding_not_found"},
		{"org user submits an epc gate", acme, dpl, onboarding.ActionSubmit, "", "not_gate_owner"},
		{"not ready", platform, dpl, onboarding.ActionSubmit, "", "gate_not_ready"},
		{"org user passes", acme, rfi, onboarding.ActionPass, "", "platform_only"},
		{"org user waives", acme, rfi, onboarding.ActionWaive, "x", "platform_only"},
		{"pass a pending gate", platform, rfi, onboarding.ActionPass, "", "gate_transition_not_allowed"},
		{"waive without note", platform, rfi, onboarding.ActionWaive, " ", "validation_failed"},
		{"block without reason", acme, rfi, onboarding.ActionBlock, "", "validation_failed"},
		{"org user submits the owner's gate", acme, rfi, onboarding.ActionSubmit, "", ""},
		{"request changes without note", platform, rfi, onboarding.ActionRequestChanges, "", "validation_failed"},
		{"request changes", platform, rfi, onboarding.ActionRequestChanges, "phone missing", ""},
		{"block", acme, rfi, onboarding.ActionBlock, "waiting for the grid operator", ""},
		{"submit while blocked", acme, rfi, onboarding.ActionSubmit, "", "gate_transition_not_allowed"},
		{"another org user unblocks", acme2, rfi, onboarding.ActionUnblock, "", "platform_only"},
		{"the blocker unblocks", acme, rfi, onboarding.ActionUnblock, "", ""},
		{"resubmit", acme, rfi, onboarding.ActionSubmit, "", ""},
		{"pass", platform, rfi, onboarding.ActionPass, "", ""},
		{"org user reopens", acme, rfi, onboarding.ActionReopen, "x", "platform_only"},
		{"reopen without note", platform, rfi, onboarding.ActionReopen, "", "validation_failed"},
		{"reopen", platform, rfi, onboarding.ActionReopen, "wrong capacity", ""},
	} {
		if got := act(c.actor, c.g, c.a, c.note); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	g := gate(t, f, ob, onboarding.KindRfI)
	if g.Status != onboarding.GateInProgress || g.LastNote != "wrong capacity" || g.BlockedFrom != "" || g.SubmittedBy != "Anna" {
		t.Fatalf("rfi after reopen %+v", g)
	}
	want := []notice{{"request_changes", "fc_rfi", "phone missing"}, {"block", "fc_rfi", "waiting for the grid operator"},
		{"unblock", "fc_rfi", ""}, {"submit", "fc_rfi", ""}, {"pass", "fc_rfi", ""}, {"reopen", "fc_rfi", "wrong capacity"}}
	if !slices.Equal(rec.got[1:], want) || rec.got[0] != (notice{"submit", "fc_rfi", ""}) {
		t.Fatalf("notices %v", rec.got)
	}

	// The go-live gate: not waivable, not reopenable, and its submit needs
	// every other gate passed or waived.
	live := gate(t, f, ob, onboarding.KindGoLive)
	if got := act(platform, live, onboarding.ActionWaive, "x"); got != "gate_not_waivable" {
		t.Fatalf("waive go-live: %s", got)
	}
	for _, kind := range []string{onboarding.KindRfI, onboarding.KindDPL, onboarding.KindInstallation, onboarding.KindCommTest, onboarding.KindPrequalification} {
		if got := act(platform, gate(t, f, ob, kind), onboarding.ActionWaive, "skip"); got != "" {
			t.Fatalf("waive %s: %s", kind, got)
		}
	}
	// Reopen one: the go-live gate is ready only through its own
	// dependency, so submit still finds the reopened gate.
	if got := act(platform, gate(t, f, ob, onboarding.KindDPL), onboarding.ActionReopen, "again"); got != "" {
		t.Fatal(got)
	}
	_, err := f.svc.Act(ctx, platform, ob.ID, live.ID, onboarding.ActionSubmit, "")
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != "gate_requirements_unmet" || len(e.Fields) != 1 || e.Fields[0].Location != "gates.fc_dpl" {
		t.Fatalf("go-live submit: %v %+v", err, e)
	}
	if got := act(platform, gate(t, f, ob, onboarding.KindDPL), onboarding.ActionWaive, "skip"); got != "" {
		t.Fatal(got)
	}
	if got := act(platform, live, onboarding.ActionSubmit, ""); got != "" {
		t.Fatal(got)
	}
	if got := act(platform, live, onboarding.ActionPass, "go"); got != "" {
		t.Fatal(got)
	}
	done, _ := f.svc.Get(ctx, acme, ob.ID)
	if done.Status != onboarding.Completed || done.CompletedAt == nil {
		t.Fatalf("workflow %+v", done)
	}
	if a, _ := f.registry.Get(ctx, auth.Visibility{All: true}, "fc"); a.OperationalStatus != assets.Live {
		t.Fatalf("asset %s", a.OperationalStatus)
	}
	if got := act(platform, live, onboarding.ActionReopen, "x"); got != "onboarding_closed" {
		t.Fatalf("reopen after completion: %s", got)
	}
}

func TestRequirementsAndHooks(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, testkit.Start)
	var ran []string
	f.svc.AddRequirement(onboarding.RequireFields, func(_ context.Context, _ onboarding.Onboarding, _ onboarding.Gate, def onboarding.GateDefinition) ([]onboarding.Unmet, error) {
		ran = append(ran, "fields:"+def.DefinitionID)
		return []onboarding.Unmet{{Location: "fields.tso", Detail: "is required"}}, nil
	})
	f.svc.AddRequirement(onboarding.RequireDPL, func(_ context.Context, _ onboarding.Onboarding, _ onboarding.Gate, def onboarding.GateDefinition) ([]onboarding.Unmet, error) {
		ran = append(ran, "dpl:"+def.DefinitionID)
		return nil, nil
	})
	var passed, cancelled []string
	f.svc.AddOnPass(func(_ context.Context, _ onboarding.Onboarding, _ onboarding.Gate, def onboarding.GateDefinition, a onboarding.Actor) error {
		passed = append(passed, def.DefinitionID+" by "+a.Name)
		return nil
	})
	f.svc.AddOnCancel(func(_ context.Context, ob onboarding.Onboarding) error {
		cancelled = append(cancelled, string(ob.Status))
		return nil
	})
	ob := flow(t, f)
	rfi := gate(t, f, ob, onboarding.KindRfI)
	_, err := f.svc.Act(ctx, acme, ob.ID, rfi.ID, onboarding.ActionSubmit, "")
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Invalid || e.Code != "gate_requirements_unmet" || len(e.Fields) != 1 || e.Fields[0].Location != "fields.tso" {
		t.Fatalf("submit: %v", err)
	}
	if _, err := f.svc.Act(ctx, platform, ob.ID, rfi.ID, onboarding.ActionWaive, "later"); err != nil {
		t.Fatal(err)
	}
	dpl := gate(t, f, ob, onboarding.KindDPL)
	if _, err := f.svc.Act(ctx, platform, ob.ID, dpl.ID, onboarding.ActionSubmit, ""); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ran, []string{"fields:fc_rfi", "dpl:fc_dpl"}) || !slices.Equal(passed, []string{"fc_rfi by Paula"}) {
		t.Fatalf("ran %v, passed %v", ran, passed)
	}

	// TouchGate and GateLocked.
	err = f.svc.Mutate(ctx, acme, ob.ID, func(ctx context.Context, cur onboarding.Onboarding) error {
		if err := onboarding.GateLocked(cur.Gates[1]); code(err) != "gate_locked" {
			t.Errorf("locked: %v", err)
		}
		if err := onboarding.GateLocked(cur.Gates[2]); err != nil {
			t.Errorf("pending gate locked: %v", err)
		}
		if _, err := f.svc.GateForKind(ctx, cur, "nope"); code(err) != "gate_not_found" {
			t.Errorf("unknown kind: %v", err)
		}
		return f.svc.TouchGate(ctx, cur, onboarding.KindInstallation)
	})
	if err != nil {
		t.Fatal(err)
	}
	if g := gate(t, f, ob, onboarding.KindInstallation); g.Status != onboarding.GateInProgress {
		t.Fatalf("touched %s", g.Status)
	}

	// Update and cancel.
	notes := "call first"
	if _, err := f.svc.Update(ctx, acme, ob.ID, onboarding.Patch{TargetHCDate: &assets.Nullable[calendar.Day]{Present: true, Value: *day("2026-03-01")}, Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	got, _ := f.svc.Get(ctx, acme, ob.ID)
	if got.Notes != notes || got.TargetHCDate.String() != "2026-03-01" {
		t.Fatalf("updated %+v", got)
	}
	// No open gate is due after the target date any more; the ones due
	// before keep their deadlines.
	for i, g := range got.Gates {
		before := ob.Gates[i].Deadline.String()
		want := min(before, "2026-03-01")
		if g.Deadline.String() != want {
			t.Errorf("gate %s due %s, want %s (was %s)", g.DefinitionID, g.Deadline, want, before)
		}
	}
	if _, err := f.svc.Update(ctx, acme, ob.ID, onboarding.Patch{TargetHCDate: &assets.Nullable[calendar.Day]{Present: true, Value: *day("2026-01-01")}}); code(err) != "validation_failed" {
		t.Fatalf("target before start: %v", err)
	}
	if _, err := f.svc.Cancel(ctx, acme, ob.ID, "x"); code(err) != "platform_only" {
		t.Fatalf("org cancel: %v", err)
	}
	if _, err := f.svc.Cancel(ctx, platform, ob.ID, ""); code(err) != "validation_failed" {
		t.Fatalf("cancel without reason: %v", err)
	}
	if _, err := f.svc.Cancel(ctx, platform, ob.ID, "sold"); err != nil || !slices.Equal(cancelled, []string{"cancelled"}) {
		t.Fatalf("cancel: %v, hooks %v", err, cancelled)
	}
	if _, err := f.svc.Cancel(ctx, platform, ob.ID, "sold"); code(err) != "onboarding_closed" {
		t.Fatalf("cancel twice: %v", err)
	}
	if a, _ := f.registry.Get(ctx, auth.Visibility{All: true}, "fc"); a.OperationalStatus != assets.Onboarding {
		t.Fatalf("cancel moved the asset: %s", a.OperationalStatus)
	}
}

func TestActorFrom(t *testing.T) {
	grant := &auth.TaskGrant{OnboardingID: "11111111-1111-1111-1111-111111111111", ContactID: "c-1", Role: "epc", SessionID: "s"}
	for _, c := range []struct {
		name    string
		p       *auth.Principal
		preview string
		want    onboarding.Actor
		err     string
	}{
		{"platform user", &auth.Principal{Subject: "u1", OrganizationID: "platform", Email: "p@x.example"}, "",
			onboarding.Actor{Kind: "user", ID: "u1", Name: "p@x.example", Role: onboarding.RolePlatformOnboarding, OrganizationID: "platform"}, ""},
		{"integration", &auth.Principal{Subject: "i1", OrganizationID: "acme", IsM2M: true}, "",
			onboarding.Actor{Kind: "integration", ID: "i1", Name: "i1", OrganizationID: "acme"}, ""},
		{"org user previewing", &auth.Principal{Subject: "u2", OrganizationID: "acme"}, "epc",
			onboarding.Actor{Kind: "user", ID: "u2", Name: "u2", OrganizationID: "acme", PreviewAs: onboarding.RoleEPC}, ""},
		{"bad preview role", &auth.Principal{Subject: "u2", OrganizationID: "acme"}, "boss", onboarding.Actor{}, "validation_failed"},
		{"session", &auth.Principal{Subject: "onbc:c-1", OrganizationID: "acme", Task: grant}, "",
			onboarding.Actor{Kind: "contact", ID: "c-1", Name: "c-1", Role: onboarding.RoleEPC, OrganizationID: "acme", Task: grant}, ""},
		{"session previewing", &auth.Principal{Subject: "onbc:c-1", OrganizationID: "acme", Task: grant}, "tso", onboarding.Actor{}, "validation_failed"},
	} {
		got, err := onboarding.ActorFrom(c.p, c.preview)
		if code(err) != c.err {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if err == nil && (got.Kind != c.want.Kind || got.ID != c.want.ID || got.Name != c.want.Name || got.Role != c.want.Role ||
			got.OrganizationID != c.want.OrganizationID || got.PreviewAs != c.want.PreviewAs || (got.Task == nil) != (c.want.Task == nil)) {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
	// Access: a session sees only its onboarding, the platform all.
	session, _ := onboarding.ActorFrom(&auth.Principal{Subject: "onbc:c-1", OrganizationID: "acme", Task: grant}, "")
	mine := onboarding.Onboarding{ID: grant.OnboardingID, OrganizationID: "acme"}
	other := onboarding.Onboarding{ID: "22222222-2222-2222-2222-222222222222", OrganizationID: "acme"}
	if !session.CanSee(mine) || session.CanSee(other) || session.Platform() || session.RequirePlatform("x") == nil {
		t.Error("session access")
	}
	if !platform.CanSee(other) || !acme.CanSee(other) || beta.CanSee(other) || code(acme.RequirePlatform("x")) != "platform_only" {
		t.Error("user access")
	}
}

// TestTaskSessionActs: a magic-link session submits only the gates its
// role owns on its own onboarding; everything else is not found.
func TestTaskSessionActs(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, testkit.Start)
	ob := flow(t, f)
	other, err := f.svc.Create(ctx, platform, onboarding.CreateRequest{AssetID: "mon"})
	if err != nil {
		t.Fatal(err)
	}
	session := func(obID, role string) onboarding.Actor {
		a, err := onboarding.ActorFrom(&auth.Principal{Subject: "onbc:c-1", OrganizationID: "acme",
			Task: &auth.TaskGrant{OnboardingID: obID, ContactID: "c-1", Role: role, SessionID: "s-1"}}, "")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	rfi := gate(t, f, ob, onboarding.KindRfI)
	if _, err := f.svc.Act(ctx, session(other.ID, "asset_owner"), ob.ID, rfi.ID, onboarding.ActionSubmit, ""); code(err) != "onboarding_not_found" {
		t.Fatalf("another onboarding's session: %v", err)
	}
	if _, err := f.svc.Act(ctx, session(ob.ID, "epc"), ob.ID, rfi.ID, onboarding.ActionSubmit, ""); code(err) != "gate_not_found" {
		t.Fatalf("a contributor submits: %v", err)
	}
	owner := session(ob.ID, "asset_owner")
	for _, a := range []onboarding.Action{onboarding.ActionBlock, onboarding.ActionWaive, onboarding.ActionPass} {
		if _, err := f.svc.Act(ctx, owner, ob.ID, rfi.ID, a, "x"); code(err) != "gate_not_found" {
			t.Fatalf("session %s: %v", a, err)
		}
	}
	if _, err := f.svc.Cancel(ctx, owner, ob.ID, "x"); code(err) != "platform_only" {
		t.Fatalf("session cancel: %v", err)
	}
	if list, total, err := f.svc.List(ctx, owner, onboarding.ListQuery{ListFilter: onboarding.ListFilter{Limit: 10}}); err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("session list: %v %d %v", list, total, err)
	}
	g, err := f.svc.Act(ctx, owner, ob.ID, rfi.ID, onboarding.ActionSubmit, "")
	if err != nil || g.Status != onboarding.GateSubmitted || g.SubmittedBy != "c-1" {
		t.Fatalf("owner submits: %+v, %v", g, err)
	}
	entries, _, _ := f.svc.AuditTrail(ctx, platform, ob.ID, onboarding.AuditFilter{ActionPrefix: "gate.", Limit: 1})
	if len(entries) != 1 || entries[0].Actor.Kind != onboarding.ActorContact || entries[0].Actor.Role != onboarding.RoleAssetOwner {
		t.Fatalf("audit %+v", entries)
	}
}

// TestTextRefusesControlCharacters: notes, reasons and the workflow's notes
// follow the free-text rule (NUL cannot even be stored in PostgreSQL).
func TestTextRefusesControlCharacters(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	if _, err := f.svc.Create(ctx, platform, onboarding.CreateRequest{AssetID: "fc", Notes: "a\x00b"}); code(err) != "validation_failed" {
		t.Fatalf("create with NUL in notes: %v", err)
	}
	ob := flow(t, f)
	g := gate(t, f, ob, "rfi")
	if _, err := f.svc.Act(ctx, platform, ob.ID, g.ID, onboarding.ActionBlock, "waiting\x1b[2J"); code(err) != "validation_failed" {
		t.Fatalf("block with an escape sequence: %v", err)
	}
	if _, err := f.svc.Cancel(ctx, platform, ob.ID, "sold\x00"); code(err) != "validation_failed" {
		t.Fatalf("cancel with NUL: %v", err)
	}
	if _, err := f.svc.Act(ctx, platform, ob.ID, g.ID, onboarding.ActionBlock, "line one\nline two\ttabbed"); err != nil {
		t.Fatalf("line breaks and tabs are text: %v", err)
	}
}

// TestTargetDateCapsDeadlines: a workflow created with a target date has
// no gate due after it; an explicit override is kept as given.
func TestTargetDateCapsDeadlines(t *testing.T) {
	f := newFixture(t, time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC))
	ob, err := f.svc.Create(context.Background(), platform, onboarding.CreateRequest{AssetID: "fc", TargetHCDate: day("2026-03-20"),
		GateOverrides: map[string]onboarding.GateOverride{"fc_rfi": {Deadline: day("2026-02-10")}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"fc_rfi": "2026-02-10", "fc_dpl": "2026-03-01", "fc_installation": "2026-03-15", "fc_comm_test": "2026-03-20",
		"fc_prequalification": "2026-03-20", "fc_go_live": "2026-03-20"}
	for _, g := range ob.Gates {
		if g.Deadline.String() != want[g.DefinitionID] {
			t.Errorf("%s due %s, want %s", g.DefinitionID, g.Deadline, want[g.DefinitionID])
		}
	}
}
