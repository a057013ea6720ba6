package onboardinghttp

import (
	"encoding/json"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/dpl"
	"atcp/internal/onboarding/rfi"
)

// Text is a bilingual text.
type Text struct {
	DE string `json:"de"`
	EN string `json:"en"`
}

func text(t onboarding.Text) Text { return Text{DE: t.DE, EN: t.EN} }

// DocumentSlot is a kind of document a gate asks for.
type DocumentSlot struct {
	DocumentType  string `json:"document_type"`
	Label         Text   `json:"label"`
	Description   Text   `json:"description"`
	Required      bool   `json:"required" doc:"The gate cannot be submitted without a current document of this type."`
	AllowMultiple bool   `json:"allow_multiple" doc:"Several current documents may fill the slot; otherwise a new one replaces the current one."`
}

// Requirements says what submit checks.
type Requirements struct {
	Fields            bool `json:"fields" doc:"The required RfI fields are valid."`
	Documents         bool `json:"documents" doc:"Every required document slot holds a current document."`
	DPLComplete       bool `json:"dpl_complete" doc:"Every required template point has a DPL row."`
	CommunicationTest bool `json:"communication_test" doc:"The latest communication test passed."`
	Prequalification  bool `json:"prequalification" doc:"Every submitted prequalification has a result."`
}

// OnPass is what passing the gate does.
type OnPass struct {
	AssetOperationalStatus *string `json:"asset_operational_status" enum:"onboarding_testing,live" doc:"The asset's status after the pass; null for none."`
	ApplyFieldsToAsset     bool    `json:"apply_fields_to_asset" doc:"RfI fields with an asset_field are written to the asset."`
	CompleteWorkflow       bool    `json:"complete_workflow" doc:"The workflow becomes completed."`
}

// GateDefinition is a gate of a template.
type GateDefinition struct {
	DefinitionID       string            `json:"definition_id"`
	TemplateID         string            `json:"template_id"`
	Order              int               `json:"order"`
	Title              Text              `json:"title"`
	Description        Text              `json:"description"`
	OwnerRole          string            `json:"owner_role"`
	ContributorRoles   []string          `json:"contributor_roles" nullable:"false"`
	ReviewerRole       string            `json:"reviewer_role"`
	DependsOn          []string          `json:"depends_on" nullable:"false" doc:"Definitions that must be passed or waived before this gate can be submitted."`
	DeadlineOffsetDays int               `json:"deadline_offset_days" doc:"The gate's default deadline is the workflow's started_on plus this many days."`
	DocumentSlots      []DocumentSlot    `json:"document_slots" nullable:"false"`
	Requirements       Requirements      `json:"requirements"`
	OnPass             OnPass            `json:"on_pass"`
	Fields             []FieldDefinition `json:"fields" nullable:"false" doc:"The RfI field definitions of the gate; empty for a gate without fields."`
}

func roles(rs []onboarding.TaskRole) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

func toDefinition(d onboarding.GateDefinition) GateDefinition {
	slots := make([]DocumentSlot, len(d.DocumentSlots))
	for i, s := range d.DocumentSlots {
		slots[i] = DocumentSlot{DocumentType: s.DocumentType, Label: text(s.Label), Description: text(s.Description), Required: s.Required, AllowMultiple: s.AllowMultiple}
	}
	var status *string
	if d.OnPass.AssetOperationalStatus != "" {
		s := string(d.OnPass.AssetOperationalStatus)
		status = &s
	}
	r := d.Requirements
	return GateDefinition{
		DefinitionID: d.DefinitionID, TemplateID: d.TemplateID, Order: d.Order, Title: text(d.Title), Description: text(d.Description),
		OwnerRole: string(d.OwnerRole), ContributorRoles: roles(d.ContributorRoles), ReviewerRole: string(d.ReviewerRole),
		DependsOn: httpapi.NonNil(d.DependsOn), DeadlineOffsetDays: d.DeadlineOffsetDays, DocumentSlots: slots,
		Requirements: Requirements{Fields: r.Fields, Documents: r.Documents, DPLComplete: r.DPLComplete, CommunicationTest: r.CommunicationTest,
			Prequalification: r.Prequalification},
		OnPass: OnPass{AssetOperationalStatus: status, ApplyFieldsToAsset: d.OnPass.ApplyFieldsToAsset, CompleteWorkflow: d.OnPass.CompleteWorkflow},
		Fields: FieldDefinitions(rfi.GateFields(d.DefinitionID)),
	}
}

// Definition is the wire form of a gate definition (also the task
// detail's gate_definitions).
func Definition(d onboarding.GateDefinition) GateDefinition { return toDefinition(d) }

// StructuredData is the wire form of stored RfI values: each decoded.
func StructuredData(values map[string]json.RawMessage) map[string]any {
	out := make(map[string]any, len(values))
	for k, raw := range values {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			out[k] = v
		}
	}
	return out
}

// Template is a built-in workflow template.
type Template struct {
	TemplateID        string     `json:"template_id"`
	IntegrationType   string     `json:"integration_type" enum:"full_control,monitoring_only"`
	Version           int        `json:"version"`
	Title             Text       `json:"title"`
	GateDefinitionIDs []string   `json:"gate_definition_ids" nullable:"false" doc:"In order."`
	DPLPoints         []DPLPoint `json:"dpl_points" nullable:"false" doc:"The canonical telemetry points a data-point list maps, in order."`
}

// DPLPoint is a canonical telemetry point of a template.
type DPLPoint struct {
	PointName   string `json:"point_name"`
	Description string `json:"description"`
	Unit        string `json:"unit"`
	Direction   string `json:"direction" enum:"read,write,read_write"`
	Required    bool   `json:"required" doc:"Submitting the DPL gate needs a row for it."`
}

func toDPLPoints(templateID string) []DPLPoint {
	out := []DPLPoint{}
	for _, p := range dpl.TemplatePoints(templateID) {
		out = append(out, DPLPoint{PointName: p.Name, Description: p.Description, Unit: p.Unit, Direction: string(p.Direction), Required: p.Required})
	}
	return out
}

// TemplateDetail is a template with its gate definitions inlined.
type TemplateDetail struct {
	Template
	GateDefinitions []GateDefinition `json:"gate_definitions" nullable:"false"`
}

func toTemplate(t onboarding.Template) Template {
	return Template{TemplateID: t.TemplateID, IntegrationType: string(t.IntegrationType), Version: t.Version, Title: text(t.Title),
		GateDefinitionIDs: t.GateDefinitionIDs(), DPLPoints: toDPLPoints(t.TemplateID)}
}

// Gate is a gate of a workflow.
type Gate struct {
	ID                string         `json:"id" doc:"The gate_id."`
	OnboardingID      string         `json:"onboarding_id"`
	DefinitionID      string         `json:"definition_id"`
	Title             Text           `json:"title"`
	Order             int            `json:"order"`
	OwnerRole         string         `json:"owner_role"`
	Status            string         `json:"status" enum:"pending,in_progress,submitted,changes_requested,passed,waived,blocked"`
	BlockedFrom       *string        `json:"blocked_from" doc:"The status unblock returns to; null unless blocked."`
	Ready             bool           `json:"ready" doc:"Every gate it depends on is passed or waived."`
	Deadline          *string        `json:"deadline" format:"date" doc:"Europe/Berlin day; overdue from 00:00 Berlin of the day after."`
	AssigneeContactID *string        `json:"assignee_contact_id"`
	LastNote          *string        `json:"last_note"`
	SubmittedAt       *string        `json:"submitted_at" format:"date-time"`
	SubmittedByName   *string        `json:"submitted_by_name"`
	PassedAt          *string        `json:"passed_at" format:"date-time" doc:"When it was passed or waived."`
	PassedByUserName  *string        `json:"passed_by_user_name"`
	RequirementsUnmet []Unmet        `json:"requirements_unmet" nullable:"false" doc:"What submit would refuse today (empty once passed or waived)."`
	StructuredData    map[string]any `json:"structured_data" nullable:"true" doc:"The RfI values of a gate with fields, by key; null for the other gates."`
	UpdatedAt         time.Time      `json:"updated_at"`
}

// Unmet is one unmet requirement of a gate.
type Unmet struct {
	Location string `json:"location" doc:"fields.<key>, documents.<document_type>, dpl.<point_name>, communication_test, prequalification.<product> or gates.<definition_id>."`
	Detail   string `json:"detail"`
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optDay(d *calendar.Day) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

func toGate(g onboarding.Gate, unmet []onboarding.Unmet) Gate {
	d, _ := g.Definition()
	out := Gate{
		ID: g.ID, OnboardingID: g.OnboardingID, DefinitionID: g.DefinitionID, Title: text(d.Title), Order: g.Order, OwnerRole: string(d.OwnerRole),
		Status: string(g.Status), BlockedFrom: opt(string(g.BlockedFrom)), Ready: g.Ready, Deadline: optDay(g.Deadline),
		AssigneeContactID: opt(g.AssigneeContactID), LastNote: opt(g.LastNote), SubmittedAt: optTime(g.SubmittedAt),
		SubmittedByName: opt(g.SubmittedBy), PassedAt: optTime(g.PassedAt), PassedByUserName: opt(g.PassedBy),
		RequirementsUnmet: make([]Unmet, len(unmet)), UpdatedAt: g.UpdatedAt,
	}
	for i, u := range unmet {
		out.RequirementsUnmet[i] = Unmet{Location: u.Location, Detail: u.Detail}
	}
	return out
}

// Onboarding is a workflow (manager view).
type Onboarding struct {
	OnboardingID      string    `json:"onboarding_id"`
	OrganizationID    string    `json:"organization_id"`
	AssetID           string    `json:"asset_id"`
	AssetName         *string   `json:"asset_name" doc:"Null once the asset is deleted."`
	Location          *string   `json:"location"`
	Country           *string   `json:"country"`
	IntegrationType   string    `json:"integration_type" enum:"full_control,monitoring_only" doc:"The template's."`
	TemplateID        string    `json:"template_id"`
	OverallStatus     string    `json:"overall_status" enum:"in_progress,completed,cancelled"`
	StartedOn         string    `json:"started_on" format:"date"`
	TargetHCDate      *string   `json:"target_hc_date" format:"date" doc:"Target date of hot commissioning."`
	Notes             string    `json:"notes" doc:"Internal notes of the managers."`
	Gates             []Gate    `json:"gates,omitempty" doc:"In order; left out in lists."`
	BlockedGateCount  int       `json:"blocked_gate_count"`
	OverdueGateCount  int       `json:"overdue_gate_count"`
	NextDeadline      *string   `json:"next_deadline" format:"date" doc:"The earliest deadline of a gate not passed or waived."`
	CreatedAt         time.Time `json:"created_at"`
	CreatedByUserName string    `json:"created_by_user_name"`
	UpdatedAt         time.Time `json:"updated_at"`
	CancelledAt       *string   `json:"cancelled_at" format:"date-time"`
	CancelReason      *string   `json:"cancel_reason"`
	CompletedAt       *string   `json:"completed_at" format:"date-time"`
}

func toOnboarding(ob onboarding.Onboarding, a *assets.Asset, now time.Time) Onboarding {
	t, _ := onboarding.TemplateByID(ob.TemplateID)
	out := Onboarding{
		OnboardingID: ob.ID, OrganizationID: ob.OrganizationID, AssetID: ob.AssetID, IntegrationType: string(t.IntegrationType),
		TemplateID: ob.TemplateID, OverallStatus: string(ob.Status), StartedOn: ob.StartedOn.String(), TargetHCDate: optDay(ob.TargetHCDate),
		Notes: ob.Notes, BlockedGateCount: ob.BlockedGateCount(), OverdueGateCount: ob.OverdueGateCount(now), NextDeadline: optDay(ob.NextDeadline()),
		CreatedAt: ob.CreatedAt, CreatedByUserName: ob.CreatedBy, UpdatedAt: ob.UpdatedAt, CancelledAt: optTime(ob.CancelledAt),
		CancelReason: opt(ob.CancelReason), CompletedAt: optTime(ob.CompletedAt),
	}
	if a != nil {
		out.AssetName, out.Location, out.Country = &a.Name, &a.Location, a.Country
	}
	return out
}

// AuditEntry is one line of the audit trail.
type AuditEntry struct {
	EntryID      string           `json:"entry_id"`
	OnboardingID string           `json:"onboarding_id"`
	At           time.Time        `json:"at"`
	Actor        AuditActor       `json:"actor"`
	Action       string           `json:"action" doc:"Such as onboarding.created, gate.passed, asset.status_changed."`
	Target       AuditTarget      `json:"target"`
	Changes      map[string][]any `json:"changes" doc:"Each changed member: [old, new]."`
	RequestID    *string          `json:"request_id"`
}

// AuditActor is who acted.
type AuditActor struct {
	Kind      string  `json:"kind" enum:"user,integration,contact,system"`
	ID        *string `json:"id"`
	Name      string  `json:"name"`
	Role      *string `json:"role"`
	PreviewAs *string `json:"preview_as"`
}

// AuditTarget is what an entry is about.
type AuditTarget struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

func toEntry(e onboarding.AuditEntry) AuditEntry {
	changes := make(map[string][]any, len(e.Changes))
	for k, v := range e.Changes {
		changes[k] = []any{v[0], v[1]}
	}
	return AuditEntry{
		EntryID: e.ID, OnboardingID: e.OnboardingID, At: e.At,
		Actor:  AuditActor{Kind: e.Actor.Kind, ID: opt(e.Actor.ID), Name: e.Actor.Name, Role: opt(string(e.Actor.Role)), PreviewAs: opt(string(e.Actor.PreviewAs))},
		Action: e.Action, Target: AuditTarget{Type: e.Target.Type, ID: e.Target.ID}, Changes: changes, RequestID: opt(e.RequestID),
	}
}

// TransformSchema lets the nullable enum admit its null.
func (OnPass) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}
