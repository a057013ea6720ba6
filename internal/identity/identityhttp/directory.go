// Package identityhttp serves the identity area: organisations, users and
// preferences, integrations and secrets, the OAuth 2.0 / OpenID Connect
// endpoints, and the server-rendered sign-in and set-password pages.
package identityhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
)

// RegisterDirectory registers the organisation, user and preference
// endpoints and the set-password pages.
func RegisterDirectory(s *httpapi.Server, d *identity.Directory) {
	s.Tag(tagDirectoryOrganizations, "The organisations that own assets, people and integrations; "+
		"platform administrators create them and see them all.")
	s.Tag(tagDirectoryUsers, "The people of an organisation: their scopes and set-password links, and each person's own preferences.")
	registerOrganizations(s, d)
	registerUsers(s, d)
	registerPreferences(s, d)
	registerSetPasswordPages(s, d)
}

const (
	tagDirectoryOrganizations = "Organisations"
	tagDirectoryUsers         = "Users and preferences"
)

// Organization is an organisation as the API shows it.
type Organization struct {
	OrganizationID string    `json:"organization_id" doc:"Organisation id."`
	Name           string    `json:"name" doc:"Display name."`
	CreatedAt      time.Time `json:"created_at" doc:"When the organisation was created."`
}

func organizationOut(o identity.Organization) Organization {
	return Organization{OrganizationID: o.ID, Name: o.Name, CreatedAt: o.CreatedAt}
}

type listOrganizationsOutput struct {
	Body struct {
		Organizations []Organization `json:"organizations" doc:"Every organisation, ordered by id."`
	}
}

type getOrganizationInput struct {
	OrganizationID string `path:"organization_id" doc:"Organisation id."`
}

type organizationOutput struct {
	Body Organization
}

type createOrganizationInput struct {
	Body struct {
		OrganizationID string `json:"organization_id" pattern:"^[a-z0-9][a-z0-9-]{1,62}$" doc:"Id of the new organisation, used in URLs and tokens; cannot be changed: 2 to 63 characters of a-z, 0-9 and '-', starting with a letter or digit."`
		Name           string `json:"name" minLength:"1" maxLength:"200" doc:"Display name; surrounding white space is dropped."`
	}
}

func registerOrganizations(s *httpapi.Server, d *identity.Directory) {
	adminOnly := "Platform administrators only; others get 403 with code platform_admin_required."
	httpapi.Register(s, huma.Operation{
		OperationID: "listOrganizations", Method: http.MethodGet, Path: "/v1/organizations",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleOrganizations),
		Summary:   "List organisations", Description: "Lists every organisation. " + adminOnly,
		Tags: []string{tagDirectoryOrganizations},
	}, httpapi.Scopes(auth.UsersRead), func(ctx context.Context, _ *struct{}) (*listOrganizationsOutput, error) {
		orgs, err := d.Organizations(ctx, httpapi.Principal(ctx))
		if err != nil {
			return nil, err
		}
		out := &listOrganizationsOutput{}
		out.Body.Organizations = make([]Organization, len(orgs))
		for i, o := range orgs {
			out.Body.Organizations[i] = organizationOut(o)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "createOrganization", Method: http.MethodPost, Path: "/v1/organizations",
		RequestBody: httpapi.RequestExample(exampleCreateOrganization), Responses: httpapi.ResponseExample(http.StatusCreated, exampleOrganization),
		Summary: "Create an organisation", DefaultStatus: http.StatusCreated,
		Description: "Creates an organisation; 409 with code organization_exists when the id is taken. " + adminOnly,
		Tags:        []string{tagDirectoryOrganizations}, Errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.UsersWrite), func(ctx context.Context, in *createOrganizationInput) (*organizationOutput, error) {
		o, err := d.CreateOrganization(ctx, httpapi.Principal(ctx), in.Body.OrganizationID, in.Body.Name)
		if err != nil {
			return nil, err
		}
		return &organizationOutput{Body: organizationOut(o)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "getOrganization", Method: http.MethodGet, Path: "/v1/organizations/{organization_id}",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleOrganization),
		Summary:   "Get an organisation", Description: "Returns one organisation; 404 when unknown. " + adminOnly,
		Tags: []string{tagDirectoryOrganizations}, Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.UsersRead), func(ctx context.Context, in *getOrganizationInput) (*organizationOutput, error) {
		o, err := d.Organization(ctx, httpapi.Principal(ctx), in.OrganizationID)
		if err != nil {
			return nil, err
		}
		return &organizationOutput{Body: organizationOut(o)}, nil
	})
}

// User is a person of an organisation.
type User struct {
	UserID         string    `json:"user_id" doc:"Stable id of the person; the subject of the person's tokens."`
	Email          string    `json:"email" doc:"E-mail address in lower case; also the username."`
	OrganizationID string    `json:"organization_id" doc:"The person's organisation."`
	Scopes         []string  `json:"scopes" doc:"Scopes granted to the person, sorted."`
	Status         string    `json:"status" enum:"invited,active" doc:"invited until the person has set a password with the set-password link, then active."`
	Enabled        bool      `json:"enabled" doc:"Whether the person may sign in."`
	CreatedAt      time.Time `json:"created_at" doc:"When the user was created."`
}

func userOut(u identity.User) User {
	return User{
		UserID: u.ID, Email: u.Email, OrganizationID: u.OrganizationID, Scopes: u.Scopes.Strings(),
		Status: string(u.Status), Enabled: u.Enabled, CreatedAt: u.CreatedAt,
	}
}

type listUsersInput struct {
	OrganizationID string `query:"organization_id" doc:"Organisation to list; platform administrators may name any, others only their own. Default: the caller's."`
}

type listUsersOutput struct {
	Body struct {
		Users []User `json:"users" doc:"The organisation's users, ordered by e-mail."`
	}
}

type createUserInput struct {
	Body struct {
		Email          string   `json:"email" format:"email" maxLength:"254" doc:"E-mail address; normalised to lower case and used as the username. Unique across all organisations."`
		Scopes         []string `json:"scopes,omitempty" nullable:"false" maxItems:"64" doc:"Scopes to grant; each must be a known scope the caller holds itself. Default: none."`
		OrganizationID string   `json:"organization_id,omitempty" doc:"Organisation of the new user. Platform administrators must name it, platform itself included (422 when missing); others may leave it out for their own organisation and may name only that one."`
	}
}

// CreatedUser is a new user with the link that lets the person set a
// password.
type CreatedUser struct {
	UserID               string    `json:"user_id" doc:"Id of the new user."`
	Email                string    `json:"email" doc:"E-mail address in lower case."`
	OrganizationID       string    `json:"organization_id" doc:"The user's organisation."`
	Scopes               []string  `json:"scopes" doc:"Granted scopes, sorted."`
	Status               string    `json:"status" enum:"invited,active" doc:"invited until the password is set."`
	SetPasswordURL       string    `json:"set_password_url" doc:"One-time link with which the person sets a password; shown only here. Pass it on to the person: atcp sends no e-mail."`
	SetPasswordExpiresAt time.Time `json:"set_password_expires_at" doc:"When the link stops working: 72 hours of real time after issue, whatever the platform clock's speed."`
}

type createUserOutput struct {
	Body CreatedUser
}

type userEmailInput struct {
	Email string `path:"email" doc:"The user's e-mail address, matched case-insensitively."`
}

type replaceScopesInput struct {
	Email string `path:"email" doc:"The user's e-mail address, matched case-insensitively."`
	Body  struct {
		Scopes []string `json:"scopes" nullable:"false" maxItems:"64" doc:"The complete new set of scopes. The caller must hold each one, and each scope the person holds now."`
	}
}

type replaceScopesOutput struct {
	Body struct {
		Email   string   `json:"email" doc:"The user's e-mail address."`
		Scopes  []string `json:"scopes" doc:"The scopes now granted, sorted."`
		Added   []string `json:"added" doc:"Scopes granted by this change."`
		Removed []string `json:"removed" doc:"Scopes revoked by this change."`
	}
}

type passwordLinkOutput struct {
	Body struct {
		Email                string    `json:"email" doc:"The user's e-mail address."`
		SetPasswordURL       string    `json:"set_password_url" doc:"One-time link with which the person sets a new password; shown only here."`
		SetPasswordExpiresAt time.Time `json:"set_password_expires_at" doc:"When the link stops working: 72 hours of real time after issue, whatever the platform clock's speed."`
	}
}

type userDeletedOutput struct{}

// CurrentIdentity is the caller as its token tells.
type CurrentIdentity struct {
	UserID         string   `json:"user_id" doc:"The person's user id, or the integration id for machines."`
	Email          *string  `json:"email" doc:"The person's e-mail address; null for machines."`
	OrganizationID string   `json:"organization_id" doc:"The caller's organisation."`
	Scopes         []string `json:"scopes" doc:"Scopes on the token, sorted."`
	IsM2M          bool     `json:"is_m2m" doc:"True for machine-to-machine integrations."`
}

type currentIdentityOutput struct {
	Body CurrentIdentity
}

func registerUsers(s *httpapi.Server, d *identity.Directory) {
	httpapi.Register(s, huma.Operation{
		OperationID: "listUsers", Method: http.MethodGet, Path: "/v1/users",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleUsers),
		Summary:   "List users", Tags: []string{tagDirectoryUsers},
		Description: "Lists the people of the caller's organisation with their scopes. Platform administrators may " +
			"name another organisation with organization_id (others get 403 platform_admin_required; an unknown one gives 422).",
		Errors: []int{http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.UsersRead), func(ctx context.Context, in *listUsersInput) (*listUsersOutput, error) {
		users, err := d.Users(ctx, httpapi.Principal(ctx), in.OrganizationID)
		if err != nil {
			return nil, err
		}
		out := &listUsersOutput{}
		out.Body.Users = make([]User, len(users))
		for i, u := range users {
			out.Body.Users[i] = userOut(u)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "createUser", Method: http.MethodPost, Path: "/v1/users",
		RequestBody: httpapi.RequestExample(exampleCreateUser), Responses: httpapi.ResponseExample(http.StatusCreated, exampleCreatedUser),
		Summary: "Create a user", Tags: []string{tagDirectoryUsers}, DefaultStatus: http.StatusCreated,
		Description: "Creates a person, invited until they set a password through the returned one-time set-password link " +
			"(valid 72 hours; atcp sends no e-mail, so pass the link on). 409 user_exists when the e-mail address is taken " +
			"in any organisation; 403 scope_not_held when granting a scope the caller lacks; 403 platform_admin_required " +
			"when naming another organisation without being a platform administrator; 422 for an unknown scope or organisation, " +
			"or when a platform administrator leaves out organization_id.",
		Errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.UsersWrite), func(ctx context.Context, in *createUserInput) (*createUserOutput, error) {
		u, link, err := d.CreateUser(ctx, httpapi.Principal(ctx), identity.NewUser{
			Email: in.Body.Email, Scopes: in.Body.Scopes, OrganizationID: in.Body.OrganizationID,
		})
		if err != nil {
			return nil, err
		}
		return &createUserOutput{Body: CreatedUser{
			UserID: u.ID, Email: u.Email, OrganizationID: u.OrganizationID, Scopes: u.Scopes.Strings(),
			Status: string(u.Status), SetPasswordURL: link.URL, SetPasswordExpiresAt: link.ExpiresAt,
		}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "getCurrentIdentity", Method: http.MethodGet, Path: "/v1/users/me",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleCurrentIdentity),
		Summary:   "Who am I", Tags: []string{tagDirectoryUsers},
		Description: "Returns the caller's identity as carried on its token. Any valid token; no scope needed.",
	}, httpapi.Authenticated, func(ctx context.Context, _ *struct{}) (*currentIdentityOutput, error) {
		p := httpapi.Principal(ctx)
		out := &currentIdentityOutput{Body: CurrentIdentity{
			UserID: p.Subject, OrganizationID: p.OrganizationID, Scopes: p.Scopes.Strings(), IsM2M: p.IsM2M,
		}}
		if !p.IsM2M && p.Email != "" {
			email := p.Email
			out.Body.Email = &email
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "deleteUser", Method: http.MethodDelete, Path: "/v1/users/{email}",
		Summary: "Delete a user", Tags: []string{tagDirectoryUsers}, DefaultStatus: http.StatusNoContent,
		Description: "Deletes a person for good, with their preferences and set-password link; their tokens stop " +
			"being renewed. 404 when not visible; 403 stronger_principal when the person holds a scope the caller lacks " +
			"(the detail names them); 409 cannot_delete_self for the caller's own user.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.UsersWrite), func(ctx context.Context, in *userEmailInput) (*userDeletedOutput, error) {
		if err := d.DeleteUser(ctx, httpapi.Principal(ctx), in.Email); err != nil {
			return nil, err
		}
		return &userDeletedOutput{}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "replaceUserScopes", Method: http.MethodPut, Path: "/v1/users/{email}/scopes",
		RequestBody: httpapi.RequestExample(exampleReplaceScopes), Responses: httpapi.ResponseExample(http.StatusOK, exampleScopesReplaced),
		Summary: "Replace a user's scopes", Tags: []string{tagDirectoryUsers},
		Description: "Replaces the person's scopes with the given set. The caller must hold every scope the person holds " +
			"(403 stronger_principal, naming the ones it lacks), removing included, and every scope it adds (403 scope_not_held). " +
			"409 cannot_change_own_scopes for the caller's own user; 422 for an unknown scope.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.UsersWrite), func(ctx context.Context, in *replaceScopesInput) (*replaceScopesOutput, error) {
		change, err := d.ReplaceScopes(ctx, httpapi.Principal(ctx), in.Email, in.Body.Scopes)
		if err != nil {
			return nil, err
		}
		out := &replaceScopesOutput{}
		out.Body.Email = change.User.Email
		out.Body.Scopes = change.User.Scopes.Strings()
		out.Body.Added, out.Body.Removed = change.Added, change.Removed
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "issuePasswordLink", Method: http.MethodPost, Path: "/v1/users/{email}/password-link",
		Responses: httpapi.ResponseExample(http.StatusCreated, examplePasswordLink),
		Summary:   "Issue a set-password link", Tags: []string{tagDirectoryUsers}, DefaultStatus: http.StatusCreated,
		Description: "Issues a fresh one-time set-password link (valid 72 hours) for an existing person; earlier links " +
			"of that person stop working. For an active person it resets the password once the link is used; the " +
			"current password keeps working until then. 404 when not visible; 403 stronger_principal when the person holds " +
			"a scope the caller lacks (the detail names them).",
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.UsersWrite), func(ctx context.Context, in *userEmailInput) (*passwordLinkOutput, error) {
		u, link, err := d.IssuePasswordLink(ctx, httpapi.Principal(ctx), in.Email)
		if err != nil {
			return nil, err
		}
		out := &passwordLinkOutput{}
		out.Body.Email, out.Body.SetPasswordURL, out.Body.SetPasswordExpiresAt = u.Email, link.URL, link.ExpiresAt
		return out, nil
	})
}

// Preferences are a person's portal settings.
type Preferences struct {
	UserID    string     `json:"user_id" doc:"The person's user id."`
	Locale    *string    `json:"locale" enum:"en,de" doc:"Portal language; null until set."`
	Theme     *string    `json:"theme" enum:"light,dark" doc:"Portal colour theme; null until set."`
	UpdatedAt *time.Time `json:"updated_at" doc:"When the preferences were last saved; null until first saved."`
}

type preferencesOutput struct {
	Body Preferences
}

// TransformSchema lets locale and theme be null in the document too.
func (Preferences) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

// PreferencesInput is the body of PUT preferences.
type PreferencesInput struct {
	Locale *string `json:"locale" required:"false" nullable:"true" enum:"en,de" doc:"en or de; null or absent clears it."`
	Theme  *string `json:"theme" required:"false" nullable:"true" enum:"light,dark" doc:"light or dark; null or absent clears it."`
}

// TransformSchema lets locale and theme be null in the document too.
func (PreferencesInput) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

type putPreferencesInput struct {
	Body PreferencesInput
}

func preferencesOut(p identity.Preferences) *preferencesOutput {
	return &preferencesOutput{Body: Preferences{UserID: p.UserID, Locale: p.Locale, Theme: p.Theme, UpdatedAt: p.UpdatedAt}}
}

func registerPreferences(s *httpapi.Server, d *identity.Directory) {
	peopleOnly := " Any signed-in person, no scope needed; machine integrations get 403 with code people_only."
	httpapi.Register(s, huma.Operation{
		OperationID: "getPreferences", Method: http.MethodGet, Path: "/v1/users/me/preferences",
		Responses: httpapi.ResponseExample(http.StatusOK, examplePreferences),
		Summary:   "Get my preferences", Tags: []string{tagDirectoryUsers},
		Description: "Returns the caller's preferences; locale, theme and updated_at are null until first saved." + peopleOnly,
		Errors:      []int{http.StatusForbidden, http.StatusNotFound},
	}, httpapi.Authenticated, func(ctx context.Context, _ *struct{}) (*preferencesOutput, error) {
		p, err := d.Preferences(ctx, httpapi.Principal(ctx))
		if err != nil {
			return nil, err
		}
		return preferencesOut(p), nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "putPreferences", Method: http.MethodPut, Path: "/v1/users/me/preferences",
		RequestBody: httpapi.RequestExample(examplePutPreferences), Responses: httpapi.ResponseExample(http.StatusOK, examplePreferences),
		Summary: "Replace my preferences", Tags: []string{tagDirectoryUsers},
		Description: "Replaces both preferences; a field that is null or absent is cleared. The portal applies them on every device." + peopleOnly,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity},
	}, httpapi.Authenticated, func(ctx context.Context, in *putPreferencesInput) (*preferencesOutput, error) {
		p, err := d.SavePreferences(ctx, httpapi.Principal(ctx), in.Body.Locale, in.Body.Theme)
		if err != nil {
			return nil, err
		}
		return preferencesOut(p), nil
	})
}
