// Package remindershttp serves the deadline reminders of onboarding gates
// (docs/onboarding.md #67–69).
package remindershttp

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/onboarding/reminders"
)

// ReminderPolicy is a reminder policy on the wire.
type ReminderPolicy struct {
	DaysBefore          []int `json:"days_before" nullable:"false" maxItems:"5" doc:"Days before a deadline a reminder is due, each 0–60 (0: the deadline's day)."`
	OverdueEveryDays    int   `json:"overdue_every_days" minimum:"1" maximum:"30" doc:"An overdue gate is reminded from the day after its deadline, then every that many days."`
	MaxOverdueReminders int   `json:"max_overdue_reminders" minimum:"0" maximum:"20" doc:"At most that many overdue reminders per deadline."`
	Enabled             bool  `json:"enabled" doc:"false stops the automatic reminders; manual ones go on."`
}

// ReminderRecipient is whom a reminder went to; never an e-mail address.
type ReminderRecipient struct {
	Role      string  `json:"role"`
	ContactID *string `json:"contact_id" doc:"null for the platform's onboarding managers."`
	Name      *string `json:"name"`
}

// Reminder is a reminder on the wire.
type Reminder struct {
	ReminderID     string              `json:"reminder_id" format:"uuid"`
	OnboardingID   string              `json:"onboarding_id" format:"uuid"`
	GateID         string              `json:"gate_id" format:"uuid"`
	Kind           string              `json:"kind" enum:"before_deadline,overdue,manual"`
	DueOn          string              `json:"due_on" format:"date" doc:"The Europe/Berlin day the reminder is for."`
	Recipients     []ReminderRecipient `json:"recipients" nullable:"false"`
	Message        *string             `json:"message"`
	EnqueuedAt     time.Time           `json:"enqueued_at"`
	CreatedByName  string              `json:"created_by_name"`
	DeliveryStatus string              `json:"delivery_status" enum:"enqueued,not_sent" doc:"not_sent while no mail sender is configured."`
}

// ReminderList is the body of GET …/reminders.
type ReminderList struct {
	Policy    ReminderPolicy `json:"policy"`
	Reminders []Reminder     `json:"reminders" nullable:"false" doc:"Newest first."`
	Total     int            `json:"total"`
	Limit     int            `json:"limit"`
	Offset    int            `json:"offset"`
}

// ReminderRequest is the body of …/remind.
type ReminderRequest struct {
	Message string `json:"message,omitempty" maxLength:"2000" required:"false" doc:"Added to the reminder's e-mail."`
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toPolicy(p reminders.Policy) ReminderPolicy {
	days := p.DaysBefore
	if days == nil {
		days = []int{}
	}
	return ReminderPolicy{DaysBefore: days, OverdueEveryDays: p.OverdueEveryDays, MaxOverdueReminders: p.MaxOverdueReminders, Enabled: p.Enabled}
}

func toReminder(r reminders.Reminder) Reminder {
	out := Reminder{ReminderID: r.ID, OnboardingID: r.OnboardingID, GateID: r.GateID, Kind: string(r.Kind), DueOn: r.DueOn.String(),
		Recipients: make([]ReminderRecipient, len(r.Recipients)), Message: opt(r.Message), EnqueuedAt: r.EnqueuedAt, CreatedByName: r.CreatedBy,
		DeliveryStatus: string(r.Delivery)}
	for i, t := range r.Recipients {
		out.Recipients[i] = ReminderRecipient{Role: string(t.Role), ContactID: opt(t.ContactID), Name: opt(t.Name)}
	}
	return out
}

type listInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `query:"gate_id" doc:"Only this gate's reminders; a gate of another onboarding is 422."`
	onboardinghttp.Page
}

type policyInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	Body         ReminderPolicy
}

type remindInput struct {
	OnboardingID string `path:"onboarding_id" doc:"A malformed id is 404."`
	GateID       string `path:"gate_id"`
	Body         *ReminderRequest
}

const (
	notVisible = "404 onboarding_not_found when the workflow is unknown or of another organisation."
	closed     = "409 onboarding_closed when the workflow is completed or cancelled."
)

var (
	sample = Reminder{ReminderID: "0193a5c2-b000-7000-8000-000000000001", OnboardingID: "0193a5c0-1e2f-7a3b-8c4d-5e6f7a8b9c0d",
		GateID: "0193a5c0-1e2f-7a3b-8c4d-000000000001", Kind: "before_deadline", DueOn: "2026-03-06",
		Recipients: []ReminderRecipient{{Role: "asset_owner", ContactID: opt("0193a5c1-0000-7000-8000-000000000001"), Name: opt("Erika Muster")}},
		EnqueuedAt: time.Date(2026, 3, 5, 23, 0, 0, 0, time.UTC), CreatedByName: "system", DeliveryStatus: "enqueued"}
	examplePolicy = httpapi.ExampleJSON(toPolicy(reminders.DefaultPolicy()))
	exampleList   = httpapi.ExampleJSON(ReminderList{Policy: toPolicy(reminders.DefaultPolicy()), Reminders: []Reminder{sample}, Total: 1, Limit: 100})
	exampleRemind = `{"message": "The RfI is due on Friday; please complete the grid connection section."}`
	exampleManual = func() string {
		m := sample
		m.Kind, m.DueOn, m.Message, m.CreatedByName = "manual", "2026-03-10", opt("The RfI is due on Friday; please complete the grid connection section."), "ops@platform.example"
		m.EnqueuedAt = time.Date(2026, 3, 10, 8, 15, 0, 0, time.UTC)
		return httpapi.ExampleJSON(m)
	}()
)

// Register adds the reminder endpoints to s.
func Register(s *httpapi.Server, svc *reminders.Service) {
	tags := onboardinghttp.Tags(s)
	read, write := httpapi.Scopes(auth.OnboardingRead), httpapi.Scopes(auth.OnboardingWrite)

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-reminders", Method: http.MethodGet, Path: "/v1/onboardings/{onboarding_id}/reminders", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List a workflow's reminders and its policy",
		Description: "The reminder policy (the default until set) and the reminders sent, automatic and manual, newest first. " + notVisible +
			" 422 for a gate_id not of this workflow.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *listInput) (*httpapi.Output[ReminderList], error) {
		p, list, total, err := svc.List(ctx, a, in.OnboardingID, in.GateID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[ReminderList]{Body: ReminderList{Policy: toPolicy(p), Reminders: httpapi.Map(list, toReminder), Total: total,
			Limit: in.Limit, Offset: in.Offset}}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "set-onboarding-reminder-policy", Method: http.MethodPut, Path: "/v1/onboardings/{onboarding_id}/reminder-policy", Tags: tags,
		RequestBody: httpapi.RequestExample(examplePolicy), Responses: httpapi.ResponseExample(http.StatusOK, examplePolicy),
		Summary: "Set a workflow's reminder policy",
		Description: "Replaces the policy the hourly reminder job applies to the workflow's gates (days on the Europe/Berlin calendar). " +
			"The change is audited with the old values. " + notVisible + " " + closed + " 422 for a value out of bounds or a day listed twice.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *policyInput) (*httpapi.Output[ReminderPolicy], error) {
		p, err := svc.SetPolicy(ctx, a, in.OnboardingID, reminders.Policy{DaysBefore: in.Body.DaysBefore, OverdueEveryDays: in.Body.OverdueEveryDays,
			MaxOverdueReminders: in.Body.MaxOverdueReminders, Enabled: in.Body.Enabled})
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &httpapi.Output[ReminderPolicy]{Body: toPolicy(p)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "remind-onboarding-gate", Method: http.MethodPost, Path: "/v1/onboardings/{onboarding_id}/gates/{gate_id}/remind", Tags: tags,
		DefaultStatus: http.StatusAccepted,
		RequestBody:   httpapi.RequestExample(exampleRemind), Responses: httpapi.ResponseExample(http.StatusAccepted, exampleManual),
		Summary: "Remind a gate's owners now",
		Description: "Mails a reminder to the contacts of the gate's owner role holding an active access link, and to its assignee. " +
			"At most one manual reminder per gate an hour: 429 reminder_rate_limited with Retry-After. 409 gate_done for a passed or waived " +
			"gate; 422 no_recipients when no one can receive it. 404 gate_not_found when the workflow has no such gate; " + notVisible + " " + closed,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusTooManyRequests},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *remindInput) (*httpapi.Output[Reminder], error) {
		message := ""
		if in.Body != nil {
			message = in.Body.Message
		}
		r, err := svc.Remind(ctx, a, in.OnboardingID, in.GateID, message)
		var limited *reminders.RateLimitedError
		if errors.As(err, &limited) {
			p := httpapi.NewProblem(http.StatusTooManyRequests, limited.Error())
			p.Code = reminders.CodeReminderRateLimited
			return nil, huma.ErrorWithHeaders(p, http.Header{"Retry-After": {strconv.Itoa(max(1, int(math.Ceil(limited.RetryAfter.Seconds()))))}})
		}
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &httpapi.Output[Reminder]{Body: toReminder(r)}, nil
	}))
}
