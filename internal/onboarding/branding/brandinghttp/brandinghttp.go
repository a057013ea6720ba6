// Package brandinghttp serves the onboarding branding of an organisation
// (document 3, docs/onboarding.md 4.1): GET and PUT
// /v1/onboarding-branding/{organization_id} and PUT .../email-banner.
package brandinghttp

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding/branding"
)

// MagicLinkEmailTemplate is one language's override of the magic-link e-mail.
type MagicLinkEmailTemplate struct {
	Subject *string `json:"subject,omitempty" maxLength:"200" required:"false" doc:"Plain text; placeholders {contact_name}, {asset_name}, {organization_name}, {role}, {deadline}. Absent: the built-in subject."`
	Intro   *string `json:"intro,omitempty" maxLength:"2000" required:"false" doc:"Plain text with line breaks; the same placeholders. Absent: the built-in introduction. The link, its expiry and the support address are always added."`
}

// EmailTemplates are the overrides by language.
type EmailTemplates struct {
	DE *MagicLinkEmailTemplate `json:"de,omitempty" required:"false" doc:"German."`
	EN *MagicLinkEmailTemplate `json:"en,omitempty" required:"false" doc:"English."`
}

// Branding is the wire form of a branding; a member never set is null.
type Branding struct {
	DisplayName              *string         `json:"display_name" doc:"Sender name of the onboarding e-mails and title of the task pages."`
	PrimaryColor             *string         `json:"primary_color" doc:"#rrggbb."`
	SupportEmail             *string         `json:"support_email" doc:"Reply-To of the onboarding e-mails."`
	LogoURL                  *string         `json:"logo_url" doc:"https URL of the logo on the task pages."`
	EmailBannerURL           *string         `json:"email_banner_url" doc:"A download URL of the e-mail banner for previews, valid 5 minutes; null without a banner. In e-mails the banner is an inline part."`
	MagicLinkDefaultLanguage *string         `json:"magic_link_default_language" enum:"de,en" doc:"Language of an e-mail when neither the link nor the contact names one."`
	MagicLinkEmailTemplates  *EmailTemplates `json:"magic_link_email_templates" doc:"Subject and introduction overrides by language."`
}

// TransformSchema lets the language and the templates be null too.
func (Branding) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullableRefs(httpapi.NullInEnums(s), "magic_link_email_templates")
}

// Read is the body of GET.
type Read struct {
	OrganizationID   string   `json:"organization_id"`
	OrganizationName string   `json:"organization_name"`
	Branding         Branding `json:"branding"`
}

// SettingsRequest is the body of PUT: the whole branding but the banner.
type SettingsRequest struct {
	DisplayName              string          `json:"display_name" minLength:"1" maxLength:"100" doc:"Sender name of the onboarding e-mails; not blank."`
	PrimaryColor             string          `json:"primary_color" pattern:"^#[0-9a-fA-F]{6}$" doc:"#rrggbb."`
	SupportEmail             string          `json:"support_email" maxLength:"254" doc:"A bare address (onboarding@example.com); Reply-To of the onboarding e-mails."`
	LogoURL                  *string         `json:"logo_url,omitempty" maxLength:"2048" required:"false" doc:"https URL without credentials; absent or null: none."`
	MagicLinkDefaultLanguage *string         `json:"magic_link_default_language,omitempty" enum:"de,en" required:"false" doc:"Default de."`
	MagicLinkEmailTemplates  *EmailTemplates `json:"magic_link_email_templates,omitempty" required:"false" doc:"Absent or null: the built-in texts."`
	EmailBannerURL           any             `json:"email_banner_url,omitempty" readOnly:"true" required:"false" doc:"Response only; ignored on input (the banner has its own endpoint)."`
}

func (r SettingsRequest) settings() branding.Settings {
	s := branding.Settings{DisplayName: r.DisplayName, PrimaryColor: r.PrimaryColor, SupportEmail: r.SupportEmail,
		Templates: map[string]branding.Template{}}
	if r.LogoURL != nil {
		s.LogoURL = *r.LogoURL
	}
	if r.MagicLinkDefaultLanguage != nil {
		s.DefaultLanguage = *r.MagicLinkDefaultLanguage
	}
	if t := r.MagicLinkEmailTemplates; t != nil {
		for lang, v := range map[string]*MagicLinkEmailTemplate{branding.LanguageDE: t.DE, branding.LanguageEN: t.EN} {
			if v != nil {
				s.Templates[lang] = branding.Template{Subject: deref(v.Subject), Intro: deref(v.Intro)}
			}
		}
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Wire is the wire form of a resolved branding (no banner preview URL),
// as the magic-link exchange answers it.
func Wire(b branding.Branding) any { return toBranding(branding.View{Branding: b}) }

func toBranding(v branding.View) Branding {
	b := v.Branding
	out := Branding{
		DisplayName: opt(b.DisplayName), PrimaryColor: opt(b.PrimaryColor), SupportEmail: opt(b.SupportEmail),
		LogoURL: opt(b.LogoURL), EmailBannerURL: opt(v.BannerURL), MagicLinkDefaultLanguage: opt(b.DefaultLanguage),
	}
	if b.Configured() {
		out.MagicLinkEmailTemplates = &EmailTemplates{}
		if t, ok := b.Templates[branding.LanguageDE]; ok {
			out.MagicLinkEmailTemplates.DE = &MagicLinkEmailTemplate{Subject: opt(t.Subject), Intro: opt(t.Intro)}
		}
		if t, ok := b.Templates[branding.LanguageEN]; ok {
			out.MagicLinkEmailTemplates.EN = &MagicLinkEmailTemplate{Subject: opt(t.Subject), Intro: opt(t.Intro)}
		}
	}
	return out
}

const path = "/v1/onboarding-branding/{organization_id}"

type orgPath struct {
	OrganizationID string `path:"organization_id" maxLength:"63" doc:"The organisation; users other than the platform's name their own."`
}

type putInput struct {
	OrganizationID string `path:"organization_id" maxLength:"63" doc:"The organisation; users other than the platform's name their own."`
	IfMatch        string `header:"If-Match" required:"false" doc:"The ETag of the branding read; another one is 409 edit_conflict."`
	Body           SettingsRequest
}

type bannerInput struct {
	OrganizationID string `path:"organization_id" maxLength:"63" doc:"The organisation; users other than the platform's name their own."`
	IfMatch        string `header:"If-Match" required:"false" doc:"The ETag of the branding read; another one is 409 edit_conflict."`
	ContentType    string `header:"Content-Type" doc:"image/png, image/jpeg or image/svg+xml; must be what the bytes are."`
	RawBody        []byte `contentType:"image/png"`
}

type readOutput struct {
	ETag string `header:"ETag" doc:"The branding's version for If-Match; absent when it was never set."`
	Body Read
}

type brandingOutput struct {
	ETag string `header:"ETag" doc:"The branding's version for If-Match."`
	Body Branding
}

func etag(v branding.View) string {
	if !v.Exists {
		return ""
	}
	return v.Branding.ETag
}

// Register adds the branding endpoints to s.
func Register(s *httpapi.Server, svc *branding.Service) {
	tags := []string{s.Tag("Onboarding branding",
		"The branding of an organisation's onboarding e-mails and task pages; organisations without one use the platform's.")}
	const notFound = "404 organization_not_found when the organisation is unknown or another than the caller's (platform users reach every one)."

	httpapi.Register(s, huma.Operation{
		OperationID: "get-onboarding-branding", Method: http.MethodGet, Path: path, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleRead),
		Summary:   "Read an organisation's onboarding branding",
		Description: "Members never set are null; email_banner_url is a download URL valid 5 minutes. The ETag header is the version " +
			"a PUT may name in If-Match. " + notFound,
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.OnboardingRead), func(ctx context.Context, in *orgPath) (*readOutput, error) {
		v, err := svc.Get(ctx, httpapi.Principal(ctx), in.OrganizationID)
		if err != nil {
			return nil, err
		}
		return &readOutput{ETag: etag(v), Body: Read{OrganizationID: v.OrganizationID, OrganizationName: v.OrganizationName,
			Branding: toBranding(v)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "put-onboarding-branding", Method: http.MethodPut, Path: path, Tags: tags,
		RequestBody: httpapi.RequestExample(examplePut), Responses: httpapi.ResponseExample(http.StatusOK, exampleBranding),
		Summary: "Create or replace an organisation's onboarding branding",
		Description: "Replaces every setting but the e-mail banner; members absent take their defaults. 422 validation_failed names the " +
			"field (an unknown placeholder names the template text); 409 edit_conflict when If-Match is not the current ETag. " + notFound,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.OnboardingWrite), func(ctx context.Context, in *putInput) (*brandingOutput, error) {
		v, err := svc.Put(ctx, httpapi.Principal(ctx), in.OrganizationID, in.Body.settings(), in.IfMatch)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &brandingOutput{ETag: etag(v), Body: toBranding(v)}, nil
	})

	binary := &huma.Schema{Type: "string", Format: "binary", MaxLength: intPtr(branding.MaxBannerBytes)}
	// The PNG and JPEG examples show the first bytes of such a file.
	media := func(example string) *huma.MediaType { return &huma.MediaType{Schema: binary, Example: example} }
	httpapi.Register(s, huma.Operation{
		OperationID: "put-onboarding-email-banner", Method: http.MethodPut, Path: path + "/email-banner", Tags: tags,
		MaxBodyBytes: branding.MaxBannerBytes + 1,
		RequestBody: &huma.RequestBody{Required: true, Description: "The image's bytes, at most 2 MB (2,097,152 bytes).",
			Content: map[string]*huma.MediaType{branding.TypePNG: media(examplePNG), branding.TypeJPEG: media(exampleJPEG),
				branding.TypeSVG: media(exampleSVG)}},
		Responses: httpapi.ResponseExample(http.StatusOK, exampleBranding),
		Summary:   "Upload an organisation's e-mail banner",
		Description: "PNG or JPEG (at most 4000×4000 pixels) or SVG, at most 2 MB (413 request_too_large above). The type is sniffed from " +
			"the bytes: 400 image_type_mismatch when Content-Type says otherwise, 400 unsupported_image for anything else. An SVG with " +
			"scripts, foreignObject, event handlers, script or external URLs, CSS imports or DOCTYPE/entity declarations is refused " +
			"(400 svg_active_content), never rewritten. The previous banner is kept as a version. 409 edit_conflict when If-Match is " +
			"not the current ETag. " + notFound,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge},
	}, httpapi.Scopes(auth.OnboardingWrite), func(ctx context.Context, in *bannerInput) (*brandingOutput, error) {
		v, err := svc.PutBanner(ctx, httpapi.Principal(ctx), in.OrganizationID, in.ContentType, in.RawBody, in.IfMatch)
		if err != nil {
			return nil, err
		}
		return &brandingOutput{ETag: etag(v), Body: toBranding(v)}, nil
	})
	// Huma documents the RawBody's own content type afresh, without the
	// example given above.
	s.API.OpenAPI().Paths[path+"/email-banner"].Put.RequestBody.Content[branding.TypePNG] = media(examplePNG)
}

func intPtr(n int) *int { return &n }
