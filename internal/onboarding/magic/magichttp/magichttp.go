// Package magichttp serves the magic-link endpoints of onboarding
// contacts (docs/onboarding.md 4.2 and 5.G): the exchange of a link for
// a session (#4), its refresh (#5), both without a bearer token and rate
// limited per client address and per link or session, and the logout of
// a session (#57).
package magichttp

import (
	"context"
	"encoding/hex"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/clock"
	"atcp/internal/httpapi"
	"atcp/internal/onboarding/magic"
)

// ExchangeResponse is the answer of an exchange (document 3).
type ExchangeResponse struct {
	AccessToken  string `json:"access_token" doc:"Access token of the task principal (60 minutes): only the task endpoints of this onboarding, as this role."`
	IDToken      string `json:"id_token" doc:"OpenID Connect ID token: sub onbc:<contact_id>, aud atcp-console."`
	RefreshToken string `json:"refresh_token" doc:"Refresh token of the session; each works once and is replaced by the one a refresh answers."`
	TokenType    string `json:"token_type" enum:"Bearer"`
	ExpiresAt    int64  `json:"expires_at" doc:"When the access token expires, Unix seconds."`
	SessionID    string `json:"session_id" format:"uuid" doc:"The session; send it with the refresh token to refresh."`
	OnboardingID string `json:"onboarding_id" doc:"The onboarding the session works on."`
	Role         string `json:"role" enum:"asset_owner,epc,ems_provider,tso" doc:"The task role the session acts as."`
	ContactName  string `json:"contact_name"`
	ContactEmail string `json:"contact_email"`
	Branding     any    `json:"branding" doc:"The branding of the asset's organisation (the platform's when it has none): display_name, primary_color, support_email, logo_url, email_banner_url, magic_link_default_language, magic_link_email_templates."`
}

// RefreshRequest is the body of a refresh.
type RefreshRequest struct {
	SessionID    string `json:"session_id" minLength:"1" maxLength:"100" doc:"The session_id of the exchange."`
	RefreshToken string `json:"refresh_token" minLength:"1" maxLength:"200" doc:"The session's current refresh token."`
}

// RefreshResponse is the answer of a refresh.
type RefreshResponse struct {
	AccessToken  string `json:"access_token" doc:"A new access token of the task principal (60 minutes)."`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token" doc:"The next refresh token; the one presented no longer works, and presenting it again ends the session."`
	TokenType    string `json:"token_type" enum:"Bearer"`
	ExpiresAt    int64  `json:"expires_at" doc:"When the access token expires, Unix seconds."`
}

type exchangeInput struct {
	Token string `path:"token" doc:"The raw link token from the e-mail: aml_ followed by 43 base64url characters."`
}

type exchangeOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         ExchangeResponse
}

type refreshInput struct {
	Body RefreshRequest
}

type refreshOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         RefreshResponse
}

type logoutOutput struct{}

// Register adds the magic-link endpoints to s; their rate limits run on
// security, the machine's clock outside tests.
func Register(s *httpapi.Server, svc *magic.Service, security clock.Clock) {
	tags := []string{s.Tag("Onboarding magic links",
		"External onboarding contacts exchange the link from their e-mail for a session of their task, refresh it and log out (document 1, Authentication rule 9).")}
	lim := newLimiter(security)
	limited := func(keys ...string) error {
		if wait, ok := lim.allow(keys...); !ok {
			return huma.ErrorWithHeaders(huma.NewError(http.StatusTooManyRequests,
				"too many attempts from this address or on this link; retry after the number of seconds in Retry-After"),
				http.Header{"Retry-After": {retryAfter(wait)}})
		}
		return nil
	}

	httpapi.Register(s, huma.Operation{
		OperationID: "exchange-onboarding-magic-link", Method: http.MethodPost, Path: "/v1/onboarding-magic/{token}/exchange", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleExchange),
		Summary:   "Exchange a magic link for a session",
		Description: "No bearer token: the path carries the raw link token. The link is reusable until it expires or is revoked; " +
			"each exchange opens a new session (access token 60 minutes, refresh token; the session lives 14 days from its last " +
			"refresh, never beyond the link's expiry). " +
			"400 malformed_token when the token is not of the link format (checked before any lookup); " +
			"404 link_not_found when it is unknown, expired or revoked, or its contact, role or workflow is gone (one answer for all); " +
			"409 link_session_limit when the link has 10 open sessions; 429 beyond 10 attempts a minute per address or per link.",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Public, func(ctx context.Context, in *exchangeInput) (*exchangeOutput, error) {
		h, err := magic.ParseLinkToken(in.Token)
		if err != nil {
			return nil, err
		}
		if err := limited("ip:"+httpapi.ClientIP(ctx), "link:"+hex.EncodeToString(h[:])); err != nil {
			return nil, err
		}
		ex, err := svc.Exchange(ctx, in.Token)
		if err != nil {
			return nil, err
		}
		return &exchangeOutput{CacheControl: "no-store", Body: ExchangeResponse{
			AccessToken: ex.AccessToken, IDToken: ex.IDToken, RefreshToken: ex.RefreshToken, TokenType: "Bearer",
			ExpiresAt: ex.ExpiresAt.Unix(), SessionID: ex.Session.ID, OnboardingID: ex.Session.OnboardingID, Role: ex.Session.Role,
			ContactName: ex.Target.ContactName, ContactEmail: ex.Target.ContactEmail, Branding: ex.Target.Branding,
		}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "refresh-onboarding-magic-session", Method: http.MethodPost, Path: "/v1/onboarding-magic/refresh", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleRefreshRequest), Responses: httpapi.ResponseExample(http.StatusOK, exampleRefresh),
		Summary: "Refresh a magic-link session",
		Description: "No bearer token. Rotates the refresh token: the one presented stops working. " +
			"409 session_ended when the session is unknown, expired, logged out or ended (its link revoked, its contact or role removed, " +
			"its workflow cancelled), or when the refresh token is not the session's current one: a rotated token presented again " +
			"ends the session, since someone else holds a copy. 422 when a member is missing or empty; " +
			"429 beyond 10 attempts a minute per address or per session.",
		Errors: []int{http.StatusConflict},
	}, httpapi.Public, func(ctx context.Context, in *refreshInput) (*refreshOutput, error) {
		if err := limited("ip:"+httpapi.ClientIP(ctx), "session:"+in.Body.SessionID); err != nil {
			return nil, err
		}
		r, err := svc.Refresh(ctx, in.Body.SessionID, in.Body.RefreshToken)
		if err != nil {
			return nil, err
		}
		return &refreshOutput{CacheControl: "no-store", Body: RefreshResponse{
			AccessToken: r.AccessToken, IDToken: r.IDToken, RefreshToken: r.RefreshToken, TokenType: "Bearer", ExpiresAt: r.ExpiresAt.Unix(),
		}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "logout-onboarding-magic-session", Method: http.MethodPost, Path: "/v1/onboarding-magic/logout", Tags: tags,
		DefaultStatus: http.StatusNoContent,
		Summary:       "Log out of a magic-link session",
		Description: "Ends the calling session and its refresh token: its access tokens stop at once (401). " +
			"Logging out of an ended session changes nothing.",
	}, httpapi.TaskSession, func(ctx context.Context, _ *struct{}) (*logoutOutput, error) {
		p := httpapi.Principal(ctx)
		return &logoutOutput{}, svc.Logout(ctx, p.OrganizationID, *p.Task)
	})
}
