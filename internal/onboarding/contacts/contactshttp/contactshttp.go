// Package contactshttp serves the contacts of onboardings and their
// access links (docs/onboarding.md sections 5.G and 5.H, endpoints 53–56
// and 58–62).
package contactshttp

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/onboardinghttp"
)

type listInput struct {
	OnboardingID string `path:"onboarding_id"`
	Role         string `query:"role" doc:"Only the contacts holding this task role."`
}

type createInput struct {
	OnboardingID string `path:"onboarding_id"`
	Body         OnboardingContactCreate
}

type createOutput struct {
	Location string `header:"Location"`
	Body     OnboardingContact
}

type contactPath struct {
	OnboardingID string `path:"onboarding_id"`
	ContactID    string `path:"contact_id" doc:"A malformed id is 404."`
}

type patchInput struct {
	OnboardingID string `path:"onboarding_id"`
	ContactID    string `path:"contact_id"`
	Body         OnboardingContactPatch
}

type taskInput struct {
	OnboardingID string `path:"onboarding_id"`
	Role         string `query:"role" doc:"The task role to act as, when the caller holds several."`
	PreviewRole  string `header:"X-Onboarding-Preview-Role" doc:"Users of the platform or the asset's organisation: view the task as this role."`
}

type linksInput struct {
	OnboardingID string `path:"onboarding_id"`
	Status       string `query:"status" enum:"active,revoked,expired"`
	ContactID    string `query:"contact_id"`
	Role         string `query:"role" enum:"asset_owner,epc,ems_provider,tso"`
	onboardinghttp.Page
}

type issueInput struct {
	OnboardingID string `path:"onboarding_id"`
	Body         AccessLinkIssue
}

type linkOutput struct {
	Location string `header:"Location"`
	Body     AccessLink
}

type revokeInput struct {
	OnboardingID string `path:"onboarding_id"`
	LinkID       string `path:"link_id" doc:"A malformed id is 404."`
	Body         *AccessLinkRevoke
}

type resendInput struct {
	OnboardingID string `path:"onboarding_id"`
	LinkID       string `path:"link_id" doc:"A malformed id is 404."`
	Body         *AccessLinkResend
}

const (
	notVisible = "404 onboarding_not_found when the workflow is unknown or of another organisation."
	closed     = "409 onboarding_closed when the workflow is completed or cancelled."
)

// Register adds the contact and access-link endpoints to s; link states
// are judged on security, the clock of their expiries.
func Register(s *httpapi.Server, svc *contacts.Service, security clock.Clock) {
	tags := []string{s.Tag("Onboarding contacts", "The people of an onboarding, their task roles and their access links (docs/onboarding.md).")}
	read, write := httpapi.Scopes(auth.OnboardingRead), httpapi.Scopes(auth.OnboardingWrite)
	base := "/v1/onboardings/{onboarding_id}/contacts"

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-contacts", Method: http.MethodGet, Path: base, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleContacts),
		Summary:     "List the contacts of an onboarding",
		Description: "Oldest first; with role, those holding it. " + notVisible + " 422 when role is not a task role.",
		Errors:      []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *listInput) (*httpapi.Output[OnboardingContactList], error) {
		list, err := svc.List(ctx, a, in.OnboardingID, in.Role)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[OnboardingContactList]{Body: OnboardingContactList{Contacts: httpapi.Map(list, toContact)}}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "create-onboarding-contact", Method: http.MethodPost, Path: base, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleContact),
		Summary: "Add a contact to an onboarding",
		Description: "409 contact_exists when another contact of the onboarding has the address (case-insensitively). " + notVisible + " " +
			closed + " 422 for an invalid member, a role that is not a task role, or a user_id that is not a user of the asset's organisation or the platform.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *createInput) (*createOutput, error) {
		roles, err := contacts.ParseRoles(in.Body.Roles)
		if err != nil {
			return nil, err
		}
		b := in.Body
		c, err := svc.Create(ctx, a, in.OnboardingID, contacts.Contact{Name: b.Name, Email: b.Email, Company: b.Company, Phone: b.Phone,
			Roles: roles, Language: b.Language, UserID: b.UserID})
		if err != nil {
			return nil, err
		}
		return &createOutput{Location: "/v1/onboardings/" + c.OnboardingID + "/contacts/" + c.ID, Body: toContact(c)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "update-onboarding-contact", Method: http.MethodPatch, Path: base + "/{contact_id}", Tags: tags,
		RequestBody: httpapi.RequestExample(examplePatch), Responses: httpapi.ResponseExample(http.StatusOK, exampleContact),
		Summary: "Change a contact of an onboarding",
		Description: "Members left out stay; null clears an optional one. Removing a role revokes the contact's links of that role, changing " +
			"email revokes all its links; their sessions end at once. 404 contact_not_found; " + notVisible + " 409 contact_exists; " + closed +
			" 422 for an invalid member, or roles that no longer hold the owner or a contributor role of a gate the contact is the assignee of.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *patchInput) (*httpapi.Output[OnboardingContact], error) {
		b := in.Body
		p := contacts.Patch{Name: b.Name, Email: b.Email}
		if b.Roles != nil {
			roles, err := contacts.ParseRoles(*b.Roles)
			if err != nil {
				return nil, err
			}
			p.Roles = &roles
		}
		p.Company, p.Phone, p.Language, p.UserID = cleared(b.Company.Present, b.Company.Null, b.Company.Value),
			cleared(b.Phone.Present, b.Phone.Null, b.Phone.Value), cleared(b.Language.Present, b.Language.Null, b.Language.Value),
			cleared(b.UserID.Present, b.UserID.Null, b.UserID.Value)
		c, err := svc.Update(ctx, a, in.OnboardingID, in.ContactID, p)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[OnboardingContact]{Body: toContact(c)}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-onboarding-contact", Method: http.MethodDelete, Path: base + "/{contact_id}", Tags: tags,
		DefaultStatus: http.StatusNoContent,
		Summary:       "Remove a contact from an onboarding",
		Description: "Revokes the contact's links and ends their sessions; the audit trail keeps the contact by name. " +
			"404 contact_not_found; " + notVisible + " 409 contact_assigned while the contact is a gate's assignee; " + closed,
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *contactPath) (*struct{}, error) {
		return nil, svc.Delete(ctx, a, in.OnboardingID, in.ContactID)
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-task-contacts", Method: http.MethodGet, Path: "/v1/onboarding-tasks/{onboarding_id}/contacts", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleTask),
		Summary:   "List the other contacts of a task",
		Description: "Any task role: the other contacts' name, company and roles (no addresses or phone numbers) and the branding's support " +
			"address. 404 task_not_found when the onboarding is not visible or the caller does not hold the role; 422 when role or " +
			"X-Onboarding-Preview-Role is not a task role.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.TaskOr(auth.OnboardingRead), func(ctx context.Context, in *taskInput) (*httpapi.Output[TaskContactList], error) {
		ctx, t, err := onboardinghttp.Task(ctx, svc, in.OnboardingID, in.Role, in.PreviewRole)
		if err != nil {
			return nil, err
		}
		tc, err := svc.ForTask(ctx, t)
		if err != nil {
			return nil, err
		}
		out := TaskContactList{Contacts: make([]TaskContact, len(tc.Contacts)), SupportEmail: opt(tc.SupportEmail)}
		for i, c := range tc.Contacts {
			out.Contacts[i] = TaskContact{Name: c.Name, Company: opt(c.Company), Roles: c.RoleNames()}
		}
		return &httpapi.Output[TaskContactList]{Body: out}, nil
	})

	links := "/v1/onboardings/{onboarding_id}/access-links"
	linkOut := func(v contacts.LinkView, err error) (*httpapi.Output[AccessLink], error) {
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[AccessLink]{Body: toLink(v, security.Now())}, nil
	}

	httpapi.Register(s, huma.Operation{
		OperationID: "issue-onboarding-access-link", Method: http.MethodPost, Path: links, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleIssue), Responses: httpapi.ResponseExample(http.StatusCreated, exampleLink),
		Summary: "Issue an access link",
		Description: "Creates a link for one contact and one role it holds and enqueues its e-mail (the only place the token appears). " +
			"The contact's active link for the same role is revoked. 404 contact_not_found; " + notVisible + " " + closed +
			" 422 role_not_held when the contact does not hold the role; 422 for another invalid member; " + contactMails,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *issueInput) (*linkOutput, error) {
		b := in.Body
		v, err := svc.IssueLink(ctx, a, in.OnboardingID, contacts.IssueRequest{ContactID: b.ContactID, Role: b.Role, Language: b.Language,
			ExpiresInDays: b.ExpiresInDays, Message: b.Message})
		if err != nil {
			return nil, rateLimited(err)
		}
		return &linkOutput{Location: "/v1/onboardings/" + v.OnboardingID + "/access-links/" + v.ID, Body: toLink(v, security.Now())}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "list-onboarding-access-links", Method: http.MethodGet, Path: links, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleLinks),
		Summary:     "List the access links of an onboarding",
		Description: "Oldest first, without tokens. " + notVisible + " 422 for an invalid query.",
		Errors:      []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *linksInput) (*httpapi.Output[AccessLinkList], error) {
		list, total, err := svc.ListLinks(ctx, a, in.OnboardingID, contacts.LinkQuery{
			LinkFilter: magic.LinkFilter{ContactID: in.ContactID, Role: in.Role, Status: magic.LinkStatus(in.Status)},
			Limit:      in.Limit, Offset: in.Offset})
		if err != nil {
			return nil, err
		}
		now := security.Now()
		out := AccessLinkList{AccessLinks: make([]AccessLink, len(list)), Total: total, Limit: in.Limit, Offset: in.Offset}
		for i, v := range list {
			out.AccessLinks[i] = toLink(v, now)
		}
		return &httpapi.Output[AccessLinkList]{Body: out}, nil
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "revoke-onboarding-access-link", Method: http.MethodPost, Path: links + "/{link_id}/revoke", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleRevoke), Responses: httpapi.ResponseExample(http.StatusOK, exampleLink),
		Summary: "Revoke an access link",
		Description: "Ends the link's sessions at once (their next request is 401, their refresh 409). Idempotent. " +
			"404 access_link_not_found; " + notVisible,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *revokeInput) (*httpapi.Output[AccessLink], error) {
		reason := ""
		if in.Body != nil {
			reason = in.Body.Reason
		}
		return linkOut(svc.RevokeLink(ctx, a, in.OnboardingID, in.LinkID, reason))
	}))

	httpapi.Register(s, huma.Operation{
		OperationID: "resend-onboarding-access-link", Method: http.MethodPost, Path: links + "/{link_id}/resend", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleResend), Responses: httpapi.ResponseExample(http.StatusOK, exampleLink),
		Summary: "Resend an access link",
		Description: "Mints a new token for the same link and mails it (the token is not stored, so the old mail cannot be repeated). " +
			"Without rotate the previous token keeps working until the link expires; with it, it stops. " +
			"404 access_link_not_found; " + notVisible + " 409 link_revoked, link_expired (issue a new one); " + closed +
			" 429 resend_rate_limited (Retry-After) after " + strconv.Itoa(contacts.MaxSendsPerHour) + " sends of the link within an hour of real time; " +
			contactMails,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, onboardinghttp.Manager(func(ctx context.Context, a onboarding.Actor, in *resendInput) (*httpapi.Output[AccessLink], error) {
		var r contacts.ResendRequest
		if in.Body != nil {
			r = contacts.ResendRequest{Language: in.Body.Language, Rotate: in.Body.Rotate, ExpiresInDays: in.Body.ExpiresInDays}
		}
		v, err := svc.ResendLink(ctx, a, in.OnboardingID, in.LinkID, r)
		return linkOut(v, rateLimited(err))
	}))
}

var contactMails = "429 contact_mail_rate_limited (Retry-After) after " + strconv.Itoa(contacts.MaxMailsPerContactHour) +
	" access-link mails to the contact (issues and resends of all its links) within an hour of real time."

// rateLimited answers a refused mail 429 with its code and Retry-After in
// whole seconds, rounded up so that a retry then is not refused again.
func rateLimited(err error) error {
	if rl := (*contacts.RateLimited)(nil); errors.As(err, &rl) {
		p := httpapi.NewProblem(http.StatusTooManyRequests, rl.Error())
		p.Code = rl.Code
		return huma.ErrorWithHeaders(p, http.Header{"Retry-After": {strconv.Itoa(max(1, int(math.Ceil(rl.RetryAfter.Seconds()))))}})
	}
	return err
}

// cleared is an optional member of a PATCH: nil when absent, "" when null.
func cleared(present, null bool, value string) *string {
	if !present {
		return nil
	}
	if null {
		value = ""
	}
	return &value
}
