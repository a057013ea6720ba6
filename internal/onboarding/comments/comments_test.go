package comments

import (
	"slices"
	"testing"

	"atcp/internal/onboarding"
)

func gateOf(def string) onboarding.Gate {
	return onboarding.Gate{ID: "g-" + def, DefinitionID: def}
}

func TestRecipients(t *testing.T) {
	for _, c := range []struct {
		name     string
		c        Comment
		gate     onboarding.Gate
		fromTask bool
		want     []onboarding.TaskRole
	}{
		{"internal", Comment{Visibility: Internal, GateID: "g-fc_rfi"}, gateOf("fc_rfi"), false, nil},
		{"task to reviewer", Comment{Visibility: Shared, GateID: "g-fc_installation"}, gateOf("fc_installation"), true, []onboarding.TaskRole{onboarding.RolePlatformOnboarding}},
		{"task onboarding thread", Comment{Visibility: Shared}, onboarding.Gate{}, true, []onboarding.TaskRole{onboarding.RolePlatformOnboarding}},
		{"manager to owner", Comment{Visibility: Shared, GateID: "g-fc_installation"}, gateOf("fc_installation"), false, []onboarding.TaskRole{onboarding.RoleEPC}},
		{"manager on a platform gate", Comment{Visibility: Shared, GateID: "g-fc_go_live"}, gateOf("fc_go_live"), false, nil},
		{"manager onboarding thread", Comment{Visibility: Shared}, onboarding.Gate{}, false, []onboarding.TaskRole{onboarding.RoleAssetOwner}},
	} {
		if got := Recipients(c.c, c.gate, c.fromTask); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTaskName(t *testing.T) {
	for _, c := range []struct{ name, role, kind, want string }{
		{"Erika EPC", "epc", "contact", "Erika EPC"},
		{"ops@platform.example", "platform_onboarding", "user", "platform_onboarding"},
		{"anna@acme.example", "", "user", "user"},
		{"system", "", "system", "system"},
	} {
		if got := TaskName(c.name, onboarding.TaskRole(c.role), c.kind); got != c.want {
			t.Errorf("TaskName(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestVisibleActivity(t *testing.T) {
	ob := onboarding.Onboarding{ID: "ob", Gates: []onboarding.Gate{gateOf("fc_rfi"), gateOf("fc_installation"), gateOf("fc_prequalification"), gateOf("fc_go_live")}}
	epc := onboarding.Task{Onboarding: ob, Role: onboarding.RoleEPC,
		Actor: onboarding.Actor{Kind: onboarding.ActorContact, ID: "c-1", Role: onboarding.RoleEPC}}
	platform := onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-p", Name: "ops@platform.example", Role: onboarding.RolePlatformOnboarding}
	other := onboarding.Actor{Kind: onboarding.ActorContact, ID: "c-2", Name: "Erik", Role: onboarding.RoleEPC}
	tso := onboarding.Task{Onboarding: ob, Role: onboarding.RoleTSO, Actor: onboarding.Actor{Kind: onboarding.ActorContact, ID: "c-3", Role: onboarding.RoleTSO}}
	if _, ok := VisibleActivity(tso, onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "prequalification", ID: "p"}}); !ok {
		t.Error("the tso, a contributor of the prequalification gate, does not see its prequalifications")
	}
	for _, c := range []struct {
		name     string
		e        onboarding.AuditEntry
		visible  bool
		old      any // the old value of member x when visible
		actor    string
		newValue any
	}{
		{"another role on the role's gate: no old value, no e-mail",
			onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "gate", ID: "g-fc_installation"}, Changes: map[string][2]any{"x": {"a", "b"}}},
			true, nil, "platform_onboarding", "b"},
		{"the same role keeps old values",
			onboarding.AuditEntry{Actor: other, Target: onboarding.Target{Type: "gate", ID: "g-fc_rfi"}, Changes: map[string][2]any{"x": {"a", "b"}}},
			true, "a", "Erik", "b"},
		{"an e-mail in a value is left out",
			onboarding.AuditEntry{Actor: other, Target: onboarding.Target{Type: "gate", ID: "g-fc_rfi"}, Changes: map[string][2]any{"x": {"a", "e@x.example"}}},
			true, "a", "Erik", nil},
		{"a gate the role does not work on",
			onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "gate", ID: "g-fc_go_live"}}, false, nil, "", nil},
		{"the workflow",
			onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "onboarding", ID: "ob"}}, false, nil, "", nil},
		{"own action anywhere",
			onboarding.AuditEntry{Actor: epc.Actor, Target: onboarding.Target{Type: "link", ID: "l"}, Changes: map[string][2]any{"x": {"a", "b"}}},
			true, "a", "", "b"},
		{"shared comment on the role's gate",
			onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "comment", ID: "c"},
				Changes: map[string][2]any{"visibility": {nil, "shared"}, "gate_id": {nil, "g-fc_installation"}, "x": {nil, 1}}},
			true, nil, "platform_onboarding", 1},
		{"a prequalification: not the epc's gate",
			onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "prequalification", ID: "p"}}, false, nil, "", nil},
		{"internal comment",
			onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "comment", ID: "c"},
				Changes: map[string][2]any{"visibility": {nil, "internal"}, "gate_id": {nil, "g-fc_installation"}}},
			false, nil, "", nil},
		{"shared comment on another gate",
			onboarding.AuditEntry{Actor: platform, Target: onboarding.Target{Type: "comment", ID: "c"},
				Changes: map[string][2]any{"visibility": {nil, "shared"}, "gate_id": {nil, "g-fc_go_live"}}},
			false, nil, "", nil},
	} {
		got, ok := VisibleActivity(epc, c.e)
		if ok != c.visible {
			t.Errorf("%s: visible %v", c.name, ok)
			continue
		}
		if !ok {
			continue
		}
		if got.Changes["x"][0] != c.old || got.Changes["x"][1] != c.newValue || got.Actor.Name != c.actor {
			t.Errorf("%s: %+v", c.name, got)
		}
		if c.e.Changes["x"][0] != nil && c.e.Changes["x"][0] != "a" {
			t.Errorf("%s: the entry given was changed", c.name)
		}
	}
}
