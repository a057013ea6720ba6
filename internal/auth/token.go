package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
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

// SigningKey is the asymmetric key tokens are signed with, as persisted.
type SigningKey struct {
	KeyID      string
	Algorithm  string
	PrivatePEM string
	CreatedAt  time.Time
}

// KeyStore persists the signing key so that restarts and every instance on
// the same database sign and verify with the same key.
type KeyStore interface {
	// EnsureSigningKey stores candidate unless a key exists already and
	// returns the key in force; concurrent callers all get the same key.
	EnsureSigningKey(ctx context.Context, candidate SigningKey) (SigningKey, error)
}

// NewSigningKey generates a P-256 key for ES256.
func NewSigningKey(now time.Time) (SigningKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return SigningKey{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return SigningKey{}, err
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	pubDER, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return SigningKey{}, err
	}
	sum := sha256.Sum256(pubDER)
	return SigningKey{KeyID: hex.EncodeToString(sum[:8]), Algorithm: string(jose.ES256), PrivatePEM: string(pemBytes), CreatedAt: now}, nil
}

// AccessClaims are the claims of an access token.
type AccessClaims struct {
	jwt.Claims
	Scope          string `json:"scope"`
	OrganizationID string `json:"organization_id"`
	IsM2M          bool   `json:"is_m2m"`
	Email          string `json:"email,omitempty"`
	ClientID       string `json:"client_id"`
	// Credential is Principal.Credential: the secret id or the grant id.
	Credential string `json:"sid,omitempty"`
}

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
	clock  clock.Clock
	key    *ecdsa.PrivateKey
	keyID  string
	signer jose.Signer
	cache  verifiedCache
}

// NewTokens loads (or creates) the signing key through keys and returns the
// token service for issuer.
func NewTokens(ctx context.Context, keys KeyStore, issuer string, clk clock.Clock) (*Tokens, error) {
	candidate, err := NewSigningKey(clk.Now())
	if err != nil {
		return nil, err
	}
	stored, err := keys.EnsureSigningKey(ctx, candidate)
	if err != nil {
		return nil, fmt.Errorf("load signing key: %w", err)
	}
	block, _ := pem.Decode([]byte(stored.PrivatePEM))
	if block == nil {
		return nil, errors.New("signing key: no PEM block")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	priv, ok := parsed.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("signing key: not an ECDSA key")
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: priv, KeyID: stored.KeyID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	return &Tokens{issuer: issuer, clock: clk, key: priv, keyID: stored.KeyID, signer: signer,
		cache: verifiedCache{entries: map[string]cachedPrincipal{}}}, nil
}

// Issuer returns the iss claim of issued tokens.
func (t *Tokens) Issuer() string { return t.issuer }

// IssueAccess signs an access token for p, valid AccessTokenTTL from now.
func (t *Tokens) IssueAccess(p Principal) (token string, expiresIn int, err error) {
	now := t.clock.Now()
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
	token, err = jwt.Signed(t.signer).Claims(claims).Serialize()
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
	return jwt.Signed(t.signer).Claims(claims).Serialize()
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
	var claims AccessClaims
	if err := tok.Claims(&t.key.PublicKey, &claims); err != nil {
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
	t.cache.put(raw, p, claims.Expiry.Time())
	return p, nil
}

// JWKS returns the public keys for verifiers.
func (t *Tokens) JWKS() jose.JSONWebKeySet {
	return jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
		Key: &t.key.PublicKey, KeyID: t.keyID, Algorithm: string(jose.ES256), Use: "sig",
	}}}
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

func (c *verifiedCache) put(raw string, p *Principal, expiry time.Time) {
	c.mu.Lock()
	if len(c.entries) >= verifiedCacheMax {
		clear(c.entries)
	}
	c.entries[raw] = cachedPrincipal{p: p, expiry: expiry}
	c.mu.Unlock()
}
