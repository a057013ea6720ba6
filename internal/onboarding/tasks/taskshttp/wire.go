package taskshttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/onboarding/tasks"
)

// TaskBranding is what a task page shows of the organisation's branding (the
// platform's when the organisation has none).
type TaskBranding struct {
	DisplayName  *string `json:"display_name"`
	PrimaryColor *string `json:"primary_color" doc:"#rrggbb."`
	SupportEmail *string `json:"support_email"`
	LogoURL      *string `json:"logo_url"`
}

func toBranding(b branding.Branding) TaskBranding {
	return TaskBranding{DisplayName: opt(b.DisplayName), PrimaryColor: opt(b.PrimaryColor), SupportEmail: opt(b.SupportEmail), LogoURL: opt(b.LogoURL)}
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optDay(g onboarding.Gate) *string {
	if g.Deadline == nil {
		return nil
	}
	s := g.Deadline.String()
	return &s
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// TaskAsset is the asset's name and place (null once the asset is deleted).
type TaskAsset struct {
	AssetName *string `json:"asset_name" doc:"Null once the asset is deleted."`
	Location  *string `json:"location"`
	Country   *string `json:"country"`
}

func toAsset(a *assets.Asset) TaskAsset {
	if a == nil {
		return TaskAsset{}
	}
	return TaskAsset{AssetName: &a.Name, Location: &a.Location, Country: a.Country}
}

func integrationType(ob onboarding.Onboarding) string {
	t, _ := onboarding.TemplateByID(ob.TemplateID)
	return string(t.IntegrationType)
}

// TaskItem is one task of the caller.
type TaskItem struct {
	OnboardingID string `json:"onboarding_id"`
	TaskAsset
	IntegrationType  string              `json:"integration_type" enum:"full_control,monitoring_only"`
	OverallStatus    string              `json:"overall_status" enum:"in_progress,completed,cancelled"`
	Role             string              `json:"role" enum:"asset_owner,epc,ems_provider,tso"`
	GateDefinitionID string              `json:"gate_definition_id" doc:"The role's current gate: the first it owns not passed or waived, the last when all are."`
	GateTitle        onboardinghttp.Text `json:"gate_title"`
	GateStatus       string              `json:"gate_status" enum:"pending,in_progress,submitted,changes_requested,passed,waived,blocked"`
	Deadline         *string             `json:"deadline" format:"date"`
	Ready            bool                `json:"ready" doc:"Every gate the current gate depends on is passed or waived."`
	Branding         TaskBranding        `json:"branding"`
	UpdatedAt        time.Time           `json:"updated_at" doc:"The workflow's last change."`
}

// TaskList is the body of GET /v1/onboarding-tasks.
type TaskList struct {
	Tasks []TaskItem `json:"tasks" nullable:"false" doc:"Ordered by deadline (none last), then asset_name."`
}

func toItem(it tasks.Item) TaskItem {
	g := it.Gate
	d, _ := g.Definition()
	return TaskItem{
		OnboardingID: it.Task.Onboarding.ID, TaskAsset: toAsset(it.Asset), IntegrationType: integrationType(it.Task.Onboarding),
		OverallStatus: string(it.Task.Onboarding.Status), Role: string(it.Task.Role), GateDefinitionID: g.DefinitionID,
		GateTitle: onboardinghttp.Text{DE: d.Title.DE, EN: d.Title.EN}, GateStatus: string(g.Status), Deadline: optDay(g), Ready: g.Ready,
		Branding: toBranding(it.Branding), UpdatedAt: it.Task.Onboarding.UpdatedAt,
	}
}

// TaskGate is a gate as a task sees it.
type TaskGate struct {
	ID               string              `json:"id" doc:"The gate_id."`
	DefinitionID     string              `json:"definition_id"`
	Title            onboardinghttp.Text `json:"title"`
	Order            int                 `json:"order"`
	OwnerRole        string              `json:"owner_role"`
	Status           string              `json:"status" enum:"pending,in_progress,submitted,changes_requested,passed,waived,blocked"`
	Ready            bool                `json:"ready" doc:"Every gate it depends on is passed or waived."`
	Deadline         *string             `json:"deadline" format:"date"`
	LastNote         *string             `json:"last_note"`
	PassedAt         *string             `json:"passed_at" format:"date-time"`
	PassedByUserName *string             `json:"passed_by_user_name"`
	StructuredData   map[string]any      `json:"structured_data" nullable:"true" doc:"The RfI values, on the gates of task_gate_ids only; null elsewhere."`
}

// TaskDocumentSlot is a document slot of one of the role's gates.
type TaskDocumentSlot struct {
	GateDefinitionID string `json:"gate_definition_id"`
	onboardinghttp.DocumentSlot
}

// TaskDocument is a current document of one of the role's gates' slots.
type TaskDocument struct {
	ID                 string    `json:"id"`
	OnboardingID       string    `json:"onboarding_id"`
	GateDefinitionID   string    `json:"gate_definition_id"`
	DocumentType       string    `json:"document_type"`
	Filename           string    `json:"filename"`
	SizeBytes          int64     `json:"size_bytes"`
	ContentType        string    `json:"content_type"`
	UploadedAt         time.Time `json:"uploaded_at"`
	UploadedByUserName string    `json:"uploaded_by_user_name"`
	Version            int       `json:"version"`
}

// TemplateDefinitions are the gate definitions of a workflow's template in
// their wire form ([]onboardinghttp.GateDefinition), encoded once per
// template: they never change, and they are most of every task detail's
// bytes, which an external contact's page reloads.
type TemplateDefinitions struct{ encoded []byte }

// MarshalJSON returns the definitions as encoded once; none encode as [].
func (d TemplateDefinitions) MarshalJSON() ([]byte, error) {
	if d.encoded == nil {
		return []byte("[]"), nil
	}
	return d.encoded, nil
}

// Schema is that of the definitions' wire form.
func (TemplateDefinitions) Schema(r huma.Registry) *huma.Schema {
	return r.Schema(reflect.TypeFor[[]onboardinghttp.GateDefinition](), true, "")
}

var templateDefinitions = sync.OnceValue(func() map[string]TemplateDefinitions {
	out := map[string]TemplateDefinitions{}
	for _, t := range onboarding.Templates() {
		defs := make([]onboardinghttp.GateDefinition, len(t.Gates))
		for i, def := range t.Gates {
			defs[i] = onboardinghttp.Definition(def)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as the server encodes its responses
		if err := enc.Encode(defs); err != nil {
			panic(fmt.Sprintf("taskshttp: encode the definitions of %s: %v", t.TemplateID, err))
		}
		out[t.TemplateID] = TemplateDefinitions{encoded: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
	}
	return out
})

// TaskDetail is the task detail: the body of GET
// /v1/onboarding-tasks/{onboarding_id} and of the task's mutations.
type TaskDetail struct {
	OnboardingID string `json:"onboarding_id"`
	TaskAsset
	IntegrationType      string              `json:"integration_type" enum:"full_control,monitoring_only"`
	TargetHCDate         *string             `json:"target_hc_date" format:"date"`
	OverallStatus        string              `json:"overall_status" enum:"in_progress,completed,cancelled"`
	Role                 string              `json:"role" enum:"asset_owner,epc,ems_provider,tso"`
	ViewerContactName    *string             `json:"viewer_contact_name" doc:"The contact of a magic-link session; null for a user."`
	Language             string              `json:"language" enum:"de,en" doc:"The language the task pages open in: a magic-link session's contact's, else the branding's magic_link_default_language. Texts stay {de, en}: the page switches."`
	TaskGateIDs          []string            `json:"task_gate_ids" nullable:"false" doc:"The gates the role owns or contributes to, in order."`
	Gates                []TaskGate          `json:"gates" nullable:"false" doc:"Every gate of the workflow, in order."`
	GateDefinitions      TemplateDefinitions `json:"gate_definitions" nullable:"false" doc:"Of the workflow's template, in order."`
	ProcessDocumentSlots []TaskDocumentSlot  `json:"process_document_slots" nullable:"false" doc:"The document slots of the role's gates."`
	Documents            []TaskDocument      `json:"documents" nullable:"false" doc:"Current documents of the role's gates' slots."`
	Branding             TaskBranding        `json:"branding"`
	UpdatedAt            time.Time           `json:"updated_at"`
}

// Body renders a task detail.
func Body(d tasks.Detail) TaskDetail {
	ob := d.Task.Onboarding
	out := TaskDetail{
		OnboardingID: ob.ID, TaskAsset: toAsset(d.Asset), IntegrationType: integrationType(ob), OverallStatus: string(ob.Status),
		Role: string(d.Task.Role), ViewerContactName: opt(d.ViewerContactName), Language: d.Language, TaskGateIDs: httpapi.NonNil(d.TaskGateIDs),
		Gates: make([]TaskGate, len(ob.Gates)), GateDefinitions: templateDefinitions()[ob.TemplateID],
		ProcessDocumentSlots: make([]TaskDocumentSlot, len(d.Slots)), Documents: make([]TaskDocument, len(d.Documents)),
		Branding: toBranding(d.Branding), UpdatedAt: ob.UpdatedAt,
	}
	if ob.TargetHCDate != nil {
		s := ob.TargetHCDate.String()
		out.TargetHCDate = &s
	}
	for i, g := range ob.Gates {
		def, _ := g.Definition()
		out.Gates[i] = TaskGate{
			ID: g.ID, DefinitionID: g.DefinitionID, Title: onboardinghttp.Text{DE: def.Title.DE, EN: def.Title.EN}, Order: g.Order,
			OwnerRole: string(def.OwnerRole), Status: string(g.Status), Ready: g.Ready, Deadline: optDay(g), LastNote: opt(g.LastNote),
			PassedAt: optTime(g.PassedAt), PassedByUserName: opt(g.PassedBy),
		}
		if v, ok := d.StructuredData[g.ID]; ok {
			out.Gates[i].StructuredData = onboardinghttp.StructuredData(v)
		}
	}
	for i, s := range d.Slots {
		out.ProcessDocumentSlots[i] = TaskDocumentSlot{GateDefinitionID: s.GateDefinitionID, DocumentSlot: onboardinghttp.DocumentSlot{
			DocumentType: s.DocumentType, Label: onboardinghttp.Text{DE: s.Label.DE, EN: s.Label.EN},
			Description: onboardinghttp.Text{DE: s.Description.DE, EN: s.Description.EN}, Required: s.Required, AllowMultiple: s.AllowMultiple}}
	}
	for i, doc := range d.Documents {
		out.Documents[i] = TaskDocument{ID: doc.ID, OnboardingID: doc.OnboardingID, GateDefinitionID: doc.GateDefinitionID, DocumentType: doc.DocumentType,
			Filename: doc.Filename, SizeBytes: doc.SizeBytes, ContentType: doc.ContentType, UploadedAt: doc.UploadedAt,
			UploadedByUserName: doc.UploadedByUserName, Version: doc.Version}
	}
	return out
}
