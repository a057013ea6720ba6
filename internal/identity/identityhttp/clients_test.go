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
	"atcp/internal/identity"
	"atcp/internal/identity/identityhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// clientsEnv is a server with the integration and OAuth endpoints and the
// organisations platform, acme and beta.
type clientsEnv struct {
	h       *testkit.Harness
	dir     *identity.Directory
	clients *identity.Clients
}

func newClientsEnv(t testing.TB, b store.Backend, opts ...testkit.HarnessOption) *clientsEnv {
	t.Helper()
	h := testkit.NewHarness(t, b, opts...)
	e := &clientsEnv{h: h, dir: identity.NewDirectory(b.Directory(), h.Clock, h.URL), clients: identity.NewClients(b.Clients(), h.Clock)}
	e.dir.SetSecurityClock(h.Security)
	for _, org := range []string{auth.PlatformOrganization, "acme", "beta"} {
		if err := e.dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	identityhttp.RegisterClients(h.Server, e.clients)
	identityhttp.RegisterOAuth(h.Server, identity.NewOAuth(b.Clients(), b.Directory(), h.Tokens, auth.NewCoreHasher(), h.Security))
	return e
}

// integrationManager is a token of acme allowed to manage integrations and
// holding a few grantable scopes.
func (e *clientsEnv) integrationManager() string {
	return e.h.TokenFor("acme", auth.ClientsRead, auth.ClientsWrite, auth.AssetRead, auth.MarketWrite)
}

// createIntegration creates an integration through the API and returns
// its id and secret.
func (e *clientsEnv) createIntegration(t testing.TB, token, name string, scopes ...string) (string, string) {
	t.Helper()
	var out struct {
		IntegrationID string `json:"integration_id"`
		ClientSecret  string `json:"client_secret"`
	}
	e.h.Do("POST", "/v1/integrations", token, map[string]any{"name": name, "scopes": scopes}).Expect(t, 201, "").JSON(t, &out)
	return out.IntegrationID, out.ClientSecret
}

func problemLocations(t testing.TB, r *testkit.Response) []string {
	t.Helper()
	var p struct {
		Errors []struct {
			Location string `json:"location"`
		} `json:"errors"`
	}
	r.JSON(t, &p)
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Location)
	}
	return out
}

func TestIntegrationCreateAndList(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		manager := e.integrationManager()

		var created map[string]any
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "  EMS gateway ", "scopes": []string{"market.write", "asset.read"}}).
			Expect(t, 201, "").JSON(t, &created)
		id, _ := created["integration_id"].(string)
		secret, _ := created["client_secret"].(string)
		if len(id) != 36 || !strings.HasPrefix(secret, "atcp_") || len(secret) < 40 || created["name"] != "EMS gateway" ||
			created["organization_id"] != "acme" || strings.Join(anyStrings(created["scopes"]), " ") != "asset.read market.write" {
			t.Fatalf("created %v", created)
		}
		var list []map[string]any
		h.Do("GET", "/v1/integrations", manager, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list) != 1 || list[0]["integration_id"] != id || list[0]["created_at"] != "2026-02-01T06:00:00Z" ||
			list[0]["organization_id"] != "acme" || list[0]["client_secret"] != nil {
			t.Fatalf("list %v", list)
		}

		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "EMS gateway", "scopes": []string{}}).Expect(t, 409, identity.CodeIntegrationExists)
		r := h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "x", "scopes": []string{"asset.read", "dispatch.read"}}).
			Expect(t, 422, "validation_failed")
		if locs := problemLocations(t, r); strings.Join(locs, ",") != "body.scopes[1]" {
			t.Fatalf("422 names %v", locs)
		}
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "x", "scopes": []string{"alarm.write"}}).Expect(t, 403, identity.CodeScopeNotHeld)
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "x", "scopes": []string{}, "organization_id": "beta"}).
			Expect(t, 403, identity.CodePlatformAdminRequired)
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "own org named", "scopes": []string{}, "organization_id": "acme"}).Expect(t, 201, "")
		h.Do("POST", "/v1/integrations", manager, `{"name":`).Expect(t, 400, "")
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "x"}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "x", "scopes": "asset.read"}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": strings.Repeat("n", 101), "scopes": []string{}}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "   ", "scopes": []string{}}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/integrations", manager, map[string]any{"name": "x", "scopes": []string{}, "colour": "red"}).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/integrations", "", map[string]any{"name": "x", "scopes": []string{}}).Expect(t, 401, "invalid_token")
		h.Do("POST", "/v1/integrations", h.TokenFor("acme", auth.ClientsRead), map[string]any{"name": "x", "scopes": []string{}}).Expect(t, 403, "insufficient_scope")
		h.Do("GET", "/v1/integrations", "", nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/integrations", h.TokenFor("acme", auth.ClientsWrite), nil).Expect(t, 403, "insufficient_scope")

		// Platform administrators act for any organisation and see all.
		admin := h.AdminToken()
		var forBeta map[string]any
		h.Do("POST", "/v1/integrations", admin, map[string]any{"name": "EMS gateway", "scopes": []string{"report.read"}, "organization_id": "beta"}).
			Expect(t, 201, "").JSON(t, &forBeta)
		if forBeta["organization_id"] != "beta" {
			t.Fatalf("admin created %v", forBeta)
		}
		r = h.Do("POST", "/v1/integrations", admin, map[string]any{"name": "x", "scopes": []string{}, "organization_id": "nowhere"}).Expect(t, 422, "validation_failed")
		if locs := problemLocations(t, r); strings.Join(locs, ",") != "body.organization_id" {
			t.Fatalf("422 names %v", locs)
		}
		h.Do("GET", "/v1/integrations", admin, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list) != 3 {
			t.Fatalf("admin sees %d integrations", len(list))
		}
		h.Do("GET", "/v1/integrations", h.TokenFor("beta", auth.ClientsRead), nil).Expect(t, 200, "").JSON(t, &list)
		if len(list) != 1 || list[0]["integration_id"] != forBeta["integration_id"] {
			t.Fatalf("beta sees %v", list)
		}

		// Platform administrators name the organisation, their own included:
		// a default would quietly create another platform administrator.
		for _, body := range []map[string]any{
			{"name": "defaulted", "scopes": []string{"asset.read"}},
			{"name": "defaulted", "scopes": []string{"asset.read"}, "organization_id": ""},
		} {
			r = h.Do("POST", "/v1/integrations", admin, body).Expect(t, 422, "validation_failed")
			if locs := problemLocations(t, r); strings.Join(locs, ",") != "body.organization_id" {
				t.Fatalf("422 names %v", locs)
			}
		}
		r = h.Do("POST", "/v1/integrations", admin, map[string]any{"name": " ", "scopes": []string{"tso"}}).Expect(t, 422, "validation_failed")
		if locs := problemLocations(t, r); strings.Join(locs, ",") != "body.name,body.scopes[0],body.organization_id" {
			t.Fatalf("422 names %v", locs)
		}
		var ownOrg map[string]any
		h.Do("POST", "/v1/integrations", admin, map[string]any{"name": "named", "scopes": []string{"asset.read"}, "organization_id": auth.PlatformOrganization}).
			Expect(t, 201, "").JSON(t, &ownOrg)
		if ownOrg["organization_id"] != auth.PlatformOrganization {
			t.Fatalf("admin created %v", ownOrg)
		}
		h.Do("GET", "/v1/integrations", admin, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list) != 4 {
			t.Fatalf("rejected creations were stored: %d integrations", len(list))
		}
	})
}

func TestIntegrationSecrets(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		manager := e.integrationManager()
		id, _ := e.createIntegration(t, manager, "scada", "asset.read")
		path := "/v1/integrations/" + id + "/secrets"

		var secrets []map[string]any
		h.Do("GET", path, manager, nil).Expect(t, 200, "").JSON(t, &secrets)
		if len(secrets) != 1 || secrets[0]["secret_id"] == "" || secrets[0]["creation_date"] != "2026-02-01T06:00:00Z" || len(secrets[0]) != 2 {
			t.Fatalf("secrets %v", secrets)
		}
		first := secrets[0]["secret_id"].(string)
		h.Do("DELETE", path+"/"+first, manager, nil).Expect(t, 409, identity.CodeLastSecret)

		h.Clock.Advance(time.Second) // secrets are listed oldest first
		var added map[string]any
		h.Do("POST", path, manager, nil).Expect(t, 201, "").JSON(t, &added)
		if added["integration_id"] != id || !strings.HasPrefix(added["secret_value"].(string), "atcp_") || added["secret_id"] == first {
			t.Fatalf("added %v", added)
		}
		h.Do("POST", path, manager, nil).Expect(t, 409, identity.CodeSecretLimitReached)
		h.Do("GET", path, manager, nil).Expect(t, 200, "").JSON(t, &secrets)
		if len(secrets) != 2 || secrets[0]["secret_id"] != first {
			t.Fatalf("secrets %v", secrets)
		}
		h.Do("DELETE", path+"/00000000-0000-0000-0000-000000000000", manager, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", path+"/"+first, manager, nil).Expect(t, 204, "")
		h.Do("DELETE", path+"/"+first, manager, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", path+"/"+added["secret_id"].(string), manager, nil).Expect(t, 409, identity.CodeLastSecret)

		h.Do("GET", path, h.TokenFor("acme", auth.ClientsWrite), nil).Expect(t, 403, "insufficient_scope")
		h.Do("POST", path, h.TokenFor("acme", auth.ClientsRead), nil).Expect(t, 403, "insufficient_scope")
		h.Do("POST", path, "", nil).Expect(t, 401, "invalid_token")
		h.Do("GET", "/v1/integrations/unknown/secrets", manager, nil).Expect(t, 404, "not_found")
		h.Do("POST", "/v1/integrations/unknown/secrets", manager, nil).Expect(t, 404, "not_found")
	})
}

// TestIntegrationIsolation: beta cannot see or change acme's integrations;
// every attempt is 404 and changes nothing.
func TestIntegrationIsolation(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		id, _ := e.createIntegration(t, e.integrationManager(), "scada", "asset.read")
		var secrets []map[string]any
		h.Do("GET", "/v1/integrations/"+id+"/secrets", e.integrationManager(), nil).Expect(t, 200, "").JSON(t, &secrets)
		secretID := secrets[0]["secret_id"].(string)

		beta := h.TokenFor("beta", auth.ClientsRead, auth.ClientsWrite, auth.AssetRead)
		var list []any
		h.Do("GET", "/v1/integrations", beta, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list) != 0 {
			t.Fatalf("beta sees %v", list)
		}
		h.Do("GET", "/v1/integrations/"+id+"/secrets", beta, nil).Expect(t, 404, "not_found")
		h.Do("POST", "/v1/integrations/"+id+"/secrets", beta, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", "/v1/integrations/"+id+"/secrets/"+secretID, beta, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", "/v1/integrations/"+id, beta, nil).Expect(t, 404, "not_found")

		h.Do("GET", "/v1/integrations/"+id+"/secrets", e.integrationManager(), nil).Expect(t, 200, "").JSON(t, &secrets)
		if len(secrets) != 1 || secrets[0]["secret_id"] != secretID {
			t.Fatalf("beta changed acme's secrets: %v", secrets)
		}
		// The platform administrator may.
		h.Do("DELETE", "/v1/integrations/"+id, h.AdminToken(), nil).Expect(t, 204, "")
	})
}

func TestIntegrationDelete(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		h := e.h
		manager := e.integrationManager()
		id, secret := e.createIntegration(t, manager, "automation", "clients.read", "clients.write")

		// An integration's own token cannot delete it.
		own := e.clientCredentials(t, url.Values{"client_id": {id}, "client_secret": {secret}}).Expect(t, 200, "").Map(t)["access_token"].(string)
		h.Do("DELETE", "/v1/integrations/"+id, own, nil).Expect(t, 409, identity.CodeCannotDeleteSelf)

		h.Do("DELETE", "/v1/integrations/"+id, h.TokenFor("acme", auth.ClientsRead), nil).Expect(t, 403, "insufficient_scope")
		h.Do("DELETE", "/v1/integrations/"+id, "", nil).Expect(t, 401, "invalid_token")
		h.Do("DELETE", "/v1/integrations/"+id, manager, nil).Expect(t, 204, "")
		h.Do("DELETE", "/v1/integrations/"+id, manager, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/integrations/"+id+"/secrets", manager, nil).Expect(t, 404, "not_found")
		var list []any
		h.Do("GET", "/v1/integrations", manager, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list) != 0 {
			t.Fatalf("deleted integration listed: %v", list)
		}
	})
}

// TestSecretLimitUnderConcurrentRequests: sixteen concurrent POSTs on an
// integration with one secret; exactly one succeeds and two secrets stay.
func TestSecretLimitUnderConcurrentRequests(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newClientsEnv(t, b)
		e.clients.SetHasher(patientHasher())
		manager := e.integrationManager()
		id, _ := e.createIntegration(t, manager, "racer", "asset.read")
		path := "/v1/integrations/" + id + "/secrets"
		statuses := make([]int, 16)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				req, _ := http.NewRequest("POST", e.h.URL+path, nil)
				req.Header.Set("Authorization", "Bearer "+manager)
				resp, err := e.h.HTTP.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				statuses[i] = resp.StatusCode
			})
		}
		wg.Wait()
		counts := map[int]int{}
		for _, s := range statuses {
			counts[s]++
		}
		if counts[201] != 1 || counts[409] != 15 {
			t.Fatalf("statuses %v", counts)
		}
		var secrets []any
		e.h.Do("GET", path, manager, nil).Expect(t, 200, "").JSON(t, &secrets)
		if len(secrets) != 2 {
			t.Fatalf("%d active secrets", len(secrets))
		}
	})
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
