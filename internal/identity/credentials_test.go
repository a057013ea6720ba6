package identity

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
)

// fakeCredentialStore holds one integration with secret "s1" and one user
// with sign-in "g1"; reads counts the queries.
type fakeCredentialStore struct {
	integration *Integration
	user        *User
	grantLive   bool
	err         error
	reads       atomic.Int64
	// during runs inside a read, after it took its answer.
	during func()
}

func (f *fakeCredentialStore) IntegrationCredential(_ context.Context, id, secretID string) (Integration, bool, error) {
	f.reads.Add(1)
	in, err := f.integration, f.err
	if f.during != nil {
		f.during()
	}
	if err != nil {
		return Integration{}, false, err
	}
	if in == nil || in.ID != id {
		return Integration{}, false, errs.NotFoundf("integration %s not found", id)
	}
	return *in, secretID == "s1", nil
}

func (f *fakeCredentialStore) UserCredential(_ context.Context, id, grantID string) (User, bool, error) {
	f.reads.Add(1)
	if f.err != nil {
		return User{}, false, f.err
	}
	if f.user == nil || f.user.ID != id {
		return User{}, false, errs.NotFoundf("user not found")
	}
	return *f.user, grantID == "g1" && f.grantLive, nil
}

func (f *fakeCredentialStore) WatchCredentialChanges(ctx context.Context, onConnected func(), _ func(string), onLost func()) {
	onConnected()
	<-ctx.Done()
	onLost()
}

func activeUser() *User {
	return &User{ID: "u1", OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.AssetRead, auth.UsersRead),
		Status: UserActive, Enabled: true, PasswordHash: "argon2id-hash"}
}

func TestCredentialCheckRules(t *testing.T) {
	integration := func() *Integration {
		return &Integration{ID: "i1", OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.AssetRead, auth.MarketWrite)}
	}
	machine := func(credential string, scopes ...auth.Scope) *auth.Principal {
		return &auth.Principal{Subject: "i1", OrganizationID: "acme", IsM2M: true, Scopes: auth.NewScopeSet(scopes...), Credential: credential}
	}
	person := func(credential string, scopes ...auth.Scope) *auth.Principal {
		return &auth.Principal{Subject: "u1", OrganizationID: "acme", Scopes: auth.NewScopeSet(scopes...), Credential: credential}
	}
	cases := []struct {
		name  string
		store *fakeCredentialStore
		p     *auth.Principal
		want  bool
	}{
		{"integration with its secret", &fakeCredentialStore{integration: integration()}, machine("s1", auth.AssetRead, auth.MarketWrite), true},
		{"narrowed integration token", &fakeCredentialStore{integration: integration()}, machine("s1", auth.AssetRead), true},
		{"no scope at all", &fakeCredentialStore{integration: integration()}, machine("s1"), true},
		{"deleted secret", &fakeCredentialStore{integration: integration()}, machine("s2", auth.AssetRead), false},
		{"deleted integration", &fakeCredentialStore{}, machine("s1", auth.AssetRead), false},
		{"token without credential", &fakeCredentialStore{integration: integration()}, machine("", auth.AssetRead), true},
		{"token without credential, integration deleted", &fakeCredentialStore{}, machine("", auth.AssetRead), false},
		{"scope the integration does not hold", &fakeCredentialStore{integration: integration()}, machine("s1", auth.AssetRead, auth.AssetWrite), false},
		{"unknown scope", &fakeCredentialStore{integration: integration()}, machine("s1", "asset.everything"), false},
		{"other organisation", &fakeCredentialStore{integration: integration()},
			&auth.Principal{Subject: "i1", OrganizationID: "beta", IsM2M: true, Scopes: auth.NewScopeSet(auth.AssetRead), Credential: "s1"}, false},
		{"person's token claiming to be a machine", &fakeCredentialStore{user: activeUser(), grantLive: true},
			&auth.Principal{Subject: "u1", OrganizationID: "acme", IsM2M: true, Credential: "g1"}, false},

		{"person with a live sign-in", &fakeCredentialStore{user: activeUser(), grantLive: true}, person("g1", auth.AssetRead, auth.UsersRead), true},
		{"revoked sign-in", &fakeCredentialStore{user: activeUser()}, person("g1", auth.AssetRead), false},
		{"another sign-in", &fakeCredentialStore{user: activeUser(), grantLive: true}, person("g2", auth.AssetRead), false},
		{"deleted person", &fakeCredentialStore{grantLive: true}, person("g1", auth.AssetRead), false},
		{"removed scope", &fakeCredentialStore{user: activeUser(), grantLive: true}, person("g1", auth.AssetRead, auth.UsersWrite), false},
		{"disabled person", &fakeCredentialStore{user: func() *User { u := activeUser(); u.Enabled = false; return u }(), grantLive: true},
			person("g1", auth.AssetRead), false},
		{"invited person", &fakeCredentialStore{user: func() *User { u := activeUser(); u.Status = UserInvited; return u }(), grantLive: true},
			person("g1", auth.AssetRead), false},
		{"person token without credential", &fakeCredentialStore{user: activeUser()}, person("", auth.AssetRead), true},
		{"machine token for a person", &fakeCredentialStore{integration: integration()}, person("s1", auth.AssetRead), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check := NewCredentialCheck(c.store)
			got, err := check.InForce(context.Background(), c.p)
			if err != nil || got != c.want {
				t.Fatalf("InForce = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

func TestCredentialCheckStoreErrors(t *testing.T) {
	down := errors.New("connection refused")
	check := NewCredentialCheck(&fakeCredentialStore{user: activeUser(), grantLive: true, err: down})
	for _, p := range []*auth.Principal{
		{Subject: "i1", OrganizationID: "acme", IsM2M: true, Credential: "s1"},
		{Subject: "u1", OrganizationID: "acme", Credential: "g1"},
	} {
		if ok, err := check.InForce(context.Background(), p); ok || !errors.Is(err, down) {
			t.Fatalf("%s: %v %v", p.Subject, ok, err)
		}
	}
}

// watching returns a check on store whose cache is on until the test ends.
func watching(t *testing.T, store CredentialStore) *CredentialCheck {
	t.Helper()
	check := NewCredentialCheck(store)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		check.Watch(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for !check.Caching() {
		select {
		case <-done:
			t.Fatal("watch ended")
		case <-time.After(time.Millisecond):
		}
	}
	return check
}

func TestCredentialCheckCache(t *testing.T) {
	ctx := context.Background()
	p := &auth.Principal{Subject: "u1", OrganizationID: "acme", Scopes: auth.NewScopeSet(auth.AssetRead), Credential: "g1"}
	store := &fakeCredentialStore{user: activeUser(), grantLive: true}

	// Without the feed every check reads the store.
	unwatched := NewCredentialCheck(store)
	for range 3 {
		if ok, err := unwatched.InForce(ctx, p); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if store.reads.Load() != 3 {
		t.Fatalf("%d reads without the feed, want 3", store.reads.Load())
	}

	store.reads.Store(0)
	check := watching(t, store)
	for range 3 {
		if ok, _ := check.InForce(ctx, p); !ok {
			t.Fatal("refused")
		}
	}
	if store.reads.Load() != 1 {
		t.Fatalf("%d reads with the feed, want 1", store.reads.Load())
	}
	// Another credential of the same subject is a separate answer...
	other := *p
	other.Credential = "g2"
	if ok, _ := check.InForce(ctx, &other); ok || store.reads.Load() != 2 {
		t.Fatalf("other sign-in: %v after %d reads", ok, store.reads.Load())
	}
	// ...and an announced change drops both.
	store.grantLive = false
	check.cache.invalidate("u1")
	if ok, _ := check.InForce(ctx, p); ok || store.reads.Load() != 3 {
		t.Fatalf("after the change: %v after %d reads", ok, store.reads.Load())
	}
	if check.cache.size != 1 {
		t.Fatalf("size %d after invalidation and one read", check.cache.size)
	}
	// Losing the feed empties and bypasses the cache.
	check.cache.setEnabled(false)
	if _, ok := check.cache.get("u1", standingKey{credential: "g1"}); ok || check.cache.size != 0 {
		t.Fatal("cache used while the feed is lost")
	}
}

// TestCredentialCheckReadRacingAChange: a read that started before a
// change was announced does not put its possibly old answer in the cache.
func TestCredentialCheckReadRacingAChange(t *testing.T) {
	ctx := context.Background()
	store := &fakeCredentialStore{integration: &Integration{ID: "i1", OrganizationID: "acme"}}
	check := watching(t, store)
	p := &auth.Principal{Subject: "i1", OrganizationID: "acme", IsM2M: true, Credential: "s1"}
	store.during = func() {
		store.during = nil
		store.integration = nil // deleted and announced while the read was under way
		check.cache.invalidate("i1")
	}
	if ok, _ := check.InForce(ctx, p); !ok {
		t.Fatal("the read before the deletion answers what it read")
	}
	if ok, _ := check.InForce(ctx, p); ok {
		t.Fatal("the answer read before the deletion was cached")
	}
}

func TestCredentialCacheBounds(t *testing.T) {
	c := newStandingCache()
	c.setEnabled(true)
	live := standing{live: true}
	for i := range standingPerSubject + 3 {
		c.put("u1", standingKey{credential: strconv.Itoa(i)}, live, c.generation.Load())
	}
	if n := len(c.bySubject["u1"]); n != standingPerSubject || c.size != standingPerSubject {
		t.Fatalf("%d entries for one subject (size %d), want %d", n, c.size, standingPerSubject)
	}
	if _, ok := c.get("u1", standingKey{credential: "0"}); ok {
		t.Fatal("the oldest credential was kept")
	}
	if _, ok := c.get("u1", standingKey{credential: strconv.Itoa(standingPerSubject + 2)}); !ok {
		t.Fatal("the newest credential was dropped")
	}
	for i := range standingCacheMax {
		c.put(strconv.Itoa(i), standingKey{}, live, c.generation.Load())
	}
	if c.size > standingCacheMax || len(c.bySubject) > standingCacheMax {
		t.Fatalf("size %d, %d subjects: over the bound %d", c.size, len(c.bySubject), standingCacheMax)
	}
	if len(auth.AllScopes) > 64 {
		t.Fatalf("%d scopes do not fit the 64-bit scope mask", len(auth.AllScopes))
	}
}

// switchableStore answers for one integration until deleted is set.
type switchableStore struct {
	fakeCredentialStore
	deleted atomic.Bool
}

func (s *switchableStore) IntegrationCredential(_ context.Context, id, _ string) (Integration, bool, error) {
	deleted := s.deleted.Load()
	time.Sleep(50 * time.Microsecond) // a query takes a while: changes land meanwhile
	if deleted {
		return Integration{}, false, errs.NotFoundf("integration %s not found", id)
	}
	return Integration{ID: id, OrganizationID: "acme"}, true, nil
}

// TestCredentialCheckUnderConcurrentDeletion: once a deletion has been
// announced, no check that starts afterwards lets the token through,
// however many checks were reading and caching meanwhile.
func TestCredentialCheckUnderConcurrentDeletion(t *testing.T) {
	for round := range 20 {
		store := &switchableStore{}
		check := watching(t, store)
		p := &auth.Principal{Subject: "i1", OrganizationID: "acme", IsM2M: true, Credential: "s1"}
		var announced, violations atomic.Bool
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range 8 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					after := announced.Load()
					if ok, _ := check.InForce(context.Background(), p); ok && after {
						violations.Store(true)
					}
				}
			})
		}
		time.Sleep(time.Millisecond)
		store.deleted.Store(true) // the commit
		check.cache.invalidate("i1")
		announced.Store(true)
		time.Sleep(2 * time.Millisecond)
		close(stop)
		wg.Wait()
		if violations.Load() {
			t.Fatalf("round %d: a check after the announcement let the token through", round)
		}
	}
}
