package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// MaxActiveSecrets is how many secrets an integration holds at most, so
// that secrets can be rotated without downtime (document 1, Limits).
const MaxActiveSecrets = 2

// AllowAnotherSecret is the rule of adding a secret to an integration
// holding held: at most MaxActiveSecrets in all. The store runs it in the
// transaction of the insert.
func AllowAnotherSecret(held int) error {
	if held >= MaxActiveSecrets {
		return errs.Conflictf(CodeSecretLimitReached,
			"the integration already has %d active secrets; delete one before adding another", held)
	}
	return nil
}

// AllowSecretDeletion is the rule of deleting a secret of an integration
// holding held: never the last one. The store runs it in the transaction
// of the delete.
func AllowSecretDeletion(held int) error {
	if held == 1 {
		return errs.Conflictf(CodeLastSecret,
			"this is the integration's only secret; add a new secret first, or delete the integration")
	}
	return nil
}

// MaxIntegrationNameLength bounds an integration's name, in characters.
const MaxIntegrationNameLength = 100

// minBootstrapSecretLength keeps guessable secrets out of the bootstrap
// integration, which holds every scope of the platform.
const minBootstrapSecretLength = 16

// Clients manages integrations and their secrets.
type Clients struct {
	store  ClientStore
	clock  clock.Clock
	hasher *auth.Hasher
}

// NewClients returns the integration service. It hashes secrets with a
// Hasher of its own until SetHasher gives it the process's shared one.
func NewClients(store ClientStore, clk clock.Clock) *Clients {
	return &Clients{store: store, clock: clk, hasher: auth.NewCoreHasher()}
}

// SetHasher makes the service hash secrets with h, the Hasher every
// argon2id call of the process shares.
func (c *Clients) SetHasher(h *auth.Hasher) { c.hasher = h }

// NewIntegration is the request to create an integration.
type NewIntegration struct {
	Name   string
	Scopes []string
	// OrganizationID is the organisation to create it in; empty means the
	// caller's own, except for platform administrators, who must name it.
	OrganizationID string
}

// CreatedSecret is a secret together with its value, which is shown only
// once, on creation.
type CreatedSecret struct {
	SecretInfo
	Value string
}

// List returns the integrations the caller can see.
func (c *Clients) List(ctx context.Context, caller *auth.Principal) ([]Integration, error) {
	return c.store.Integrations(ctx, caller.Visibility())
}

// Create registers an integration with a first secret.
func (c *Clients) Create(ctx context.Context, caller *auth.Principal, req NewIntegration) (Integration, CreatedSecret, error) {
	name, scopes, err := validateNewIntegration(caller, req)
	if err != nil {
		return Integration{}, CreatedSecret{}, err
	}
	org := req.OrganizationID
	if org == "" {
		org = caller.OrganizationID
	}
	if org != caller.OrganizationID && !caller.IsPlatformAdmin() {
		return Integration{}, CreatedSecret{}, errs.Forbiddenf(CodePlatformAdminRequired,
			"only platform administrators may create integrations for another organisation")
	}
	if missing := NotHeld(caller.Scopes, scopes); len(missing) > 0 {
		return Integration{}, CreatedSecret{}, errs.Forbiddenf(CodeScopeNotHeld,
			"a caller can grant only scopes it holds itself; not held: %s", strings.Join(auth.ScopeNames(missing), ", "))
	}
	now := c.clock.Now()
	in := Integration{ID: uuid.NewString(), OrganizationID: org, Name: name, Scopes: scopes, CreatedAt: now}
	first, value, err := c.newSecret(ctx, in.ID, now)
	if err != nil {
		return Integration{}, CreatedSecret{}, err
	}
	if err := c.store.CreateIntegration(ctx, in, first); err != nil {
		if errors.Is(err, ErrUnknownOrganization) {
			return Integration{}, CreatedSecret{}, errs.Invalidf("body.organization_id", org, "no such organisation")
		}
		return Integration{}, CreatedSecret{}, err
	}
	return in, CreatedSecret{SecretInfo: first.SecretInfo, Value: value}, nil
}

// actOn checks that caller may act on the visible integration id
// (mayActOn); every operation on an existing integration does. The check
// reads the integration outside the transaction in which the store then
// changes it. That leaves no window: what the rule reads, the
// integration's organisation and scopes, never changes after creation, and
// an id never comes back with other ones (new ids are UUIDs; the bootstrap
// integration's id returns only on a restart, again of the platform with
// every scope). Should integrations' scopes become changeable, this check
// must move into the store's transaction, as the users' checks are.
func (c *Clients) actOn(ctx context.Context, caller *auth.Principal, id string) error {
	in, err := c.store.Integration(ctx, caller.Visibility(), id)
	if err != nil {
		return err
	}
	return mayActOn(caller, integrationPrincipal(in))
}

// Delete removes an integration and its secrets. An integration cannot
// delete itself: that would cut off the caller in the middle of its work
// and leave nobody holding its secret able to notice.
func (c *Clients) Delete(ctx context.Context, caller *auth.Principal, id string) error {
	vis := caller.Visibility()
	in, err := c.store.Integration(ctx, vis, id)
	if err != nil {
		return err
	}
	if caller.IsM2M && caller.ClientID == id {
		return errs.Conflictf(CodeCannotDeleteSelf, "an integration cannot delete itself; use another credential")
	}
	if err := mayActOn(caller, integrationPrincipal(in)); err != nil {
		return err
	}
	return c.store.DeleteIntegration(ctx, vis, id)
}

// Secrets lists an integration's secrets, never their values.
func (c *Clients) Secrets(ctx context.Context, caller *auth.Principal, integrationID string) ([]SecretInfo, error) {
	if err := c.actOn(ctx, caller, integrationID); err != nil {
		return nil, err
	}
	return c.store.Secrets(ctx, caller.Visibility(), integrationID)
}

// AddSecret creates another secret for an integration, at most
// MaxActiveSecrets in all. An integration may add secrets to itself: it
// holds its own scopes.
func (c *Clients) AddSecret(ctx context.Context, caller *auth.Principal, integrationID string) (CreatedSecret, error) {
	if err := c.actOn(ctx, caller, integrationID); err != nil {
		return CreatedSecret{}, err
	}
	s, value, err := c.newSecret(ctx, integrationID, c.clock.Now())
	if err != nil {
		return CreatedSecret{}, err
	}
	if err := c.store.AddSecret(ctx, caller.Visibility(), s, AllowAnotherSecret); err != nil {
		return CreatedSecret{}, err
	}
	return CreatedSecret{SecretInfo: s.SecretInfo, Value: value}, nil
}

// DeleteSecret deletes a secret; the last one cannot be deleted (rotate by
// adding a new secret first, or delete the integration).
func (c *Clients) DeleteSecret(ctx context.Context, caller *auth.Principal, integrationID, secretID string) error {
	if err := c.actOn(ctx, caller, integrationID); err != nil {
		return err
	}
	return c.store.DeleteSecret(ctx, caller.Visibility(), integrationID, secretID, AllowSecretDeletion)
}

// EnsureIntegration creates, unless an integration with clientID exists,
// an integration of org with exactly this client id and secret holding
// scopes; an existing one is left unchanged. It is for the bootstrap
// credentials of the deployment (ATCP_BOOTSTRAP_CLIENT_ID/SECRET), so the
// scopes are not limited to those integrations may be granted. The
// organisation must exist.
func (c *Clients) EnsureIntegration(ctx context.Context, org, clientID, name, secret string, scopes auth.ScopeSet) error {
	switch {
	case clientID == "" || clientID != strings.TrimSpace(clientID) || len(clientID) > 200:
		return fmt.Errorf("bootstrap client id %q: want 1 to 200 characters without surrounding spaces", clientID)
	case clientID == ConsoleClientID:
		return fmt.Errorf("bootstrap client id %q is reserved for the console", clientID)
	case utf8.RuneCountInString(secret) < minBootstrapSecretLength:
		return fmt.Errorf("bootstrap client secret: want at least %d characters", minBootstrapSecretLength)
	}
	if _, named := secretIDOf(secret); named {
		return fmt.Errorf("bootstrap client secret: must not have the shape of a generated secret (%s<uuid>_...)", secretPrefix)
	}
	trimmed, problem := checkIntegrationName(name)
	if problem != "" {
		return fmt.Errorf("bootstrap integration name %q: %s", name, problem)
	}
	for sc := range scopes {
		if !auth.Known(sc) {
			return fmt.Errorf("bootstrap integration: unknown scope %q", sc)
		}
	}
	now := c.clock.Now()
	first, err := c.storedSecret(ctx, uuid.NewString(), clientID, secret, now)
	if err != nil {
		return err
	}
	in := Integration{ID: clientID, OrganizationID: org, Name: trimmed, Scopes: scopes, CreatedAt: now}
	if _, err := c.store.EnsureIntegration(ctx, in, first); err != nil {
		if errors.Is(err, ErrUnknownOrganization) {
			return fmt.Errorf("bootstrap integration: organisation %q does not exist", org)
		}
		return err
	}
	return nil
}

// validateNewIntegration checks caller's creation request and returns the
// normalised name and the scope set; every offending field is named.
func validateNewIntegration(caller *auth.Principal, req NewIntegration) (string, auth.ScopeSet, error) {
	var v errs.Validation
	name, problem := checkIntegrationName(req.Name)
	if problem != "" {
		v.Add("body.name", problem, req.Name)
	}
	if req.Scopes == nil {
		v.Add("body.scopes", "required", nil)
	}
	scopes := auth.ScopeSet{}
	for i, s := range req.Scopes {
		if !slices.Contains(auth.IntegrationGrantable, auth.Scope(s)) {
			v.Add(fmt.Sprintf("body.scopes[%d]", i), "not a scope integrations may be granted; grantable: "+
				strings.Join(auth.ScopeNames(auth.IntegrationGrantable), ", "), s)
			continue
		}
		scopes[auth.Scope(s)] = struct{}{}
	}
	requireNamedOrganization(&v, caller, req.OrganizationID)
	return name, scopes, v.Err()
}

// checkIntegrationName returns the name without surrounding white space,
// or why it is not acceptable.
func checkIntegrationName(raw string) (string, string) {
	name := strings.TrimSpace(raw)
	switch {
	case name == "":
		return "", "must not be empty"
	case !utf8.ValidString(name):
		return "", "must be valid UTF-8"
	case utf8.RuneCountInString(name) > MaxIntegrationNameLength:
		return "", fmt.Sprintf("must be at most %d characters", MaxIntegrationNameLength)
	case strings.ContainsFunc(name, unicode.IsControl):
		return "", "must not contain control characters"
	}
	return name, ""
}

// The shape of generated secrets: secretPrefix, the secret's id, "_" and
// 32 random bytes in base64url. The prefix lets secret scanners recognise a
// leaked secret; the id tells the token endpoint which one stored hash to
// verify, so that an attempt costs one argon2id verification however many
// secrets the integration holds. The id is not secret (the API lists it),
// and the 256 random bits alone make the secret unguessable.
const (
	secretPrefix       = "atcp_"
	secretIDLength     = 36 // a UUID
	secretRandomLength = 43 // auth.RandomToken(32)
)

// newSecret makes a secret for an integration: its stored form and its
// value, which names the secret's id.
func (c *Clients) newSecret(ctx context.Context, integrationID string, now time.Time) (StoredSecret, string, error) {
	id := uuid.NewString()
	value := newSecretValue(id)
	s, err := c.storedSecret(ctx, id, integrationID, value, now)
	return s, value, err
}

// newSecretValue returns a new value for the secret with this id.
func newSecretValue(id string) string { return secretPrefix + id + "_" + auth.RandomToken(32) }

// secretIDOf returns the id a secret of the generated shape names.
func secretIDOf(value string) (string, bool) {
	rest, ok := strings.CutPrefix(value, secretPrefix)
	if !ok || len(rest) != secretIDLength+1+secretRandomLength || rest[secretIDLength] != '_' {
		return "", false
	}
	return rest[:secretIDLength], true
}

func (c *Clients) storedSecret(ctx context.Context, id, integrationID, value string, now time.Time) (StoredSecret, error) {
	hash, err := c.hasher.Hash(ctx, value)
	if err != nil {
		return StoredSecret{}, err
	}
	return StoredSecret{SecretInfo: SecretInfo{ID: id, IntegrationID: integrationID, CreatedAt: now}, Hash: hash}, nil
}
