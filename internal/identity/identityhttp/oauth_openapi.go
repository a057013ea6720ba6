package identityhttp

import (
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/httpapi"
)

const tagOAuth = "OAuth 2.0 and OpenID Connect"

// TokenRequestForm documents the form parameters of the token endpoint.
type TokenRequestForm struct {
	GrantType    string `json:"grant_type" enum:"client_credentials,authorization_code,refresh_token" doc:"The grant; password is not supported (RFC 9700)."`
	ClientID     string `json:"client_id,omitempty" doc:"client_secret_post: the integration id; authorization_code and refresh_token: atcp-console."`
	ClientSecret string `json:"client_secret,omitempty" doc:"client_secret_post only. With client_secret_basic send id and secret (each form-url-encoded) in HTTP Basic instead; never both."`
	Scope        string `json:"scope,omitempty" doc:"Space-separated scopes to narrow the token to; client_credentials: a subset of the integration's scopes, else invalid_scope."`
	Code         string `json:"code,omitempty" doc:"authorization_code: the code from the redirect; single use, valid 60 s."`
	RedirectURI  string `json:"redirect_uri,omitempty" doc:"authorization_code: exactly the redirect_uri of the authorization request."`
	CodeVerifier string `json:"code_verifier,omitempty" doc:"authorization_code: the PKCE code verifier (43 to 128 characters)."`
	RefreshToken string `json:"refresh_token,omitempty" doc:"refresh_token: the refresh token; each works once and is replaced by the one in the response."`
}

// SignInForm documents the form the sign-in page posts.
type SignInForm struct {
	ResponseType        string `json:"response_type" enum:"code" doc:"Always code."`
	ClientID            string `json:"client_id" enum:"atcp-console" doc:"The console's public client id."`
	RedirectURI         string `json:"redirect_uri" doc:"A loopback URI: http://127.0.0.1:PORT/..., http://localhost:PORT/... or http://[::1]:PORT/..."`
	CodeChallenge       string `json:"code_challenge" minLength:"43" maxLength:"128" doc:"BASE64URL(SHA-256(code_verifier)) (RFC 7636)."`
	CodeChallengeMethod string `json:"code_challenge_method" enum:"S256" doc:"Always S256."`
	State               string `json:"state" maxLength:"1024" doc:"Opaque value returned with the code."`
	Scope               string `json:"scope,omitempty" maxLength:"1024" doc:"openid and API scopes; narrows the person's scopes."`
	Nonce               string `json:"nonce,omitempty" maxLength:"1024" doc:"Returned in the ID token."`
	Email               string `json:"email" doc:"The person's email address (username)."`
	Password            string `json:"password" doc:"The person's password."`
}

// JSONWebKey documents one public key of the JWKS.
type JSONWebKey struct {
	Kty string `json:"kty" doc:"EC"`
	Crv string `json:"crv" doc:"P-256"`
	X   string `json:"x"`
	Y   string `json:"y"`
	Kid string `json:"kid"`
	Alg string `json:"alg" doc:"ES256"`
	Use string `json:"use" doc:"sig"`
}

// JSONWebKeySet documents the JWKS.
type JSONWebKeySet struct {
	Keys []JSONWebKey `json:"keys"`
}

// documentOAuth adds the plain OAuth handlers to the OpenAPI document.
func documentOAuth(s *httpapi.Server) {
	s.Tag(tagOAuth, "Access tokens for integrations (client credentials) and for people (authorization code with PKCE, "+
		"then refresh tokens), the sign-in page, OpenID Connect discovery and the token signing keys.")
	doc := s.API.OpenAPI()
	reg := doc.Components.Schemas
	// The registry names each schema after its Go type.
	schema := func(v any) *huma.Schema { return reg.Schema(reflect.TypeOf(v), true, "") }
	jsonContent := func(v any) map[string]*huma.MediaType {
		return map[string]*huma.MediaType{"application/json": {Schema: schema(v)}}
	}
	html := map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: "string"}}}
	oauthError := jsonContent(OAuthErrorResponse{})
	rateLimited := &huma.Response{Description: "Rate limited; see Retry-After.",
		Content: map[string]*huma.MediaType{"application/problem+json": {Schema: schema(httpapi.Problem{})}}}
	internalError := &huma.Response{Description: "Any other status: an internal error (500), shown on an error page.", Content: html}
	location := map[string]*huma.Param{"Location": {Description: "The redirect URI with code, state and iss, or with error, error_description, state and iss.", Schema: &huma.Schema{Type: "string"}}}
	str := &huma.Schema{Type: "string"}
	query := func(name string, required bool, description string) *huma.Param {
		return &huma.Param{Name: name, In: "query", Required: required, Description: description, Schema: str}
	}

	doc.AddOperation(&huma.Operation{
		Security:    public,
		OperationID: "oauthToken", Method: http.MethodPost, Path: tokenPath, Tags: []string{tagOAuth},
		Summary: "Get tokens",
		Description: "Integrations exchange their client id and secret (client_secret_basic or client_secret_post) for an access token " +
			"with grant_type=client_credentials. The console exchanges an authorization code (with its PKCE verifier) for an access token, " +
			"an ID token and a refresh token, and renews them with grant_type=refresh_token. Responses carry Cache-Control: no-store. " +
			"Errors are OAuth 2.0 error bodies: invalid_client is 401 (with WWW-Authenticate: Basic when HTTP Basic was used); " +
			"invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type and invalid_scope are 400; slow_down is 429 with Retry-After " +
			"after repeated failed authentications of one client id; temporarily_unavailable is 503 with Retry-After when the credentials " +
			"cannot be checked now. The body is at most 64 KiB.",
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/x-www-form-urlencoded": {Schema: schema(TokenRequestForm{}), Examples: tokenRequestExamples},
		}},
		Responses: map[string]*huma.Response{
			"200": {Description: "Tokens.", Content: map[string]*huma.MediaType{
				"application/json": {Schema: schema(TokenResponse{}), Examples: tokenResponseExamples}}},
			"400": {Description: "invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_scope.", Content: oauthError},
			"401": {Description: "invalid_client: client authentication failed.", Content: oauthError},
			"429": {Description: "Rate limited per client address (problem+json), or slow_down: too many failed authentications of this client id; see Retry-After.",
				Content: map[string]*huma.MediaType{
					"application/json":         {Schema: schema(OAuthErrorResponse{})},
					"application/problem+json": {Schema: schema(httpapi.Problem{})},
				}},
			"503": {Description: "temporarily_unavailable: the store cannot be reached or too many credential checks run at once; see Retry-After.", Content: oauthError},
		},
	})
	authorizeParams := []*huma.Param{
		query("response_type", true, "Always code."),
		query("client_id", true, "atcp-console."),
		query("redirect_uri", true, "A loopback URI: http://127.0.0.1:PORT/..., http://localhost:PORT/... or http://[::1]:PORT/..."),
		query("code_challenge", true, "BASE64URL(SHA-256(code_verifier)), 43 to 128 characters (RFC 7636)."),
		query("code_challenge_method", true, "Always S256."),
		query("state", true, "Opaque value, returned with the code; at most 1024 characters."),
		query("scope", false, "openid and API scopes, space-separated; narrows the person's scopes."),
		query("nonce", false, "Returned in the ID token."),
	}
	doc.AddOperation(&huma.Operation{
		Security:    public,
		OperationID: "oauthAuthorizePage", Method: http.MethodGet, Path: authorizePath, Tags: []string{tagOAuth},
		Summary: "Sign-in page",
		Description: "Shows the sign-in page of the authorization code flow with PKCE for the console. " +
			"An unknown client_id or a redirect_uri that is not a loopback address is shown as an error page (400) and never redirected to; " +
			"other errors are redirected to redirect_uri with error, error_description, state and iss (RFC 6749 section 4.1.2.1, RFC 9207).",
		Parameters: authorizeParams,
		Responses: map[string]*huma.Response{
			"200":     {Description: "The sign-in page.", Content: html},
			"303":     {Description: "The request is invalid; the error goes back to the client.", Headers: location},
			"400":     {Description: "The client or redirect URI is invalid.", Content: html},
			"429":     rateLimited,
			"default": internalError,
		},
	})
	doc.AddOperation(&huma.Operation{
		Security:    public,
		OperationID: "oauthAuthorizeSignIn", Method: http.MethodPost, Path: authorizePath, Tags: []string{tagOAuth},
		Summary: "Sign in",
		Description: "The sign-in page posts the authorization request with email and password. On success 303 to redirect_uri " +
			"with code (single use, valid 60 s), state and iss; wrong credentials show the page again with 401, too many failed sign-ins " +
			"for the email address with 429, and 503 when the credentials cannot be checked now (both with Retry-After).",
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/x-www-form-urlencoded": {Schema: schema(SignInForm{}), Example: httpapi.ParseExample(exampleSignIn)},
		}},
		Responses: map[string]*huma.Response{
			"303": {Description: "Signed in, or the request is invalid: back to the client.", Headers: location},
			"400": {Description: "The client or redirect URI is invalid, or the form cannot be read.", Content: html},
			"401": {Description: "Wrong email or password: the page again, with the error.", Content: html},
			"429": {Description: "Rate limited per client address (problem+json), or too many failed sign-ins for this email address (the page again); see Retry-After.",
				Content: map[string]*huma.MediaType{"text/html": html["text/html"], "application/problem+json": {Schema: schema(httpapi.Problem{})}}},
			"503": {Description: "The credentials cannot be checked now: the page again, with Retry-After.", Content: html},
			// Success is the 303 above, never a 2xx: the browser goes back to the client.
			"default": internalError,
		},
	})
	doc.AddOperation(&huma.Operation{
		Security:    public,
		OperationID: "openidConfiguration", Method: http.MethodGet, Path: discoveryPath, Tags: []string{tagOAuth},
		Summary:     "OpenID Connect discovery",
		Description: "The OpenID Provider Metadata: issuer, endpoints, supported grants, methods and scopes.",
		Responses: map[string]*huma.Response{
			"200": {Description: "The provider metadata.", Content: map[string]*huma.MediaType{
				"application/json": {Schema: schema(OpenIDConfiguration{}), Example: httpapi.ParseExample(exampleOpenIDConfiguration)}}},
			"429": rateLimited,
		},
	})
	doc.AddOperation(&huma.Operation{
		Security:    public,
		OperationID: "jwks", Method: http.MethodGet, Path: jwksPath, Tags: []string{tagOAuth},
		Summary:     "Token signing keys",
		Description: "The public keys (JWKS) that verify access and ID tokens; cacheable for 300 s.",
		Responses: map[string]*huma.Response{
			"200": {Description: "The key set.", Content: map[string]*huma.MediaType{
				"application/json": {Schema: schema(JSONWebKeySet{}), Example: httpapi.ParseExample(exampleJWKS)}}},
			"429": rateLimited,
		},
	})
}

// public is the security requirement of the endpoints that need no token:
// an empty list, which OpenAPI reads as "no authentication".
var public = []map[string][]string{}
