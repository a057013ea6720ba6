package identity

import (
	"context"
	"sync"
	"sync/atomic"

	"atcp/internal/auth"
	"atcp/internal/errs"
)

// CredentialStore reads, in one indexed query per call, what decides
// whether an access token is still in force, and announces the changes
// that can end tokens.
type CredentialStore interface {
	// IntegrationCredential returns the integration with this id and
	// whether secretID names one of its secrets, or errs.NotFound.
	IntegrationCredential(ctx context.Context, integrationID, secretID string) (Integration, bool, error)
	// UserCredential returns the user with this id and whether grantID
	// names an unrevoked sign-in of that user, or errs.NotFound.
	UserCredential(ctx context.Context, userID, grantID string) (User, bool, error)
	// WatchCredentialChanges calls onChange with the subject (integration
	// or user id) of every committed change that can end tokens: deleting
	// an integration, a secret or a user, changing a user's scopes or
	// status, revoking a sign-in; changes by this instance are announced
	// before the writing call returns, those of other instances sharing
	// the database as soon as they arrive. It blocks until ctx ends.
	// onConnected runs when announcements start to arrive, onLost when
	// some may have been missed; after onLost nothing can be trusted to
	// be announced until onConnected runs again.
	WatchCredentialChanges(ctx context.Context, onConnected func(), onChange func(subject string), onLost func())
}

// CredentialCheck decides on every authenticated request whether the
// token's subject still exists and may act, the credential it came from
// (the secret of an integration, the sign-in of a person) is not revoked,
// and the subject still holds every scope on the token. Answers are cached
// per instance while the store's change feed is connected, and each
// announced change drops its subject's entries; while the feed is down,
// every check reads the store.
type CredentialCheck struct {
	store CredentialStore
	cache *standingCache
	tasks TaskSessions
}

// TaskSessions decides whether the access token of an onboarding
// magic-link session (auth.Principal.Task) is in force: its session is
// open (not ended, not expired on the security clock) and is the one the
// token names. Package onboarding/magic implements it with one indexed
// lookup and no cache, so that ending a session stops its token at once.
type TaskSessions interface {
	TaskSessionInForce(ctx context.Context, p *auth.Principal) (bool, error)
}

// SetTaskSessions makes the check ask ts about magic-link sessions;
// without it every magic-link session's token is refused.
func (c *CredentialCheck) SetTaskSessions(ts TaskSessions) { c.tasks = ts }

// NewCredentialCheck returns the check on store; its cache is used once
// Watch runs and the feed has connected.
func NewCredentialCheck(store CredentialStore) *CredentialCheck {
	return &CredentialCheck{store: store, cache: newStandingCache()}
}

// Watch keeps the cache current until ctx ends.
func (c *CredentialCheck) Watch(ctx context.Context) {
	c.store.WatchCredentialChanges(ctx,
		func() { c.cache.setEnabled(true) },
		c.cache.invalidate,
		func() { c.cache.setEnabled(false) })
}

// Caching reports whether checks are answered from the cache.
func (c *CredentialCheck) Caching() bool { return c.cache.enabled.Load() }

// InForce reports whether the verified token of p may still be used. A
// token without a credential (issued before tokens named theirs) has its
// subject and scopes checked only; a magic-link session's is asked of
// TaskSessions. An error means the store could not
// answer.
func (c *CredentialCheck) InForce(ctx context.Context, p *auth.Principal) (bool, error) {
	if p.IsTaskSession() {
		if c.tasks == nil {
			return false, nil
		}
		return c.tasks.TaskSessionInForce(ctx, p)
	}
	key := standingKey{m2m: p.IsM2M, credential: p.Credential}
	s, ok := c.cache.get(p.Subject, key)
	if !ok {
		gen := c.cache.generation.Load()
		var err error
		if s, err = c.load(ctx, p.Subject, key); err != nil {
			return false, err
		}
		c.cache.put(p.Subject, key, s, gen)
	}
	return s.allows(p), nil
}

func (c *CredentialCheck) load(ctx context.Context, subject string, key standingKey) (standing, error) {
	if key.m2m {
		in, secretFound, err := c.store.IntegrationCredential(ctx, subject, key.credential)
		if errs.Is(err, errs.NotFound) {
			return standing{}, nil
		}
		if err != nil {
			return standing{}, err
		}
		return standing{live: key.credential == "" || secretFound, org: in.OrganizationID, held: scopeMask(in.Scopes)}, nil
	}
	u, grantLive, err := c.store.UserCredential(ctx, subject, key.credential)
	if errs.Is(err, errs.NotFound) {
		return standing{}, nil
	}
	if err != nil {
		return standing{}, err
	}
	return standing{live: u.CanSignIn() && (key.credential == "" || grantLive), org: u.OrganizationID, held: scopeMask(u.Scopes)}, nil
}

// standingKey is what a cached answer depends on besides the subject.
type standingKey struct {
	m2m        bool
	credential string
}

// standing is what the store said about a subject and credential. The
// zero value refuses every token.
type standing struct {
	live bool   // the subject exists and may act, the credential is in force
	org  string // the subject's organisation
	held uint64 // the subject's scopes, one bit each (scopeBits)
}

func (s standing) allows(p *auth.Principal) bool {
	if !s.live || s.org != p.OrganizationID {
		return false
	}
	for sc := range p.Scopes {
		bit, known := scopeBits[sc]
		if !known || s.held&bit == 0 {
			return false
		}
	}
	return true
}

// scopeBits numbers the scopes so that a cached entry holds a subject's
// scopes in one word rather than a map.
var scopeBits = func() map[auth.Scope]uint64 {
	m := make(map[auth.Scope]uint64, len(auth.AllScopes))
	for i, sc := range auth.AllScopes {
		m[sc] = 1 << i
	}
	return m
}()

func scopeMask(set auth.ScopeSet) uint64 {
	var mask uint64
	for sc := range set {
		mask |= scopeBits[sc]
	}
	return mask
}

// standingCache holds answers by subject, so that an announced change
// drops every entry of its subject at once; a subject has few credentials
// in use at a time, kept in a short list. Like the asset cache, a
// generation counter keeps a read that started before an invalidation from
// storing its (possibly old) answer, and the cache is bypassed while
// disabled.
type standingCache struct {
	mu         sync.RWMutex
	bySubject  map[string][]standingEntry
	size       int
	generation atomic.Uint64
	enabled    atomic.Bool
}

type standingEntry struct {
	key standingKey
	standing
}

// Bounds of the cache: when it holds standingCacheMax entries (about 200
// bytes each with their strings) it is emptied, which only costs reads;
// a subject keeps its standingPerSubject most recent credentials.
const (
	standingCacheMax   = 100_000
	standingPerSubject = 8
)

func newStandingCache() *standingCache {
	return &standingCache{bySubject: map[string][]standingEntry{}}
}

func (c *standingCache) get(subject string, key standingKey) (standing, bool) {
	if !c.enabled.Load() {
		return standing{}, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range c.bySubject[subject] {
		if e.key == key {
			return e.standing, true
		}
	}
	return standing{}, false
}

func (c *standingCache) put(subject string, key standingKey, s standing, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.enabled.Load() || c.generation.Load() != gen {
		return
	}
	entries := c.bySubject[subject]
	for i, e := range entries {
		if e.key == key {
			entries[i].standing = s
			return
		}
	}
	if c.size >= standingCacheMax {
		clear(c.bySubject)
		c.size = 0
		entries = nil
	}
	if len(entries) == standingPerSubject {
		entries = append(entries[:0:0], entries[1:]...)
		c.size--
	}
	c.bySubject[subject] = append(entries, standingEntry{key: key, standing: s})
	c.size++
}

func (c *standingCache) invalidate(subject string) {
	c.mu.Lock()
	c.generation.Add(1)
	c.size -= len(c.bySubject[subject])
	delete(c.bySubject, subject)
	c.mu.Unlock()
}

// setEnabled switches the cache on (the feed is connected) or off (changes
// could be missed); either way it starts empty.
func (c *standingCache) setEnabled(on bool) {
	c.mu.Lock()
	c.generation.Add(1)
	clear(c.bySubject)
	c.size = 0
	c.enabled.Store(on)
	c.mu.Unlock()
}
