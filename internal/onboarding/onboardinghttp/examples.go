package onboardinghttp

import (
	"time"

	"atcp/internal/assets"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
)

// The examples of the OpenAPI document. Templates and definitions are the
// built-in ones; the workflow is a sample rendered by the same code as the
// responses, so that examples and schemas cannot drift apart.
var (
	exampleTemplates   = httpapi.ExampleJSON(TemplateList{Templates: []Template{toTemplate(fcTemplate())}})
	exampleTemplate    = httpapi.ExampleJSON(templateDetail(fcTemplate()))
	exampleDefinitions = httpapi.ExampleJSON(DefinitionList{GateDefinitions: []GateDefinition{toDefinition(fcTemplate().Gates[0])}})
	exampleDefinition  = httpapi.ExampleJSON(toDefinition(fcTemplate().Gates[2]))

	exampleCreate = `{"asset_id": "bess-lausitz-1", "target_hc_date": "2026-06-30", "notes": "Grid connection confirmed by the DSO.",
		"gate_overrides": {"fc_rfi": {"deadline": "2026-03-13"}}}`
	examplePatch        = `{"target_hc_date": "2026-07-15", "notes": "Inverter delivery delayed by two weeks."}`
	exampleCancel       = `{"reason": "The site was sold before commissioning."}`
	exampleGatePatch    = `{"deadline": "2026-03-20"}`
	exampleNote         = `{"note": "Photos of both devices attached."}`
	exampleRequiredNote = `{"note": "The antenna photo does not show the mounting; please add one."}`
	exampleBlock        = `{"reason": "Waiting for the DSO's connection approval."}`

	exampleOnboarding       = httpapi.ExampleJSON(sampleOnboarding(nil, true))
	exampleCancelled        = httpapi.ExampleJSON(sampleOnboarding(func(ob *onboarding.Onboarding) { cancel(ob) }, true))
	exampleList             = httpapi.ExampleJSON(OnboardingList{Onboardings: []Onboarding{sampleOnboarding(nil, false)}, Total: 1, Limit: 100, Offset: 0})
	exampleGates            = httpapi.ExampleJSON(GateList{Gates: sampleOnboarding(nil, true).Gates})
	exampleGate             = httpapi.ExampleJSON(sampleGate(onboarding.GatePending, ""))
	exampleSubmitted        = httpapi.ExampleJSON(sampleGate(onboarding.GateSubmitted, ""))
	exampleChangesRequested = httpapi.ExampleJSON(sampleGate(onboarding.GateChangesRequested, "The antenna photo does not show the mounting; please add one."))
	examplePassed           = httpapi.ExampleJSON(sampleGate(onboarding.GatePassed, "Photos of both devices attached."))
	exampleWaived           = httpapi.ExampleJSON(sampleGate(onboarding.GateWaived, "Installed and documented before the workflow started."))
	exampleBlocked          = httpapi.ExampleJSON(sampleGate(onboarding.GateBlocked, "Waiting for the DSO's connection approval."))
	exampleUnblocked        = httpapi.ExampleJSON(sampleGate(onboarding.GateInProgress, "Waiting for the DSO's connection approval."))
	exampleReopened         = httpapi.ExampleJSON(sampleGate(onboarding.GateInProgress, "The capacity was corrected; please check again."))
	exampleAudit            = httpapi.ExampleJSON(AuditList{Entries: []AuditEntry{toEntry(onboarding.AuditEntry{
		ID: "0196d5b2-7c1e-7a3b-9f10-2b5c8e4d6a01", OnboardingID: sampleID, At: sampleAt.Add(2 * time.Hour),
		Actor:  onboarding.Actor{Kind: onboarding.ActorUser, ID: "usr_platform_1", Name: "ops@platform.example", Role: onboarding.RolePlatformOnboarding},
		Action: "gate.passed", Target: onboarding.Target{Type: "gate", ID: sampleGateIDs[0]},
		Changes: map[string][2]any{"status": {"submitted", "passed"}}, RequestID: "req_01HZY3T9D2",
	})}, Total: 1, Limit: 100, Offset: 0})
)

const sampleID = "3f1c2b9e-5d4a-4c8b-9e21-7a6f0d3c8b15"

var (
	sampleAt      = time.Date(2026, 2, 27, 9, 30, 0, 0, time.UTC)
	sampleGateIDs = []string{
		"8b2e4f60-1c3d-4a5b-8e9f-0a1b2c3d4e5f", "9c3f5a71-2d4e-4b6c-9f0a-1b2c3d4e5f60", "ad4a6b82-3e5f-4c7d-8a1b-2c3d4e5f6071",
		"be5b7c93-4f60-4d8e-9b2c-3d4e5f607182", "cf6c8da4-5071-4e9f-8c3d-4e5f60718293", "d07d9eb5-6182-4fa0-9d4e-5f60718293a4",
	}
)

func fcTemplate() onboarding.Template {
	t, _ := onboarding.TemplateByID("fc_v1")
	return t
}

func templateDetail(t onboarding.Template) TemplateDetail {
	out := TemplateDetail{Template: toTemplate(t)}
	for _, d := range t.Gates {
		out.GateDefinitions = append(out.GateDefinitions, toDefinition(d))
	}
	return out
}

func cancel(ob *onboarding.Onboarding) {
	at := sampleAt.Add(48 * time.Hour)
	ob.Status, ob.CancelledAt, ob.CancelReason, ob.UpdatedAt = onboarding.Cancelled, &at, "The site was sold before commissioning.", at
}

func sampleOnboarding(change func(*onboarding.Onboarding), withGates bool) Onboarding {
	started, _ := calendar.ParseDay("2026-02-27")
	target, _ := calendar.ParseDay("2026-06-30")
	ob := onboarding.Onboarding{
		ID: sampleID, OrganizationID: "lausitz-speicher", AssetID: "bess-lausitz-1", TemplateID: "fc_v1", Status: onboarding.InProgress,
		StartedOn: started, TargetHCDate: &target, Notes: "Grid connection confirmed by the DSO.", CreatedAt: sampleAt,
		CreatedBy: "ops@platform.example", UpdatedAt: sampleAt,
	}
	for i, d := range fcTemplate().Gates {
		deadline := started.AddDays(d.DeadlineOffsetDays)
		if deadline.String() > target.String() {
			deadline = target
		}
		ob.Gates = append(ob.Gates, onboarding.Gate{ID: sampleGateIDs[i], OnboardingID: sampleID, DefinitionID: d.DefinitionID, Order: d.Order,
			Status: onboarding.GatePending, Deadline: &deadline, UpdatedAt: sampleAt})
	}
	if change != nil {
		change(&ob)
	}
	ob = ob.WithReadiness()
	country := "DE"
	a := assets.Asset{Name: "Lausitz BESS 1", Location: "Cottbus", Country: &country}
	out := toOnboarding(ob, &a, sampleAt)
	if withGates {
		for _, g := range ob.Gates {
			var unmet []onboarding.Unmet
			if g.DefinitionID == "fc_go_live" {
				unmet = []onboarding.Unmet{{Location: "gates.fc_rfi", Detail: "is pending, not passed or waived"}}
			}
			out.Gates = append(out.Gates, toGate(g, unmet))
		}
	}
	return out
}

func sampleGate(status onboarding.GateStatus, note string) Gate {
	deadline, _ := calendar.ParseDay("2026-04-10")
	g := onboarding.Gate{ID: sampleGateIDs[2], OnboardingID: sampleID, DefinitionID: "fc_installation", Order: 3, Status: status,
		Deadline: &deadline, LastNote: note, UpdatedAt: sampleAt.Add(time.Hour), Ready: true}
	submitted := sampleAt.Add(30 * time.Minute)
	passed := sampleAt.Add(time.Hour)
	switch status {
	case onboarding.GateSubmitted, onboarding.GateChangesRequested:
		g.SubmittedAt, g.SubmittedBy = &submitted, "epc@solarbau.example"
	case onboarding.GatePassed, onboarding.GateWaived:
		g.SubmittedAt, g.SubmittedBy = &submitted, "epc@solarbau.example"
		g.PassedAt, g.PassedBy = &passed, "ops@platform.example"
	case onboarding.GateBlocked:
		g.BlockedFrom = onboarding.GateInProgress
	}
	return toGate(g, nil)
}
