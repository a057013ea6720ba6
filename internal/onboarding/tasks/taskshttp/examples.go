package taskshttp

import (
	"encoding/json"
	"time"

	"atcp/internal/assets"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/tasks"
)

// The examples of the OpenAPI document: a sample workflow of fc_v1 as the
// asset owner sees it, rendered by the code of the responses.
var (
	exampleSubmit = `{"note": "All site data entered; the grid connection letter is attached."}`
	exampleDetail = httpapi.ExampleJSON(Body(sampleDetail()))
	exampleList   = httpapi.ExampleJSON(TaskList{Tasks: []TaskItem{toItem(tasks.Item{Task: sampleDetail().Task, Asset: sampleAsset(),
		Gate: sampleDetail().Task.Onboarding.Gates[0], Branding: sampleBranding()})}})

	// ExampleAfterUpload is the task detail once the asset owner finalized
	// a BETR document: the example of the task's document endpoints
	// (documentshttp), which answer with the task detail.
	ExampleAfterUpload = httpapi.ExampleJSON(Body(sampleAfterUpload()))
)

func sampleAsset() *assets.Asset {
	country := "DE"
	return &assets.Asset{Name: "Lausitz BESS 1", Location: "Cottbus", Country: &country}
}

func sampleBranding() branding.Branding {
	return branding.Branding{DisplayName: "Lausitz Speicher", PrimaryColor: "#0a5c36", SupportEmail: "onboarding@lausitz-speicher.example"}
}

func sampleDetail() tasks.Detail {
	at := time.Date(2026, 2, 27, 9, 30, 0, 0, time.UTC)
	started, _ := calendar.ParseDay("2026-02-27")
	ob := onboarding.Onboarding{ID: "3f1c2b9e-5d4a-4c8b-9e21-7a6f0d3c8b15", OrganizationID: "lausitz-speicher", AssetID: "bess-lausitz-1",
		TemplateID: "fc_v1", Status: onboarding.InProgress, StartedOn: started, CreatedAt: at, UpdatedAt: at}
	ids := []string{
		"8b2e4f60-1c3d-4a5b-8e9f-0a1b2c3d4e5f", "9c3f5a71-2d4e-4b6c-9f0a-1b2c3d4e5f60", "ad4a6b82-3e5f-4c7d-8a1b-2c3d4e5f6071",
		"be5b7c93-4f60-4d8e-9b2c-3d4e5f607182", "cf6c8da4-5071-4e9f-8c3d-4e5f60718293", "d07d9eb5-6182-4fa0-9d4e-5f60718293a4",
	}
	t, _ := onboarding.TemplateByID("fc_v1")
	for i, d := range t.Gates {
		deadline := started.AddDays(d.DeadlineOffsetDays)
		status := onboarding.GatePending
		if i == 0 {
			status = onboarding.GateInProgress
		}
		ob.Gates = append(ob.Gates, onboarding.Gate{ID: ids[i], OnboardingID: ob.ID, DefinitionID: d.DefinitionID, Order: d.Order,
			Status: status, Deadline: &deadline, UpdatedAt: at})
	}
	ob = ob.WithReadiness()
	task := onboarding.Task{Onboarding: ob, Role: onboarding.RoleAssetOwner}
	d := tasks.Detail{Task: task, Asset: sampleAsset(), StructuredData: map[string]map[string]json.RawMessage{}, Branding: sampleBranding(),
		ViewerContactName: "Anna Becker", Language: "de"}
	for _, g := range ob.Gates {
		def, _ := g.Definition()
		if !task.Works(def) {
			continue
		}
		d.TaskGateIDs = append(d.TaskGateIDs, g.ID)
		d.StructuredData[g.ID] = map[string]json.RawMessage{}
		for _, s := range def.DocumentSlots {
			d.Slots = append(d.Slots, tasks.Slot{GateDefinitionID: def.DefinitionID, DocumentSlot: s})
		}
	}
	d.StructuredData[ids[0]] = map[string]json.RawMessage{"usable_power_capacity_mw": json.RawMessage(`10`), "tso": json.RawMessage(`"50hertz"`)}
	d.Documents = []tasks.TaskDocument{}
	return d
}

// sampleAfterUpload is sampleDetail after a finalized BETR document, which
// moved the prequalification gate to in_progress.
func sampleAfterUpload() tasks.Detail {
	d := sampleDetail()
	at := time.Date(2026, 3, 2, 10, 5, 0, 0, time.UTC)
	for i, g := range d.Task.Onboarding.Gates {
		if g.DefinitionID == "fc_prequalification" {
			d.Task.Onboarding.Gates[i].Status, d.Task.Onboarding.Gates[i].UpdatedAt = onboarding.GateInProgress, at
		}
	}
	d.Task.Onboarding.UpdatedAt = at
	d.Documents = []tasks.TaskDocument{{ID: "e18eafc6-7293-4ab1-8e5f-60718293a4b5", OnboardingID: d.Task.Onboarding.ID,
		GateDefinitionID: "fc_prequalification", DocumentType: "betr", Filename: "BETR Lausitz BESS 1.pdf", SizeBytes: 412803,
		ContentType: "application/pdf", UploadedAt: at, UploadedByUserName: "Anna Becker", Version: 1}}
	return d
}
