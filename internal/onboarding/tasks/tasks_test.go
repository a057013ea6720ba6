package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/fields"
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

// detailFakes answer every read of Detail, each failing when its name is
// fail, and count the communication-test reads.
type detailFakes struct {
	fail            string
	contactLanguage string
	testReads       atomic.Int32
}

func (f *detailFakes) err(name string) error {
	if f.fail == name {
		return errors.New(name + " is down")
	}
	return nil
}

func (f *detailFakes) Get(context.Context, auth.Visibility, string) (assets.Asset, error) {
	return assets.Asset{ID: "bess-1", Name: "Cottbus 2"}, f.err("asset")
}

func (f *detailFakes) Of(_ context.Context, ob onboarding.Onboarding) (map[string]fields.Values, error) {
	return map[string]fields.Values{"g-fc_comm_test": {Fields: map[string]json.RawMessage{"protocol": json.RawMessage(`"modbus_tcp"`)}}}, f.err("fields")
}

func (f *detailFakes) Latest(context.Context, string, string) (json.RawMessage, error) {
	f.testReads.Add(1)
	return json.RawMessage(`{"status":"passed"}`), f.err("tests")
}

func (f *detailFakes) ForTask(context.Context, onboarding.Task) ([]TaskDocument, error) {
	return []TaskDocument{{ID: "doc-1", Filename: "points.csv"}}, f.err("documents")
}

func (f *detailFakes) Resolve(context.Context, string) (branding.Branding, error) {
	return branding.Branding{DisplayName: "Acme"}, f.err("branding")
}

func (f *detailFakes) ContactViewer(context.Context, string, string, string) (string, string, error) {
	return "Erika Muster", f.contactLanguage, f.err("contact")
}

// TestDetail: the detail composes its reads, run at once, and fails with
// the first read that fails; a role not working on the communication test
// does not read it.
func TestDetail(t *testing.T) {
	tpl, _ := onboarding.TemplateByID("fc_v1")
	var ob onboarding.Onboarding
	for _, d := range tpl.Gates {
		ob.Gates = append(ob.Gates, onboarding.Gate{ID: "g-" + d.DefinitionID, DefinitionID: d.DefinitionID, Order: d.Order, Status: onboarding.GatePending})
	}
	session := onboarding.Actor{Task: &auth.TaskGrant{ContactID: "c-1"}}
	task := func(role onboarding.TaskRole) onboarding.Task {
		return onboarding.Task{Onboarding: ob, Role: role, Actor: session}
	}
	service := func(f *detailFakes) *Service {
		return NewService(Deps{Assets: f, Fields: f, Tests: f, Documents: f, Branding: f, Contacts: f})
	}

	f := &detailFakes{}
	d, err := service(f).Detail(context.Background(), task(onboarding.RoleEMSProvider))
	if err != nil {
		t.Fatal(err)
	}
	commTest := d.StructuredData["g-fc_comm_test"]
	if d.Asset == nil || d.Asset.Name != "Cottbus 2" || d.Branding.DisplayName != "Acme" || d.ViewerContactName != "Erika Muster" ||
		len(d.Documents) != 1 || string(commTest["protocol"]) != `"modbus_tcp"` || string(commTest["communication_test"]) != `{"status":"passed"}` ||
		!slices.Contains(d.TaskGateIDs, "g-fc_comm_test") || f.testReads.Load() != 1 || d.Language != "de" {
		t.Fatalf("detail %+v, %d test reads", d, f.testReads.Load())
	}

	f = &detailFakes{contactLanguage: "en"}
	if d, err := service(f).Detail(context.Background(), task(onboarding.RoleAssetOwner)); err != nil || f.testReads.Load() != 0 || d.Language != "en" {
		t.Fatalf("asset owner: %v, %d test reads, language %q", err, f.testReads.Load(), d.Language)
	}

	for _, read := range []string{"asset", "fields", "tests", "documents", "branding", "contact"} {
		f := &detailFakes{fail: read}
		if _, err := service(f).Detail(context.Background(), task(onboarding.RoleEMSProvider)); err == nil || err.Error() != read+" is down" {
			t.Errorf("%s failing: %v", read, err)
		}
	}
}
