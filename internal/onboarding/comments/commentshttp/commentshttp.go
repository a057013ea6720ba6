// Package commentshttp serves the comments of an onboarding (manager and
// task side, docs/onboarding.md #63–66) and a task role's view of the
// audit trail (#80).
package commentshttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/onboardinghttp"
)

// Comment is a comment on the wire.
type Comment struct {
	CommentID    string    `json:"comment_id" format:"uuid"`
	OnboardingID string    `json:"onboarding_id" format:"uuid"`
	GateID       *string   `json:"gate_id" format:"uuid" doc:"null for the onboarding-level thread."`
	Body         string    `json:"body"`
	Visibility   string    `json:"visibility" enum:"shared,internal"`
	AuthorName   string    `json:"author_name"`
	AuthorRole   *string   `json:"author_role" doc:"The task role the author acted as; null for an organisation user without one."`
	CreatedAt    time.Time `json:"created_at"`
}

// CommentList is the body of the comment lists.
type CommentList struct {
	Comments []Comment `json:"comments" nullable:"false" doc:"Newest first."`
	Total    int       `json:"total"`
	Limit    int       `json:"limit"`
	Offset   int       `json:"offset"`
}

// CommentRequest is the body of POST …/comments.
type CommentRequest struct {
	Body       string `json:"body" minLength:"1" maxLength:"4000" doc:"Plain text."`
	GateID     string `json:"gate_id,omitempty" required:"false" doc:"A gate of the onboarding; absent for the onboarding-level thread."`
	Visibility string `json:"visibility,omitempty" enum:"shared,internal" required:"false" doc:"Default shared; internal is seen by the asset's organisation and the platform only."`
}

// TaskCommentRequest is the body of POST /v1/onboarding-tasks/{id}/comments:
// always shared.
type TaskCommentRequest struct {
	Body   string `json:"body" minLength:"1" maxLength:"4000" doc:"Plain text."`
	GateID string `json:"gate_id,omitempty" required:"false" doc:"A gate the role owns or contributes to; absent for the onboarding-level thread."`
}

// ActivityEntry is one line of a task role's activity.
type ActivityEntry struct {
	EntryID      string           `json:"entry_id" format:"uuid"`
	OnboardingID string           `json:"onboarding_id" format:"uuid"`
	At           time.Time        `json:"at"`
	Actor        ActivityActor    `json:"actor"`
	Action       string           `json:"action" doc:"Such as gate.submitted, comment.created."`
	Target       ActivityTarget   `json:"target"`
	Changes      map[string][]any `json:"changes" doc:"Each changed member: [old, new]; old is null for another role's change."`
}

// ActivityActor is who acted; never an e-mail address.
type ActivityActor struct {
	Kind string  `json:"kind" enum:"user,integration,contact,system"`
	Name string  `json:"name"`
	Role *string `json:"role"`
}

// ActivityTarget is what an entry is about.
type ActivityTarget struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// ActivityList is the body of GET …/activity.
type ActivityList struct {
	Entries []ActivityEntry `json:"entries" nullable:"false" doc:"Newest first."`
	Total   int             `json:"total"`
	Limit   int             `json:"limit"`
	Offset  int             `json:"offset"`
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toComment(c comments.Comment, task bool) Comment {
	name := c.AuthorName
	if task {
		name = comments.TaskName(name, c.AuthorRole, c.AuthorKind)
	}
	return Comment{CommentID: c.ID, OnboardingID: c.OnboardingID, GateID: opt(c.GateID), Body: c.Body, Visibility: string(c.Visibility),
		AuthorName: name, AuthorRole: opt(string(c.AuthorRole)), CreatedAt: c.CreatedAt}
}

func toList(list []comments.Comment, total, limit, offset int, task bool) CommentList {
	out := CommentList{Comments: make([]Comment, len(list)), Total: total, Limit: limit, Offset: offset}
	for i, c := range list {
		out.Comments[i] = toComment(c, task)
	}
	return out
}

func toActivity(e onboarding.AuditEntry) ActivityEntry {
	changes := make(map[string][]any, len(e.Changes))
	for k, v := range e.Changes {
		changes[k] = []any{v[0], v[1]}
	}
	return ActivityEntry{EntryID: e.ID, OnboardingID: e.OnboardingID, At: e.At,
		Actor:  ActivityActor{Kind: e.Actor.Kind, Name: e.Actor.Name, Role: opt(string(e.Actor.Role))},
		Action: e.Action, Target: ActivityTarget{Type: e.Target.Type, ID: e.Target.ID}, Changes: changes}
}

type listInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `query:"gate_id" doc:"Only this gate's thread; a gate of another onboarding is 422."`
	Visibility   string `query:"visibility" enum:"shared,internal"`
	onboardinghttp.Page
}

type postInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	Body         CommentRequest
}

type taskListInput struct {
	OnboardingID string `path:"onboarding_id"`
	Role         string `query:"role" enum:"asset_owner,epc,ems_provider,tso" doc:"The task role to act as, for a user holding several."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"A user views the task as this role (preview)."`
	GateID       string `query:"gate_id" doc:"Only this gate's thread; a gate the role does not work on is 422."`
	onboardinghttp.Page
}

type taskPostInput struct {
	OnboardingID string `path:"onboarding_id"`
	Role         string `query:"role" enum:"asset_owner,epc,ems_provider,tso" doc:"The task role to act as, for a user holding several."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"A user acts as this role (preview; needs onboarding.write)."`
	Body         TaskCommentRequest
}

type activityInput struct {
	OnboardingID string `path:"onboarding_id"`
	Role         string `query:"role" enum:"asset_owner,epc,ems_provider,tso" doc:"The task role to act as, for a user holding several."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"A user views the task as this role (preview)."`
	onboardinghttp.Page
}

const (
	notVisible  = "404 onboarding_not_found when the workflow is unknown or of another organisation."
	taskMissing = "404 task_not_found when the onboarding is not visible or the caller does not hold the role."
	closed      = "409 onboarding_closed when the workflow is completed or cancelled."
)

var (
	exampleComment = httpapi.ExampleJSON(Comment{CommentID: "0193a5c2-7d10-7c3e-9b2a-5f1e2d3c4b5a", OnboardingID: "0193a5c0-1e2f-7a3b-8c4d-5e6f7a8b9c0d",
		GateID: opt("0193a5c0-1e2f-7a3b-8c4d-000000000001"), Body: "The antenna photo is blurred; please upload a sharper one.",
		Visibility: "shared", AuthorName: "ops@platform.example", AuthorRole: opt("platform_onboarding"),
		CreatedAt: time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)})
	exampleList     = `{"comments": [` + exampleComment + `], "total": 1, "limit": 100, "offset": 0}`
	examplePost     = `{"body": "The antenna photo is blurred; please upload a sharper one.", "gate_id": "0193a5c0-1e2f-7a3b-8c4d-000000000001", "visibility": "shared"}`
	exampleTaskPost = `{"body": "A sharper photo is uploaded.", "gate_id": "0193a5c0-1e2f-7a3b-8c4d-000000000001"}`
	exampleActivity = httpapi.ExampleJSON(ActivityList{Entries: []ActivityEntry{{EntryID: "0193a5c2-8000-7000-8000-000000000001",
		OnboardingID: "0193a5c0-1e2f-7a3b-8c4d-5e6f7a8b9c0d", At: time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC),
		Actor:  ActivityActor{Kind: "contact", Name: "Erika Muster", Role: opt("epc")},
		Action: "gate.submitted", Target: ActivityTarget{Type: "gate", ID: "0193a5c0-1e2f-7a3b-8c4d-000000000001"},
		Changes: map[string][]any{"status": {"in_progress", "submitted"}}}}, Total: 1, Limit: 100, Offset: 0})
)

// Register adds the comment endpoints and the task activity to s.
func Register(s *httpapi.Server, core *onboarding.Service, svc *comments.Service) {
	tags := onboardinghttp.Tags(s)
	read, write := httpapi.Scopes(auth.OnboardingRead), httpapi.Scopes(auth.OnboardingWrite)

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-comments", Method: http.MethodGet, Path: "/v1/onboardings/{onboarding_id}/comments", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List the comments of a workflow",
		Description: "The onboarding-level thread and the gates' threads, shared and internal, newest first. " + notVisible +
			" 422 for a gate_id not of this workflow.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *listInput) (*httpapi.Output[CommentList], error) {
		list, total, err := svc.List(ctx, a, in.OnboardingID, comments.Query{GateID: in.GateID, Visibility: in.Visibility, Limit: in.Limit, Offset: in.Offset})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[CommentList]{Body: toList(list, total, in.Limit, in.Offset, false)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "create-onboarding-comment", Method: http.MethodPost, Path: "/v1/onboardings/{onboarding_id}/comments", Tags: tags,
		DefaultStatus: http.StatusCreated,
		RequestBody:   httpapi.RequestExample(examplePost), Responses: httpapi.ResponseExample(http.StatusCreated, exampleComment),
		Summary: "Comment on a workflow or one of its gates",
		Description: "Comments are immutable. A shared comment on a gate mails the contacts of the gate's owner role, one on the " +
			"onboarding-level thread those of asset_owner; internal comments (seen by the asset's organisation and the platform only) mail " +
			"no one. " + notVisible + " " + closed + " 422 for an empty or long body or a gate_id not of this workflow.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *postInput) (*httpapi.Output[Comment], error) {
		c, err := svc.Post(ctx, a, in.OnboardingID, comments.PostRequest{Body: in.Body.Body, GateID: in.Body.GateID, Visibility: in.Body.Visibility})
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &httpapi.Output[Comment]{Body: toComment(c, false)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-task-comments", Method: http.MethodGet, Path: "/v1/onboarding-tasks/{onboarding_id}/comments", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List the comments a task role sees",
		Description: "The shared comments of the onboarding-level thread and of the gates the role owns or contributes to, newest first; " +
			"authors are named without e-mail addresses. " + taskMissing + " 422 for a gate_id the role does not work on.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingRead), func(ctx context.Context, in *taskListInput) (*httpapi.Output[CommentList], error) {
		ctx, t, err := onboardinghttp.Task(ctx, core, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		list, total, err := svc.TaskList(ctx, t, comments.Query{GateID: in.GateID, Limit: in.Limit, Offset: in.Offset})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[CommentList]{Body: toList(list, total, in.Limit, in.Offset, true)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create-onboarding-task-comment", Method: http.MethodPost, Path: "/v1/onboarding-tasks/{onboarding_id}/comments", Tags: tags,
		DefaultStatus: http.StatusCreated,
		RequestBody:   httpapi.RequestExample(exampleTaskPost), Responses: httpapi.ResponseExample(http.StatusCreated, exampleComment),
		Summary: "Comment as a task role",
		Description: "Always shared; on the onboarding-level thread or a gate the role owns or contributes to. Mails the reviewer " +
			"(platform_onboarding). " + taskMissing + " " + closed + " 422 for an empty or long body or a gate the role does not work on.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingWrite), func(ctx context.Context, in *taskPostInput) (*httpapi.Output[Comment], error) {
		ctx, t, err := onboardinghttp.Task(ctx, core, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		c, err := svc.TaskPost(ctx, t, comments.PostRequest{Body: in.Body.Body, GateID: in.Body.GateID})
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &httpapi.Output[Comment]{Body: toComment(c, true)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-task-activity", Method: http.MethodGet, Path: "/v1/onboarding-tasks/{onboarding_id}/activity", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleActivity),
		Summary:   "Read a task role's activity",
		Description: "The audit entries about the gates the role owns or contributes to and the caller's own actions, newest first; " +
			"without internal comments, old values of other roles' changes (null) or e-mail addresses. " + taskMissing,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingRead), func(ctx context.Context, in *activityInput) (*httpapi.Output[ActivityList], error) {
		ctx, t, err := onboardinghttp.Task(ctx, core, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		entries, total, err := svc.Activity(ctx, t, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[ActivityList]{Body: ActivityList{Entries: httpapi.Map(entries, toActivity), Total: total,
			Limit: in.Limit, Offset: in.Offset}}, nil
	})
}
