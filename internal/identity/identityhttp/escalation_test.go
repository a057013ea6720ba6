package identityhttp_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"atcp/internal/auth"
	"atcp/internal/identity/identityhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// codeStrongerPrincipal is identity.CodeStrongerPrincipal as the wire
// shows it.
const codeStrongerPrincipal = "stronger_principal"

// newIdentityEnv serves every identity endpoint: integrations, OAuth and
// the directory.
func newIdentityEnv(t *testing.T, b store.Backend) *clientsEnv {
	t.Helper()
	e := newClientsEnv(t, b)
	identityhttp.RegisterDirectory(e.h.Server, e.dir)
	return e
}

// secretIDs lists an integration's secret ids as the platform
// administrator sees them.
func (e *clientsEnv) secretIDs(t *testing.T, id string) []string {
	t.Helper()
	var list []struct {
		SecretID string `json:"secret_id"`
	}
	e.h.Do("GET", "/v1/integrations/"+id+"/secrets", e.h.AdminToken(), nil).Expect(t, 200, "").JSON(t, &list)
	var out []string
	for _, s := range list {
		out = append(out, s.SecretID)
	}
	return out
}

// TestIntegrationCannotTakeOverAStrongerIntegration: an integration with
// clients.write but without asset.write and market.write can neither get
// nor see nor remove a credential of an integration of its organisation
// that holds them, nor delete it. Every attempt is 403 stronger_principal
// naming the missing scopes, and the stronger integration is untouched.
func TestIntegrationCannotTakeOverAStrongerIntegration(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newIdentityEnv(t, b)
		h, admin := e.h, e.h.AdminToken()
		create := func(name string, scopes ...string) (string, string) {
			var out struct {
				IntegrationID string `json:"integration_id"`
				ClientSecret  string `json:"client_secret"`
			}
			h.Do("POST", "/v1/integrations", admin, map[string]any{"name": name, "scopes": scopes, "organization_id": "acme"}).
				Expect(t, 201, "").JSON(t, &out)
			return out.IntegrationID, out.ClientSecret
		}
		trader, traderSecret := create("trading desk", "asset.write", "market.write")
		attackerID, attackerSecret := create("helpdesk tool", "asset.read", "clients.read", "clients.write")
		attacker := expectTokens(t, e.clientCredentials(t, url.Values{"client_id": {attackerID}, "client_secret": {attackerSecret}})).AccessToken
		refused := func(method, path string) {
			t.Helper()
			p := h.Do(method, path, attacker, nil).Expect(t, 403, codeStrongerPrincipal).Map(t)
			if detail, _ := p["detail"].(string); !strings.HasSuffix(detail, "asset.write, market.write") {
				t.Errorf("%s %s: detail %q does not name the missing scopes", method, path, detail)
			}
		}

		base := "/v1/integrations/" + trader
		refused("POST", base+"/secrets")
		refused("GET", base+"/secrets")
		// With a second secret, deleting one would not be refused as the last.
		h.Do("POST", base+"/secrets", admin, nil).Expect(t, 201, "")
		secrets := e.secretIDs(t, trader)
		refused("DELETE", base+"/secrets/"+secrets[0])
		refused("DELETE", base)

		if got := e.secretIDs(t, trader); strings.Join(got, ",") != strings.Join(secrets, ",") {
			t.Fatalf("the trading desk's secrets changed: %v -> %v", secrets, got)
		}
		tok := expectTokens(t, e.clientCredentials(t, url.Values{"client_id": {trader}, "client_secret": {traderSecret}}))
		if tok.Scope != "asset.write market.write" {
			t.Fatalf("the trading desk's token carries %q", tok.Scope)
		}
		// Its own secrets and weaker integrations stay the attacker's to manage.
		h.Do("POST", "/v1/integrations/"+attackerID+"/secrets", attacker, nil).Expect(t, 201, "")
		weaker, _ := create("reader", "asset.read")
		h.Do("GET", "/v1/integrations/"+weaker+"/secrets", attacker, nil).Expect(t, 200, "")
		h.Do("DELETE", "/v1/integrations/"+weaker, attacker, nil).Expect(t, 204, "")
	})
}

// TestUserCannotTakeOverAStrongerUser: a person with users.write but
// fewer scopes than their boss cannot reset the boss's password, delete
// the boss or change the boss's scopes. The boss keeps signing in with
// the same password, and the set-password link the platform administrator
// issued earlier stays the boss's only one.
func TestUserCannotTakeOverAStrongerUser(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newIdentityEnv(t, b)
		h, ctx := e.h, context.Background()
		const bossEmail, bossPassword = "boss@acme.example", "the boss's own passphrase"
		bossScopes := auth.NewScopeSet(auth.AssetRead, auth.AssetWrite, auth.MarketWrite, auth.UsersRead, auth.UsersWrite)
		if err := e.dir.EnsureUser(ctx, "acme", bossEmail, bossPassword, bossScopes); err != nil {
			t.Fatal(err)
		}
		e.person(t, auth.AssetRead, auth.UsersRead, auth.UsersWrite)
		p := newPKCEClient()
		attacker := expectTokens(t, e.exchange(t, p, e.signIn(t, p, "", signInEmail, signInPassword))).AccessToken
		before, err := b.Directory().UserByEmail(ctx, bossEmail)
		if err != nil {
			t.Fatal(err)
		}
		earlier := h.Do("POST", "/v1/users/"+bossEmail+"/password-link", h.AdminToken(), nil).Expect(t, 201, "").Map(t)
		earlierToken := strings.TrimPrefix(earlier["set_password_url"].(string), h.URL+"/set-password?token=")

		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/v1/users/" + bossEmail + "/password-link", nil},
			{"DELETE", "/v1/users/" + bossEmail, nil},
			{"PUT", "/v1/users/" + bossEmail + "/scopes", map[string]any{"scopes": []string{"asset.read"}}},
		} {
			p := h.Do(c.method, c.path, attacker, c.body).Expect(t, 403, codeStrongerPrincipal).Map(t)
			if detail, _ := p["detail"].(string); !strings.HasSuffix(detail, "asset.write, market.write") {
				t.Errorf("%s %s: detail %q does not name the missing scopes", c.method, c.path, detail)
			}
		}

		after, err := b.Directory().UserByEmail(ctx, bossEmail)
		if err != nil || after.Scopes.String() != bossScopes.String() || after.PasswordHash != before.PasswordHash || !after.UpdatedAt.Equal(before.UpdatedAt) {
			t.Fatalf("the boss changed: %+v, %v", after, err)
		}
		if r := h.Do("GET", "/set-password?token="+earlierToken, "", nil); r.Status != 200 {
			t.Fatalf("the earlier link was replaced: %d", r.Status)
		}
		pb := newPKCEClient()
		boss := expectTokens(t, e.exchange(t, pb, e.signIn(t, pb, "", bossEmail, bossPassword)))
		if boss.Scope != "asset.read asset.write market.write users.read users.write" {
			t.Fatalf("the boss signs in with %q", boss.Scope)
		}
		// A weaker colleague stays the attacker's to manage.
		h.Do("POST", "/v1/users", attacker, map[string]any{"email": "carol@acme.example", "scopes": []string{"asset.read"}}).Expect(t, 201, "")
		h.Do("POST", "/v1/users/carol@acme.example/password-link", attacker, nil).Expect(t, 201, "")
		h.Do("DELETE", "/v1/users/carol@acme.example", attacker, nil).Expect(t, 204, "")
	})
}

// TestActingOnAPrincipalIsDocumented: every operation on an existing user
// or integration documents its 403 stronger_principal, and both creations
// say that platform administrators must name the organisation.
func TestActingOnAPrincipalIsDocumented(t *testing.T) {
	e := newIdentityEnv(t, testkit.OpenSQLite(t))
	var doc struct {
		Paths map[string]map[string]struct {
			Description string `json:"description"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").JSON(t, &doc)
	for path, methods := range map[string][]string{
		"/v1/integrations/{integration_id}":                     {"delete"},
		"/v1/integrations/{integration_id}/secrets":             {"get", "post"},
		"/v1/integrations/{integration_id}/secrets/{secret_id}": {"delete"},
		"/v1/users/{email}":                                     {"delete"},
		"/v1/users/{email}/scopes":                              {"put"},
		"/v1/users/{email}/password-link":                       {"post"},
	} {
		for _, m := range methods {
			if d := doc.Paths[path][m].Description; !strings.Contains(d, "403 stronger_principal") {
				t.Errorf("%s %s does not document stronger_principal: %q", m, path, d)
			}
		}
	}
	for _, path := range []string{"/v1/users", "/v1/integrations"} {
		if d := doc.Paths[path]["post"].Description; !strings.Contains(d, "leaving out organization_id") && !strings.Contains(d, "leaves out organization_id") {
			t.Errorf("POST %s does not document the required organization_id: %q", path, d)
		}
	}
	found := 0
	for _, schema := range doc.Components.Schemas {
		if d := schema.Properties["organization_id"].Description; strings.HasPrefix(d, "Organisation of the new user.") ||
			strings.HasPrefix(d, "Organisation to create the integration in.") {
			found++
			if !strings.Contains(d, "Platform administrators must name it") {
				t.Errorf("organization_id: %q", d)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d creation bodies with organization_id, want 2", found)
	}
}
