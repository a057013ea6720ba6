package tasks

import (
	"testing"

	"atcp/internal/onboarding"
)

func TestCurrentGate(t *testing.T) {
	tpl, _ := onboarding.TemplateByID("fc_v1")
	workflow := func(done int) onboarding.Onboarding {
		var ob onboarding.Onboarding
		for i, d := range tpl.Gates {
			st := onboarding.GatePending
			if i < done {
				st = onboarding.GatePassed
			}
			ob.Gates = append(ob.Gates, onboarding.Gate{ID: d.DefinitionID, DefinitionID: d.DefinitionID, Order: d.Order, Status: st})
		}
		return ob
	}
	for _, c := range []struct {
		name string
		role onboarding.TaskRole
		done int // the first done gates are passed
		want string
	}{
		{"owner of the first gate", onboarding.RoleAssetOwner, 0, "fc_rfi"},
		{"owner once its gate passed: its last", onboarding.RoleAssetOwner, 1, "fc_rfi"},
		{"epc: its own gate, not the contributed ones", onboarding.RoleEPC, 0, "fc_installation"},
		{"ems provider: first open owned", onboarding.RoleEMSProvider, 2, "fc_comm_test"},
		{"ems provider: all owned passed", onboarding.RoleEMSProvider, 5, "fc_comm_test"},
		{"tso owns none: first contributed", onboarding.RoleTSO, 0, "fc_prequalification"},
		{"tso after its contributed gate", onboarding.RoleTSO, 6, "fc_prequalification"},
	} {
		got := CurrentGate(onboarding.Task{Onboarding: workflow(c.done), Role: c.role})
		if got.DefinitionID != c.want {
			t.Errorf("%s: %s, want %s", c.name, got.DefinitionID, c.want)
		}
	}
	if g := CurrentGate(onboarding.Task{Role: onboarding.RoleEPC}); g.ID != "" {
		t.Errorf("no gates: %+v", g)
	}
}
