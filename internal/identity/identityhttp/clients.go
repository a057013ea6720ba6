package identityhttp

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
)

const tagIntegrations = "Integrations and secrets"

// Integration is a machine-to-machine integration as the API shows it.
type Integration struct {
	IntegrationID  string    `json:"integration_id" doc:"Id of the integration; also its OAuth client_id."`
	Name           string    `json:"name" doc:"Name, unique within the organisation."`
	OrganizationID string    `json:"organization_id" doc:"Organisation the integration acts for."`
	CreatedAt      time.Time `json:"created_at" doc:"When the integration was created."`
	Scopes         []string  `json:"scopes" doc:"Scopes granted to the integration and carried on its tokens."`
}

func integrationOut(in identity.Integration) Integration {
	return Integration{IntegrationID: in.ID, Name: in.Name, OrganizationID: in.OrganizationID, CreatedAt: in.CreatedAt, Scopes: in.Scopes.Strings()}
}

// CreatedIntegration is a new integration with its first secret, which is
// shown only here.
type CreatedIntegration struct {
	IntegrationID  string   `json:"integration_id" doc:"Id of the integration; also its OAuth client_id."`
	ClientSecret   string   `json:"client_secret" doc:"The first client secret. It is shown only in this response; store it safely."`
	Name           string   `json:"name" doc:"Name, unique within the organisation."`
	OrganizationID string   `json:"organization_id" doc:"Organisation the integration acts for."`
	Scopes         []string `json:"scopes" doc:"Scopes granted to the integration."`
}

// Secret describes a client secret; its value is never shown again.
type Secret struct {
	SecretID     string    `json:"secret_id" doc:"Id of the secret."`
	CreationDate time.Time `json:"creation_date" doc:"When the secret was created."`
}

// CreatedSecret is a new client secret with its value, shown only here.
type CreatedSecret struct {
	IntegrationID string `json:"integration_id" doc:"The integration (OAuth client_id) the secret belongs to."`
	SecretID      string `json:"secret_id" doc:"Id of the secret."`
	SecretValue   string `json:"secret_value" doc:"The secret. It is shown only in this response; store it safely."`
}

type listIntegrationsOutput struct {
	Body []Integration
}

type createIntegrationInput struct {
	Body struct {
		Name           string   `json:"name" minLength:"1" maxLength:"100" doc:"Name, unique within the organisation; surrounding white space is dropped."`
		Scopes         []string `json:"scopes" maxItems:"50" doc:"Scopes to grant. Grantable to integrations: asset.read, asset.write, alarm.read, alarm.write, market.read, market.write, report.read, users.read, users.write, clients.read, clients.write. The caller must hold each one itself."`
		OrganizationID string   `json:"organization_id,omitempty" doc:"Organisation to create the integration in. Platform administrators must name it, platform itself included (422 when missing); others may leave it out for their own organisation and may name only that one."`
	}
}

type createIntegrationOutput struct {
	Body CreatedIntegration
}

type integrationPath struct {
	IntegrationID string `path:"integration_id" maxLength:"200" doc:"Id of the integration."`
}

type secretPath struct {
	IntegrationID string `path:"integration_id" maxLength:"200" doc:"Id of the integration."`
	SecretID      string `path:"secret_id" maxLength:"200" doc:"Id of the secret."`
}

type listSecretsOutput struct {
	Body []Secret
}

type createSecretOutput struct {
	Body CreatedSecret
}

// RegisterClients registers the integration and secret endpoints.
func RegisterClients(s *httpapi.Server, c *identity.Clients) {
	s.Tag(tagIntegrations, "Machine-to-machine clients of an organisation. An integration's integration_id is its OAuth client_id; "+
		"its secrets authenticate it at the token endpoint (client credentials).")
	httpapi.Register(s, huma.Operation{
		OperationID: "listIntegrations", Method: http.MethodGet, Path: "/v1/integrations",
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleIntegrations),
		Summary:     "List integrations",
		Description: "Lists the machine-to-machine integrations of the caller's organisation; platform administrators see those of every organisation.",
		Tags:        []string{tagIntegrations},
	}, httpapi.Scopes(auth.ClientsRead), func(ctx context.Context, _ *struct{}) (*listIntegrationsOutput, error) {
		list, err := c.List(ctx, httpapi.Principal(ctx))
		if err != nil {
			return nil, err
		}
		out := &listIntegrationsOutput{Body: make([]Integration, len(list))}
		for i, in := range list {
			out.Body[i] = integrationOut(in)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "createIntegration", Method: http.MethodPost, Path: "/v1/integrations",
		RequestBody: httpapi.RequestExample(exampleCreateIntegration), Responses: httpapi.ResponseExample(http.StatusCreated, exampleCreatedIntegration),
		Summary: "Create an integration", DefaultStatus: http.StatusCreated,
		Description: "Creates an integration with its first client secret, which is returned only in this response. " +
			"The integration_id is the OAuth client_id for the client_credentials grant. " +
			"409 integration_exists when the organisation already has an integration of that name; " +
			"422 for a scope integrations may not be granted, an unknown organisation, or a platform administrator leaving out " +
			"organization_id; 403 scope_not_held for a scope the caller does not hold, platform_admin_required for another organisation.",
		Tags:   []string{tagIntegrations},
		Errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.ClientsWrite), func(ctx context.Context, in *createIntegrationInput) (*createIntegrationOutput, error) {
		created, secret, err := c.Create(ctx, httpapi.Principal(ctx), identity.NewIntegration{
			Name: in.Body.Name, Scopes: in.Body.Scopes, OrganizationID: in.Body.OrganizationID,
		})
		if err != nil {
			return nil, err
		}
		return &createIntegrationOutput{Body: CreatedIntegration{
			IntegrationID: created.ID, ClientSecret: secret.Value, Name: created.Name,
			OrganizationID: created.OrganizationID, Scopes: created.Scopes.Strings(),
		}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "deleteIntegration", Method: http.MethodDelete, Path: "/v1/integrations/{integration_id}",
		Summary: "Delete an integration", DefaultStatus: http.StatusNoContent,
		Description: "Deletes an integration and all its secrets; from that moment it gets no new tokens " +
			"(tokens issued before stay valid until they expire, at most 3600 s). " +
			"403 stronger_principal when the integration holds a scope the caller lacks (the detail names them); " +
			"409 cannot_delete_self when the caller's token belongs to this integration.",
		Tags:   []string{tagIntegrations},
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.ClientsWrite), func(ctx context.Context, in *integrationPath) (*struct{}, error) {
		return nil, c.Delete(ctx, httpapi.Principal(ctx), in.IntegrationID)
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "listIntegrationSecrets", Method: http.MethodGet, Path: "/v1/integrations/{integration_id}/secrets",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleSecrets),
		Summary:   "List an integration's secrets",
		Description: "Lists the active secrets of an integration, oldest first; their values are never returned. " +
			"403 stronger_principal when the integration holds a scope the caller lacks (the detail names them).",
		Tags:   []string{tagIntegrations},
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.ClientsRead), func(ctx context.Context, in *integrationPath) (*listSecretsOutput, error) {
		list, err := c.Secrets(ctx, httpapi.Principal(ctx), in.IntegrationID)
		if err != nil {
			return nil, err
		}
		out := &listSecretsOutput{Body: make([]Secret, len(list))}
		for i, si := range list {
			out.Body[i] = Secret{SecretID: si.ID, CreationDate: si.CreatedAt}
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "createIntegrationSecret", Method: http.MethodPost, Path: "/v1/integrations/{integration_id}/secrets",
		Responses: httpapi.ResponseExample(http.StatusCreated, exampleCreatedSecret),
		Summary:   "Add a secret", DefaultStatus: http.StatusCreated,
		Description: "Adds a client secret, returned only in this response. An integration holds at most " +
			strconv.Itoa(identity.MaxActiveSecrets) + " active secrets (409 secret_limit_reached): to rotate, add a new secret, " +
			"move the consumers to it, then delete the old one. An integration may add secrets to itself. " +
			"403 stronger_principal when the integration holds a scope the caller lacks (the detail names them).",
		Tags:   []string{tagIntegrations},
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.ClientsWrite), func(ctx context.Context, in *integrationPath) (*createSecretOutput, error) {
		secret, err := c.AddSecret(ctx, httpapi.Principal(ctx), in.IntegrationID)
		if err != nil {
			return nil, err
		}
		return &createSecretOutput{Body: CreatedSecret{IntegrationID: secret.IntegrationID, SecretID: secret.ID, SecretValue: secret.Value}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "deleteIntegrationSecret", Method: http.MethodDelete, Path: "/v1/integrations/{integration_id}/secrets/{secret_id}",
		Summary: "Delete a secret", DefaultStatus: http.StatusNoContent,
		Description: "Deletes a client secret; from that moment it gets no new tokens. " +
			"403 stronger_principal when the integration holds a scope the caller lacks (the detail names them); " +
			"409 last_secret when it is the integration's only secret: add a new secret first, or delete the integration.",
		Tags:   []string{tagIntegrations},
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.ClientsWrite), func(ctx context.Context, in *secretPath) (*struct{}, error) {
		return nil, c.DeleteSecret(ctx, httpapi.Principal(ctx), in.IntegrationID, in.SecretID)
	})
}
