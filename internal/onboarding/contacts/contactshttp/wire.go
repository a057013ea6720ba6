package contactshttp

import (
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets/assetshttp"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding/contacts"
)

// OnboardingContact is the wire form of an onboarding contact.
type OnboardingContact struct {
	ContactID    string    `json:"contact_id" format:"uuid"`
	OnboardingID string    `json:"onboarding_id" format:"uuid"`
	Name         string    `json:"name"`
	Email        string    `json:"email" format:"email"`
	Company      *string   `json:"company"`
	Phone        *string   `json:"phone" doc:"E.164."`
	Roles        []string  `json:"roles" nullable:"false" doc:"Task roles: asset_owner, epc, ems_provider, platform_onboarding, platform, tso."`
	Language     *string   `json:"language" enum:"de,en" doc:"Of the contact's e-mails; null: the branding's default."`
	UserID       *string   `json:"user_id" doc:"A console user who holds the roles on the task endpoints."`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// TransformSchema lets the language be null too.
func (OnboardingContact) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

// TransformSchema lets the language be null too.
func (AccessLink) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toContact(c contacts.Contact) OnboardingContact {
	return OnboardingContact{ContactID: c.ID, OnboardingID: c.OnboardingID, Name: c.Name, Email: c.Email, Company: opt(c.Company),
		Phone: opt(c.Phone), Roles: c.RoleNames(), Language: opt(c.Language), UserID: opt(c.UserID), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// OnboardingContactList is the body of GET …/contacts.
type OnboardingContactList struct {
	Contacts []OnboardingContact `json:"contacts" nullable:"false" doc:"Oldest first."`
}

// OnboardingContactCreate is the body of POST …/contacts.
type OnboardingContactCreate struct {
	Name     string   `json:"name" minLength:"1" maxLength:"200"`
	Email    string   `json:"email" minLength:"3" maxLength:"254" doc:"Unique among the onboarding's contacts, case-insensitively."`
	Roles    []string `json:"roles" minItems:"1" maxItems:"6" doc:"Task roles, each once."`
	Company  string   `json:"company,omitempty" maxLength:"200" required:"false"`
	Phone    string   `json:"phone,omitempty" maxLength:"16" required:"false" doc:"E.164, such as +4930123456."`
	Language string   `json:"language,omitempty" enum:"de,en" required:"false"`
	UserID   string   `json:"user_id,omitempty" maxLength:"100" required:"false" doc:"A console user of the asset's organisation or the platform."`
}

// OnboardingContactPatch is the body of PATCH …/contacts/{contact_id}: members left
// out stay; null clears an optional one.
type OnboardingContactPatch struct {
	Name     *string                     `json:"name,omitempty" minLength:"1" maxLength:"200" required:"false"`
	Email    *string                     `json:"email,omitempty" minLength:"3" maxLength:"254" required:"false" doc:"A change revokes all the contact's links."`
	Roles    *[]string                   `json:"roles,omitempty" minItems:"1" maxItems:"6" required:"false" doc:"A role removed revokes the contact's links of that role."`
	Company  assetshttp.Nullable[string] `json:"company,omitempty" maxLength:"200" required:"false"`
	Phone    assetshttp.Nullable[string] `json:"phone,omitempty" maxLength:"16" required:"false"`
	Language assetshttp.Nullable[string] `json:"language,omitempty" enum:"de,en" required:"false"`
	UserID   assetshttp.Nullable[string] `json:"user_id,omitempty" maxLength:"100" required:"false"`
}

// TaskContact is what a task caller sees of another contact.
type TaskContact struct {
	Name    string   `json:"name"`
	Company *string  `json:"company"`
	Roles   []string `json:"roles" nullable:"false"`
}

// TaskContactList is the body of GET /v1/onboarding-tasks/{id}/contacts.
type TaskContactList struct {
	Contacts     []TaskContact `json:"contacts" nullable:"false" doc:"The other contacts; no addresses or phone numbers."`
	SupportEmail *string       `json:"support_email" doc:"The branding's support address."`
}

// AccessLink is the wire form of an access link; the token is never
// returned (only mailed).
type AccessLink struct {
	LinkID           string     `json:"link_id" format:"uuid"`
	OnboardingID     string     `json:"onboarding_id" format:"uuid"`
	ContactID        string     `json:"contact_id" format:"uuid"`
	ContactName      string     `json:"contact_name"`
	ContactEmail     string     `json:"contact_email"`
	Role             string     `json:"role" enum:"asset_owner,epc,ems_provider,tso"`
	Language         *string    `json:"language" enum:"de,en" doc:"null: the contact's, else the branding's default."`
	Status           string     `json:"status" enum:"active,revoked,expired"`
	CreatedAt        time.Time  `json:"created_at"`
	CreatedByName    string     `json:"created_by_name"`
	ExpiresAt        time.Time  `json:"expires_at"`
	RevokedAt        *time.Time `json:"revoked_at"`
	LastUsedAt       *time.Time `json:"last_used_at"`
	UseCount         int        `json:"use_count"`
	OpenSessionCount int        `json:"open_session_count"`
	LastSentAt       *time.Time `json:"last_sent_at"`
	SendCount        int        `json:"send_count"`
	DeliveryStatus   *string    `json:"delivery_status" enum:"queued,sent,failed" doc:"Of the mail of the last send: queued in the outbox, sent (taken by the mail server) or failed (given up); null when the outbox no longer knows it."`
}

func toLink(v contacts.LinkView, now time.Time) AccessLink {
	l := v.Link
	return AccessLink{LinkID: l.ID, OnboardingID: l.OnboardingID, ContactID: l.ContactID, ContactName: v.ContactName,
		ContactEmail: v.ContactEmail, Role: l.Role, Language: opt(l.Language), Status: string(l.Status(now)), CreatedAt: l.CreatedAt,
		CreatedByName: l.CreatedBy, ExpiresAt: l.ExpiresAt, RevokedAt: l.RevokedAt, LastUsedAt: l.LastUsedAt, UseCount: l.UseCount,
		OpenSessionCount: l.OpenSessions, LastSentAt: l.LastSentAt, SendCount: l.SendCount, DeliveryStatus: opt(string(v.Delivery))}
}

// AccessLinkList is the body of GET …/access-links.
type AccessLinkList struct {
	AccessLinks []AccessLink `json:"access_links" nullable:"false" doc:"Oldest first."`
	Total       int          `json:"total"`
	Limit       int          `json:"limit"`
	Offset      int          `json:"offset"`
}

// AccessLinkIssue is the body of POST …/access-links.
type AccessLinkIssue struct {
	ContactID     string `json:"contact_id" minLength:"1" maxLength:"100"`
	Role          string `json:"role" enum:"asset_owner,epc,ems_provider,tso" doc:"One the contact holds (else 422 role_not_held)."`
	Language      string `json:"language,omitempty" enum:"de,en" required:"false" doc:"Default: the contact's, then the branding's."`
	ExpiresInDays int    `json:"expires_in_days,omitempty" minimum:"1" maximum:"90" required:"false" doc:"Default 30."`
	Message       string `json:"message,omitempty" maxLength:"1000" required:"false" doc:"A personal note quoted in the mail."`
}

// AccessLinkRevoke is the body of …/revoke.
type AccessLinkRevoke struct {
	Reason string `json:"reason,omitempty" maxLength:"500" required:"false"`
}

// AccessLinkResend is the body of …/resend.
type AccessLinkResend struct {
	Language      string `json:"language,omitempty" enum:"de,en" required:"false" doc:"A new language of the link."`
	Rotate        bool   `json:"rotate,omitempty" required:"false" doc:"The previous token stops working; without it, it keeps working until the link expires (the one before it stops)."`
	ExpiresInDays int    `json:"expires_in_days,omitempty" minimum:"1" maximum:"90" required:"false" doc:"A new expiry from now; default: kept."`
}
