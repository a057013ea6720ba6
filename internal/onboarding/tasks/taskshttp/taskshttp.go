// Package taskshttp serves the task side of onboarding (docs/onboarding.md
// 4.3 and 5.C): the caller's tasks, the task detail and the submit of a
// gate the role owns. Detail renders the task detail for the other task
// endpoints, which answer with it.
package taskshttp

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/onboarding/tasks"
)

// Detail is the task detail of t, the answer of the task endpoints.
func Detail(ctx context.Context, svc *tasks.Service, t onboarding.Task) (TaskDetail, error) {
	d, err := svc.Detail(ctx, t)
	if err != nil {
		return TaskDetail{}, err
	}
	return Body(d), nil
}

type detailInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	Role         string `query:"role" doc:"The task role to act as when the caller holds several; default the first of asset_owner, epc, ems_provider, tso held."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"A platform user, or a user of the asset's organisation, views the task as this role."`
}

// TaskSubmitRequest is the body of a task's submit.
type TaskSubmitRequest struct {
	Note string `json:"note,omitempty" maxLength:"4000" required:"false"`
}

type submitInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `path:"gate_id"`
	Role         string `query:"role" doc:"The task role to act as when the caller holds several."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"A platform or organisation user acts as this role (needs onboarding.write)."`
	Body         *TaskSubmitRequest
}

const resolveErrors = "404 task_not_found when the workflow is not visible or the caller does not hold the role; " +
	"422 when role or X-Onboarding-Preview-Role is not a task role."

// Register adds endpoints 6, 7 and 31.
func Register(s *httpapi.Server, ob *onboarding.Service, svc *tasks.Service) {
	tags := onboardinghttp.Tags(s)

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-tasks", Method: http.MethodGet, Path: "/v1/onboarding-tasks", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List the caller's onboarding tasks",
		Description: "A magic-link session sees its one task (workflow and role); a console user one per workflow and role a contact " +
			"carrying their user id holds; anyone else none. Each task names the role's current gate: the first it owns not passed or " +
			"waived, the last when all are.",
	}, httpapi.TaskOr(), func(ctx context.Context, _ *struct{}) (*httpapi.Output[TaskList], error) {
		a, err := onboarding.ActorFrom(httpapi.Principal(ctx), "")
		if err != nil {
			return nil, err
		}
		items, err := svc.List(ctx, a)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[TaskList]{Body: TaskList{Tasks: httpapi.Map(items, toItem)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-task", Method: http.MethodGet, Path: "/v1/onboarding-tasks/{onboarding_id}", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleDetail),
		Summary:   "Read an onboarding task",
		Description: "The workflow as the role sees it: every gate, the RfI values (structured_data) of the gates the role owns or " +
			"contributes to (task_gate_ids), their document slots and current documents, the branding. " + resolveErrors,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingRead), func(ctx context.Context, in *detailInput) (*httpapi.Output[TaskDetail], error) {
		ctx, t, err := onboardinghttp.Task(ctx, ob, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		body, err := Detail(ctx, svc, t)
		return &httpapi.Output[TaskDetail]{Body: body}, err
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "submit-onboarding-task-gate", Method: http.MethodPost, Path: "/v1/onboarding-tasks/{onboarding_id}/gates/{gate_id}/submit",
		Tags: tags, RequestBody: httpapi.RequestExample(exampleSubmit), Responses: httpapi.ResponseExample(http.StatusOK, exampleDetail),
		Summary: "Submit a gate of a task",
		Description: "Submits a gate the role owns for review, as the manager's submit: the gates it depends on passed or waived, " +
			"its requirements met. " + resolveErrors + " 404 gate_not_found for a gate the role does not own; 403 not_gate_owner when a " +
			"user of the asset's organisation previews a role and the gate is not the asset owner's; 409 gate_not_ready, " +
			"gate_transition_not_allowed, onboarding_closed; 422 gate_requirements_unmet listing each unmet requirement.",
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingWrite), func(ctx context.Context, in *submitInput) (*httpapi.Output[TaskDetail], error) {
		ctx, t, err := onboardinghttp.Task(ctx, ob, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		note := ""
		if in.Body != nil {
			note = in.Body.Note
		}
		if t, err = svc.Submit(ctx, t, in.GateID, note); err != nil {
			return nil, errs.Within("body.", err)
		}
		body, err := Detail(ctx, svc, t)
		return &httpapi.Output[TaskDetail]{Body: body}, err
	})
}
