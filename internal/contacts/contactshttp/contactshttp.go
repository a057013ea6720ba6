// Package contactshttp serves the contact directory of an asset under
// /v1/assets/{asset_id}/contacts: list, create, read, replace and delete.
package contactshttp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
)

// Contact is the response of every contact endpoint. A field not given is
// null.
type Contact struct {
	ContactID      int64     `json:"contact_id" doc:"Assigned on creation; never reused."`
	AssetID        string    `json:"asset_id" doc:"The physical asset the contact belongs to (the parent, when read through a virtual asset)."`
	Name           string    `json:"name"`
	Role           *string   `json:"role"`
	Company        *string   `json:"company"`
	Email          *string   `json:"email"`
	Phone          *string   `json:"phone"`
	ChatWebhookURL *string   `json:"chat_webhook_url" doc:"Slack-compatible incoming webhook."`
	IsEmergency    bool      `json:"is_emergency" doc:"Pre-selected when the asset is declared faulty."`
	Notifiable     bool      `json:"notifiable" doc:"The contact wishes to receive fault notifications."`
	Channels       []string  `json:"channels" nullable:"false" doc:"The channels the contact has an address for: email, chat. Empty: the contact cannot receive a notification (response only)."`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// ContactList is the body of GET .../contacts.
type ContactList struct {
	Contacts []Contact `json:"contacts" nullable:"false" doc:"Ordered by contact_id; at most 50."`
}

// ResponseOnly accepts the response-only fields on input and ignores them,
// so that a client can send back the contact it read.
type ResponseOnly struct {
	ContactID any `json:"contact_id,omitempty" readOnly:"true" doc:"Response only; ignored on input (the path names the contact)."`
	AssetID   any `json:"asset_id,omitempty" readOnly:"true" doc:"Response only; ignored on input (the path names the asset)."`
	Channels  any `json:"channels,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	CreatedAt any `json:"created_at,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	UpdatedAt any `json:"updated_at,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
}

// ContactRequest is the body of POST and PUT: the whole contact. A field
// absent or null is not given (PUT clears it); an empty string is the same.
type ContactRequest struct {
	Name           string  `json:"name" minLength:"1" maxLength:"200" doc:"Person or team; required, not blank."`
	Role           *string `json:"role,omitempty" maxLength:"200" required:"false" doc:"Such as control room, site manager, service technician."`
	Company        *string `json:"company,omitempty" maxLength:"200" required:"false"`
	Email          *string `json:"email,omitempty" maxLength:"254" required:"false" doc:"A bare address (ops@example.com, no display name); fault notifications go to it by e-mail."`
	Phone          *string `json:"phone,omitempty" maxLength:"50" required:"false" doc:"Free text; never called by the platform."`
	ChatWebhookURL *string `json:"chat_webhook_url,omitempty" maxLength:"2048" required:"false" doc:"Slack-compatible incoming webhook: an absolute https URL without credentials (plain http only for loopback hosts); fault notifications are posted to it."`
	IsEmergency    *bool   `json:"is_emergency,omitempty" required:"false" doc:"Pre-selected when the asset is declared faulty. Default false."`
	Notifiable     *bool   `json:"notifiable,omitempty" required:"false" doc:"The contact wishes to receive fault notifications. Default true."`
	ResponseOnly
}

func (r ContactRequest) contact() contacts.Contact {
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	c := contacts.Contact{
		Name: r.Name, Role: deref(r.Role), Company: deref(r.Company), Email: deref(r.Email), Phone: deref(r.Phone),
		ChatWebhookURL: deref(r.ChatWebhookURL), Notifiable: true,
	}
	if r.IsEmergency != nil {
		c.IsEmergency = *r.IsEmergency
	}
	if r.Notifiable != nil {
		c.Notifiable = *r.Notifiable
	}
	return c
}

func toContact(c contacts.Contact) Contact {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return Contact{
		ContactID: c.ID, AssetID: c.AssetID, Name: c.Name, Role: opt(c.Role), Company: opt(c.Company), Email: opt(c.Email),
		Phone: opt(c.Phone), ChatWebhookURL: opt(c.ChatWebhookURL), IsEmergency: c.IsEmergency, Notifiable: c.Notifiable,
		Channels: c.Channels(), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

type assetPath struct {
	AssetID string `path:"asset_id" doc:"The asset id; a virtual asset reads its parent's contacts."`
}

type contactPath struct {
	AssetID   string `path:"asset_id" doc:"The asset id; a virtual asset reads its parent's contacts."`
	ContactID int64  `path:"contact_id" minimum:"1" doc:"The contact id."`
}

type createInput struct {
	AssetID string `path:"asset_id" doc:"The physical asset id."`
	Body    ContactRequest
}

type replaceInput struct {
	AssetID   string `path:"asset_id" doc:"The physical asset id."`
	ContactID int64  `path:"contact_id" minimum:"1" doc:"The contact id."`
	Body      ContactRequest
}

type listOutput struct{ Body ContactList }

type contactOutput struct{ Body Contact }

type createOutput struct {
	Location string `header:"Location" doc:"Path of the new contact."`
	Body     Contact
}

// Register adds the contact endpoints to s.
func Register(s *httpapi.Server, svc *contacts.Service) {
	tags := []string{s.Tag("Asset contacts",
		"The people and channels to tell when an asset is faulty: the only source of the recipients of a fault notification.")}
	const (
		list = "/v1/assets/{asset_id}/contacts"
		one  = list + "/{contact_id}"
	)
	limit := fmt.Sprintf("409 contact_limit_reached when the asset has %d contacts already", contacts.MaxPerAsset)

	httpapi.Register(s, huma.Operation{
		OperationID: "list-asset-contacts", Method: http.MethodGet, Path: list, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List the contacts of an asset",
		Description: "Ordered by contact_id. A virtual asset lists its parent's contacts. " +
			"404 when the asset is unknown, deleted or of another organisation.",
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *assetPath) (*listOutput, error) {
		list, err := svc.List(ctx, httpapi.Principal(ctx), in.AssetID)
		if err != nil {
			return nil, err
		}
		out := &listOutput{Body: ContactList{Contacts: make([]Contact, len(list))}}
		for i, c := range list {
			out.Body.Contacts[i] = toContact(c)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create-asset-contact", Method: http.MethodPost, Path: list, Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleContact),
		Summary: "Add a contact to an asset",
		Description: "A contact without email and chat_webhook_url is kept but cannot receive a notification (channels is empty). " +
			"422 for invalid fields; " + limit + "; 409 virtual_asset for a virtual asset id (add the contact to its parent); " +
			"404 when the asset is unknown, deleted or of another organisation.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *createInput) (*createOutput, error) {
		c, err := svc.Create(ctx, httpapi.Principal(ctx), in.AssetID, in.Body.contact())
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &createOutput{
			Location: fmt.Sprintf("/v1/assets/%s/contacts/%d", url.PathEscape(c.AssetID), c.ID),
			Body:     toContact(c),
		}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-asset-contact", Method: http.MethodGet, Path: one, Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleContact),
		Summary:     "Read a contact of an asset",
		Description: "404 when the asset is not visible or has no such contact. A virtual asset reads its parent's contacts.",
		Errors:      []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *contactPath) (*contactOutput, error) {
		c, err := svc.Get(ctx, httpapi.Principal(ctx), in.AssetID, in.ContactID)
		if err != nil {
			return nil, err
		}
		return &contactOutput{Body: toContact(c)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "replace-asset-contact", Method: http.MethodPut, Path: one, Tags: tags,
		RequestBody: httpapi.RequestExample(exampleReplace), Responses: httpapi.ResponseExample(http.StatusOK, exampleReplaced),
		Summary: "Replace a contact of an asset",
		Description: "The body is the whole contact: a field absent or null is cleared, is_emergency and notifiable take their defaults. " +
			"Response-only fields are ignored, so a contact read with GET can be sent back. " +
			"422 for invalid fields; 404 when the asset is not visible or has no such contact; 409 virtual_asset for a virtual asset id.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *replaceInput) (*contactOutput, error) {
		c, err := svc.Replace(ctx, httpapi.Principal(ctx), in.AssetID, in.ContactID, in.Body.contact())
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &contactOutput{Body: toContact(c)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-asset-contact", Method: http.MethodDelete, Path: one, Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary:     "Delete a contact of an asset",
		Description: "404 when the asset is not visible or has no such contact; 409 virtual_asset for a virtual asset id.",
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *contactPath) (*struct{}, error) {
		return nil, svc.Delete(ctx, httpapi.Principal(ctx), in.AssetID, in.ContactID)
	})
}
