package identity_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// target is the user or integration an operation acts on.
type target struct {
	user        bool
	id, email   string // email for users only
	org         string
	scopes      auth.ScopeSet
	linkHash    string // a user's set-password link from before the operation
	secretIDs   []string
	secondToDel string // an integration's second secret, for deleting
}

// principal is the target's own token, as it or the person would hold.
func (tg target) principal(scopes auth.ScopeSet) *auth.Principal {
	if tg.user {
		return &auth.Principal{Subject: tg.id, OrganizationID: tg.org, Scopes: scopes, Email: tg.email, ClientID: identity.ConsoleClientID}
	}
	return &auth.Principal{Subject: tg.id, OrganizationID: tg.org, Scopes: scopes, IsM2M: true, ClientID: tg.id}
}

type matrixEnv struct {
	b       store.Backend
	dir     *identity.Directory
	clients *identity.Clients
	n       int
}

var everyOrg = auth.Visibility{All: true}

// integration stores an integration with secrets secrets (stub hashes:
// nothing here authenticates with them).
func (e *matrixEnv) integration(t *testing.T, org string, scopes auth.ScopeSet, secrets int) target {
	t.Helper()
	ctx := context.Background()
	e.n++
	tg := target{id: uuid.NewString(), org: org, scopes: scopes}
	in := identity.Integration{ID: tg.id, OrganizationID: org, Name: fmt.Sprintf("target %d", e.n), Scopes: scopes, CreatedAt: testkit.Start}
	for i := range secrets {
		s := identity.StoredSecret{SecretInfo: identity.SecretInfo{ID: uuid.NewString(), IntegrationID: tg.id,
			CreatedAt: testkit.Start.Add(time.Duration(i) * time.Second)}, Hash: "stub"}
		var err error
		if i == 0 {
			err = e.b.Clients().CreateIntegration(ctx, in, s)
		} else {
			err = e.b.Clients().AddSecret(ctx, everyOrg, s, identity.AllowAnotherSecret)
			tg.secondToDel = s.ID
		}
		if err != nil {
			t.Fatal(err)
		}
		tg.secretIDs = append(tg.secretIDs, s.ID)
	}
	return tg
}

// user stores an active person with a pending set-password link.
func (e *matrixEnv) user(t *testing.T, org string, scopes auth.ScopeSet) target {
	t.Helper()
	e.n++
	tg := target{user: true, id: uuid.NewString(), email: fmt.Sprintf("target-%d@%s.test", e.n, org), org: org, scopes: scopes,
		linkHash: fmt.Sprintf("pending-link-%d", e.n)}
	u := identity.User{ID: tg.id, OrganizationID: org, Email: tg.email, Scopes: scopes, Status: identity.UserActive, Enabled: true,
		PasswordHash: "stub", CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
	link := identity.SetPasswordLink{TokenHash: tg.linkHash, UserID: u.ID, OrganizationID: org, CreatedAt: testkit.Start,
		ExpiresAt: testkit.Start.Add(identity.SetPasswordLinkTTL)}
	if err := e.b.Directory().CreateUser(context.Background(), u, &link); err != nil {
		t.Fatal(err)
	}
	return tg
}

// state summarises what the store holds of a target, to tell whether an
// operation changed it.
func (e *matrixEnv) state(t *testing.T, tg target) string {
	t.Helper()
	ctx := context.Background()
	if tg.user {
		u, err := e.b.Directory().UserByEmail(ctx, tg.email)
		if errs.Is(err, errs.NotFound) {
			return "gone"
		} else if err != nil {
			t.Fatal(err)
		}
		_, _, err = e.b.Directory().PasswordLink(ctx, tg.linkHash)
		return fmt.Sprintf("scopes=%q pending link kept=%v", u.Scopes.String(), err == nil)
	}
	secrets, err := e.b.Clients().Secrets(ctx, everyOrg, tg.id)
	if errs.Is(err, errs.NotFound) {
		return "gone"
	} else if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d secrets", len(secrets))
}

// operation is one identity operation on an existing principal.
type operation struct {
	name    string
	user    bool // acts on a user, else on an integration
	secrets int  // an integration target's secrets
	do      func(ctx context.Context, e *matrixEnv, caller *auth.Principal, tg target) error
}

// The operations, in the order of the matrix's columns.
var operations = []operation{
	{name: "delete integration", secrets: 1, do: func(ctx context.Context, e *matrixEnv, p *auth.Principal, tg target) error {
		return e.clients.Delete(ctx, p, tg.id)
	}},
	{name: "list secrets", secrets: 1, do: func(ctx context.Context, e *matrixEnv, p *auth.Principal, tg target) error {
		list, err := e.clients.Secrets(ctx, p, tg.id)
		if err == nil && (len(list) != 1 || list[0].ID != tg.secretIDs[0]) {
			return fmt.Errorf("listed %+v", list)
		}
		return err
	}},
	{name: "add secret", secrets: 1, do: func(ctx context.Context, e *matrixEnv, p *auth.Principal, tg target) error {
		_, err := e.clients.AddSecret(ctx, p, tg.id)
		return err
	}},
	{name: "delete secret", secrets: 2, do: func(ctx context.Context, e *matrixEnv, p *auth.Principal, tg target) error {
		return e.clients.DeleteSecret(ctx, p, tg.id, tg.secondToDel)
	}},
	{name: "delete user", user: true, do: func(ctx context.Context, e *matrixEnv, p *auth.Principal, tg target) error {
		return e.dir.DeleteUser(ctx, p, tg.email)
	}},
	{name: "replace scopes", user: true, do: func(ctx context.Context, e *matrixEnv, p *auth.Principal, tg target) error {
		_, err := e.dir.ReplaceScopes(ctx, p, tg.email, []string{"asset.read", "users.read"})
		return err
	}},
	{name: "issue password link", user: true, do: func(ctx context.Context, e *matrixEnv, p *auth.Principal, tg target) error {
		_, _, err := e.dir.IssuePasswordLink(ctx, p, tg.email)
		return err
	}},
}

// Outcomes of the matrix.
const (
	pass = "pass"
	e404 = "404"                                           // not visible
	e403 = "403 " + string(identity.CodeStrongerPrincipal) // the target holds a scope the caller lacks
	e409 = "409"                                           // the self rules
)

func outcome(err error) string {
	var de *errs.Error
	switch {
	case err == nil:
		return pass
	case !errors.As(err, &de):
		return "error " + err.Error()
	case de.Kind == errs.NotFound:
		return e404
	case de.Kind == errs.Forbidden:
		return "403 " + string(de.Code)
	case de.Kind == errs.Conflict && (de.Code == identity.CodeCannotDeleteSelf || de.Code == identity.CodeCannotChangeOwnScopes):
		return e409
	}
	return fmt.Sprintf("kind %d %s", de.Kind, de.Code)
}

// TestActingOnAPrincipal is the authorisation matrix of every identity
// operation on an existing user or integration against every relation of
// the caller to the target. Rejected operations leave the store as it
// was; allowed ones change it (listing aside).
func TestActingOnAPrincipal(t *testing.T) {
	// The caller's scopes in most rows, enough for every operation.
	callerScopes := auth.NewScopeSet(auth.AssetRead, auth.ClientsRead, auth.ClientsWrite, auth.UsersRead, auth.UsersWrite)
	weaker := auth.NewScopeSet(auth.AssetRead)
	stronger := auth.NewScopeSet(append(callerScopes.List(), auth.AssetWrite, auth.MarketWrite)...)
	every := auth.NewScopeSet(auth.AllScopes...)
	as := func(org string, scopes auth.ScopeSet) func(target) *auth.Principal {
		return func(target) *auth.Principal {
			return &auth.Principal{Subject: "caller", OrganizationID: org, Scopes: scopes, IsM2M: true, ClientID: "caller"}
		}
	}
	itself := func(drop ...auth.Scope) func(target) *auth.Principal {
		return func(tg target) *auth.Principal {
			scopes := auth.NewScopeSet(tg.scopes.List()...)
			for _, sc := range drop {
				delete(scopes, sc)
			}
			return tg.principal(scopes)
		}
	}
	everyLacked := strings.Join(auth.ScopeNames(identity.NotHeld(callerScopes, every)), ", ")
	relations := []struct {
		name      string
		caller    func(target) *auth.Principal
		targetOrg string
		target    auth.ScopeSet
		detail    string // the scopes a 403's detail names
		// want, by operation: delete integration, list secrets, add secret,
		// delete secret, delete user, replace scopes, issue password link.
		want [7]string
	}{
		{"weaker target", as("acme", callerScopes), "acme", weaker, "",
			[7]string{pass, pass, pass, pass, pass, pass, pass}},
		{"equal target", as("acme", callerScopes), "acme", callerScopes, "",
			[7]string{pass, pass, pass, pass, pass, pass, pass}},
		{"stronger target", as("acme", callerScopes), "acme", stronger, "asset.write, market.write",
			[7]string{e403, e403, e403, e403, e403, e403, e403}},
		{"other organisation", as("beta", callerScopes), "acme", weaker, "",
			[7]string{e404, e404, e404, e404, e404, e404, e404}},
		{"other organisation, stronger", as("beta", callerScopes), "acme", stronger, "",
			[7]string{e404, e404, e404, e404, e404, e404, e404}},
		{"platform administrator with every scope", as(auth.PlatformOrganization, every), "acme", stronger, "",
			[7]string{pass, pass, pass, pass, pass, pass, pass}},
		{"platform caller with fewer scopes, weaker target", as(auth.PlatformOrganization, callerScopes), "acme", weaker, "",
			[7]string{pass, pass, pass, pass, pass, pass, pass}},
		{"platform caller with fewer scopes, stronger target", as(auth.PlatformOrganization, callerScopes), "acme", stronger, "asset.write, market.write",
			[7]string{e403, e403, e403, e403, e403, e403, e403}},
		{"platform caller with fewer scopes, platform administrator", as(auth.PlatformOrganization, callerScopes), auth.PlatformOrganization, every, everyLacked,
			[7]string{e403, e403, e403, e403, e403, e403, e403}},
		{"itself", itself(), "acme", callerScopes, "",
			[7]string{e409, pass, pass, pass, e409, e409, pass}},
		{"itself on a narrowed token", itself(auth.AssetRead), "acme", callerScopes, "asset.read",
			[7]string{e409, e403, e403, e403, e409, e409, e403}},
	}
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		e := &matrixEnv{b: b, dir: identity.NewDirectory(b.Directory(), clk, "https://atcp.test"), clients: identity.NewClients(b.Clients(), clk)}
		for _, org := range []string{auth.PlatformOrganization, "acme", "beta"} {
			if err := e.dir.EnsureOrganization(ctx, org, org); err != nil {
				t.Fatal(err)
			}
		}
		for _, rel := range relations {
			t.Run(rel.name, func(t *testing.T) {
				for i, op := range operations {
					var tg target
					if op.user {
						tg = e.user(t, rel.targetOrg, rel.target)
					} else {
						tg = e.integration(t, rel.targetOrg, rel.target, op.secrets)
					}
					before := e.state(t, tg)
					err := op.do(ctx, e, rel.caller(tg), tg)
					got, after := outcome(err), e.state(t, tg)
					if got != rel.want[i] {
						t.Errorf("%s: %s (%v), want %s", op.name, got, err, rel.want[i])
						continue
					}
					switch {
					case got != pass && after != before:
						t.Errorf("%s: rejected with %s but changed the store: %s -> %s", op.name, got, before, after)
					case got == pass && op.name != "list secrets" && after == before:
						t.Errorf("%s: allowed but the store is unchanged: %s", op.name, after)
					case got == e403 && !strings.HasSuffix(err.Error(), "you lack "+rel.detail):
						t.Errorf("%s: detail %q does not name the missing scopes %s", op.name, err, rel.detail)
					}
				}
			})
		}
	})
}

// TestActingOnAUserWhileItsScopesAreRaised: a weaker caller's operation on
// a user whose scopes are being raised at that moment waits for the raise
// and is then refused. The rule is decided on the row the store locks for
// the change, not on an earlier read that the raise could overtake.
func TestActingOnAUserWhileItsScopesAreRaised(t *testing.T) {
	caller := &auth.Principal{Subject: "caller", OrganizationID: "acme", IsM2M: true, ClientID: "caller",
		Scopes: auth.NewScopeSet(auth.AssetRead, auth.UsersRead, auth.UsersWrite)}
	raised := auth.NewScopeSet(auth.AssetRead, auth.AssetWrite, auth.UsersRead, auth.UsersWrite)
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		e := &matrixEnv{b: b, dir: identity.NewDirectory(b.Directory(), clk, "https://atcp.test"), clients: identity.NewClients(b.Clients(), clk)}
		if err := e.dir.EnsureOrganization(ctx, "acme", "acme"); err != nil {
			t.Fatal(err)
		}
		for _, op := range operations {
			if !op.user {
				continue
			}
			tg := e.user(t, "acme", auth.NewScopeSet(auth.AssetRead))
			locked, release, raiseDone := make(chan struct{}), make(chan struct{}), make(chan error)
			go func() {
				_, _, err := b.Directory().UpdateUserScopes(ctx, everyOrg, tg.email, testkit.Start, func(identity.User) (auth.ScopeSet, error) {
					close(locked)
					<-release
					return raised, nil
				})
				raiseDone <- err
			}()
			<-locked
			opDone := make(chan error)
			go func() { opDone <- op.do(ctx, e, caller, tg) }()
			// Let the operation get as far as it can while the raise holds
			// the user; a check on an earlier read would pass meanwhile.
			time.Sleep(100 * time.Millisecond)
			close(release)
			if err := <-raiseDone; err != nil {
				t.Fatal(err)
			}
			err := <-opDone
			if got := outcome(err); got != e403 {
				t.Errorf("%s during a raise: %s (%v), want %s", op.name, got, err, e403)
			}
			if got, want := e.state(t, tg), fmt.Sprintf("scopes=%q pending link kept=true", raised.String()); got != want {
				t.Errorf("%s during a raise left %s, want %s", op.name, got, want)
			}
		}
	})
}
