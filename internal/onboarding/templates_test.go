package onboarding_test

import (
	"slices"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/onboarding"
)

func TestTemplates(t *testing.T) {
	want := map[string][]string{
		"fc_v1":  {"fc_rfi", "fc_dpl", "fc_installation", "fc_comm_test", "fc_prequalification", "fc_go_live"},
		"mon_v1": {"mon_rfi", "mon_dpl", "mon_installation", "mon_comm_test", "mon_go_live"},
	}
	ts := onboarding.Templates()
	if len(ts) != 2 || ts[0].TemplateID != "fc_v1" || ts[1].TemplateID != "mon_v1" {
		t.Fatalf("templates %v", ts)
	}
	for _, tp := range ts {
		if !slices.Equal(tp.GateDefinitionIDs(), want[tp.TemplateID]) {
			t.Errorf("%s: %v", tp.TemplateID, tp.GateDefinitionIDs())
		}
		if got, ok := onboarding.TemplateFor(tp.IntegrationType); !ok || got.TemplateID != tp.TemplateID {
			t.Errorf("template for %s: %s", tp.IntegrationType, got.TemplateID)
		}
		prev := -1
		for i, d := range tp.Gates {
			if d.Order != i+1 || d.TemplateID != tp.TemplateID || d.ReviewerRole != onboarding.RolePlatformOnboarding ||
				d.Title.DE == "" || d.Title.EN == "" || d.DeadlineOffsetDays <= prev {
				t.Errorf("%s: %+v", d.DefinitionID, d)
			}
			prev = d.DeadlineOffsetDays
			if i == 0 && len(d.DependsOn) != 0 || i > 0 && !slices.Equal(d.DependsOn, []string{tp.Gates[i-1].DefinitionID}) {
				t.Errorf("%s depends on %v", d.DefinitionID, d.DependsOn)
			}
			if got, ok := onboarding.DefinitionByID(d.DefinitionID); !ok || got.DefinitionID != d.DefinitionID {
				t.Errorf("definition %s not found", d.DefinitionID)
			}
		}
		inst, _ := tp.Definition(tp.Gates[2].DefinitionID)
		if inst.Kind != onboarding.KindInstallation || inst.OnPass.AssetOperationalStatus != assets.OnboardingTesting ||
			inst.OwnerRole != onboarding.RoleEPC || !inst.Requirements.Documents {
			t.Errorf("installation %+v", inst)
		}
		live := tp.Gates[len(tp.Gates)-1]
		if live.Kind != onboarding.KindGoLive || live.OnPass.AssetOperationalStatus != assets.Live || !live.OnPass.CompleteWorkflow {
			t.Errorf("go-live %+v", live)
		}
	}
	rfi, _ := onboarding.DefinitionByID("fc_rfi")
	if rfi.OwnerRole != onboarding.RoleAssetOwner || !rfi.Requirements.Fields || !rfi.OnPass.ApplyFieldsToAsset ||
		!slices.Equal(rfi.ContributorRoles, []onboarding.TaskRole{onboarding.RoleEPC, onboarding.RoleEMSProvider}) {
		t.Errorf("fc_rfi %+v", rfi)
	}
	if _, ok := onboarding.TemplateByID("fc_v2"); ok {
		t.Error("fc_v2 found")
	}
	if _, ok := onboarding.DefinitionByID("mon_prequalification"); ok {
		t.Error("mon_prequalification found")
	}
}
