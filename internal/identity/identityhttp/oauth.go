package identityhttp

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
)

// Paths of the OAuth 2.0 / OpenID Connect endpoints.
const (
	tokenPath     = "/oauth2/token"
	authorizePath = "/oauth2/authorize"
	discoveryPath = "/.well-known/openid-configuration"
	jwksPath      = "/.well-known/jwks.json"
)

// RegisterOAuth registers the token endpoint, the sign-in pages of the
// authorization endpoint, OpenID Connect discovery and the JWKS, and
// describes them in the OpenAPI document.
func RegisterOAuth(s *httpapi.Server, o *identity.OAuth) {
	h := &oauthHandlers{o: o}
	s.Mux.HandleFunc("POST "+tokenPath, h.token)
	s.Mux.HandleFunc("GET "+authorizePath, h.authorizeForm)
	s.Mux.HandleFunc("POST "+authorizePath, h.authorizeSubmit)
	s.Mux.HandleFunc("GET "+discoveryPath, h.discovery)
	s.Mux.HandleFunc("GET "+jwksPath, h.jwks)
	documentOAuth(s)
}

type oauthHandlers struct {
	o *identity.OAuth
}

// TokenResponse is the successful answer of the token endpoint.
type TokenResponse struct {
	AccessToken  string `json:"access_token" doc:"Signed JWT (ES256) to send as Authorization: Bearer."`
	TokenType    string `json:"token_type" enum:"Bearer" doc:"Always Bearer."`
	ExpiresIn    int    `json:"expires_in" doc:"Seconds until the access token expires: 3600, real time whatever the platform clock's speed."`
	Scope        string `json:"scope" doc:"Space-separated scopes carried on the access token."`
	IDToken      string `json:"id_token,omitempty" doc:"OpenID Connect ID token (people only)."`
	RefreshToken string `json:"refresh_token,omitempty" doc:"Refresh token, valid 30 days of real time and usable once (people only)."`
}

// OAuthErrorResponse is the error answer of the token endpoint (RFC 6749
// section 5.2).
type OAuthErrorResponse struct {
	Error            string `json:"error" enum:"invalid_request,invalid_client,invalid_grant,unauthorized_client,unsupported_grant_type,invalid_scope,slow_down,temporarily_unavailable,server_error" doc:"OAuth 2.0 error code."`
	ErrorDescription string `json:"error_description" doc:"What went wrong, for the developer."`
}

func (h *oauthHandlers) token(w http.ResponseWriter, r *http.Request) {
	// Token responses must never be cached (RFC 6749 section 5.1).
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	body, err := readFormBody(w, r)
	if err != nil {
		writeOAuthError(w, r, &identity.OAuthError{Code: identity.OAuthInvalidRequest, Description: err.Error()}, false)
		return
	}
	req, oerr := parseTokenRequest(r.Header.Get("Authorization"), body)
	if oerr != nil {
		writeOAuthError(w, r, oerr, req.viaHeader)
		return
	}
	var set identity.TokenSet
	switch grant := req.params["grant_type"]; grant {
	case "client_credentials":
		set, err = h.o.ClientCredentials(r.Context(), identity.ClientCredentialsRequest{
			ClientID: req.clientID, ClientSecret: req.clientSecret, Scope: req.params["scope"],
		})
	case "authorization_code", "refresh_token":
		if req.clientSecret != "" || req.viaHeader {
			err = &identity.OAuthError{Code: identity.OAuthInvalidClient,
				Description: "this grant is for the public client " + identity.ConsoleClientID + ", which has no secret"}
			break
		}
		if grant == "authorization_code" {
			set, err = h.o.ExchangeCode(r.Context(), identity.CodeRequest{
				ClientID: req.clientID, Code: req.params["code"], RedirectURI: req.params["redirect_uri"],
				CodeVerifier: req.params["code_verifier"],
			})
		} else {
			set, err = h.o.Refresh(r.Context(), identity.RefreshRequest{
				ClientID: req.clientID, RefreshToken: req.params["refresh_token"], Scope: req.params["scope"],
			})
		}
	case "":
		err = &identity.OAuthError{Code: identity.OAuthInvalidRequest, Description: "grant_type is required"}
	default:
		err = &identity.OAuthError{Code: identity.OAuthUnsupportedGrantType,
			Description: "supported grant types: client_credentials, authorization_code, refresh_token"}
	}
	if err != nil {
		writeOAuthError(w, r, err, req.viaHeader)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, TokenResponse{
		AccessToken: set.AccessToken, TokenType: "Bearer", ExpiresIn: set.ExpiresIn, Scope: set.Scopes.String(),
		IDToken: set.IDToken, RefreshToken: set.RefreshToken,
	})
}

// writeOAuthError answers an OAuth error: 401 for invalid_client, with a
// Basic challenge when the client authenticated with the Authorization
// header (RFC 6749 section 5.2), 400 for the others; 429 slow_down when the
// client id failed too often lately; 503 temporarily_unavailable when the
// request could not be checked now (the store is unreachable, or every
// argon2id slot stayed taken); and 500 server_error for anything else,
// whose text stays in the log.
func writeOAuthError(w http.ResponseWriter, r *http.Request, err error, challenge bool) {
	var tooMany *identity.TooManyFailures
	switch {
	case errors.As(err, &tooMany):
		w.Header().Set("Retry-After", strconv.Itoa(tooMany.RetryAfterSeconds()))
		httpapi.WriteJSON(w, http.StatusTooManyRequests, OAuthErrorResponse{Error: identity.OAuthSlowDown,
			ErrorDescription: "too many failed authentication attempts for this client; retry after the number of seconds in Retry-After"})
		return
	case errs.IsUnavailable(err):
		writeUnavailable(w, r, err)
		return
	}
	var oe *identity.OAuthError
	if !errors.As(err, &oe) {
		slog.ErrorContext(r.Context(), "token request failed", "request_id", httpapi.RequestID(r.Context()), "error", err)
		httpapi.WriteJSON(w, http.StatusInternalServerError, OAuthErrorResponse{
			Error: "server_error", ErrorDescription: "internal error; quote the request id " + httpapi.RequestID(r.Context()) + " when reporting it",
		})
		return
	}
	status := http.StatusBadRequest
	if oe.Code == identity.OAuthInvalidClient {
		status = http.StatusUnauthorized
		if challenge {
			w.Header().Set("WWW-Authenticate", `Basic realm="atcp", charset="UTF-8"`)
		}
	}
	httpapi.WriteJSON(w, status, OAuthErrorResponse{Error: oe.Code, ErrorDescription: oe.Description})
}

// Retry-After of a request that could not be checked now: argon2id slots
// free up within a second; a store outage lasts longer.
const (
	retryAfterBusy        = 1
	retryAfterUnreachable = 5
)

// unavailable returns the Retry-After seconds and the description of a
// request that could not be checked now, logging a store outage (a busy
// Hasher is the flood itself, which the access log already shows).
func unavailable(r *http.Request, err error) (int, string) {
	if errors.Is(err, auth.ErrBusy) {
		return retryAfterBusy, "too many credential checks at once; retry after the number of seconds in Retry-After"
	}
	slog.WarnContext(r.Context(), "store unavailable", "request_id", httpapi.RequestID(r.Context()), "error", err)
	return retryAfterUnreachable, "the service cannot reach its database; retry after the number of seconds in Retry-After"
}

func writeUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	retry, description := unavailable(r, err)
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	httpapi.WriteJSON(w, http.StatusServiceUnavailable, OAuthErrorResponse{Error: identity.OAuthTemporarilyUnavailable, ErrorDescription: description})
}

// OpenIDConfiguration is the OpenID Provider Metadata (OpenID Connect
// Discovery 1.0, RFC 8414).
type OpenIDConfiguration struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint"`
	TokenEndpoint                              string   `json:"token_endpoint"`
	JWKSURI                                    string   `json:"jwks_uri"`
	ResponseTypesSupported                     []string `json:"response_types_supported"`
	ResponseModesSupported                     []string `json:"response_modes_supported"`
	GrantTypesSupported                        []string `json:"grant_types_supported"`
	SubjectTypesSupported                      []string `json:"subject_types_supported"`
	IDTokenSigningAlgValuesSupported           []string `json:"id_token_signing_alg_values_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	ScopesSupported                            []string `json:"scopes_supported"`
	ClaimsSupported                            []string `json:"claims_supported"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
}

func (h *oauthHandlers) discovery(w http.ResponseWriter, r *http.Request) {
	issuer := h.o.Issuer()
	base := strings.TrimRight(issuer, "/")
	scopes := []string{identity.ScopeOpenID}
	for _, sc := range auth.AllScopes {
		scopes = append(scopes, string(sc))
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	httpapi.WriteJSON(w, http.StatusOK, OpenIDConfiguration{
		Issuer:                            issuer,
		AuthorizationEndpoint:             base + authorizePath,
		TokenEndpoint:                     base + tokenPath,
		JWKSURI:                           base + jwksPath,
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token", "client_credentials"},
		SubjectTypesSupported:             []string{"public"},
		IDTokenSigningAlgValuesSupported:  []string{"ES256"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post", "none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		ScopesSupported:                   scopes,
		ClaimsSupported: []string{"iss", "sub", "aud", "exp", "iat", "nbf", "jti", "auth_time", "nonce",
			"email", "organization_id", "scope", "is_m2m", "client_id", "sid"},
		AuthorizationResponseIssParameterSupported: true,
	})
}

func (h *oauthHandlers) jwks(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	httpapi.WriteJSON(w, http.StatusOK, h.o.JWKS())
}
