package taskshttp

import (
	"encoding/json"
	"reflect"
	"testing"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/onboardinghttp"
)

// TestTemplateDefinitionsEncodeTheWireForm: the definitions encoded once
// per template read as the wire form encoded per request would.
func TestTemplateDefinitionsEncodeTheWireForm(t *testing.T) {
	templates := onboarding.Templates()
	if len(templateDefinitions()) != len(templates) {
		t.Fatalf("%d templates encoded, %d known", len(templateDefinitions()), len(templates))
	}
	for _, tpl := range templates {
		defs := make([]onboardinghttp.GateDefinition, len(tpl.Gates))
		for i, d := range tpl.Gates {
			defs[i] = onboardinghttp.Definition(d)
		}
		want, err := json.Marshal(defs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(TaskDetail{GateDefinitions: templateDefinitions()[tpl.TemplateID]})
		if err != nil {
			t.Fatal(err)
		}
		var gotDetail struct {
			GateDefinitions []any `json:"gate_definitions"`
		}
		var wantDefs []any
		if err := json.Unmarshal(got, &gotDetail); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &wantDefs); err != nil {
			t.Fatal(err)
		}
		if len(wantDefs) == 0 || !reflect.DeepEqual(gotDetail.GateDefinitions, wantDefs) {
			t.Errorf("%s: encoded once\n%s\nper request\n%s", tpl.TemplateID, got, want)
		}
	}
	// A workflow of an unknown template has none: [], not null.
	var empty struct {
		GateDefinitions []any `json:"gate_definitions"`
	}
	got, _ := json.Marshal(TaskDetail{})
	if err := json.Unmarshal(got, &empty); err != nil || empty.GateDefinitions == nil || len(empty.GateDefinitions) != 0 {
		t.Fatalf("no template: %s %v", got, err)
	}
}
