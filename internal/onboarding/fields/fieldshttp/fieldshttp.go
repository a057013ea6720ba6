// Package fieldshttp serves the RfI fields of a gate (docs/onboarding.md,
// group D, endpoints 32 to 35): the manager side under /v1/onboardings and
// the task side under /v1/onboarding-tasks.
package fieldshttp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields"
	"atcp/internal/onboarding/onboardinghttp"
)

// GateFieldValues are a gate's stored values.
type GateFieldValues struct {
	Fields        map[string]any `json:"fields" nullable:"false" doc:"By key; a field never set or cleared is absent."`
	UpdatedAt     *time.Time     `json:"updated_at" doc:"The last save; null before the first."`
	UpdatedByName *string        `json:"updated_by_name"`
}

// GateFields is a gate's field definitions and values.
type GateFields struct {
	Definitions []onboardinghttp.FieldDefinition `json:"definitions" nullable:"false" doc:"The gate's RfI field definitions; empty for a gate without fields."`
	Values      GateFieldValues                  `json:"values"`
}

// GateFieldsRequest is the body of a save.
type GateFieldsRequest struct {
	Fields map[string]json.RawMessage `json:"fields" doc:"Only the keys given change; null clears a field."`
}

type output struct {
	ETag string `header:"ETag" doc:"The version of the values, for If-Match."`
	Body GateFields
}

func toBody(v fields.View) *output {
	out := GateFields{Definitions: onboardinghttp.FieldDefinitions(v.Definitions),
		Values: GateFieldValues{Fields: onboardinghttp.StructuredData(v.Values.Fields), UpdatedAt: v.Values.UpdatedAt}}
	if v.Values.UpdatedBy != "" {
		n := v.Values.UpdatedBy
		out.Values.UpdatedByName = &n
	}
	return &output{ETag: v.Values.ETag(), Body: out}
}

// answer is the answer of a read or save of v, or err.
func answer(v fields.View, err error) (*output, error) {
	if err != nil {
		return nil, err
	}
	return toBody(v), nil
}

type gatePath struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `path:"gate_id"`
}

type saveInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `path:"gate_id"`
	IfMatch      string `header:"If-Match" doc:"The ETag of the values read; a save over a later version is 409 edit_conflict."`
	Body         GateFieldsRequest
}

type taskGatePath struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `path:"gate_id"`
	Role         string `query:"role" doc:"The task role to act as, when the caller holds several (asset_owner, epc, ems_provider, tso)."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"A platform or organisation user views the task as this role."`
}

type taskSaveInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `path:"gate_id"`
	Role         string `query:"role" doc:"The task role to act as, when the caller holds several (asset_owner, epc, ems_provider, tso)."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"A platform or organisation user acts as this role (needs onboarding.write)."`
	IfMatch      string `header:"If-Match" doc:"The ETag of the values read; a save over a later version is 409 edit_conflict."`
	Body         GateFieldsRequest
}

const (
	saveRules = "A save validates every given field (a field of the gate, its type and constraints) and stores all or nothing; " +
		"null clears a field; required fields are checked on submit, not here. The first save moves a pending gate to in_progress " +
		"and every change is in the audit trail (field.updated, with the old and new values). " +
		"409 gate_locked while the gate is submitted, passed or waived; 409 edit_conflict when If-Match names an older version; " +
		"409 onboarding_closed for a completed or cancelled workflow; 422 validation_failed naming body.fields.<key> " +
		"(unknown key, wrong type, broken constraint), or 422 field_not_editable when every refused key is one the role may not edit."
	notVisible = "404 onboarding_not_found when the workflow is unknown or of another organisation; 404 gate_not_found for a gate of another workflow."
	taskRules  = "404 task_not_found when the workflow is not visible or the caller does not hold the role; 404 gate_not_found for a gate " +
		"the role neither owns nor contributes to; 422 for a role or preview header that is not a task role."
)

// Register adds endpoints 32 to 35.
func Register(s *httpapi.Server, ob *onboarding.Service, svc *fields.Service) {
	tags := onboardinghttp.Tags(s)

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-gate-fields", Method: http.MethodGet, Path: "/v1/onboardings/{onboarding_id}/gates/{gate_id}/fields",
		Tags: tags, Responses: httpapi.ResponseExample(http.StatusOK, exampleBody),
		Summary:     "Read the RfI fields of a gate",
		Description: "The gate's field definitions and its values, with the version (ETag) a save may be conditional on. " + notVisible,
		Errors:      []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.OnboardingRead), onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *gatePath) (*output, error) {
		return answer(svc.Get(ctx, a, in.OnboardingID, in.GateID))
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "save-onboarding-gate-fields", Method: http.MethodPut, Path: "/v1/onboardings/{onboarding_id}/gates/{gate_id}/fields",
		Tags: tags, RequestBody: httpapi.RequestExample(exampleSave), Responses: httpapi.ResponseExample(http.StatusOK, exampleBody),
		Summary: "Save RfI fields of a gate",
		Description: "Sets the given fields; the others stay. Platform users and the asset organisation's writers may set every field of " +
			"the gate. " + saveRules + " " + notVisible,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.OnboardingWrite), onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *saveInput) (*output, error) {
		return answer(svc.Save(ctx, a, in.OnboardingID, in.GateID, in.Body.Fields, in.IfMatch))
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-task-gate-fields", Method: http.MethodGet, Path: "/v1/onboarding-tasks/{onboarding_id}/gates/{gate_id}/fields",
		Tags: tags, Responses: httpapi.ResponseExample(http.StatusOK, exampleBody),
		Summary:     "Read the RfI fields of a task's gate",
		Description: "As the manager's read, for a gate the task role owns or contributes to. " + taskRules,
		Errors:      []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingRead), func(ctx context.Context, in *taskGatePath) (*output, error) {
		ctx, t, err := onboardinghttp.Task(ctx, ob, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		return answer(svc.GetTask(ctx, t, in.GateID))
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "save-onboarding-task-gate-fields", Method: http.MethodPut, Path: "/v1/onboarding-tasks/{onboarding_id}/gates/{gate_id}/fields",
		Tags: tags, RequestBody: httpapi.RequestExample(exampleSave), Responses: httpapi.ResponseExample(http.StatusOK, exampleBody),
		Summary: "Save RfI fields of a task's gate",
		Description: "As the manager's save, for a gate the task role owns or contributes to, and only the fields whose editable_by holds " +
			"the role. " + saveRules + " " + taskRules,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingWrite), func(ctx context.Context, in *taskSaveInput) (*output, error) {
		ctx, t, err := onboardinghttp.Task(ctx, ob, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		return answer(svc.SaveTask(ctx, t, in.GateID, in.Body.Fields, in.IfMatch))
	})
}
