package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"

	"atcp/internal/clock"
)

// AccessTokenTTL is the lifetime of an access token (document 1, Limits).
const AccessTokenTTL = time.Hour

// Audience is the aud claim of access tokens: this API.
const Audience = "atcp-api"

// AccessClaims are the claims of an access token.
type AccessClaims struct {
	jwt.Claims
	Scope          string `json:"scope"`
	OrganizationID string `json:"organization_id"`
	IsM2M          bool   `json:"is_m2m"`
	Email          string `json:"email,omitempty"`
	ClientID       string `json:"client_id"`
	// Credential is Principal.Credential: the secret id or the grant id;
	// the session id of a magic-link session.
	Credential string `json:"sid,omitempty"`
	// OnboardingID and OnboardingRole are set together, and only on the
	// token of an onboarding magic-link session (Principal.Task).
	OnboardingID   string `json:"onboarding_id,omitempty"`
	OnboardingRole string `json:"onboarding_role,omitempty"`
}

// TaskSubjectPrefix starts the sub claim of a magic-link session's tokens:
// "onbc:<contact_id>", never a user or integration id (those are UUIDs).
const TaskSubjectPrefix = "onbc:"

// IDClaims are the claims of an OpenID Connect ID token.
type IDClaims struct {
	jwt.Claims
	Email          string `json:"email"`
	OrganizationID string `json:"organization_id"`
	Nonce          string `json:"nonce,omitempty"`
	AuthTime       int64  `json:"auth_time,omitempty"`
}

// Tokens issues and verifies signed access tokens.
type Tokens struct {
	issuer string
	// clock is the security clock: the machine's outside tests, never the
	// platform clock, so that a token lives AccessTokenTTL of real time
	// whatever speed the platform runs at and verifiers elsewhere (API
	// gateways, OpenID Connect libraries) accept it.
	clock clock.Clock
	keys  *keyRing
	cache verifiedCache
}

// NewTokens loads (or creates) the signing keys through keys and returns
// the token service for issuer. Token times (iat, nbf, exp and their
// check) come from security, clock.Real outside tests; the keys'
// lifecycle follows the options' real-time clock.
func NewTokens(ctx context.Context, keys KeyStore, issuer string, security clock.Clock, opts ...KeyOption) (*Tokens, error) {
	ring, err := openRing(ctx, keys, opts...)
	if err != nil {
		return nil, fmt.Errorf("load signing keys: %w", err)
	}
	t := &Tokens{issuer: issuer, clock: security, keys: ring, cache: verifiedCache{entries: map[string]cachedPrincipal{}}}
	ring.onRemoved = t.cache.clear
	return t, nil
}

// WatchKeys keeps the signing keys current until ctx ends: every
// KeyReloadEvery it reads them again, so that a rotation made by another
// instance or by `atcp rotate-signing-key` is followed.
func (t *Tokens) WatchKeys(ctx context.Context) { t.keys.watch(ctx) }

// Issuer returns the iss claim of issued tokens.
func (t *Tokens) Issuer() string { return t.issuer }

// IssueAccess signs an access token for p, valid AccessTokenTTL from now.
// For a magic-link session (p.Task set) the subject, credential and claims
// come from the grant alone: sub "onbc:<contact_id>", sid the session, no
// scopes.
func (t *Tokens) IssueAccess(p Principal) (token string, expiresIn int, err error) {
	now := t.clock.Now()
	if p.Task != nil {
		g := *p.Task
		if g.OnboardingID == "" || g.ContactID == "" || g.Role == "" || g.SessionID == "" {
			return "", 0, errors.New("auth: a task grant needs onboarding, contact, role and session")
		}
		p = Principal{Subject: TaskSubjectPrefix + g.ContactID, OrganizationID: p.OrganizationID, Email: p.Email,
			ClientID: p.ClientID, Credential: g.SessionID, Task: &g}
	}
	claims := AccessClaims{
		Claims: jwt.Claims{
			Issuer:    t.issuer,
			Subject:   p.Subject,
			Audience:  jwt.Audience{Audience},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			Expiry:    jwt.NewNumericDate(now.Add(AccessTokenTTL)),
			ID:        uuid.NewString(),
		},
		Scope:          p.Scopes.String(),
		OrganizationID: p.OrganizationID,
		IsM2M:          p.IsM2M,
		Email:          p.Email,
		ClientID:       p.ClientID,
		Credential:     p.Credential,
	}
	if p.Task != nil {
		claims.OnboardingID, claims.OnboardingRole = p.Task.OnboardingID, p.Task.Role
	}
	token, err = jwt.Signed(t.keys.signer()).Claims(claims).Serialize()
	return token, int(AccessTokenTTL / time.Second), err
}

// IssueID signs an OpenID Connect ID token for a signed-in person.
func (t *Tokens) IssueID(userID, email, org, clientID, nonce string, authTime time.Time) (string, error) {
	now := t.clock.Now()
	claims := IDClaims{
		Claims: jwt.Claims{
			Issuer: t.issuer, Subject: userID, Audience: jwt.Audience{clientID},
			IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(AccessTokenTTL)),
		},
		Email: email, OrganizationID: org, Nonce: nonce, AuthTime: authTime.Unix(),
	}
	return jwt.Signed(t.keys.signer()).Claims(claims).Serialize()
}

// ErrInvalidToken is returned for any token that is not a valid, unexpired
// access token of this issuer; the reason is deliberately not told apart.
var ErrInvalidToken = errors.New("invalid or expired access token")

// Verify checks an access token and returns its caller. Verified tokens are
// cached until they expire, since an ECDSA verification costs more than the
// rest of a typical read.
func (t *Tokens) Verify(raw string) (*Principal, error) {
	now := t.clock.Now()
	if p, ok := t.cache.get(raw, now); ok {
		return p, nil
	}
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, ErrInvalidToken
	}
	if len(tok.Headers) != 1 {
		return nil, ErrInvalidToken
	}
	key := t.keys.verificationKey(tok.Headers[0].KeyID)
	if key == nil {
		return nil, ErrInvalidToken
	}
	var claims AccessClaims
	if err := tok.Claims(key, &claims); err != nil {
		return nil, ErrInvalidToken
	}
	if err := claims.ValidateWithLeeway(jwt.Expected{Issuer: t.issuer, AnyAudience: jwt.Audience{Audience}, Time: now}, 0); err != nil {
		return nil, ErrInvalidToken
	}
	// RFC 7519: the token is expired from the instant exp on.
	if claims.Subject == "" || claims.OrganizationID == "" || claims.Expiry == nil || !now.Before(claims.Expiry.Time()) {
		return nil, ErrInvalidToken
	}
	p := &Principal{
		Subject: claims.Subject, OrganizationID: claims.OrganizationID, Scopes: ParseScopeString(claims.Scope),
		IsM2M: claims.IsM2M, Email: claims.Email, ClientID: claims.ClientID, Credential: claims.Credential,
	}
	task, ok := taskGrant(&claims)
	if !ok {
		return nil, ErrInvalidToken
	}
	p.Task = task
	t.cache.put(raw, p, claims.Expiry.Time())
	return p, nil
}

// taskGrant rebuilds the grant of a magic-link session's token: nil for
// any other token. A token with only one of the onboarding claims, or a
// task subject without them, or a task token claiming scopes, an
// integration or no session, is not one atcp issued: ok is false.
func taskGrant(c *AccessClaims) (_ *TaskGrant, ok bool) {
	contact, isTask := strings.CutPrefix(c.Subject, TaskSubjectPrefix)
	if c.OnboardingID == "" && c.OnboardingRole == "" && !isTask {
		return nil, true
	}
	if c.OnboardingID == "" || c.OnboardingRole == "" || !isTask || contact == "" || c.Credential == "" || c.Scope != "" || c.IsM2M {
		return nil, false
	}
	return &TaskGrant{OnboardingID: c.OnboardingID, ContactID: contact, Role: c.OnboardingRole, SessionID: c.Credential}, true
}

// JWKS returns the public keys for verifiers: the signing key, a key
// about to sign and retired keys whose tokens may not have expired yet.
func (t *Tokens) JWKS() jose.JSONWebKeySet {
	keys := t.keys.published()
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(keys))}
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.public, KeyID: k.id, Algorithm: string(jose.ES256), Use: "sig"})
	}
	return set
}

// verifiedCache remembers verified tokens until their expiry. It is bounded:
// when full it is emptied, which only costs re-verification.
type verifiedCache struct {
	mu      sync.RWMutex
	entries map[string]cachedPrincipal
}

type cachedPrincipal struct {
	p      *Principal
	expiry time.Time
}

const verifiedCacheMax = 100_000

func (c *verifiedCache) get(raw string, now time.Time) (*Principal, bool) {
	c.mu.RLock()
	e, ok := c.entries[raw]
	c.mu.RUnlock()
	if !ok || !now.Before(e.expiry) {
		return nil, false
	}
	return e.p, true
}

// clear forgets every verified token.
func (c *verifiedCache) clear() {
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}

func (c *verifiedCache) put(raw string, p *Principal, expiry time.Time) {
	c.mu.Lock()
	if len(c.entries) >= verifiedCacheMax {
		clear(c.entries)
	}
	c.entries[raw] = cachedPrincipal{p: p, expiry: expiry}
	c.mu.Unlock()
}
