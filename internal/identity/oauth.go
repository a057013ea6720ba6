package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// ConsoleClientID is the registered public client people sign in with. It
// has no secret; any loopback redirect URI is accepted for it (RFC 8252).
const ConsoleClientID = "atcp-console"

// Lifetimes of the grants of the built-in identity provider.
const (
	AuthorizationCodeTTL = 60 * time.Second
	RefreshTokenTTL      = 30 * 24 * time.Hour
	// GrantRetention is how long a sign-in is remembered after its last
	// refresh token expired (or, when none was issued, after it began),
	// so that a late replay of its code is still recognised and refused.
	GrantRetention = 24 * time.Hour
)

// ScopeOpenID asks for an ID token; it is not an API scope and never
// appears on access tokens.
const ScopeOpenID = "openid"

// OAuth error codes (RFC 6749 sections 4.1.2.1 and 5.2).
const (
	OAuthInvalidRequest          = "invalid_request"
	OAuthInvalidClient           = "invalid_client"
	OAuthInvalidGrant            = "invalid_grant"
	OAuthUnauthorizedClient      = "unauthorized_client"
	OAuthUnsupportedGrantType    = "unsupported_grant_type"
	OAuthUnsupportedResponseType = "unsupported_response_type"
	OAuthInvalidScope            = "invalid_scope"
	// OAuthTemporarilyUnavailable answers, with 503, a request that could
	// not be checked now: the store cannot be reached or every slot for
	// argon2id work stayed taken (RFC 6749 section 4.1.2.1 defines it for
	// the authorization endpoint; the token endpoint uses it alike).
	OAuthTemporarilyUnavailable = "temporarily_unavailable"
	// OAuthSlowDown answers, with 429, an attempt refused without a check
	// because its client id failed too often lately (the token endpoint
	// error of RFC 8628 section 3.5 for a client that asks too often).
	OAuthSlowDown = "slow_down"
)

// OAuthError is an error the OAuth endpoints answer with
// {error, error_description}.
type OAuthError struct {
	Code        string
	Description string
}

func (e *OAuthError) Error() string { return e.Code + ": " + e.Description }

func oauthError(code, format string, args ...any) *OAuthError {
	return &OAuthError{Code: code, Description: fmt.Sprintf(format, args...)}
}

// OAuth turns credentials into tokens: client credentials for
// integrations, the authorization code flow with PKCE and refresh tokens
// for people.
type OAuth struct {
	clients ClientStore
	users   DirectoryStore
	tokens  *auth.Tokens
	// security times everything here: sign-ins, codes, refresh tokens,
	// revocations, the verification cache and the failure limits. It is
	// the machine's clock outside tests, never the platform clock: a
	// session lives as long in real time whatever speed the platform runs
	// at (docs/authentication.md, Security time).
	security clock.Clock

	// Checking credentials: argon2id work through the process's shared
	// Hasher, the cache of successful client authentications and the
	// failure limits.
	hasher         secretHasher
	verified       *verifiedSecrets
	clientFailures *failureLimiter
	signInFailures *failureLimiter
}

// secretHasher is the argon2id work OAuth needs of an *auth.Hasher.
type secretHasher interface {
	Verify(ctx context.Context, secret, encoded string) (bool, error)
	Burn(ctx context.Context, secret string) error
}

// NewOAuth returns the OAuth 2.0 / OpenID Connect provider. hasher is the
// process's shared Hasher; security is the clock of every instant of the
// flows (clock.Real outside tests).
func NewOAuth(clients ClientStore, users DirectoryStore, tokens *auth.Tokens, hasher *auth.Hasher, security clock.Clock) *OAuth {
	return &OAuth{
		clients: clients, users: users, tokens: tokens, security: security,
		hasher: hasher, verified: newVerifiedSecrets(),
		clientFailures: newFailureLimiter(ClientFailureBurst, ClientFailureEvery),
		signInFailures: newFailureLimiter(SignInFailureBurst, SignInFailureEvery),
	}
}

// Issuer is the OpenID Connect issuer: the server's base URL.
func (o *OAuth) Issuer() string { return o.tokens.Issuer() }

// JWKS returns the keys that verify issued tokens.
func (o *OAuth) JWKS() jose.JSONWebKeySet { return o.tokens.JWKS() }

// TokenSet is what the token endpoint hands out.
type TokenSet struct {
	AccessToken  string
	ExpiresIn    int
	Scopes       auth.ScopeSet
	IDToken      string // people only
	RefreshToken string // people only
}

// ClientCredentialsRequest is a client_credentials grant of an
// authenticated integration.
type ClientCredentialsRequest struct {
	ClientID     string
	ClientSecret string
	Scope        string // optional narrowing, space-separated
}

// ClientCredentials authenticates an integration by one of its secrets and
// issues it an access token.
func (o *OAuth) ClientCredentials(ctx context.Context, req ClientCredentialsRequest) (TokenSet, error) {
	if req.ClientID == ConsoleClientID {
		return TokenSet{}, oauthError(OAuthUnauthorizedClient, "%s is a public client; it signs people in with the authorization_code grant", ConsoleClientID)
	}
	in, secretID, err := o.authenticateIntegration(ctx, req.ClientID, req.ClientSecret)
	if err != nil {
		return TokenSet{}, err
	}
	scopes := in.Scopes
	if strings.TrimSpace(req.Scope) != "" {
		requested, bad := parseScope(req.Scope)
		if len(bad) > 0 || requested.Has(ScopeOpenID) {
			return TokenSet{}, oauthError(OAuthInvalidScope, "unknown scope in request")
		}
		if missing := NotHeld(in.Scopes, requested); len(missing) > 0 {
			return TokenSet{}, oauthError(OAuthInvalidScope, "scope not granted to this integration: %s", strings.Join(auth.ScopeNames(missing), " "))
		}
		scopes = requested
	}
	access, expiresIn, err := o.tokens.IssueAccess(auth.Principal{
		Subject: in.ID, OrganizationID: in.OrganizationID, Scopes: scopes, IsM2M: true, ClientID: in.ID,
		Credential: secretID,
	})
	if err != nil {
		return TokenSet{}, err
	}
	return TokenSet{AccessToken: access, ExpiresIn: expiresIn, Scopes: scopes}, nil
}

// authenticateIntegration checks secret against the integration's
// secrets and returns the integration and the id of the secret that
// matched. A secret verified lately passes without argon2id work (see
// verifiedSecrets); otherwise the attempt must pass the client id's
// failure limit and costs one verification, or two for a secret without
// an embedded id (see matchSecret).
func (o *OAuth) authenticateIntegration(ctx context.Context, clientID, secret string) (Integration, string, error) {
	if secret == "" {
		// Nothing to verify, whoever the client: no argon2id work.
		return Integration{}, "", oauthError(OAuthInvalidClient, "client authentication failed")
	}
	in, secrets, err := o.clients.ClientSecrets(ctx, clientID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return Integration{}, "", err
	}
	now := o.security.Now()
	digest := o.verified.digest(clientID, secret)
	if secretID, ok := o.verified.lookup(digest, secrets, now); ok {
		return in, secretID, nil
	}
	attempt, wait, ok := o.clientFailures.begin(clientID, now)
	if !ok {
		return Integration{}, "", &TooManyFailures{RetryAfter: wait}
	}
	matched, err := o.matchSecret(ctx, secrets, secret)
	attempt.end(err == nil && matched < 0, o.security.Now())
	if err != nil {
		return Integration{}, "", err
	}
	if matched < 0 {
		return Integration{}, "", oauthError(OAuthInvalidClient, "client authentication failed")
	}
	o.verified.remember(digest, secrets[matched], now)
	return in, secrets[matched].ID, nil
}

// matchSecret returns the index of the stored secret that secret matches,
// or -1. A secret generated by atcp names its own id (see newSecretValue),
// so exactly one verification decides, against that secret or, when the
// client or the id is unknown, against a dummy hash, which takes the same
// time. A secret without an id (the bootstrap secret chosen by the
// operator, or one created before ids were embedded) is verified against
// each stored secret in turn: at most MaxActiveSecrets verifications.
func (o *OAuth) matchSecret(ctx context.Context, stored []StoredSecret, secret string) (int, error) {
	if id, ok := secretIDOf(secret); ok {
		for i, s := range stored {
			if s.ID == id {
				ok, err := o.hasher.Verify(ctx, secret, s.Hash)
				if !ok {
					return -1, err
				}
				return i, nil
			}
		}
		return -1, o.hasher.Burn(ctx, secret)
	}
	if len(stored) == 0 {
		return -1, o.hasher.Burn(ctx, secret)
	}
	for i, s := range stored {
		ok, err := o.hasher.Verify(ctx, secret, s.Hash)
		if err != nil {
			return -1, err
		}
		if ok {
			return i, nil
		}
	}
	return -1, nil
}

// CodeRequest is an authorization_code grant.
type CodeRequest struct {
	ClientID     string
	Code         string
	RedirectURI  string
	CodeVerifier string
}

// ExchangeCode redeems an authorization code for tokens. A code works
// once: presenting it again revokes its grant, so that the refresh token
// issued for it stops working too (RFC 6749 section 4.1.2).
func (o *OAuth) ExchangeCode(ctx context.Context, req CodeRequest) (TokenSet, error) {
	if err := checkPublicClient(req.ClientID); err != nil {
		return TokenSet{}, err
	}
	switch {
	case req.Code == "":
		return TokenSet{}, oauthError(OAuthInvalidRequest, "code is required")
	case req.RedirectURI == "":
		return TokenSet{}, oauthError(OAuthInvalidRequest, "redirect_uri is required")
	case req.CodeVerifier == "":
		return TokenSet{}, oauthError(OAuthInvalidRequest, "code_verifier is required")
	case !validPKCEString(req.CodeVerifier):
		return TokenSet{}, oauthError(OAuthInvalidRequest, "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
	}
	now := o.security.Now()
	grant, code, err := o.clients.ConsumeCode(ctx, auth.LookupHash(req.Code), now)
	if errs.Is(err, errs.NotFound) {
		return TokenSet{}, oauthError(OAuthInvalidGrant, "unknown authorization code")
	}
	if err != nil {
		return TokenSet{}, err
	}
	if code.UsedAt != nil {
		if err := o.clients.RevokeGrant(ctx, grant.ID, now); err != nil {
			return TokenSet{}, err
		}
		return TokenSet{}, oauthError(OAuthInvalidGrant, "authorization code already used; the tokens issued for it are revoked")
	}
	switch {
	case !now.Before(code.ExpiresAt):
		return TokenSet{}, oauthError(OAuthInvalidGrant, "authorization code expired")
	case grant.RevokedAt != nil:
		return TokenSet{}, oauthError(OAuthInvalidGrant, "authorization revoked")
	case grant.ClientID != req.ClientID:
		return TokenSet{}, oauthError(OAuthInvalidGrant, "authorization code was issued to another client")
	case code.RedirectURI != req.RedirectURI:
		return TokenSet{}, oauthError(OAuthInvalidGrant, "redirect_uri differs from the authorization request")
	case !VerifyPKCE(req.CodeVerifier, code.CodeChallenge):
		return TokenSet{}, oauthError(OAuthInvalidGrant, "code_verifier does not match the code_challenge")
	}
	user, err := o.signedInUser(ctx, grant)
	if err != nil {
		return TokenSet{}, err
	}
	return o.issueForPerson(ctx, user, grant, now)
}

// RefreshRequest is a refresh_token grant.
type RefreshRequest struct {
	ClientID     string
	RefreshToken string
	Scope        string // optional further narrowing for this access token
}

// Refresh rotates a refresh token: it answers a new access token and a new
// refresh token and the presented one stops working. Presenting a rotated
// token again revokes the whole grant (RFC 9700 section 4.14.2), since
// either the client or a thief holds a copy. The person must still be
// allowed to sign in, and the scopes follow the person's current ones.
func (o *OAuth) Refresh(ctx context.Context, req RefreshRequest) (TokenSet, error) {
	if err := checkPublicClient(req.ClientID); err != nil {
		return TokenSet{}, err
	}
	if req.RefreshToken == "" {
		return TokenSet{}, oauthError(OAuthInvalidRequest, "refresh_token is required")
	}
	requested, bad := parseScope(req.Scope)
	if len(bad) > 0 {
		return TokenSet{}, oauthError(OAuthInvalidScope, "unknown scope: %s", strings.Join(bad, " "))
	}
	now := o.security.Now()
	nextValue := auth.RandomToken(32)
	next := RefreshToken{Hash: auth.LookupHash(nextValue), CreatedAt: now, ExpiresAt: now.Add(RefreshTokenTTL)}
	grant, old, rotated, err := o.clients.RotateRefreshToken(ctx, auth.LookupHash(req.RefreshToken), now, next)
	if errs.Is(err, errs.NotFound) {
		return TokenSet{}, oauthError(OAuthInvalidGrant, "unknown refresh token")
	}
	if err != nil {
		return TokenSet{}, err
	}
	if !rotated {
		if old.UsedAt != nil && grant.RevokedAt == nil {
			if err := o.clients.RevokeGrant(ctx, grant.ID, now); err != nil {
				return TokenSet{}, err
			}
			return TokenSet{}, oauthError(OAuthInvalidGrant, "refresh token already used; the session is revoked, sign in again")
		}
		return TokenSet{}, oauthError(OAuthInvalidGrant, "refresh token expired or revoked")
	}
	if grant.ClientID != req.ClientID {
		return TokenSet{}, o.revokeWith(ctx, grant.ID, now, oauthError(OAuthInvalidGrant, "refresh token was issued to another client"))
	}
	user, err := o.signedInUser(ctx, grant)
	var refused *OAuthError
	if errors.As(err, &refused) {
		return TokenSet{}, o.revokeWith(ctx, grant.ID, now, refused)
	}
	if err != nil {
		return TokenSet{}, err
	}
	scopes := narrow(grantedScopes(user, grant), apiScopes(requested))
	// An ID token renewed by refresh carries no nonce (OpenID Connect Core
	// section 12.2).
	set, err := o.issueTokens(user, grant, scopes, "")
	if err != nil {
		return TokenSet{}, err
	}
	set.RefreshToken = nextValue
	return set, nil
}

// revokeWith revokes a grant and returns cause, or the revocation's own
// failure.
func (o *OAuth) revokeWith(ctx context.Context, grantID string, now time.Time, cause error) error {
	if err := o.clients.RevokeGrant(ctx, grantID, now); err != nil {
		return err
	}
	return cause
}

// signedInUser returns the person of a grant when that person may still
// get tokens.
func (o *OAuth) signedInUser(ctx context.Context, g Grant) (User, error) {
	user, err := o.users.UserByID(ctx, g.UserID)
	if errs.Is(err, errs.NotFound) {
		return User{}, oauthError(OAuthInvalidGrant, "the person no longer exists")
	}
	if err != nil {
		return User{}, err
	}
	if !user.CanSignIn() {
		return User{}, oauthError(OAuthInvalidGrant, "the person may not sign in")
	}
	return user, nil
}

// issueForPerson issues the tokens of a fresh code exchange, with the
// first refresh token of the grant.
func (o *OAuth) issueForPerson(ctx context.Context, user User, g Grant, now time.Time) (TokenSet, error) {
	set, err := o.issueTokens(user, g, grantedScopes(user, g), g.Nonce)
	if err != nil {
		return TokenSet{}, err
	}
	value := auth.RandomToken(32)
	if err := o.clients.AddRefreshToken(ctx, RefreshToken{
		Hash: auth.LookupHash(value), GrantID: g.ID, CreatedAt: now, ExpiresAt: now.Add(RefreshTokenTTL),
	}); err != nil {
		return TokenSet{}, err
	}
	set.RefreshToken = value
	return set, nil
}

func (o *OAuth) issueTokens(user User, g Grant, scopes auth.ScopeSet, nonce string) (TokenSet, error) {
	access, expiresIn, err := o.tokens.IssueAccess(auth.Principal{
		Subject: user.ID, OrganizationID: user.OrganizationID, Scopes: scopes, IsM2M: false,
		Email: user.Email, ClientID: g.ClientID, Credential: g.ID,
	})
	if err != nil {
		return TokenSet{}, err
	}
	id, err := o.tokens.IssueID(user.ID, user.Email, user.OrganizationID, g.ClientID, nonce, g.AuthTime)
	if err != nil {
		return TokenSet{}, err
	}
	return TokenSet{AccessToken: access, ExpiresIn: expiresIn, Scopes: scopes, IDToken: id}, nil
}

// checkPublicClient admits only the console to the grants for people.
func checkPublicClient(clientID string) error {
	switch clientID {
	case "":
		return oauthError(OAuthInvalidRequest, "client_id is required")
	case ConsoleClientID:
		return nil
	}
	return oauthError(OAuthUnauthorizedClient, "only %s may use this grant", ConsoleClientID)
}

// grantedScopes is what a token of the grant carries now: the person's
// current scopes, narrowed by the scopes asked for at sign-in.
func grantedScopes(user User, g Grant) auth.ScopeSet { return narrow(user.Scopes, g.Scope) }

// narrow returns the scopes of held that are in wanted, or all of held
// when wanted is empty.
func narrow(held, wanted auth.ScopeSet) auth.ScopeSet {
	out := auth.ScopeSet{}
	for s := range held {
		if len(wanted) == 0 || wanted.Has(s) {
			out[s] = struct{}{}
		}
	}
	return out
}

// parseScope splits a scope parameter; bad lists the names that are
// neither API scopes nor openid.
func parseScope(raw string) (auth.ScopeSet, []string) {
	set := auth.ScopeSet{}
	var bad []string
	for _, name := range strings.Fields(raw) {
		s := auth.Scope(name)
		if name != ScopeOpenID && !auth.Known(s) {
			bad = append(bad, name)
			continue
		}
		set[s] = struct{}{}
	}
	return set, bad
}

// apiScopes drops openid from a requested scope set.
func apiScopes(set auth.ScopeSet) auth.ScopeSet {
	out := auth.ScopeSet{}
	for s := range set {
		if s != ScopeOpenID {
			out[s] = struct{}{}
		}
	}
	return out
}

// VerifyPKCE checks a code verifier against an S256 code challenge
// (RFC 7636 section 4.6) in constant time.
func VerifyPKCE(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	computed := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(computed), []byte(challenge)) == 1
}

// validPKCEString reports whether s has the syntax RFC 7636 gives code
// verifiers and S256 code challenges: 43 to 128 unreserved characters.
func validPKCEString(s string) bool {
	if len(s) < 43 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
		if !ok {
			return false
		}
	}
	return true
}
