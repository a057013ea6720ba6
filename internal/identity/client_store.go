package identity

import (
	"context"
	"errors"
	"time"

	"atcp/internal/auth"
)

// Integration is a machine-to-machine client of one organisation. Its id
// is the OAuth client_id.
type Integration struct {
	ID             string
	OrganizationID string
	Name           string
	Scopes         auth.ScopeSet
	CreatedAt      time.Time
}

// SecretInfo describes a client secret without its value.
type SecretInfo struct {
	ID            string
	IntegrationID string
	CreatedAt     time.Time
}

// StoredSecret is a client secret as persisted: only its argon2id hash.
type StoredSecret struct {
	SecretInfo
	Hash string
}

// Grant is one sign-in of a person into a client: the authorization code
// and every refresh token descending from it belong to it, so revoking the
// grant ends them all (code reuse, refresh-token reuse).
type Grant struct {
	ID             string
	OrganizationID string
	UserID         string
	ClientID       string
	// Scope narrows the person's scopes; empty means every scope the
	// person holds at the time a token is issued.
	Scope     auth.ScopeSet
	Nonce     string
	AuthTime  time.Time
	CreatedAt time.Time
	RevokedAt *time.Time
}

// AuthorizationCode is a single-use code, stored by the LookupHash of its
// value.
type AuthorizationCode struct {
	Hash          string
	GrantID       string
	RedirectURI   string
	CodeChallenge string
	ExpiresAt     time.Time
	UsedAt        *time.Time
}

// RefreshToken is a refresh token of a grant, stored by the LookupHash of
// its value. A used token has been rotated; presenting it again is reuse.
type RefreshToken struct {
	Hash      string
	GrantID   string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// ErrUnknownOrganization is returned by the store when an integration is
// created for an organisation that does not exist.
var ErrUnknownOrganization = errors.New("unknown organisation")

// ClientStore persists integrations, their secrets, authorization codes
// and refresh tokens. Methods taking an auth.Visibility see only the
// integrations it allows: any other is reported as errs.NotFound.
type ClientStore interface {
	// CreateIntegration stores a new integration with its first secret.
	// It returns errs.Conflict "integration_exists" when the organisation
	// has an integration of that name, ErrUnknownOrganization when the
	// organisation does not exist.
	CreateIntegration(ctx context.Context, in Integration, first StoredSecret) error
	// EnsureIntegration stores in and first like CreateIntegration unless
	// an integration with in.ID exists, which then stays as it is.
	EnsureIntegration(ctx context.Context, in Integration, first StoredSecret) (created bool, err error)
	// Integrations lists the visible integrations by organisation and
	// creation.
	Integrations(ctx context.Context, vis auth.Visibility) ([]Integration, error)
	// Integration returns one visible integration.
	Integration(ctx context.Context, vis auth.Visibility, id string) (Integration, error)
	// DeleteIntegration deletes a visible integration and its secrets.
	DeleteIntegration(ctx context.Context, vis auth.Visibility, id string) error
	// Secrets lists the secrets of a visible integration, oldest first.
	Secrets(ctx context.Context, vis auth.Visibility, integrationID string) ([]SecretInfo, error)
	// AddSecret adds s to its visible integration unless allow, given
	// the number of secrets the integration holds, refuses with an error;
	// the count, allow and the insert are one atomic step.
	AddSecret(ctx context.Context, vis auth.Visibility, s StoredSecret, allow func(held int) error) error
	// DeleteSecret deletes a secret of a visible integration unless allow,
	// given the number of secrets the integration holds, refuses with an
	// error; atomically.
	DeleteSecret(ctx context.Context, vis auth.Visibility, integrationID, secretID string, allow func(held int) error) error
	// ClientSecrets returns an integration of any organisation with its
	// secrets (ids and hashes), oldest first, for client authentication.
	ClientSecrets(ctx context.Context, clientID string) (Integration, []StoredSecret, error)

	// CreateAuthorization stores a new grant with its authorization code.
	// It also deletes what can no longer be used: refresh tokens that
	// expired before purgeBefore and grants created before it that have no
	// refresh token left (with their codes).
	CreateAuthorization(ctx context.Context, g Grant, c AuthorizationCode, purgeBefore time.Time) error
	// ConsumeCode marks the code with this hash used at now and returns it
	// as it was before (UsedAt set means it had been used already) with its
	// grant; errs.NotFound when no such code exists.
	ConsumeCode(ctx context.Context, codeHash string, now time.Time) (Grant, AuthorizationCode, error)
	// AddRefreshToken stores a refresh token of an existing grant.
	AddRefreshToken(ctx context.Context, t RefreshToken) error
	// RotateRefreshToken atomically marks the token with oldHash used and
	// stores next in its grant (next.GrantID is taken from the old token),
	// provided the token is unused, unexpired at now and its grant not
	// revoked. It returns the grant and the old
	// token as it was before, and whether it rotated; errs.NotFound when no
	// such token exists.
	RotateRefreshToken(ctx context.Context, oldHash string, now time.Time, next RefreshToken) (Grant, RefreshToken, bool, error)
	// RevokeGrant ends a grant: none of its codes or refresh tokens work
	// any more. Revoking twice is harmless.
	RevokeGrant(ctx context.Context, grantID string, now time.Time) error
}
