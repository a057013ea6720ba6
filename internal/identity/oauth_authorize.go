package identity

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/errs"
)

// Bounds of the free-text authorization parameters, which travel in
// redirects and hidden form fields.
const (
	maxRedirectURILength = 2048
	maxOpaqueParamLength = 1024 // state, nonce, scope
)

// AuthorizationRequest is a validated authorization request of the
// authorization code flow with PKCE (RFC 6749 section 4.1.1, RFC 7636).
type AuthorizationRequest struct {
	ResponseType        string
	ClientID            string
	RedirectURI         string
	CodeChallenge       string
	CodeChallengeMethod string
	State               string
	Scope               string
	Nonce               string
}

// Values returns the request's parameters, for carrying them through the
// sign-in form.
func (r AuthorizationRequest) Values() url.Values {
	v := url.Values{}
	for _, p := range []struct{ name, value string }{
		{"response_type", r.ResponseType}, {"client_id", r.ClientID}, {"redirect_uri", r.RedirectURI},
		{"code_challenge", r.CodeChallenge}, {"code_challenge_method", r.CodeChallengeMethod},
		{"state", r.State}, {"scope", r.Scope}, {"nonce", r.Nonce},
	} {
		if p.value != "" {
			v.Set(p.name, p.value)
		}
	}
	return v
}

// AuthorizeError rejects an authorization request. When RedirectTo is
// empty the client or its redirect URI cannot be trusted and the error
// must be shown to the person, never redirected (RFC 6749 section
// 4.1.2.1); otherwise the client learns it at RedirectTo.
type AuthorizeError struct {
	Code        string
	Description string
	RedirectTo  string
}

func (e *AuthorizeError) Error() string { return e.Code + ": " + e.Description }

// ParseAuthorizationRequest validates the parameters of an authorization
// request. Unrecognised parameters are ignored (RFC 6749 section 3.1).
func (o *OAuth) ParseAuthorizationRequest(params url.Values) (AuthorizationRequest, *AuthorizeError) {
	single := func(name string) (string, bool) {
		vs := params[name]
		if len(vs) > 1 {
			return "", false
		}
		if len(vs) == 0 {
			return "", true
		}
		return vs[0], true
	}
	var r AuthorizationRequest
	var ok bool
	if r.ClientID, ok = single("client_id"); !ok {
		return r, pageError("client_id is given more than once")
	}
	switch r.ClientID {
	case "":
		return r, pageError("client_id is missing")
	case ConsoleClientID:
	default:
		return r, pageError("unknown client_id")
	}
	if r.RedirectURI, ok = single("redirect_uri"); !ok {
		return r, pageError("redirect_uri is given more than once")
	}
	if r.RedirectURI == "" {
		return r, pageError("redirect_uri is missing")
	}
	if !IsLoopbackRedirect(r.RedirectURI) {
		return r, pageError("redirect_uri must be a loopback address of this device: http://127.0.0.1:PORT/..., http://localhost:PORT/... or http://[::1]:PORT/...")
	}

	// From here on the redirect URI is trusted: errors go back to it.
	fail := func(code, description string) (AuthorizationRequest, *AuthorizeError) {
		return r, &AuthorizeError{Code: code, Description: description, RedirectTo: o.errorRedirect(r, code, description)}
	}
	r.State, _ = single("state") // empty when repeated: there is no one state to echo
	for _, name := range []string{"response_type", "code_challenge", "code_challenge_method", "state", "scope", "nonce"} {
		if len(params[name]) > 1 {
			return fail(OAuthInvalidRequest, name+" is given more than once")
		}
	}
	r.ResponseType, _ = single("response_type")
	r.CodeChallenge, _ = single("code_challenge")
	r.CodeChallengeMethod, _ = single("code_challenge_method")
	r.Scope, _ = single("scope")
	r.Nonce, _ = single("nonce")
	switch {
	case r.ResponseType == "":
		return fail(OAuthInvalidRequest, "response_type is required")
	case r.ResponseType != "code":
		return fail(OAuthUnsupportedResponseType, "only response_type=code is supported")
	case r.State == "":
		return fail(OAuthInvalidRequest, "state is required")
	case len(r.State) > maxOpaqueParamLength:
		return fail(OAuthInvalidRequest, "state is longer than "+strconv.Itoa(maxOpaqueParamLength)+" characters")
	case r.CodeChallenge == "":
		return fail(OAuthInvalidRequest, "code_challenge is required (PKCE)")
	case r.CodeChallengeMethod != "S256":
		return fail(OAuthInvalidRequest, "code_challenge_method must be S256")
	case !validPKCEString(r.CodeChallenge):
		return fail(OAuthInvalidRequest, "code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
	case len(r.Nonce) > maxOpaqueParamLength:
		return fail(OAuthInvalidRequest, "nonce is longer than "+strconv.Itoa(maxOpaqueParamLength)+" characters")
	case len(r.Scope) > maxOpaqueParamLength:
		return fail(OAuthInvalidRequest, "scope is longer than "+strconv.Itoa(maxOpaqueParamLength)+" characters")
	}
	if _, bad := parseScope(r.Scope); len(bad) > 0 {
		return fail(OAuthInvalidScope, "unknown scope: "+strings.Join(bad, " "))
	}
	return r, nil
}

func pageError(description string) *AuthorizeError {
	return &AuthorizeError{Code: OAuthInvalidRequest, Description: description}
}

// IsLoopbackRedirect reports whether raw is a redirect URI the console may
// use: plain http to a loopback address of the person's own device, any
// port (RFC 8252 section 7.3), no user information and no fragment.
func IsLoopbackRedirect(raw string) bool {
	if len(raw) > maxRedirectURILength || strings.ContainsAny(raw, "#\\") {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Opaque != "" || u.User != nil {
		return false
	}
	switch u.Hostname() {
	case "127.0.0.1", "localhost", "::1":
	default:
		return false
	}
	if strings.HasSuffix(u.Host, ":") {
		return false
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return false
		}
	}
	return true
}

// ErrSignInFailed is the one answer to an unknown email, a wrong password
// and a person who may not sign in, so that the page tells nobody which
// accounts exist.
var ErrSignInFailed = errors.New("the email address or password is not correct")

// SignIn checks a person's credentials for a validated authorization
// request and returns where to send the browser: the redirect URI with a
// new authorization code, the state and the issuer (RFC 9207).
func (o *OAuth) SignIn(ctx context.Context, req AuthorizationRequest, email, password string) (string, error) {
	user, err := o.checkPassword(ctx, email, password)
	if err != nil {
		return "", err
	}
	requested, _ := parseScope(req.Scope)
	now := o.security.Now()
	grant := Grant{
		ID: uuid.NewString(), OrganizationID: user.OrganizationID, UserID: user.ID, ClientID: req.ClientID,
		Scope: apiScopes(requested), Nonce: req.Nonce, AuthTime: now, CreatedAt: now,
	}
	value := auth.RandomToken(32)
	code := AuthorizationCode{
		Hash: auth.LookupHash(value), GrantID: grant.ID, RedirectURI: req.RedirectURI,
		CodeChallenge: req.CodeChallenge, ExpiresAt: now.Add(AuthorizationCodeTTL),
	}
	if err := o.clients.CreateAuthorization(ctx, grant, code, now.Add(-GrantRetention)); err != nil {
		return "", err
	}
	return withParams(req.RedirectURI, url.Values{"code": {value}, "state": {req.State}, "iss": {o.Issuer()}}), nil
}

// checkPassword returns the person with these credentials who may sign
// in. The attempt must pass the address's failure limit (refused with
// TooManyFailures, without a check) and costs one password verification,
// also for an unknown address.
func (o *OAuth) checkPassword(ctx context.Context, email, password string) (User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	attempt, wait, ok := o.signInFailures.begin(email, o.security.Now())
	if !ok {
		return User{}, &TooManyFailures{RetryAfter: wait}
	}
	user, err := o.verifyPassword(ctx, email, password)
	attempt.end(errors.Is(err, ErrSignInFailed), o.security.Now())
	return user, err
}

func (o *OAuth) verifyPassword(ctx context.Context, email, password string) (User, error) {
	var user User
	if email != "" {
		var err error
		user, err = o.users.UserByEmail(ctx, email)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return User{}, err
		}
	}
	if user.PasswordHash == "" {
		// No such person, or one without a password yet: the same time.
		if err := o.hasher.Burn(ctx, password); err != nil {
			return User{}, err
		}
		return User{}, ErrSignInFailed
	}
	ok, err := o.hasher.Verify(ctx, password, user.PasswordHash)
	if err != nil {
		return User{}, err
	}
	if !ok || !user.CanSignIn() {
		return User{}, ErrSignInFailed
	}
	return user, nil
}

// errorRedirect is where an authorization error goes back to the client
// (RFC 6749 section 4.1.2.1).
func (o *OAuth) errorRedirect(r AuthorizationRequest, code, description string) string {
	v := url.Values{"error": {code}, "error_description": {description}, "iss": {o.Issuer()}}
	if r.State != "" {
		v.Set("state", r.State)
	}
	return withParams(r.RedirectURI, v)
}

// withParams appends params to a redirect URI, keeping its own query as
// it was (RFC 6749 section 3.1.2).
func withParams(redirectURI string, params url.Values) string {
	sep := "?"
	if strings.Contains(redirectURI, "?") {
		sep = "&"
		if strings.HasSuffix(redirectURI, "?") || strings.HasSuffix(redirectURI, "&") {
			sep = ""
		}
	}
	return redirectURI + sep + params.Encode()
}
