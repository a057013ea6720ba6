package identityhttp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/identity/identityhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// dirEnv is a server with the directory registered and organisations
// platform, acme and beta.
type dirEnv struct {
	t  *testing.T
	h  *testkit.Harness
	d  *identity.Directory
	st identity.DirectoryStore
}

func newDirEnv(t *testing.T, b store.Backend) *dirEnv {
	t.Helper()
	h := testkit.NewHarness(t, b)
	d := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	d.SetSecurityClock(h.Security)
	identityhttp.RegisterDirectory(h.Server, d)
	ctx := context.Background()
	for id, name := range map[string]string{auth.PlatformOrganization: "Platform operator", "acme": "Acme Energy", "beta": "Beta Storage"} {
		if err := d.EnsureOrganization(ctx, id, name); err != nil {
			t.Fatal(err)
		}
	}
	return &dirEnv{t: t, h: h, d: d, st: b.Directory()}
}

const dirPassword = "a long enough passphrase"

// person creates an active user and returns a token for it, as sign-in
// would issue.
func (e *dirEnv) person(org, email string, scopes ...auth.Scope) (string, identity.User) {
	e.t.Helper()
	ctx := context.Background()
	if err := e.d.EnsureUser(ctx, org, email, dirPassword, auth.NewScopeSet(scopes...)); err != nil {
		e.t.Fatal(err)
	}
	u, err := e.st.UserByEmail(ctx, strings.ToLower(email))
	if err != nil {
		e.t.Fatal(err)
	}
	return e.h.Token(auth.Principal{Subject: u.ID, OrganizationID: org, Scopes: u.Scopes, Email: u.Email, ClientID: "atcp-console"}), u
}

// invite creates an invited user through the API and returns its
// set-password token.
func (e *dirEnv) invite(token, email string, scopes ...string) (map[string]any, string) {
	e.t.Helper()
	if scopes == nil {
		scopes = []string{}
	}
	body := e.h.Do("POST", "/v1/users", token, map[string]any{"email": email, "scopes": scopes}).Expect(e.t, 201, "").Map(e.t)
	return body, linkToken(e.t, e.h, body["set_password_url"].(string))
}

func linkToken(t *testing.T, h *testkit.Harness, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Scheme+"://"+u.Host != h.URL || u.Path != "/set-password" {
		t.Fatalf("set-password url %q is not under %s", link, h.URL)
	}
	return u.Query().Get("token")
}

func emails(t *testing.T, r *testkit.Response) []string {
	t.Helper()
	var body struct {
		Users []struct {
			Email string `json:"email"`
		} `json:"users"`
	}
	r.JSON(t, &body)
	out := []string{}
	for _, u := range body.Users {
		out = append(out, u.Email)
	}
	return out
}

func strs(v any) []string {
	out := []string{}
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func sameStrings(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func fieldLocations(t *testing.T, r *testkit.Response) []string {
	t.Helper()
	var p struct {
		Errors []struct {
			Location string `json:"location"`
		} `json:"errors"`
	}
	r.JSON(t, &p)
	out := []string{}
	for _, e := range p.Errors {
		out = append(out, e.Location)
	}
	return out
}

func TestDirectoryOrganizations(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h, admin := e.h, e.h.AdminToken()

		list := h.Do("GET", "/v1/organizations", admin, nil).Expect(t, 200, "").Map(t)
		var ids []string
		for _, o := range list["organizations"].([]any) {
			ids = append(ids, o.(map[string]any)["organization_id"].(string))
		}
		if !sameStrings(ids, []string{"acme", "beta", "platform"}) {
			t.Fatalf("organisations %v", ids)
		}

		h.Clock.Advance(30 * time.Minute)
		created := h.Do("POST", "/v1/organizations", admin, map[string]any{"organization_id": "gamma-1", "name": "  Gamma Speicher  "}).
			Expect(t, 201, "").Map(t)
		if created["organization_id"] != "gamma-1" || created["name"] != "Gamma Speicher" || created["created_at"] != "2026-02-01T06:30:00Z" {
			t.Fatalf("created %v", created)
		}
		got := h.Do("GET", "/v1/organizations/gamma-1", admin, nil).Expect(t, 200, "").Map(t)
		if got["name"] != "Gamma Speicher" || got["created_at"] != "2026-02-01T06:30:00Z" {
			t.Fatalf("read back %v", got)
		}
		h.Do("POST", "/v1/organizations", admin, map[string]any{"organization_id": "gamma-1", "name": "Other"}).Expect(t, 409, "organization_exists")
		h.Do("GET", "/v1/organizations/nope", admin, nil).Expect(t, 404, "not_found")

		for _, body := range []map[string]any{
			{"organization_id": "Gamma", "name": "x"},
			{"organization_id": "-gamma", "name": "x"},
			{"organization_id": "g", "name": "x"},
			{"organization_id": "gamma-2", "name": ""},
			{"organization_id": "gamma-2", "name": "   "},
			{"organization_id": "gamma-2", "name": strings.Repeat("n", 201)},
			{"organization_id": "gamma-2", "name": "bad\x01name"},
			{"organization_id": "gamma-2"},
			{"organization_id": "gamma-2", "name": "x", "extra": true},
			{"organization_id": 5, "name": "x"},
		} {
			h.Do("POST", "/v1/organizations", admin, body).Expect(t, 422, "validation_failed")
		}
		h.Do("POST", "/v1/organizations", admin, `{"organization_id": "gamma-2",`).Expect(t, 400, "")
		h.Do("GET", "/v1/organizations/gamma-2", admin, nil).Expect(t, 404, "not_found")

		// Only platform administrators, and only with the scopes.
		acme := h.TokenFor("acme", auth.UsersRead, auth.UsersWrite)
		h.Do("GET", "/v1/organizations", acme, nil).Expect(t, 403, identity.CodePlatformAdminRequired)
		h.Do("GET", "/v1/organizations/acme", acme, nil).Expect(t, 403, identity.CodePlatformAdminRequired)
		h.Do("POST", "/v1/organizations", acme, map[string]any{"organization_id": "delta", "name": "Delta"}).
			Expect(t, 403, identity.CodePlatformAdminRequired)
		adminReadOnly := h.TokenFor(auth.PlatformOrganization, auth.UsersRead)
		h.Do("GET", "/v1/organizations", adminReadOnly, nil).Expect(t, 200, "")
		h.Do("POST", "/v1/organizations", adminReadOnly, map[string]any{"organization_id": "delta", "name": "Delta"}).
			Expect(t, 403, "insufficient_scope")
		h.Do("GET", "/v1/organizations", h.TokenFor(auth.PlatformOrganization, auth.AssetRead), nil).Expect(t, 403, "insufficient_scope")
		h.Do("GET", "/v1/organizations", "", nil).Expect(t, 401, "invalid_token")
		h.Do("POST", "/v1/organizations", "", map[string]any{"organization_id": "delta", "name": "Delta"}).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/organizations/acme", "", nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/organizations/delta", admin, nil).Expect(t, 404, "not_found")
	})
}

func TestDirectoryCreateAndListUsers(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		acme, _ := e.person("acme", "Boss@Acme.test", auth.UsersRead, auth.UsersWrite, auth.AssetRead, auth.AssetWrite)

		body, _ := e.invite(acme, "  Carol@ACME.test ", "asset.read", "asset.read", "users.read")
		if body["email"] != "carol@acme.test" || body["organization_id"] != "acme" || body["status"] != "invited" ||
			!sameStrings(strs(body["scopes"]), []string{"asset.read", "users.read"}) || body["user_id"] == "" {
			t.Fatalf("created %v", body)
		}
		// The link runs on the security clock: 72 hours from its start.
		if body["set_password_expires_at"] != "2026-11-26T14:30:00Z" {
			t.Fatalf("link expiry %v, want 72 hours after 2026-11-23T14:30:00Z", body["set_password_expires_at"])
		}

		list := h.Do("GET", "/v1/users", acme, nil).Expect(t, 200, "")
		if got := emails(t, list); !sameStrings(got, []string{"boss@acme.test", "carol@acme.test"}) {
			t.Fatalf("acme users %v", got)
		}
		var users struct {
			Users []map[string]any `json:"users"`
		}
		list.JSON(t, &users)
		carol := users.Users[1]
		if carol["status"] != "invited" || carol["enabled"] != true || carol["created_at"] != "2026-02-01T06:00:00Z" ||
			carol["organization_id"] != "acme" || carol["user_id"] != body["user_id"] || !sameStrings(strs(carol["scopes"]), []string{"asset.read", "users.read"}) {
			t.Fatalf("listed %v", carol)
		}
		if boss := users.Users[0]; boss["status"] != "active" {
			t.Fatalf("bootstrap-style user %v", boss)
		}

		// E-mail addresses are global usernames, whatever their case.
		h.Do("POST", "/v1/users", acme, map[string]any{"email": "CAROL@acme.test"}).Expect(t, 409, identity.CodeUserExists)
		admin := h.AdminToken()
		h.Do("POST", "/v1/users", admin, map[string]any{"email": "carol@acme.test", "organization_id": "beta"}).Expect(t, 409, identity.CodeUserExists)

		// Unknown scopes are named by position; scopes not held give 403.
		r := h.Do("POST", "/v1/users", acme, map[string]any{"email": "dan@acme.test", "scopes": []string{"asset.read", "asset.admin", "x"}}).
			Expect(t, 422, "validation_failed")
		if locs := fieldLocations(t, r); !sameStrings(locs, []string{"body.scopes[1]", "body.scopes[2]"}) {
			t.Fatalf("locations %v", locs)
		}
		r = h.Do("POST", "/v1/users", acme, map[string]any{"email": "dan@acme.test", "scopes": []string{"asset.read", "market.write", "alarm.read"}}).
			Expect(t, 403, identity.CodeScopeNotHeld)
		if p := r.Map(t); !strings.Contains(p["detail"].(string), "alarm.read, market.write") || len(p["errors"].([]any)) != 2 {
			t.Fatalf("scope_not_held must name the scopes: %v", p)
		}
		for _, bad := range []map[string]any{
			{"email": "not-an-email"},
			{"email": "Dan <dan@acme.test>"},
			{"email": "dan@acme"},
			{"email": ""},
			{},
			{"email": "dan@acme.test", "scopes": "asset.read"},
			{"email": "dan@acme.test", "role": "admin"},
		} {
			h.Do("POST", "/v1/users", acme, bad).Expect(t, 422, "validation_failed")
		}
		h.Do("POST", "/v1/users", acme, `{"email": "dan@acme.test"`).Expect(t, 400, "")
		h.Do("POST", "/v1/users", acme, `{"email": "dan@acme.test"} trailing`).Expect(t, 400, "")

		// Only platform administrators act for another organisation.
		h.Do("POST", "/v1/users", acme, map[string]any{"email": "dan@acme.test", "organization_id": "beta"}).
			Expect(t, 403, identity.CodePlatformAdminRequired)
		h.Do("POST", "/v1/users", acme, map[string]any{"email": "dan@acme.test", "organization_id": "acme"}).Expect(t, 201, "")
		h.Do("POST", "/v1/users", admin, map[string]any{"email": "erin@beta.test", "organization_id": "nope"}).Expect(t, 422, "validation_failed")
		created := h.Do("POST", "/v1/users", admin, map[string]any{"email": "erin@beta.test", "organization_id": "beta", "scopes": []string{"market.write"}}).
			Expect(t, 201, "").Map(t)
		if created["organization_id"] != "beta" {
			t.Fatalf("admin-created user %v", created)
		}
		// Platform administrators name the organisation, their own included:
		// a default would quietly create another platform administrator.
		for _, c := range []struct {
			body map[string]any
			locs []string
		}{
			{map[string]any{"email": "olga@platform.test", "scopes": []string{"users.write"}}, []string{"body.organization_id"}},
			{map[string]any{"email": "olga@platform.test", "organization_id": ""}, []string{"body.organization_id"}},
			{map[string]any{"email": "olga@platform.test", "scopes": []string{"root"}}, []string{"body.scopes[0]", "body.organization_id"}},
		} {
			r := h.Do("POST", "/v1/users", admin, c.body).Expect(t, 422, "validation_failed")
			if locs := fieldLocations(t, r); !sameStrings(locs, c.locs) {
				t.Fatalf("%v: locations %v, want %v", c.body, locs, c.locs)
			}
		}
		if _, err := e.st.UserByEmail(context.Background(), "olga@platform.test"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a rejected creation was stored: %v", err)
		}
		created = h.Do("POST", "/v1/users", admin, map[string]any{"email": "olga@platform.test", "organization_id": auth.PlatformOrganization}).
			Expect(t, 201, "").Map(t)
		if created["organization_id"] != auth.PlatformOrganization {
			t.Fatalf("admin-created user %v", created)
		}
		// Nothing rejected above was stored.
		if got := emails(t, h.Do("GET", "/v1/users", acme, nil).Expect(t, 200, "")); !sameStrings(got, []string{"boss@acme.test", "carol@acme.test", "dan@acme.test"}) {
			t.Fatalf("acme users after rejections %v", got)
		}

		// Listing is per organisation; platform administrators may name one.
		if got := emails(t, h.Do("GET", "/v1/users", h.TokenFor("beta", auth.UsersRead), nil).Expect(t, 200, "")); !sameStrings(got, []string{"erin@beta.test"}) {
			t.Fatalf("beta users %v", got)
		}
		if got := emails(t, h.Do("GET", "/v1/users?organization_id=acme", admin, nil).Expect(t, 200, "")); len(got) != 3 {
			t.Fatalf("admin listing acme %v", got)
		}
		if got := emails(t, h.Do("GET", "/v1/users", admin, nil).Expect(t, 200, "")); !sameStrings(got, []string{"olga@platform.test"}) {
			t.Fatalf("admin's own organisation %v", got)
		}
		h.Do("GET", "/v1/users?organization_id=acme", acme, nil).Expect(t, 200, "")
		h.Do("GET", "/v1/users?organization_id=beta", acme, nil).Expect(t, 403, identity.CodePlatformAdminRequired)
		h.Do("GET", "/v1/users?organization_id=nope", admin, nil).Expect(t, 422, "validation_failed")

		// A caller whose organisation is not registered lists nobody and creates nobody.
		ghost := h.TokenFor("ghost", auth.UsersRead, auth.UsersWrite)
		if got := emails(t, h.Do("GET", "/v1/users", ghost, nil).Expect(t, 200, "")); len(got) != 0 {
			t.Fatalf("ghost organisation lists %v", got)
		}
		h.Do("POST", "/v1/users", ghost, map[string]any{"email": "gil@ghost.test"}).Expect(t, 422, "validation_failed")

		h.Do("GET", "/v1/users", h.TokenFor("acme", auth.AssetRead), nil).Expect(t, 403, "insufficient_scope")
		h.Do("POST", "/v1/users", h.TokenFor("acme", auth.UsersRead), map[string]any{"email": "fay@acme.test"}).Expect(t, 403, "insufficient_scope")
		h.Do("GET", "/v1/users", "", nil).Expect(t, 401, "invalid_token")
		h.Do("POST", "/v1/users", "", map[string]any{"email": "fay@acme.test"}).Expect(t, 401, "invalid_token")
	})
}

func TestDirectoryDeleteUser(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		acme, _ := e.person("acme", "boss@acme.test", auth.UsersRead, auth.UsersWrite)
		beta, _ := e.person("beta", "boss@beta.test", auth.UsersRead, auth.UsersWrite)
		e.invite(acme, "carol@acme.test")
		e.invite(beta, "erin@beta.test")

		// Another organisation's user is not there for the caller.
		h.Do("DELETE", "/v1/users/carol@acme.test", beta, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", "/v1/users/nobody@acme.test", acme, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", "/v1/users/not-an-email", acme, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", "/v1/users/boss@acme.test", acme, nil).Expect(t, 409, identity.CodeCannotDeleteSelf)
		h.Do("DELETE", "/v1/users/carol@acme.test", h.TokenFor("acme", auth.UsersRead), nil).Expect(t, 403, "insufficient_scope")
		h.Do("DELETE", "/v1/users/carol@acme.test", "", nil).Expect(t, 401, "invalid_token")
		if _, err := e.st.UserByEmail(context.Background(), "carol@acme.test"); err != nil {
			t.Fatalf("a rejected delete removed the user: %v", err)
		}

		h.Do("DELETE", "/v1/users/Carol@ACME.test", acme, nil).Expect(t, 204, "")
		h.Do("DELETE", "/v1/users/carol%40acme.test", acme, nil).Expect(t, 404, "not_found")
		if got := emails(t, h.Do("GET", "/v1/users", acme, nil).Expect(t, 200, "")); !sameStrings(got, []string{"boss@acme.test"}) {
			t.Fatalf("after delete %v", got)
		}
		// The address is free again.
		e.invite(acme, "carol@acme.test")

		// A machine with users.write is never "itself" a user.
		h.Do("DELETE", "/v1/users/carol@acme.test", h.TokenFor("acme", auth.UsersWrite), nil).Expect(t, 204, "")
		// Platform administrators reach every organisation.
		h.Do("DELETE", "/v1/users/erin@beta.test", h.AdminToken(), nil).Expect(t, 204, "")
	})
}

func TestDirectoryReplaceScopes(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		acme, _ := e.person("acme", "boss@acme.test", auth.UsersRead, auth.UsersWrite, auth.AssetRead, auth.AssetWrite)
		beta := h.TokenFor("beta", auth.UsersWrite, auth.AssetRead, auth.AssetWrite)
		e.invite(acme, "carol@acme.test", "asset.read")

		h.Clock.Advance(time.Minute)
		r := h.Do("PUT", "/v1/users/CAROL@acme.test/scopes", acme, map[string]any{"scopes": []string{"users.read", "asset.write", "asset.write"}}).
			Expect(t, 200, "").Map(t)
		if r["email"] != "carol@acme.test" || !sameStrings(strs(r["scopes"]), []string{"asset.write", "users.read"}) ||
			!sameStrings(strs(r["added"]), []string{"asset.write", "users.read"}) || !sameStrings(strs(r["removed"]), []string{"asset.read"}) {
			t.Fatalf("replace %v", r)
		}
		u, err := e.st.UserByEmail(context.Background(), "carol@acme.test")
		if err != nil || !sameStrings(u.Scopes.Strings(), []string{"asset.write", "users.read"}) || !u.UpdatedAt.Equal(h.Clock.Now()) {
			t.Fatalf("stored %+v, %v", u, err)
		}

		// Adding needs the scope; the failed change leaves the set as it was.
		r2 := h.Do("PUT", "/v1/users/carol@acme.test/scopes", acme, map[string]any{"scopes": []string{"market.write", "users.read"}}).
			Expect(t, 403, identity.CodeScopeNotHeld).Map(t)
		if !strings.Contains(r2["detail"].(string), "market.write") {
			t.Fatalf("detail %v", r2)
		}
		// A person holding a scope the caller lacks is out of the caller's
		// reach, also for removing scopes; a caller holding all of them may.
		h.Do("PUT", "/v1/users/carol@acme.test/scopes", h.AdminToken(), map[string]any{"scopes": []string{"market.write", "users.read"}}).Expect(t, 200, "")
		for _, scopes := range [][]string{{"market.write"}, {"users.read"}, {}} {
			r2 = h.Do("PUT", "/v1/users/carol@acme.test/scopes", acme, map[string]any{"scopes": scopes}).Expect(t, 403, identity.CodeStrongerPrincipal).Map(t)
			if !strings.HasSuffix(r2["detail"].(string), "you lack market.write") {
				t.Fatalf("detail %v", r2)
			}
		}
		marketWriter := h.TokenFor("acme", auth.UsersWrite, auth.UsersRead, auth.MarketWrite)
		r = h.Do("PUT", "/v1/users/carol@acme.test/scopes", marketWriter, map[string]any{"scopes": []string{"market.write"}}).Expect(t, 200, "").Map(t)
		if len(strs(r["added"])) != 0 || !sameStrings(strs(r["removed"]), []string{"users.read"}) {
			t.Fatalf("removing one %v", r)
		}
		r = h.Do("PUT", "/v1/users/carol@acme.test/scopes", marketWriter, map[string]any{"scopes": []string{}}).Expect(t, 200, "").Map(t)
		if len(strs(r["scopes"])) != 0 || !sameStrings(strs(r["removed"]), []string{"market.write"}) {
			t.Fatalf("clearing %v", r)
		}

		h.Do("PUT", "/v1/users/carol@acme.test/scopes", acme, map[string]any{"scopes": []string{"asset.read", "bogus"}}).Expect(t, 422, "validation_failed")
		h.Do("PUT", "/v1/users/carol@acme.test/scopes", acme, map[string]any{}).Expect(t, 422, "validation_failed")
		h.Do("PUT", "/v1/users/carol@acme.test/scopes", acme, map[string]any{"scopes": nil}).Expect(t, 422, "validation_failed")
		h.Do("PUT", "/v1/users/carol@acme.test/scopes", acme, `{"scopes": [`).Expect(t, 400, "")
		h.Do("PUT", "/v1/users/boss@acme.test/scopes", acme, map[string]any{"scopes": []string{"users.write"}}).Expect(t, 409, identity.CodeCannotChangeOwnScopes)
		h.Do("PUT", "/v1/users/carol@acme.test/scopes", beta, map[string]any{"scopes": []string{"asset.read"}}).Expect(t, 404, "not_found")
		h.Do("PUT", "/v1/users/nobody@acme.test/scopes", acme, map[string]any{"scopes": []string{"asset.read"}}).Expect(t, 404, "not_found")
		h.Do("PUT", "/v1/users/carol@acme.test/scopes", h.TokenFor("acme", auth.UsersRead), map[string]any{"scopes": []string{}}).Expect(t, 403, "insufficient_scope")
		h.Do("PUT", "/v1/users/carol@acme.test/scopes", "", map[string]any{"scopes": []string{}}).Expect(t, 401, "invalid_token")
		if u, _ := e.st.UserByEmail(context.Background(), "carol@acme.test"); len(u.Scopes) != 0 {
			t.Fatalf("a rejected change was stored: %v", u.Scopes.Strings())
		}
	})
}

func TestDirectoryCurrentIdentity(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		tok, u := e.person("acme", "carol@acme.test", auth.AssetRead, auth.UsersRead)
		me := h.Do("GET", "/v1/users/me", tok, nil).Expect(t, 200, "").Map(t)
		if me["user_id"] != u.ID || me["email"] != "carol@acme.test" || me["organization_id"] != "acme" || me["is_m2m"] != false ||
			!sameStrings(strs(me["scopes"]), []string{"asset.read", "users.read"}) {
			t.Fatalf("person %v", me)
		}
		me = h.Do("GET", "/v1/users/me", h.TokenFor("beta"), nil).Expect(t, 200, "").Map(t)
		if email, present := me["email"]; me["user_id"] != "test-beta" || me["is_m2m"] != true || (present && email != nil) || len(strs(me["scopes"])) != 0 {
			t.Fatalf("machine %v", me)
		}
		h.Do("GET", "/v1/users/me", "", nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/users/me", "not-a-token", nil).Expect(t, 401, "invalid_token")
	})
}

func TestDirectoryPreferences(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		carol, u := e.person("acme", "carol@acme.test")
		dave, _ := e.person("acme", "dave@acme.test")

		p := h.Do("GET", "/v1/users/me/preferences", carol, nil).Expect(t, 200, "").Map(t)
		if p["user_id"] != u.ID || p["locale"] != nil || p["theme"] != nil || p["updated_at"] != nil || len(p) != 4 {
			t.Fatalf("unsaved preferences %v", p)
		}
		h.Clock.Advance(90 * time.Second)
		p = h.Do("PUT", "/v1/users/me/preferences", carol, map[string]any{"locale": "de", "theme": "dark"}).Expect(t, 200, "").Map(t)
		if p["locale"] != "de" || p["theme"] != "dark" || p["updated_at"] != "2026-02-01T06:01:30Z" || p["user_id"] != u.ID {
			t.Fatalf("saved %v", p)
		}
		if got := h.Do("GET", "/v1/users/me/preferences", carol, nil).Expect(t, 200, "").Map(t); got["locale"] != "de" || got["theme"] != "dark" || got["updated_at"] != p["updated_at"] {
			t.Fatalf("read back %v", got)
		}
		// Each person has their own.
		if got := h.Do("GET", "/v1/users/me/preferences", dave, nil).Expect(t, 200, "").Map(t); got["locale"] != nil {
			t.Fatalf("dave sees carol's preferences: %v", got)
		}
		// PUT replaces both: an absent or null field is cleared.
		p = h.Do("PUT", "/v1/users/me/preferences", carol, map[string]any{"locale": "en"}).Expect(t, 200, "").Map(t)
		if p["locale"] != "en" || p["theme"] != nil {
			t.Fatalf("replace %v", p)
		}
		p = h.Do("PUT", "/v1/users/me/preferences", carol, map[string]any{"locale": nil, "theme": "light"}).Expect(t, 200, "").Map(t)
		if p["locale"] != nil || p["theme"] != "light" {
			t.Fatalf("replace with null %v", p)
		}

		for _, bad := range []any{
			map[string]any{"locale": "fr"},
			map[string]any{"theme": "blue", "locale": "xx"},
			map[string]any{"theme": 5},
			map[string]any{"font": "large"},
			[]string{"en"},
		} {
			h.Do("PUT", "/v1/users/me/preferences", carol, bad).Expect(t, 422, "validation_failed")
		}
		h.Do("PUT", "/v1/users/me/preferences", carol, `{"locale":`).Expect(t, 400, "")
		if got := h.Do("GET", "/v1/users/me/preferences", carol, nil).Expect(t, 200, "").Map(t); got["theme"] != "light" {
			t.Fatalf("a rejected PUT changed preferences: %v", got)
		}

		machine := h.TokenFor("acme", auth.AllScopes...)
		h.Do("GET", "/v1/users/me/preferences", machine, nil).Expect(t, 403, identity.CodePeopleOnly)
		h.Do("PUT", "/v1/users/me/preferences", machine, map[string]any{"locale": "en"}).Expect(t, 403, identity.CodePeopleOnly)
		h.Do("GET", "/v1/users/me/preferences", "", nil).Expect(t, 401, "invalid_token")
		h.Do("PUT", "/v1/users/me/preferences", "", map[string]any{"locale": "en"}).Expect(t, 401, "invalid_token")

		// A deleted person's token outlives the user by up to an hour.
		h.Do("DELETE", "/v1/users/carol@acme.test", h.TokenFor("acme", auth.UsersWrite), nil).Expect(t, 204, "")
		h.Do("GET", "/v1/users/me/preferences", carol, nil).Expect(t, 404, "not_found")
		h.Do("PUT", "/v1/users/me/preferences", carol, map[string]any{"locale": "en"}).Expect(t, 404, "not_found")
	})
}

// setPasswordPost posts the set-password form.
func setPasswordPost(h *testkit.Harness, token, password, confirm string) *testkit.Response {
	form := url.Values{"token": {token}, "password": {password}, "password_confirm": {confirm}}
	req, _ := http.NewRequest("POST", h.URL+"/set-password", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return h.Send(req)
}

// expectPage checks an HTML page's status, security headers and that it
// contains every given text.
func expectPage(t *testing.T, r *testkit.Response, status int, texts ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	want := map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
		"X-Frame-Options":         "DENY",
		"Cache-Control":           "no-store",
		"Referrer-Policy":         "no-referrer",
	}
	for k, v := range want {
		if got := r.Header.Get(k); got != v {
			t.Fatalf("%s: %q, want %q", k, got, v)
		}
	}
	body := string(r.Body)
	if strings.Contains(strings.ToLower(body), "<script") {
		t.Fatal("page contains a script")
	}
	for _, text := range texts {
		if !strings.Contains(body, text) {
			t.Fatalf("page lacks %q:\n%s", text, body)
		}
	}
}

func TestDirectorySetPasswordFlow(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		acme, _ := e.person("acme", "boss@acme.test", auth.UsersWrite, auth.AssetRead)
		_, token := e.invite(acme, "Carol@Acme.test", "asset.read")
		ctx := context.Background()

		page := h.Do("GET", "/set-password?token="+url.QueryEscape(token), "", nil)
		expectPage(t, page, 200, `lang="en"`, "carol@acme.test", `name="token" value="`+token+`"`, `name="password"`,
			`name="password_confirm"`, `autocomplete="new-password"`, `<label for="password">`, `action="set-password"`,
			"26 November 2026 at 14:30 UTC")

		// Bad passwords re-render the form, naming the problem; the link stays usable.
		h.Clock.Advance(time.Hour)
		expectPage(t, setPasswordPost(h, token, "too short", "too short"), 422, "at least 12 characters", `aria-invalid="true"`, `name="token" value="`+token+`"`)
		expectPage(t, setPasswordPost(h, token, dirPassword, dirPassword+"x"), 422, "does not match")
		expectPage(t, setPasswordPost(h, token, "carol@acme.test", "carol@acme.test"), 422, "must not be your e-mail address")
		expectPage(t, setPasswordPost(h, token, strings.Repeat("x", 257), strings.Repeat("x", 257)), 422, "at most 256")
		if u, _ := e.st.UserByEmail(ctx, "carol@acme.test"); u.Status != identity.UserInvited || u.PasswordHash != "" || u.CanSignIn() {
			t.Fatalf("a rejected password changed the user: %+v", u)
		}

		expectPage(t, setPasswordPost(h, token, dirPassword, dirPassword), 200, "Your password is set", "sign in", "carol@acme.test")
		u, err := e.st.UserByEmail(ctx, "carol@acme.test")
		if err != nil || u.Status != identity.UserActive || !u.CanSignIn() || !auth.VerifySecret(dirPassword, u.PasswordHash) ||
			auth.VerifySecret("wrong password!", u.PasswordHash) || !u.UpdatedAt.Equal(h.Clock.Now()) {
			t.Fatalf("after setting the password: %+v, %v", u, err)
		}
		list := h.Do("GET", "/v1/users", h.TokenFor("acme", auth.UsersRead), nil).Expect(t, 200, "").Map(t)
		for _, x := range list["users"].([]any) {
			if m := x.(map[string]any); m["email"] == "carol@acme.test" && m["status"] != "active" {
				t.Fatalf("listed %v", m)
			}
		}

		// The link is spent.
		expectPage(t, h.Do("GET", "/set-password?token="+token, "", nil), 410, "has been used")
		expectPage(t, setPasswordPost(h, token, "another passphrase", "another passphrase"), 410, "has been used")
		if u2, _ := e.st.UserByEmail(ctx, "carol@acme.test"); u2.PasswordHash != u.PasswordHash {
			t.Fatal("a used link changed the password")
		}
	})
}

func TestDirectorySetPasswordDeadLinks(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		acme := h.TokenFor("acme", auth.UsersWrite)
		_, token := e.invite(acme, "carol@acme.test")

		expectPage(t, h.Do("GET", "/set-password", "", nil), 404, "not valid")
		expectPage(t, h.Do("GET", "/set-password?token="+auth.RandomToken(32), "", nil), 404, "not valid")
		expectPage(t, h.Do("GET", "/set-password?token="+strings.Repeat("a", 5000), "", nil), 404, "not valid")
		expectPage(t, setPasswordPost(h, auth.RandomToken(32), dirPassword, dirPassword), 404, "not valid")
		expectPage(t, setPasswordPost(h, "", dirPassword, dirPassword), 404, "not valid")

		// The form must be form-encoded, and the token in the body.
		req, _ := http.NewRequest("POST", h.URL+"/set-password", strings.NewReader(`{"token":"`+token+`"}`))
		req.Header.Set("Content-Type", "application/json")
		expectPage(t, h.Send(req), 415, "could not be read")
		req, _ = http.NewRequest("POST", h.URL+"/set-password?token="+token, strings.NewReader(url.Values{"password": {dirPassword}, "password_confirm": {dirPassword}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		expectPage(t, h.Send(req), 404, "not valid")
		req, _ = http.NewRequest("POST", h.URL+"/set-password", strings.NewReader("token="+strings.Repeat("a", 70<<10)))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		expectPage(t, h.Send(req), 413, "could not be read")

		// Valid for 72 hours of security time, to the microsecond, however
		// fast the platform clock runs.
		h.Clock.Advance(30 * 24 * time.Hour)
		h.Security.Advance(72*time.Hour - time.Microsecond)
		expectPage(t, h.Do("GET", "/set-password?token="+token, "", nil), 200, "carol@acme.test")
		h.Security.Advance(time.Microsecond)
		expectPage(t, h.Do("GET", "/set-password?token="+token, "", nil), 410, "has expired")
		h.Security.Advance(time.Hour)
		expectPage(t, h.Do("GET", "/set-password?token="+token, "", nil), 410, "has expired")
		expectPage(t, setPasswordPost(h, token, dirPassword, dirPassword), 410, "has expired")
		// A dead link is reported before the password is judged.
		expectPage(t, setPasswordPost(h, token, "short", "other"), 410, "has expired")
		if u, _ := e.st.UserByEmail(context.Background(), "carol@acme.test"); u.Status != identity.UserInvited {
			t.Fatalf("expired link activated the user: %+v", u)
		}

		// A deleted user's link is gone with the user.
		acme = h.TokenFor("acme", auth.UsersWrite)
		_, token2 := e.invite(acme, "dave@acme.test")
		h.Do("DELETE", "/v1/users/dave@acme.test", acme, nil).Expect(t, 204, "")
		expectPage(t, h.Do("GET", "/set-password?token="+token2, "", nil), 404, "not valid")
	})
}

func TestDirectoryPasswordLinkReissue(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		h := e.h
		ctx := context.Background()
		acme := h.TokenFor("acme", auth.UsersWrite)
		_, first := e.invite(acme, "carol@acme.test")

		h.Security.Advance(70 * time.Hour)
		acme = h.TokenFor("acme", auth.UsersWrite)
		r := h.Do("POST", "/v1/users/CAROL@acme.test/password-link", acme, nil).Expect(t, 201, "").Map(t)
		if r["email"] != "carol@acme.test" || r["set_password_expires_at"] != "2026-11-29T12:30:00Z" {
			t.Fatalf("reissued %v", r)
		}
		second := linkToken(t, h, r["set_password_url"].(string))
		if second == first {
			t.Fatal("the same token was issued twice")
		}
		// The earlier link stops working; the new one lives 72 hours from now.
		expectPage(t, h.Do("GET", "/set-password?token="+first, "", nil), 404, "not valid")
		h.Security.Advance(10 * time.Hour)
		expectPage(t, setPasswordPost(h, second, dirPassword, dirPassword), 200, "Your password is set")

		// For an active user the link is a reset: the old password works until the new link is used.
		acme = h.TokenFor("acme", auth.UsersWrite)
		r = h.Do("POST", "/v1/users/carol@acme.test/password-link", acme, nil).Expect(t, 201, "").Map(t)
		third := linkToken(t, h, r["set_password_url"].(string))
		u, _ := e.st.UserByEmail(ctx, "carol@acme.test")
		if u.Status != identity.UserActive || !auth.VerifySecret(dirPassword, u.PasswordHash) {
			t.Fatalf("issuing a reset link changed the user: %+v", u)
		}
		expectPage(t, setPasswordPost(h, third, "a brand new passphrase", "a brand new passphrase"), 200, "Your password is set")
		u, _ = e.st.UserByEmail(ctx, "carol@acme.test")
		if !auth.VerifySecret("a brand new passphrase", u.PasswordHash) || auth.VerifySecret(dirPassword, u.PasswordHash) {
			t.Fatal("the reset did not replace the password")
		}

		h.Do("POST", "/v1/users/carol@acme.test/password-link", h.TokenFor("beta", auth.UsersWrite), nil).Expect(t, 404, "not_found")
		h.Do("POST", "/v1/users/nobody@acme.test/password-link", acme, nil).Expect(t, 404, "not_found")
		h.Do("POST", "/v1/users/carol@acme.test/password-link", h.TokenFor("acme", auth.UsersRead), nil).Expect(t, 403, "insufficient_scope")
		h.Do("POST", "/v1/users/carol@acme.test/password-link", "", nil).Expect(t, 401, "invalid_token")
		h.Do("POST", "/v1/users/carol@acme.test/password-link", h.AdminToken(), nil).Expect(t, 201, "")
	})
}

func TestDirectorySetPasswordConcurrently(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newDirEnv(t, b)
		e.d.SetHasher(patientHasher())
		h := e.h
		_, token := e.invite(h.TokenFor("acme", auth.UsersWrite), "carol@acme.test")

		const n = 8
		statuses := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				password := "passphrase number " + string(rune('a'+i))
				form := url.Values{"token": {token}, "password": {password}, "password_confirm": {password}}
				<-start
				resp, err := h.HTTP.Client().PostForm(h.URL+"/set-password", form)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				statuses[i] = resp.StatusCode
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, st := range statuses {
			switch st {
			case 200:
				if winner >= 0 {
					t.Fatalf("the link was used twice: %v", statuses)
				}
				winner = i
			case 410:
			default:
				t.Fatalf("unexpected status %d: %v", st, statuses)
			}
		}
		if winner < 0 {
			t.Fatalf("nobody set the password: %v", statuses)
		}
		u, _ := e.st.UserByEmail(context.Background(), "carol@acme.test")
		if !auth.VerifySecret("passphrase number "+string(rune('a'+winner)), u.PasswordHash) {
			t.Fatal("the stored password is not the winner's")
		}
	})
}

func TestDirectoryOpenAPI(t *testing.T) {
	e := newDirEnv(t, testkit.OpenSQLite(t))
	doc := e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").Map(t)
	paths := doc["paths"].(map[string]any)
	for path, ops := range map[string]map[string][]string{
		"/v1/organizations":                   {"get": {"users.read"}, "post": {"users.write"}},
		"/v1/organizations/{organization_id}": {"get": {"users.read"}},
		"/v1/users":                           {"get": {"users.read"}, "post": {"users.write"}},
		"/v1/users/me":                        {"get": {}},
		"/v1/users/me/preferences":            {"get": {}, "put": {}},
		"/v1/users/{email}":                   {"delete": {"users.write"}},
		"/v1/users/{email}/scopes":            {"put": {"users.write"}},
		"/v1/users/{email}/password-link":     {"post": {"users.write"}},
	} {
		for method, scopes := range ops {
			op, ok := paths[path].(map[string]any)[method].(map[string]any)
			if !ok {
				t.Fatalf("%s %s missing from the OpenAPI document", method, path)
			}
			if got := strs(op["security"].([]any)[0].(map[string]any)["oauth2"]); !sameStrings(got, scopes) {
				t.Fatalf("%s %s scopes %v, want %v", method, path, got, scopes)
			}
		}
	}
}
