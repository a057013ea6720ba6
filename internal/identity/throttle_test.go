package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
)

// fakeHash is the "hash" countingHasher accepts for secret.
func fakeHash(secret string) string { return "hash:" + auth.LookupHash(secret) }

// countingHasher records the argon2id work asked of it instead of doing it.
type countingHasher struct {
	mu       sync.Mutex
	verified []string // the hashes verified against, in order
	burns    int
	err      error         // returned instead of working, e.g. auth.ErrBusy
	delay    time.Duration // how long each call takes
}

func (h *countingHasher) Verify(_ context.Context, secret, encoded string) (bool, error) {
	time.Sleep(h.delay)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return false, h.err
	}
	h.verified = append(h.verified, encoded)
	return encoded == fakeHash(secret), nil
}

func (h *countingHasher) Burn(context.Context, string) error {
	time.Sleep(h.delay)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return h.err
	}
	h.burns++
	return nil
}

// work returns and resets what was done.
func (h *countingHasher) work() (verified []string, burns int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	verified, burns = h.verified, h.burns
	h.verified, h.burns = nil, 0
	return verified, burns
}

// secretsStore is a ClientStore holding one integration and its secrets.
type secretsStore struct {
	ClientStore
	mu      sync.Mutex
	in      Integration
	secrets []StoredSecret
	err     error
}

func (s *secretsStore) ClientSecrets(_ context.Context, clientID string) (Integration, []StoredSecret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return Integration{}, nil, s.err
	}
	if clientID != s.in.ID {
		return Integration{}, nil, errs.NotFoundf("no integration %s", clientID)
	}
	return s.in, append([]StoredSecret(nil), s.secrets...), nil
}

func (s *secretsStore) set(secrets ...StoredSecret) {
	s.mu.Lock()
	s.secrets = secrets
	s.mu.Unlock()
}

const (
	testClient   = "3f1e2d4c-0000-4000-8000-000000000001"
	newSecretID  = "7a6b5c4d-0000-4000-8000-000000000002"
	newSecretID2 = "7a6b5c4d-0000-4000-8000-000000000003"
)

func stored(id, value string) StoredSecret {
	return StoredSecret{SecretInfo: SecretInfo{ID: id, IntegrationID: testClient}, Hash: fakeHash(value)}
}

// throttleEnv is an OAuth provider on fakes, with a manual security clock.
type throttleEnv struct {
	o       *OAuth
	hasher  *countingHasher
	clients *secretsStore
	clock   *clock.Manual
}

func newThrottleEnv(t *testing.T, secrets ...StoredSecret) *throttleEnv {
	t.Helper()
	e := &throttleEnv{o: newTestOAuth(t), hasher: &countingHasher{},
		clients: &secretsStore{in: Integration{ID: testClient, OrganizationID: "acme"}, secrets: secrets},
		clock:   clock.NewManual(time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC))}
	e.o.clients, e.o.hasher, e.o.security = e.clients, e.hasher, e.clock
	return e
}

// TestAuthenticateIntegrationVerifiesOnce: a generated secret costs one
// verification against the one hash its id names, or one dummy
// verification; a secret without an id (bootstrap, or created before ids
// were embedded) is tried against each stored secret in turn, at most two.
func TestAuthenticateIntegrationVerifiesOnce(t *testing.T) {
	newer := newSecretValue(newSecretID)
	newer2 := newSecretValue(newSecretID2)
	const legacy, legacy2 = "atcp_legacylegacylegacylegacylegacylegacylegac", "operator-chosen-bootstrap-secret"
	twoNew := []StoredSecret{stored(newSecretID, newer), stored(newSecretID2, newer2)}
	mixed := []StoredSecret{stored("s-legacy", legacy), stored(newSecretID2, newer2)}
	twoLegacy := []StoredSecret{stored("s-legacy", legacy), stored("s-legacy2", legacy2)}
	wrongRandom := newSecretValue(newSecretID)

	for _, tc := range []struct {
		name     string
		stored   []StoredSecret
		client   string
		secret   string
		matched  string   // secret id, empty for a refusal
		verified []string // hashes verified against
		burns    int
	}{
		{"generated secret, second of two", twoNew, testClient, newer2, newSecretID2, []string{fakeHash(newer2)}, 0},
		{"generated secret, first of two", twoNew, testClient, newer, newSecretID, []string{fakeHash(newer)}, 0},
		{"generated shape, wrong random part", twoNew, testClient, wrongRandom, "", []string{fakeHash(newer)}, 0},
		{"generated shape, id not of this client", []StoredSecret{stored(newSecretID, newer)}, testClient, newer2, "", nil, 1},
		{"generated shape, unknown client", twoNew, "someone-else", newer, "", nil, 1},
		{"generated secret next to a legacy one", mixed, testClient, newer2, newSecretID2, []string{fakeHash(newer2)}, 0},
		{"legacy secret, first", twoLegacy, testClient, legacy, "s-legacy", []string{fakeHash(legacy)}, 0},
		{"legacy secret, second: two verifications", twoLegacy, testClient, legacy2, "s-legacy2", []string{fakeHash(legacy), fakeHash(legacy2)}, 0},
		{"legacy shape, wrong: every stored secret once", mixed, testClient, "not-the-secret", "", []string{fakeHash(legacy), fakeHash(newer2)}, 0},
		{"legacy shape, unknown client", twoLegacy, "someone-else", legacy, "", nil, 1},
		{"no secret at all: no work", twoNew, testClient, "", "", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newThrottleEnv(t, tc.stored...)
			in, secretID, err := e.o.authenticateIntegration(context.Background(), tc.client, tc.secret)
			verified, burns := e.hasher.work()
			if strings.Join(verified, "|") != strings.Join(tc.verified, "|") || burns != tc.burns {
				t.Errorf("verified %q and burned %d, want %q and %d", verified, burns, tc.verified, tc.burns)
			}
			if len(verified)+burns > MaxActiveSecrets {
				t.Errorf("%d verifications in one attempt", len(verified)+burns)
			}
			if tc.matched == "" {
				var oe *OAuthError
				if !errors.As(err, &oe) || oe.Code != OAuthInvalidClient || secretID != "" || in.ID != "" {
					t.Fatalf("got %v %q %v, want invalid_client", in, secretID, err)
				}
				return
			}
			if err != nil || secretID != tc.matched || in.ID != testClient {
				t.Fatalf("got %v %q %v, want secret %s", in, secretID, err, tc.matched)
			}
		})
	}
}

// TestVerifiedSecretsAreRemembered: the same client id and secret pass
// again without argon2id work until VerifiedSecretTTL runs out, and only
// while that secret with that hash is still stored; no secret is kept.
func TestVerifiedSecretsAreRemembered(t *testing.T) {
	ctx := context.Background()
	value, other := newSecretValue(newSecretID), newSecretValue(newSecretID2)
	e := newThrottleEnv(t, stored(newSecretID, value), stored(newSecretID2, other))
	authenticate := func(client, secret string) (string, int, error) {
		t.Helper()
		_, id, err := e.o.authenticateIntegration(ctx, client, secret)
		verified, burns := e.hasher.work()
		return id, len(verified) + burns, err
	}

	if id, work, err := authenticate(testClient, value); err != nil || id != newSecretID || work != 1 {
		t.Fatalf("first: %q, %d verifications, %v", id, work, err)
	}
	e.clock.Advance(VerifiedSecretTTL - time.Second)
	if id, work, err := authenticate(testClient, value); err != nil || id != newSecretID || work != 0 {
		t.Fatalf("again within the TTL: %q, %d verifications, %v", id, work, err)
	}
	if dump := fmt.Sprintf("%+v", e.o.verified.entries); strings.Contains(dump, value) || strings.Contains(dump, value[len(value)-43:]) {
		t.Fatal("the cache holds the secret")
	}
	// A wrong secret or another client id is not a hit.
	if _, work, err := authenticate(testClient, newSecretValue(newSecretID)); err == nil || work != 1 {
		t.Fatalf("wrong secret: %d verifications, %v", work, err)
	}
	if _, work, err := authenticate("someone-else", value); err == nil || work != 1 {
		t.Fatalf("other client: %d verifications, %v", work, err)
	}

	// Expired: verified again, and remembered anew.
	e.clock.Advance(time.Second)
	if _, work, err := authenticate(testClient, value); err != nil || work != 1 {
		t.Fatalf("after the TTL: %d verifications, %v", work, err)
	}
	if _, work, err := authenticate(testClient, value); err != nil || work != 0 {
		t.Fatalf("remembered anew: %d verifications, %v", work, err)
	}

	// The secret is deleted: refused at once.
	e.clients.set(stored(newSecretID2, other))
	if _, work, err := authenticate(testClient, value); err == nil || work != 1 {
		t.Fatalf("deleted secret: %d verifications, %v", work, err)
	}
	// Stored again with another hash (same id): not a hit either.
	e.clients.set(stored(newSecretID, "rotated"), stored(newSecretID2, other))
	if _, work, err := authenticate(testClient, value); err == nil || work != 1 {
		t.Fatalf("changed hash: %d verifications, %v", work, err)
	}
}

// TestClientFailureLimit: after ClientFailureBurst failures a client id's
// attempts are refused without a check until the bucket refills, except
// a remembered secret; other client ids are not affected; successes and
// checks that could not be made do not count.
func TestClientFailureLimit(t *testing.T) {
	ctx := context.Background()
	good, spare := newSecretValue(newSecretID), newSecretValue(newSecretID2)
	e := newThrottleEnv(t, stored(newSecretID, good), stored(newSecretID2, spare))
	attempt := func(client, secret string) (int, error) {
		t.Helper()
		_, _, err := e.o.authenticateIntegration(ctx, client, secret)
		verified, burns := e.hasher.work()
		return len(verified) + burns, err
	}
	bad := newSecretValue(newSecretID)

	if _, err := attempt(testClient, good); err != nil {
		t.Fatal(err)
	}
	for i := range ClientFailureBurst - 1 {
		if work, err := attempt(testClient, bad); work != 1 || !isInvalidClient(err) {
			t.Fatalf("failure %d: %d verifications, %v", i+1, work, err)
		}
	}
	// Neither a success nor an attempt the Hasher had no slot for counts.
	e.hasher.err = auth.ErrBusy
	if _, err := attempt(testClient, bad); !errors.Is(err, auth.ErrBusy) {
		t.Fatalf("busy: %v", err)
	}
	e.hasher.err = nil
	if _, err := attempt(testClient, spare); err != nil {
		t.Fatal(err)
	}
	if work, err := attempt(testClient, bad); work != 1 || !isInvalidClient(err) {
		t.Fatalf("last failure of the burst: %d verifications, %v", work, err)
	}

	var tooMany *TooManyFailures
	for _, secret := range []string{bad, newSecretValue(newSecretID2), "legacy-shaped"} {
		if work, err := attempt(testClient, secret); work != 0 || !errors.As(err, &tooMany) {
			t.Fatalf("over the limit: %d verifications, %v", work, err)
		}
	}
	if !near(tooMany.RetryAfter, ClientFailureEvery) || tooMany.RetryAfterSeconds() != int(ClientFailureEvery/time.Second) {
		t.Fatalf("retry after %v (%d s)", tooMany.RetryAfter, tooMany.RetryAfterSeconds())
	}
	// The remembered secrets still pass; another client id is checked.
	for _, secret := range []string{good, spare} {
		if work, err := attempt(testClient, secret); work != 0 || err != nil {
			t.Fatalf("remembered secret over the limit: %d verifications, %v", work, err)
		}
	}
	if work, err := attempt("someone-else", bad); work != 1 || !isInvalidClient(err) {
		t.Fatalf("another client id: %d verifications, %v", work, err)
	}

	// One failure comes back per ClientFailureEvery.
	e.clock.Advance(ClientFailureEvery / 2)
	if work, err := attempt(testClient, bad); work != 0 || !errors.As(err, &tooMany) || !near(tooMany.RetryAfter, ClientFailureEvery/2) {
		t.Fatalf("half refilled: %d verifications, %v", work, err)
	}
	e.clock.Advance(ClientFailureEvery / 2)
	if work, err := attempt(testClient, bad); work != 1 || !isInvalidClient(err) {
		t.Fatalf("refilled: %d verifications, %v", work, err)
	}
	if work, err := attempt(testClient, bad); work != 0 || !errors.As(err, &tooMany) {
		t.Fatalf("empty again: %d verifications, %v", work, err)
	}
	// An uncached good secret waits like anyone else.
	e.o.verified = newVerifiedSecrets()
	if work, err := attempt(testClient, good); work != 0 || !errors.As(err, &tooMany) {
		t.Fatalf("forgotten good secret over the limit: %d verifications, %v", work, err)
	}
}

// TestClientFailureLimitUnderConcurrency: concurrent bad attempts for one
// client id run at most ClientFailureBurst checks; the rest are refused
// without one.
func TestClientFailureLimitUnderConcurrency(t *testing.T) {
	e := newThrottleEnv(t, stored(newSecretID, newSecretValue(newSecretID)))
	e.hasher.delay = 20 * time.Millisecond // the checks overlap
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for range 50 {
		wg.Go(func() {
			_, _, err := e.o.authenticateIntegration(context.Background(), testClient, newSecretValue(newSecretID))
			var tooMany *TooManyFailures
			outcome := "other"
			switch {
			case isInvalidClient(err):
				outcome = "invalid_client"
			case errors.As(err, &tooMany):
				outcome = "too_many"
			}
			mu.Lock()
			outcomes[outcome]++
			mu.Unlock()
		})
	}
	wg.Wait()
	verified, burns := e.hasher.work()
	if len(verified)+burns != ClientFailureBurst || outcomes["invalid_client"] != ClientFailureBurst || outcomes["too_many"] != 50-ClientFailureBurst {
		t.Fatalf("%d checks, outcomes %v", len(verified)+burns, outcomes)
	}
}

// usersStore is a DirectoryStore holding one person.
type usersStore struct {
	DirectoryStore
	user User
	err  error
}

func (s *usersStore) UserByEmail(_ context.Context, email string) (User, error) {
	if s.err != nil {
		return User{}, s.err
	}
	if email != s.user.Email {
		return User{}, errs.NotFoundf("no user")
	}
	return s.user, nil
}

// TestSignInFailureLimit: after SignInFailureBurst failed sign-ins an
// address (however it is capitalised) is refused without a check until
// the bucket refills; other addresses are not affected; a store outage
// or a busy Hasher is not a failure, and the person gets in afterwards.
func TestSignInFailureLimit(t *testing.T) {
	ctx := context.Background()
	e := newThrottleEnv(t)
	users := &usersStore{user: User{ID: "u1", OrganizationID: "acme", Email: "ops@acme.example",
		PasswordHash: fakeHash("the right password"), Status: UserActive, Enabled: true}}
	e.o.users = users
	check := func(email, password string) (int, error) {
		t.Helper()
		_, err := e.o.checkPassword(ctx, email, password)
		verified, burns := e.hasher.work()
		return len(verified) + burns, err
	}

	for i := range SignInFailureBurst - 1 {
		if work, err := check("Ops@ACME.example ", "wrong"); work != 1 || !errors.Is(err, ErrSignInFailed) {
			t.Fatalf("failure %d: %d verifications, %v", i+1, work, err)
		}
	}
	users.err = errs.E(errs.Unavailable, errs.CodeStoreUnavailable, "database unreachable")
	if work, err := check("ops@acme.example", "wrong"); work != 0 || !errs.IsUnavailable(err) {
		t.Fatalf("store down: %d verifications, %v", work, err)
	}
	users.err = nil
	e.hasher.err = auth.ErrBusy
	if _, err := check("ops@acme.example", "wrong"); !errors.Is(err, auth.ErrBusy) {
		t.Fatalf("busy: %v", err)
	}
	e.hasher.err = nil
	if work, err := check("ops@acme.example", "wrong"); work != 1 || !errors.Is(err, ErrSignInFailed) {
		t.Fatalf("last failure of the burst: %d verifications, %v", work, err)
	}

	var tooMany *TooManyFailures
	if work, err := check("OPS@acme.example", "the right password"); work != 0 || !errors.As(err, &tooMany) || !near(tooMany.RetryAfter, SignInFailureEvery) {
		t.Fatalf("over the limit: %d verifications, %v", work, err)
	}
	// Unknown addresses are limited alike, so a refusal tells nothing.
	if work, err := check("nobody@acme.example", "x"); work != 1 || !errors.Is(err, ErrSignInFailed) {
		t.Fatalf("another address: %d verifications, %v", work, err)
	}
	e.clock.Advance(SignInFailureEvery)
	if _, err := check("ops@acme.example", "the right password"); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
}

// near compares waits computed in floating point.
func near(got, want time.Duration) bool {
	return got > want-time.Millisecond && got < want+time.Millisecond
}

func isInvalidClient(err error) bool {
	var oe *OAuthError
	return errors.As(err, &oe) && oe.Code == OAuthInvalidClient
}

// TestBootstrapSecretMustNotLookGenerated: an operator's bootstrap secret
// of the generated shape would name an id it does not have and never
// authenticate, so it is refused at start.
func TestBootstrapSecretMustNotLookGenerated(t *testing.T) {
	c := NewClients(nil, clock.NewManual(time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)))
	err := c.EnsureIntegration(context.Background(), auth.PlatformOrganization, "boot", "bootstrap",
		newSecretValue(newSecretID), auth.NewScopeSet(auth.AssetRead))
	if err == nil || !strings.Contains(err.Error(), "shape of a generated secret") {
		t.Fatalf("got %v", err)
	}
}

// TestFailureLimiterForgetsRefilledKeys: a flood of distinct keys does not
// grow the limiter's map beyond the keys that failed lately.
func TestFailureLimiterForgetsRefilledKeys(t *testing.T) {
	l := newFailureLimiter(2, time.Second)
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	for i := range 3 * minSweep {
		a, _, ok := l.begin(fmt.Sprint("failing-", i), now)
		if !ok {
			t.Fatal("a first attempt refused")
		}
		a.end(true, now)
	}
	if len(l.buckets) != 3*minSweep {
		t.Fatalf("%d buckets for %d keys that just failed", len(l.buckets), 3*minSweep)
	}
	now = now.Add(time.Second) // every failure is refilled
	for i := range 5 * minSweep {
		a, _, _ := l.begin(fmt.Sprint("passing-", i), now)
		a.end(false, now)
	}
	if len(l.buckets) > 2*minSweep {
		t.Fatalf("%d buckets kept", len(l.buckets))
	}
}

// TestVerifiedSecretsStayBounded: the cache never holds more than
// maxVerifiedSecrets entries, and an expired entry goes first.
func TestVerifiedSecretsStayBounded(t *testing.T) {
	c := newVerifiedSecrets()
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	s := stored(newSecretID, "value")
	c.remember(c.digest("old", "secret"), s, now)
	later := now.Add(VerifiedSecretTTL)
	for i := range maxVerifiedSecrets + 10 {
		c.remember(c.digest(fmt.Sprint("client-", i), "secret"), s, later)
		if len(c.entries) > maxVerifiedSecrets {
			t.Fatalf("%d entries", len(c.entries))
		}
	}
	if _, ok := c.entries[c.digest("old", "secret")]; ok {
		t.Fatal("the expired entry survived a full cache")
	}
	if _, ok := c.lookup(c.digest(fmt.Sprint("client-", maxVerifiedSecrets+9), "secret"), []StoredSecret{s}, later); !ok {
		t.Fatal("the newest entry is missing")
	}
}
