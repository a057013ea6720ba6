// Package onboardingtest is the test kit of the onboarding HTTP packages:
// a server on one backend with the platform organisation, acme and beta,
// their assets, the onboarding core and its manager endpoints, the tokens
// of the usual callers, workflows and magic-link sessions. Only tests
// import it.
package onboardingtest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/objstore/embedded"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// Organizations are the kit's organisations by id, with their names.
var Organizations = map[string]string{auth.PlatformOrganization: "Platform", "acme": "Acme GmbH", "beta": "Beta AG"}

// PlatformActor is the platform's onboarding manager, the user behind
// Kit.Platform, as an actor: Start creates the workflows as it.
var PlatformActor = onboarding.Actor{Kind: onboarding.ActorUser, ID: "u-platform", Name: "platform@example.com",
	OrganizationID: auth.PlatformOrganization, Role: onboarding.RolePlatformOnboarding}

// Asset is an asset the kit registers: full_control, in status
// onboarding and named "Battery <ID>" unless Name or Adjust say otherwise.
type Asset struct {
	ID, Org, Name string
	Adjust        func(*assets.Asset)
}

// DefaultAssets are acme's bess-1 and bess-2 and beta's b-1.
var DefaultAssets = []Asset{{ID: "bess-1", Org: "acme"}, {ID: "bess-2", Org: "acme"}, {ID: "b-1", Org: "beta"}}

// Config adjusts New.
type Config struct {
	Assets []Asset // DefaultAssets when nil
	// Fields adds the RfI fields (Kit.Fields): their submit requirement
	// and the gates' structured_data.
	Fields  bool
	Harness []testkit.HarnessOption
}

// Kit is the server of a test with the onboarding core.
type Kit struct {
	*testkit.Harness
	Assets *assets.Service
	Core   *onboarding.Service
	Fields *fields.Service // with Config.Fields
	// Users (Kit.User): Platform and Acme read and write onboarding,
	// AcmeRO only reads, Beta is of another organisation, None has no
	// onboarding scope.
	Platform, Acme, AcmeRO, Beta, None string
}

// New serves the onboarding manager endpoints on b.
func New(t testing.TB, b store.Backend, c Config) *Kit {
	t.Helper()
	ctx := context.Background()
	k := &Kit{Harness: testkit.NewHarness(t, b, c.Harness...)}
	dir := identity.NewDirectory(b.Directory(), k.Clock, k.URL)
	for id, name := range Organizations {
		if err := dir.EnsureOrganization(ctx, id, name); err != nil {
			t.Fatal(err)
		}
	}
	k.Assets = assets.NewService(b.Assets(), k.Clock)
	list := c.Assets
	if list == nil {
		list = DefaultAssets
	}
	for _, spec := range list {
		name := spec.Name
		if name == "" {
			name = "Battery " + spec.ID
		}
		a := assets.NewAsset(spec.ID, spec.Org, name, "Cottbus", assets.Standalone)
		it := assets.FullControl
		a.IntegrationType = &it
		if spec.Adjust != nil {
			spec.Adjust(&a)
		}
		if err := k.Assets.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	k.Core = onboarding.NewService(b.Onboardings(), k.Assets, k.Clock)
	var opts []onboardinghttp.Option
	if c.Fields {
		k.Fields = fields.NewService(k.Core, b.OnboardingFields(), k.Assets, k.Clock)
		opts = append(opts, onboardinghttp.WithFields(k.Fields))
	}
	onboardinghttp.Register(k.Server, k.Core, k.Assets, k.Clock, opts...)
	k.Mint()
	return k
}

// Mint mints the users' tokens, again once the security clock moved past
// their hour.
func (k *Kit) Mint() {
	rw := []auth.Scope{auth.OnboardingRead, auth.OnboardingWrite}
	k.Platform, k.Acme, k.AcmeRO = k.User("u-platform", auth.PlatformOrganization, rw...), k.User("u-acme", "acme", rw...),
		k.User("u-acme-ro", "acme", auth.OnboardingRead)
	k.Beta, k.None = k.User("u-beta", "beta", rw...), k.User("u-none", "acme", auth.AssetRead, auth.AssetWrite)
}

// User mints the token of user subject ("u-<name>", e-mail
// <name>@example.com) of org holding scopes.
func (k *Kit) User(subject, org string, scopes ...auth.Scope) string {
	return k.Token(auth.Principal{Subject: subject, OrganizationID: org, Email: strings.TrimPrefix(subject, "u-") + "@example.com",
		Scopes: auth.NewScopeSet(scopes...)})
}

// Session mints the access token of a magic-link session of contact on
// ob as role.
func (k *Kit) Session(ob onboarding.Onboarding, contact string, role onboarding.TaskRole) string {
	return k.Token(auth.Principal{OrganizationID: ob.OrganizationID,
		Task: &auth.TaskGrant{OnboardingID: ob.ID, ContactID: contact, Role: string(role), SessionID: "s-" + contact}})
}

// Start creates the workflow of asset as PlatformActor.
func (k *Kit) Start(asset string, overrides map[string]onboarding.GateOverride) onboarding.Onboarding {
	k.T.Helper()
	ob, err := k.Core.Create(context.Background(), PlatformActor, onboarding.CreateRequest{AssetID: asset, GateOverrides: overrides})
	if err != nil {
		k.T.Fatal(err)
	}
	return ob
}

// Gate is the gate of kind of ob.
func (k *Kit) Gate(ob onboarding.Onboarding, kind string) onboarding.Gate {
	k.T.Helper()
	g, err := k.Core.GateForKind(context.Background(), ob, kind)
	if err != nil {
		k.T.Fatal(err)
	}
	return g
}

// Objects serves an object store in a temporary directory at its route
// (embedded.RoutePrefix) of the server.
func (k *Kit) Objects() *embedded.Store {
	k.T.Helper()
	objects, err := embedded.Open(k.T.TempDir(), k.URL, k.Security)
	if err != nil {
		k.T.Fatal(err)
	}
	k.T.Cleanup(func() { objects.Close() })
	k.Server.Mux.Handle(embedded.RoutePrefix, objects.Handler())
	return objects
}

// Recorder keeps what a fake sender is given, in order; safe for
// concurrent use.
type Recorder[T any] struct {
	mu   sync.Mutex
	sent []T
}

// Record keeps v.
func (r *Recorder[T]) Record(v T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, v)
	return nil
}

// Sent is what was recorded since the last Reset.
func (r *Recorder[T]) Sent() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sent)
}

// Reset forgets what was recorded.
func (r *Recorder[T]) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = nil
}
