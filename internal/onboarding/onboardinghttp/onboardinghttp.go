// Package onboardinghttp serves the manager side of onboarding
// (docs/onboarding.md section 5, groups A, B, C and M): the templates and
// gate definitions, the workflows under /v1/onboardings, their gates and
// the gate transitions, and the audit trail.
package onboardinghttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields"
	"atcp/internal/onboarding/rfi"
)

// Assets reads the asset a workflow is for (its name and place).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, id string) (assets.Asset, error)
}

type handler struct {
	svc    *onboarding.Service
	assets Assets
	clk    clock.Clock
	fields FieldValues
}

// FieldValues reads the RfI values of a workflow's gates
// (*fields.Service), the gates' structured_data.
type FieldValues interface {
	Of(ctx context.Context, ob onboarding.Onboarding) (map[string]fields.Values, error)
}

// Option adjusts Register.
type Option func(*handler)

// WithFields fills the gates' structured_data from f; without it the
// member is null.
func WithFields(f FieldValues) Option { return func(h *handler) { h.fields = f } }

// Tags are the OpenAPI tags of every onboarding operation.
func Tags(s *httpapi.Server) []string {
	return []string{s.Tag("Onboarding", "Onboarding workflows of assets: templates, gates, their review and the audit trail (docs/onboarding.md).")}
}

// onboarding renders a workflow with its asset's name and place; the
// caller already sees the workflow, so the asset is read unfiltered.
func (h handler) onboarding(ctx context.Context, ob onboarding.Onboarding, withGates bool) (Onboarding, error) {
	var ap *assets.Asset
	a, err := h.assets.Get(ctx, auth.Visibility{All: true}, ob.AssetID)
	switch {
	case err == nil:
		ap = &a
	case !errs.Is(err, errs.NotFound):
		return Onboarding{}, err
	}
	out := toOnboarding(ob, ap, h.clk.Now())
	if withGates {
		if out.Gates, err = h.gates(ctx, ob); err != nil {
			return Onboarding{}, err
		}
	}
	return out, nil
}

// detail answers a workflow with its gates once svc answered it, or err;
// the fields err names are the request body's (a read names none).
func (h handler) detail(ctx context.Context, ob onboarding.Onboarding, err error) (*httpapi.Output[Onboarding], error) {
	if err != nil {
		return nil, errs.Within("body.", err)
	}
	body, err := h.onboarding(ctx, ob, true)
	return &httpapi.Output[Onboarding]{Body: body}, err
}

// gates renders the gates of ob in order.
func (h handler) gates(ctx context.Context, ob onboarding.Onboarding) ([]Gate, error) {
	out := make([]Gate, len(ob.Gates))
	for i, g := range ob.Gates {
		var err error
		if out[i], err = h.gate(ctx, ob, g); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (h handler) gate(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate) (Gate, error) {
	var unmet []onboarding.Unmet
	if def, ok := g.Definition(); ok && !g.Status.Done() && !ob.Status.Closed() {
		var err error
		if unmet, err = h.svc.Unmet(ctx, ob, g, def); err != nil {
			return Gate{}, err
		}
	}
	out := toGate(g, unmet)
	if h.fields != nil && len(rfi.GateFields(g.DefinitionID)) > 0 {
		all, err := h.fields.Of(ctx, ob)
		if err != nil {
			return Gate{}, err
		}
		out.StructuredData = StructuredData(all[g.ID].Fields)
	}
	return out, nil
}

// TemplateList is the body of GET /v1/onboarding-templates.
type TemplateList struct {
	Templates []Template `json:"templates" nullable:"false"`
}

// DefinitionList is the body of GET /v1/onboarding-gate-definitions.
type DefinitionList struct {
	GateDefinitions []GateDefinition `json:"gate_definitions" nullable:"false" doc:"By template, then order."`
}

// OnboardingList is the body of GET /v1/onboardings.
type OnboardingList struct {
	Onboardings []Onboarding `json:"onboardings" nullable:"false" doc:"Without gates; ordered by next_deadline (none last), then created_at."`
	Total       int          `json:"total"`
	Limit       int          `json:"limit"`
	Offset      int          `json:"offset"`
}

// GateList is the body of GET …/gates.
type GateList struct {
	Gates []Gate `json:"gates" nullable:"false" doc:"In order."`
}

// AuditList is the body of GET …/audit.
type AuditList struct {
	Entries []AuditEntry `json:"entries" nullable:"false" doc:"Newest first."`
	Total   int          `json:"total"`
	Limit   int          `json:"limit"`
	Offset  int          `json:"offset"`
}

// CSVHeader implements httpapi.Table.
func (AuditList) CSVHeader() []string {
	return []string{"entry_id", "onboarding_id", "at", "actor_kind", "actor_id", "actor_name", "actor_role", "actor_preview_as",
		"action", "target_type", "target_id", "changes", "request_id"}
}

// CSVRows implements httpapi.Table; changes is its JSON text.
func (l AuditList) CSVRows() [][]string {
	out := make([][]string, len(l.Entries))
	for i, e := range l.Entries {
		changes, _ := json.Marshal(e.Changes)
		out[i] = []string{e.EntryID, e.OnboardingID, httpapi.CSVInstant(e.At), e.Actor.Kind, httpapi.CSVOptional(e.Actor.ID), e.Actor.Name,
			httpapi.CSVOptional(e.Actor.Role), httpapi.CSVOptional(e.Actor.PreviewAs), e.Action, e.Target.Type, e.Target.ID, string(changes),
			httpapi.CSVOptional(e.RequestID)}
	}
	return out
}

// GateOverride adjusts one gate at creation.
type GateOverride struct {
	Deadline string `json:"deadline,omitempty" format:"date" required:"false" doc:"Instead of started_on + deadline_offset_days."`
	Waived   bool   `json:"waived,omitempty" required:"false" doc:"Create the gate waived (not the go-live gate); note is then required."`
	Note     string `json:"note,omitempty" maxLength:"4000" required:"false"`
}

// CreateRequest is the body of POST /v1/onboardings.
type CreateRequest struct {
	AssetID       string                  `json:"asset_id" minLength:"1" maxLength:"100"`
	TemplateID    string                  `json:"template_id,omitempty" required:"false" doc:"Default: the template of the asset's asset_integration_type."`
	StartedOn     string                  `json:"started_on,omitempty" format:"date" required:"false" doc:"Default: today in Europe/Berlin."`
	TargetHCDate  string                  `json:"target_hc_date,omitempty" format:"date" required:"false" doc:"Not before started_on; the go-live deadline is no later."`
	Notes         string                  `json:"notes,omitempty" maxLength:"4000" required:"false"`
	GateOverrides map[string]GateOverride `json:"gate_overrides,omitempty" required:"false" doc:"By definition_id."`
}

// PatchRequest is the body of PATCH /v1/onboardings/{onboarding_id}.
type PatchRequest struct {
	TargetHCDate assetshttp.Nullable[string] `json:"target_hc_date,omitempty" format:"date" required:"false" doc:"null clears it; a date before the go-live deadline moves that deadline to it."`
	Notes        *string                     `json:"notes,omitempty" maxLength:"4000" required:"false"`
}

// CancelRequest is the body of …/cancel.
type CancelRequest struct {
	Reason string `json:"reason" minLength:"1" maxLength:"500"`
}

// GatePatchRequest is the body of PATCH …/gates/{gate_id}.
type GatePatchRequest struct {
	Deadline          string                      `json:"deadline,omitempty" format:"date" required:"false" doc:"The new deadline; the change is audited with the old value."`
	AssigneeContactID assetshttp.Nullable[string] `json:"assignee_contact_id,omitempty" required:"false" doc:"A contact of the onboarding holding the gate's owner role or a contributor role (else 422); null clears it."`
}

// NoteRequest is the body of a gate transition.
type NoteRequest struct {
	Note string `json:"note,omitempty" maxLength:"4000" required:"false"`
}

// RequiredNoteRequest is the body of a transition that needs a note.
type RequiredNoteRequest struct {
	Note string `json:"note" minLength:"1" maxLength:"4000"`
}

// BlockRequest is the body of …/block.
type BlockRequest struct {
	Reason string `json:"reason" minLength:"1" maxLength:"4000"`
}

type templatesInput struct {
	IntegrationType string `query:"integration_type" enum:"full_control,monitoring_only" doc:"Only the template of this integration type."`
}

type templateInput struct {
	TemplateID string `path:"template_id"`
}

type definitionsInput struct {
	TemplateID string `query:"template_id" doc:"Only this template's definitions; an unknown id is 422."`
}

type definitionInput struct {
	DefinitionID string `path:"definition_id"`
}

type createInput struct{ Body CreateRequest }

type createOutput struct {
	Location string `header:"Location"`
	Body     Onboarding
}

type listInput struct {
	OverallStatus   string `query:"overall_status" enum:"in_progress,completed,cancelled"`
	AssetID         string `query:"asset_id"`
	OrganizationID  string `query:"organization_id" doc:"Platform callers: one organisation's; others see their own only."`
	IntegrationType string `query:"integration_type" enum:"full_control,monitoring_only"`
	Overdue         string `query:"overdue" enum:"true,false" doc:"Whether a gate is past its deadline and not passed or waived."`
	Blocked         string `query:"blocked" enum:"true,false" doc:"Whether a gate is blocked."`
	Page
}

func boolQuery(s string) *bool {
	if s == "" {
		return nil
	}
	b := s == "true"
	return &b
}

type onboardingPath struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
}

type patchInput struct {
	OnboardingID string `path:"onboarding_id"`
	Body         PatchRequest
}

type cancelInput struct {
	OnboardingID string `path:"onboarding_id"`
	Body         CancelRequest
}

type gatePath struct {
	OnboardingID string `path:"onboarding_id"`
	GateID       string `path:"gate_id"`
}

type gatePatchInput struct {
	OnboardingID string `path:"onboarding_id"`
	GateID       string `path:"gate_id"`
	Body         GatePatchRequest
}

type noteInput struct {
	OnboardingID string `path:"onboarding_id"`
	GateID       string `path:"gate_id"`
	Body         *NoteRequest
}

type requiredNoteInput struct {
	OnboardingID string `path:"onboarding_id"`
	GateID       string `path:"gate_id"`
	Body         RequiredNoteRequest
}

type blockInput struct {
	OnboardingID string `path:"onboarding_id"`
	GateID       string `path:"gate_id"`
	Body         BlockRequest
}

type auditInput struct {
	OnboardingID string    `path:"onboarding_id"`
	Action       string    `query:"action" doc:"Prefix of the action, such as gate."`
	TargetType   string    `query:"target_type"`
	TargetID     string    `query:"target_id"`
	ActorKind    string    `query:"actor_kind" enum:"user,integration,contact,system"`
	StartTime    time.Time `query:"start_time" doc:"Inclusive."`
	EndTime      time.Time `query:"end_time" doc:"Exclusive."`
	Page
}

func optInstant(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

const (
	notVisible = "404 onboarding_not_found when the workflow is unknown or of another organisation."
	closed     = "409 onboarding_closed when the workflow is completed or cancelled."
	platOnly   = "403 platform_only for a caller outside the platform organisation."
)

// Register adds the onboarding manager endpoints to s.
func Register(s *httpapi.Server, svc *onboarding.Service, registry Assets, clk clock.Clock, opts ...Option) {
	h := handler{svc: svc, assets: registry, clk: clk}
	for _, o := range opts {
		o(&h)
	}
	tags := Tags(s)
	read, write := httpapi.Scopes(auth.OnboardingRead), httpapi.Scopes(auth.OnboardingWrite)

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-templates", Method: http.MethodGet, Path: "/v1/onboarding-templates", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleTemplates),
		Summary:   "List the onboarding templates",
		Description: "The built-in, versioned templates: fc_v1 for full_control assets, mon_v1 for monitoring_only ones. " +
			"Read-only in this version.",
		Errors: []int{http.StatusUnprocessableEntity},
	}, read, func(_ context.Context, in *templatesInput) (*httpapi.Output[TemplateList], error) {
		out := TemplateList{Templates: []Template{}}
		for _, t := range onboarding.Templates() {
			if in.IntegrationType == "" || string(t.IntegrationType) == in.IntegrationType {
				out.Templates = append(out.Templates, toTemplate(t))
			}
		}
		return &httpapi.Output[TemplateList]{Body: out}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-template", Method: http.MethodGet, Path: "/v1/onboarding-templates/{template_id}", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleTemplate),
		Summary:     "Read an onboarding template",
		Description: "The template with its gate definitions inlined. 404 template_not_found for an unknown id.",
		Errors:      []int{http.StatusNotFound},
	}, read, func(_ context.Context, in *templateInput) (*httpapi.Output[TemplateDetail], error) {
		t, ok := onboarding.TemplateByID(in.TemplateID)
		if !ok {
			return nil, errs.E(errs.NotFound, onboarding.CodeTemplateNotFound, "no onboarding template %q", in.TemplateID)
		}
		return &httpapi.Output[TemplateDetail]{Body: TemplateDetail{Template: toTemplate(t), GateDefinitions: httpapi.Map(t.Gates, toDefinition)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-gate-definitions", Method: http.MethodGet, Path: "/v1/onboarding-gate-definitions", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleDefinitions),
		Summary:     "List the gate definitions",
		Description: "The gate definitions of every template, or of template_id (422 when it names no template).",
		Errors:      []int{http.StatusUnprocessableEntity},
	}, read, func(_ context.Context, in *definitionsInput) (*httpapi.Output[DefinitionList], error) {
		out := DefinitionList{GateDefinitions: []GateDefinition{}}
		if in.TemplateID != "" {
			if _, ok := onboarding.TemplateByID(in.TemplateID); !ok {
				return nil, errs.Invalidf("query.template_id", in.TemplateID, "is not a template (fc_v1, mon_v1)")
			}
		}
		for _, t := range onboarding.Templates() {
			if in.TemplateID != "" && t.TemplateID != in.TemplateID {
				continue
			}
			for _, d := range t.Gates {
				out.GateDefinitions = append(out.GateDefinitions, toDefinition(d))
			}
		}
		return &httpapi.Output[DefinitionList]{Body: out}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-gate-definition", Method: http.MethodGet, Path: "/v1/onboarding-gate-definitions/{definition_id}", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleDefinition),
		Summary:     "Read a gate definition",
		Description: "404 gate_definition_not_found for an unknown id.",
		Errors:      []int{http.StatusNotFound},
	}, read, func(_ context.Context, in *definitionInput) (*httpapi.Output[GateDefinition], error) {
		d, ok := onboarding.DefinitionByID(in.DefinitionID)
		if !ok {
			return nil, errs.E(errs.NotFound, onboarding.CodeGateDefinitionNotFound, "no gate definition %q", in.DefinitionID)
		}
		return &httpapi.Output[GateDefinition]{Body: toDefinition(d)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create-onboarding", Method: http.MethodPost, Path: "/v1/onboardings", Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleOnboarding),
		Summary: "Start an onboarding workflow",
		Description: "Platform only. Creates the workflow of an asset in status onboarding from its template, every gate pending with the deadline " +
			"started_on + deadline_offset_days (the go-live gate's no later than target_hc_date); gate_overrides set deadlines or waive gates. " +
			platOnly + " 404 asset_not_found; 409 asset_not_onboarding when the asset is in another status; 409 onboarding_exists when it has an " +
			"in_progress workflow; 409 virtual_asset for a virtual asset; 422 for a template of another integration type, dates out of order or " +
			"an unknown override.",
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *createInput) (*createOutput, error) {
		var v errs.Validation
		r := onboarding.CreateRequest{AssetID: in.Body.AssetID, TemplateID: in.Body.TemplateID, Notes: in.Body.Notes,
			StartedOn: Day(&v, "body.started_on", in.Body.StartedOn), TargetHCDate: Day(&v, "body.target_hc_date", in.Body.TargetHCDate)}
		if len(in.Body.GateOverrides) > 0 {
			r.GateOverrides = map[string]onboarding.GateOverride{}
			for id, o := range in.Body.GateOverrides {
				r.GateOverrides[id] = onboarding.GateOverride{Deadline: Day(&v, "body.gate_overrides."+id+".deadline", o.Deadline),
					Waived: o.Waived, Note: o.Note}
			}
		}
		if err := v.Err(); err != nil {
			return nil, err
		}
		ob, err := svc.Create(ctx, a, r)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		body, err := h.onboarding(ctx, ob, true)
		if err != nil {
			return nil, err
		}
		return &createOutput{Location: "/v1/onboardings/" + ob.ID, Body: body}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboardings", Method: http.MethodGet, Path: "/v1/onboardings", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List onboarding workflows",
		Description: "The workflows of the caller's organisation (the platform's: every organisation's), without gates, ordered by " +
			"next_deadline (none last), then created_at.",
		Errors: []int{http.StatusUnprocessableEntity},
	}, read, Manager(func(ctx context.Context, a onboarding.Actor, in *listInput) (*httpapi.Output[OnboardingList], error) {
		list, total, err := svc.List(ctx, a, onboarding.ListQuery{
			ListFilter: onboarding.ListFilter{Status: onboarding.OverallStatus(in.OverallStatus), AssetID: in.AssetID,
				OrganizationID: in.OrganizationID, Limit: in.Limit, Offset: in.Offset},
			IntegrationType: assets.IntegrationType(in.IntegrationType), Overdue: boolQuery(in.Overdue), Blocked: boolQuery(in.Blocked),
		})
		if err != nil {
			return nil, err
		}
		out := OnboardingList{Onboardings: make([]Onboarding, len(list)), Total: total, Limit: in.Limit, Offset: in.Offset}
		for i, ob := range list {
			if out.Onboardings[i], err = h.onboarding(ctx, ob, false); err != nil {
				return nil, err
			}
		}
		return &httpapi.Output[OnboardingList]{Body: out}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding", Method: http.MethodGet, Path: "/v1/onboardings/{onboarding_id}", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleOnboarding),
		Summary:     "Read an onboarding workflow",
		Description: "The workflow with its gates in order. " + notVisible,
		Errors:      []int{http.StatusNotFound},
	}, read, Manager(func(ctx context.Context, a onboarding.Actor, in *onboardingPath) (*httpapi.Output[Onboarding], error) {
		ob, err := svc.Get(ctx, a, in.OnboardingID)
		return h.detail(ctx, ob, err)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "update-onboarding", Method: http.MethodPatch, Path: "/v1/onboardings/{onboarding_id}", Tags: tags,
		RequestBody: httpapi.RequestExample(examplePatch), Responses: httpapi.ResponseExample(http.StatusOK, exampleOnboarding),
		Summary:     "Change an onboarding workflow",
		Description: "Changes target_hc_date and notes; members left out stay. " + notVisible + " " + closed + " 422 for a target date before started_on.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *patchInput) (*httpapi.Output[Onboarding], error) {
		p := onboarding.Patch{Notes: in.Body.Notes}
		if t := in.Body.TargetHCDate; t.Present {
			var v errs.Validation
			n := assets.Nullable[calendar.Day]{Present: true, Null: t.Null}
			if !t.Null {
				if d := Day(&v, "body.target_hc_date", t.Value); d != nil {
					n.Value = *d
				}
			}
			if err := v.Err(); err != nil {
				return nil, err
			}
			p.TargetHCDate = &n
		}
		ob, err := svc.Update(ctx, a, in.OnboardingID, p)
		return h.detail(ctx, ob, err)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "cancel-onboarding", Method: http.MethodPost, Path: "/v1/onboardings/{onboarding_id}/cancel", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleCancel), Responses: httpapi.ResponseExample(http.StatusOK, exampleCancelled),
		Summary: "Cancel an onboarding workflow",
		Description: "Platform only: in_progress becomes cancelled; the asset keeps its status. " + platOnly + " " + notVisible + " " + closed +
			" 422 without a reason.",
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *cancelInput) (*httpapi.Output[Onboarding], error) {
		ob, err := svc.Cancel(ctx, a, in.OnboardingID, in.Body.Reason)
		return h.detail(ctx, ob, err)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-gates", Method: http.MethodGet, Path: "/v1/onboardings/{onboarding_id}/gates", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleGates),
		Summary:     "List the gates of a workflow",
		Description: "In order. " + notVisible,
		Errors:      []int{http.StatusNotFound},
	}, read, Manager(func(ctx context.Context, a onboarding.Actor, in *onboardingPath) (*httpapi.Output[GateList], error) {
		ob, err := svc.Get(ctx, a, in.OnboardingID)
		if err != nil {
			return nil, err
		}
		gates, err := h.gates(ctx, ob)
		return &httpapi.Output[GateList]{Body: GateList{Gates: gates}}, err
	}))

	gateErrors := " 404 gate_not_found when the workflow has no such gate; " + notVisible
	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-gate", Method: http.MethodGet, Path: "/v1/onboardings/{onboarding_id}/gates/{gate_id}", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleGate),
		Summary:     "Read a gate",
		Description: "The gate, with what submit would refuse today in requirements_unmet." + gateErrors,
		Errors:      []int{http.StatusNotFound},
	}, read, Manager(func(ctx context.Context, a onboarding.Actor, in *gatePath) (*httpapi.Output[Gate], error) {
		ob, g, err := svc.GetGate(ctx, a, in.OnboardingID, in.GateID)
		if err != nil {
			return nil, err
		}
		body, err := h.gate(ctx, ob, g)
		return &httpapi.Output[Gate]{Body: body}, err
	}))

	gateOutput := func(ctx context.Context, a onboarding.Actor, obID string, g onboarding.Gate, err error) (*httpapi.Output[Gate], error) {
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		ob, err := svc.Get(ctx, a, obID)
		if err != nil {
			return nil, err
		}
		body, err := h.gate(ctx, ob, g)
		return &httpapi.Output[Gate]{Body: body}, err
	}

	httpapi.Register(s, huma.Operation{
		OperationID: "update-onboarding-gate", Method: http.MethodPatch, Path: "/v1/onboardings/{onboarding_id}/gates/{gate_id}", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleGatePatch), Responses: httpapi.ResponseExample(http.StatusOK, exampleGate),
		Summary: "Change a gate's deadline or assignee",
		Description: "Each change is audited with the old value. 422 for a deadline before the workflow's started_on, or an " +
			"assignee_contact_id that is not a contact holding the gate's owner or a contributor role." + gateErrors + " " + closed,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *gatePatchInput) (*httpapi.Output[Gate], error) {
		var v errs.Validation
		p := onboarding.GatePatch{Deadline: Day(&v, "body.deadline", in.Body.Deadline)}
		if err := v.Err(); err != nil {
			return nil, err
		}
		if as := in.Body.AssigneeContactID; as.Present {
			p.Assignee = &assets.Nullable[string]{Present: true, Null: as.Null, Value: as.Value}
		}
		g, err := svc.PatchGate(ctx, a, in.OnboardingID, in.GateID, p)
		return gateOutput(ctx, a, in.OnboardingID, g, err)
	}))

	transitions := " 409 gate_transition_not_allowed when the gate's status does not allow it;" + gateErrors + " " + closed
	act := func(ctx context.Context, a onboarding.Actor, obID, gateID string, action onboarding.Action, note string) (*httpapi.Output[Gate], error) {
		g, err := svc.Act(ctx, a, obID, gateID, action, note)
		return gateOutput(ctx, a, obID, g, err)
	}
	noteOf := func(b *NoteRequest) string {
		if b == nil {
			return ""
		}
		return b.Note
	}
	gatePathOf := "/v1/onboardings/{onboarding_id}/gates/{gate_id}/"

	httpapi.Register(s, huma.Operation{
		OperationID: "submit-onboarding-gate", Method: http.MethodPost, Path: gatePathOf + "submit", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleNote), Responses: httpapi.ResponseExample(http.StatusOK, exampleSubmitted),
		Summary: "Submit a gate for review",
		Description: "From pending, in_progress or changes_requested. Organisation users may submit only gates owned by asset_owner (403 not_gate_owner); " +
			"the platform any. 409 gate_not_ready while a gate it depends on is not passed or waived; 422 gate_requirements_unmet with errors[] " +
			"naming each unmet requirement." + transitions,
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *noteInput) (*httpapi.Output[Gate], error) {
		return act(ctx, a, in.OnboardingID, in.GateID, onboarding.ActionSubmit, noteOf(in.Body))
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "request-onboarding-gate-changes", Method: http.MethodPost, Path: gatePathOf + "request-changes", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleRequiredNote), Responses: httpapi.ResponseExample(http.StatusOK, exampleChangesRequested),
		Summary:     "Return a submitted gate with a note",
		Description: "Platform only: submitted becomes changes_requested, last_note the note (required). " + platOnly + transitions,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *requiredNoteInput) (*httpapi.Output[Gate], error) {
		return act(ctx, a, in.OnboardingID, in.GateID, onboarding.ActionRequestChanges, in.Body.Note)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "pass-onboarding-gate", Method: http.MethodPost, Path: gatePathOf + "pass", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleNote), Responses: httpapi.ResponseExample(http.StatusOK, examplePassed),
		Summary: "Pass a submitted gate",
		Description: "Platform only: submitted becomes passed, and its on_pass effects apply in the same transaction: the asset's operational " +
			"status (installation: onboarding_testing; go-live: live, and the workflow completed). 409 asset_update_refused when the asset " +
			"refuses the change; 422 gate_requirements_unmet for the go-live gate while another gate is not passed or waived. " + platOnly + transitions,
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *noteInput) (*httpapi.Output[Gate], error) {
		return act(ctx, a, in.OnboardingID, in.GateID, onboarding.ActionPass, noteOf(in.Body))
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "waive-onboarding-gate", Method: http.MethodPost, Path: gatePathOf + "waive", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleRequiredNote), Responses: httpapi.ResponseExample(http.StatusOK, exampleWaived),
		Summary: "Waive a gate",
		Description: "Platform only: any status but passed and waived becomes waived, with the on_pass effects as for pass. The note is required. " +
			"422 gate_not_waivable for the go-live gate. " + platOnly + transitions,
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *requiredNoteInput) (*httpapi.Output[Gate], error) {
		return act(ctx, a, in.OnboardingID, in.GateID, onboarding.ActionWaive, in.Body.Note)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "block-onboarding-gate", Method: http.MethodPost, Path: gatePathOf + "block", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleBlock), Responses: httpapi.ResponseExample(http.StatusOK, exampleBlocked),
		Summary: "Block a gate",
		Description: "Holds a gate for an external reason (required): any status but passed, waived and blocked becomes blocked, remembering " +
			"blocked_from. Work may go on; submit waits for unblock." + transitions,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *blockInput) (*httpapi.Output[Gate], error) {
		return act(ctx, a, in.OnboardingID, in.GateID, onboarding.ActionBlock, in.Body.Reason)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "unblock-onboarding-gate", Method: http.MethodPost, Path: gatePathOf + "unblock", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleUnblocked),
		Summary:   "Unblock a gate",
		Description: "A blocked gate returns to blocked_from. The platform may unblock any gate, an organisation user only one they blocked " +
			"(403 platform_only otherwise)." + transitions,
		Errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *gatePath) (*httpapi.Output[Gate], error) {
		return act(ctx, a, in.OnboardingID, in.GateID, onboarding.ActionUnblock, "")
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "reopen-onboarding-gate", Method: http.MethodPost, Path: gatePathOf + "reopen", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleRequiredNote), Responses: httpapi.ResponseExample(http.StatusOK, exampleReopened),
		Summary: "Reopen a passed or waived gate",
		Description: "Platform only: passed or waived becomes in_progress, with the note (required). The asset's status is not moved back; " +
			"later submitted gates stay so. 409 gate_not_reopenable for the go-live gate. " + platOnly + transitions,
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, Manager(func(ctx context.Context, a onboarding.Actor, in *requiredNoteInput) (*httpapi.Output[Gate], error) {
		return act(ctx, a, in.OnboardingID, in.GateID, onboarding.ActionReopen, in.Body.Note)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-audit", Method: http.MethodGet, Path: "/v1/onboardings/{onboarding_id}/audit", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleAudit),
		Summary:   "Read a workflow's audit trail",
		Description: "Every change of the workflow, newest first; Accept: text/csv gives the CSV form (changes as JSON text). " + notVisible +
			" 422 for end_time not after start_time.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, Manager(func(ctx context.Context, a onboarding.Actor, in *auditInput) (*httpapi.Output[AuditList], error) {
		start, end := optInstant(in.StartTime), optInstant(in.EndTime)
		if start != nil && end != nil && !end.After(*start) {
			return nil, errs.Invalidf("query.end_time", in.EndTime, "must be after start_time")
		}
		entries, total, err := svc.AuditTrail(ctx, a, in.OnboardingID, onboarding.AuditFilter{
			ActionPrefix: strings.TrimSpace(in.Action), TargetType: in.TargetType, TargetID: in.TargetID, ActorKind: in.ActorKind,
			StartTime: start, EndTime: end, Limit: in.Limit, Offset: in.Offset,
		})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[AuditList]{Body: AuditList{Entries: httpapi.Map(entries, toEntry), Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
	}))
}
