package contactshttp_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/contacts"
	"atcp/internal/contacts/contactshttp"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/segmentation"
	"atcp/internal/segmentation/segmentationhttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type noBids struct{}

func (noBids) CommittedAfter(context.Context, string, time.Time) (map[bids.Market]int, error) {
	return nil, nil
}

type env struct {
	h *testkit.Harness
	b store.Backend
	// acme may read and write, acmeRO only read, beta is another
	// organisation, none has no asset scope.
	acme, acmeRO, beta, none, admin string
}

// setup registers acme's bess-1 and bess-2 (segmented into the virtual
// assets bess-2.a and bess-2.b) and beta's b-1.
func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	registry := assets.NewService(b.Assets(), h.Clock)
	seg := segmentation.NewService(b.Segmentations(), registry, noBids{}, h.Clock)
	registry.SetVirtualResolver(seg)
	registry.AddDeletionGuard(seg)
	assetshttp.Register(h.Server, registry)
	segmentationhttp.Register(h.Server, seg)
	contactshttp.Register(h.Server, contacts.NewService(b.Contacts(), registry, h.Clock))
	e := env{h: h, b: b,
		acme:   h.TokenFor("acme", auth.AssetRead, auth.AssetWrite),
		acmeRO: h.TokenFor("acme", auth.AssetRead),
		beta:   h.TokenFor("beta", auth.AssetRead, auth.AssetWrite),
		none:   h.TokenFor("acme", auth.MarketRead, auth.MarketWrite),
		admin:  h.AdminToken(),
	}
	for _, a := range []struct{ id, org string }{{"bess-1", "acme"}, {"bess-2", "acme"}, {"b-1", "beta"}} {
		h.Do("POST", "/v1/assets", e.admin, map[string]any{
			"asset_id": a.id, "asset_name": "Battery " + a.id, "asset_type": "standalone", "location": "Cottbus",
			"organisation_id": a.org,
		}).Expect(t, 201, "")
	}
	h.Do("PUT", "/v1/assets/bess-2/segmentation", e.admin, map[string]any{"mode": "proportional", "segments": []any{
		map[string]any{"segment_id": "a", "name": "A", "share": 0.5}, map[string]any{"segment_id": "b", "name": "B", "share": 0.5},
	}}).Expect(t, 200, "")
	h.Do("POST", "/v1/assets/bess-2/segmentation/activate", e.admin, nil).Expect(t, 200, "")
	return e
}

func fullBody() map[string]any {
	return map[string]any{
		"name": "Leitwarte Cottbus", "role": "control room", "company": "Lausitz Speicher GmbH",
		"email": "leitwarte@lausitz.example", "phone": "+49 355 123456",
		"chat_webhook_url": "https://hooks.slack.com/services/T0/B0/xyz", "is_emergency": true, "notifiable": true,
	}
}

func with(body map[string]any, kv ...any) map[string]any {
	out := maps.Clone(body)
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == deleted {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// deleted as a value of with removes the key.
var deleted = &struct{}{}

const contacts1 = "/v1/assets/bess-1/contacts"

func path(assetID string, id any) string {
	return fmt.Sprintf("/v1/assets/%s/contacts/%v", assetID, id)
}

func errorLocations(t *testing.T, r *testkit.Response) []string {
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
	slices.Sort(out)
	return out
}

func expectInvalid(t *testing.T, r *testkit.Response, want ...string) {
	t.Helper()
	r.Expect(t, 422, "")
	slices.Sort(want)
	if got := errorLocations(t, r); !slices.Equal(got, want) {
		t.Fatalf("offending fields %v, want %v: %s", got, want, r.Body)
	}
}

// fingerprint digests every table, to show that refused requests write
// nothing.
func (e env) fingerprint(t *testing.T) testkit.Fingerprint {
	t.Helper()
	f, err := testkit.NewFingerprinter(context.Background(), e.b)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := f.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func (e env) unchanged(t *testing.T, before testkit.Fingerprint) {
	t.Helper()
	if changed := before.Changed(e.fingerprint(t)); len(changed) > 0 {
		t.Fatalf("refused requests changed %v", changed)
	}
}

func TestLifecycle(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		if got := h.Do("GET", contacts1, e.acmeRO, nil).Expect(t, 200, "").Map(t); !reflect.DeepEqual(got, map[string]any{"contacts": []any{}}) {
			t.Fatalf("empty directory: %v", got)
		}

		now := h.Clock.Now().UTC().Format(time.RFC3339Nano)
		r := h.Do("POST", contacts1, e.acme, fullBody()).Expect(t, 201, "")
		full := r.Map(t)
		id := full["contact_id"]
		want := with(fullBody(), "contact_id", id, "asset_id", "bess-1", "channels", []any{"email", "chat"},
			"created_at", now, "updated_at", now)
		if !reflect.DeepEqual(full, want) {
			t.Fatalf("created\n%v\nwant\n%v", full, want)
		}
		if loc := r.Header.Get("Location"); loc != path("bess-1", int64(id.(float64))) {
			t.Fatalf("Location %q", loc)
		}

		// Only a name: the other fields are null, is_emergency false,
		// notifiable true, and no channel: listed, never notified.
		bare := h.Do("POST", contacts1, e.acme, map[string]any{"name": "Pförtner", "email": "", "role": nil}).Expect(t, 201, "").Map(t)
		wantBare := map[string]any{"contact_id": bare["contact_id"], "asset_id": "bess-1", "name": "Pförtner", "role": nil, "company": nil,
			"email": nil, "phone": nil, "chat_webhook_url": nil, "is_emergency": false, "notifiable": true, "channels": []any{},
			"created_at": now, "updated_at": now}
		if !reflect.DeepEqual(bare, wantBare) || bare["contact_id"].(float64) <= id.(float64) {
			t.Fatalf("bare\n%v\nwant\n%v", bare, wantBare)
		}

		one := path("bess-1", int64(id.(float64)))
		if got := h.Do("GET", one, e.acmeRO, nil).Expect(t, 200, "").Map(t); !reflect.DeepEqual(got, full) {
			t.Fatalf("read %v", got)
		}
		var list struct{ Contacts []map[string]any }
		h.Do("GET", contacts1, e.admin, nil).Expect(t, 200, "").JSON(t, &list)
		if !reflect.DeepEqual(list.Contacts, []map[string]any{full, bare}) {
			t.Fatalf("list %v", list.Contacts)
		}

		// Replace: the body is the whole contact; what it leaves out is
		// cleared, the creation time stays.
		h.Clock.Advance(30 * time.Minute)
		later := h.Clock.Now().UTC().Format(time.RFC3339Nano)
		put := h.Do("PUT", one, e.acme, with(fullBody(), "chat_webhook_url", deleted, "company", nil, "is_emergency", deleted)).
			Expect(t, 200, "").Map(t)
		wantPut := with(full, "chat_webhook_url", nil, "company", nil, "is_emergency", false, "channels", []any{"email"}, "updated_at", later)
		if !reflect.DeepEqual(put, wantPut) {
			t.Fatalf("replaced\n%v\nwant\n%v", put, wantPut)
		}
		// A contact read with GET can be sent back as it is.
		read := h.Do("GET", one, e.acme, nil).Expect(t, 200, "").Map(t)
		if again := h.Do("PUT", one, e.acme, read).Expect(t, 200, "").Map(t); !reflect.DeepEqual(again, put) {
			t.Fatalf("sent back\n%v\nwant\n%v", again, put)
		}
		// Response-only fields are ignored, also when they disagree.
		if again := h.Do("PUT", one, e.acme, with(read, "contact_id", 999, "asset_id", "b-1", "channels", []any{"fax"})).
			Expect(t, 200, "").Map(t); !reflect.DeepEqual(again, put) {
			t.Fatalf("response-only fields changed it: %v", again)
		}
		// notifiable false is kept.
		if got := h.Do("PUT", one, e.acme, with(fullBody(), "notifiable", false)).Expect(t, 200, "").Map(t); got["notifiable"] != false {
			t.Fatalf("notifiable %v", got["notifiable"])
		}

		h.Do("DELETE", one, e.acme, nil).Expect(t, 204, "")
		h.Do("GET", one, e.acme, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", one, e.acme, nil).Expect(t, 404, "not_found")
		h.Do("PUT", one, e.acme, fullBody()).Expect(t, 404, "not_found")
		h.Do("GET", contacts1, e.acme, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Contacts) != 1 || !reflect.DeepEqual(list.Contacts[0], bare) {
			t.Fatalf("after delete %v", list.Contacts)
		}
		// A deleted id is never reused.
		next := h.Do("POST", contacts1, e.acme, fullBody()).Expect(t, 201, "").Map(t)
		if next["contact_id"].(float64) <= bare["contact_id"].(float64) {
			t.Fatalf("id %v after deleting %v", next["contact_id"], id)
		}
	})
}

func TestValidation(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		created := h.Do("POST", contacts1, e.acme, fullBody()).Expect(t, 201, "").Map(t)
		one := path("bess-1", int64(created["contact_id"].(float64)))
		before := e.fingerprint(t)
		for _, c := range []struct {
			name  string
			field string
			value any
		}{
			{"name missing", "name", deleted},
			{"null name", "name", nil},
			{"empty name", "name", ""},
			{"blank name", "name", "   "},
			{"name with a line break", "name", "Leit\nwarte"},
			{"name too long", "name", strings.Repeat("n", contacts.MaxNameLength+1)},
			{"name not a string", "name", 7},
			{"role with a control character", "role", "control\x00room"},
			{"blank role", "role", " "},
			{"role too long", "role", strings.Repeat("r", contacts.MaxRoleLength+1)},
			{"company too long", "company", strings.Repeat("ü", contacts.MaxCompanyLength+1)},
			{"company with a tab", "company", "Acme\tGmbH"},
			{"phone too long", "phone", strings.Repeat("1", contacts.MaxPhoneLength+1)},
			{"phone with a line break", "phone", "+49\n30"},
			{"email without @", "email", "leitwarte"},
			{"email with a display name", "email", "Leitwarte <leitwarte@lausitz.example>"},
			{"email with spaces around", "email", " leitwarte@lausitz.example"},
			{"email with a comment", "email", "leitwarte@lausitz.example (night)"},
			{"two emails", "email", "a@lausitz.example, b@lausitz.example"},
			{"quoted local part", "email", `"night shift"@lausitz.example`},
			{"email too long", "email", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 186) + ".example"},
			{"email not a string", "email", true},
			{"webhook over plain http", "chat_webhook_url", "http://hooks.slack.com/services/T0/B0/xyz"},
			{"webhook over http to a private address", "chat_webhook_url", "http://10.0.0.1/hook"},
			{"webhook with another scheme", "chat_webhook_url", "ftp://hooks.example/x"},
			{"relative webhook", "chat_webhook_url", "hooks.slack.com/services/x"},
			{"webhook without host", "chat_webhook_url", "https:///services/x"},
			{"webhook with credentials", "chat_webhook_url", "https://user:secret@hooks.example/x"},
			{"webhook with a space", "chat_webhook_url", "https://hooks.example/a b"},
			{"webhook opaque", "chat_webhook_url", "mailto:ops@lausitz.example"},
			{"webhook too long", "chat_webhook_url", "https://hooks.example/" + strings.Repeat("x", contacts.MaxWebhookURLLength)},
			{"is_emergency not a boolean", "is_emergency", "yes"},
			{"notifiable not a boolean", "notifiable", 1},
			{"unknown field", "fax", "+49 30 1"},
		} {
			t.Run(c.name, func(t *testing.T) {
				loc := "body." + c.field
				body := with(fullBody(), c.field, c.value)
				expectInvalid(t, h.Do("POST", contacts1, e.acme, body), loc)
				expectInvalid(t, h.Do("PUT", one, e.acme, body), loc)
			})
		}
		// Several offending fields are reported together.
		expectInvalid(t, h.Do("POST", contacts1, e.acme, with(fullBody(), "email", "nope", "chat_webhook_url", "http://example.com/x")),
			"body.email", "body.chat_webhook_url")
		// Malformed JSON is 400.
		h.Do("POST", contacts1, e.acme, `{"name":`).Expect(t, 400, "")
		h.Do("PUT", one, e.acme, `{"name":"x",}`).Expect(t, 400, "")
		e.unchanged(t, before)

		// Accepted edge cases: webhooks over plain http on loopback hosts
		// (tests and local relays), the longest fields, international text.
		for _, body := range []map[string]any{
			with(fullBody(), "chat_webhook_url", "http://127.0.0.1:8080/hook"),
			with(fullBody(), "chat_webhook_url", "http://localhost/hook"),
			with(fullBody(), "chat_webhook_url", "http://[::1]:9/hook?x=1"),
			with(fullBody(), "chat_webhook_url", "HTTPS://Hooks.Example/services/x"),
			with(fullBody(), "email", "nacht.schicht+bess@lausitz.example", "name", strings.Repeat("ß", contacts.MaxNameLength)),
			with(fullBody(), "email", strings.Repeat("a", 64)+"@"+strings.Repeat("b", 181)+".example", "phone", strings.Repeat("☎", contacts.MaxPhoneLength)),
			with(fullBody(), "chat_webhook_url", "https://hooks.example/"+strings.Repeat("x", contacts.MaxWebhookURLLength-22)),
		} {
			got := h.Do("PUT", one, e.acme, body).Expect(t, 200, "").Map(t)
			for k, v := range body {
				if got[k] != v {
					t.Fatalf("%s: %v, sent %v", k, got[k], v)
				}
			}
		}
	})
}

// TestIsolationAndScopes: another organisation's asset is 404 on every
// endpoint, and so is a contact under another asset; a missing scope is
// 403; none of it writes.
func TestIsolationAndScopes(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		created := h.Do("POST", contacts1, e.acme, fullBody()).Expect(t, 201, "").Map(t)
		id := int64(created["contact_id"].(float64))
		betas := h.Do("POST", "/v1/assets/b-1/contacts", e.beta, fullBody()).Expect(t, 201, "").Map(t)
		betaID := int64(betas["contact_id"].(float64))
		h.Do("POST", "/v1/assets/bess-2/contacts", e.acme, fullBody()).Expect(t, 201, "")
		before := e.fingerprint(t)

		type req struct{ method, path string }
		endpoints := func(assetID string, id int64) []req {
			return []req{{"GET", "/v1/assets/" + assetID + "/contacts"}, {"POST", "/v1/assets/" + assetID + "/contacts"},
				{"GET", path(assetID, id)}, {"PUT", path(assetID, id)}, {"DELETE", path(assetID, id)}}
		}
		body := func(method string) any {
			if method == "POST" || method == "PUT" {
				return fullBody()
			}
			return nil
		}
		// Another organisation's asset, an unknown asset, an invalid asset
		// id: 404 everywhere.
		for _, c := range []struct {
			token, assetID string
			id             int64
		}{{e.beta, "bess-1", id}, {e.acme, "b-1", betaID}, {e.acme, "nope", id}, {e.acme, "no:such", id}} {
			for _, r := range endpoints(c.assetID, c.id) {
				h.Do(r.method, r.path, c.token, body(r.method)).Expect(t, 404, "not_found")
			}
		}
		// A contact is found under its own asset only.
		for _, r := range endpoints("bess-2", id)[2:] {
			h.Do(r.method, r.path, e.acme, body(r.method)).Expect(t, 404, "not_found")
		}
		for _, r := range endpoints("bess-1", betaID)[2:] {
			h.Do(r.method, r.path, e.admin, body(r.method)).Expect(t, 404, "not_found")
		}
		for _, r := range endpoints("bess-1", id+1000)[2:] {
			h.Do(r.method, r.path, e.acme, body(r.method)).Expect(t, 404, "not_found")
		}
		// contact_id is a positive integer.
		for _, bad := range []string{"abc", "0", "-1", "1.5", "99999999999999999999"} {
			for _, r := range endpoints("bess-1", 0)[2:] {
				r.path = "/v1/assets/bess-1/contacts/" + bad
				expectInvalid(t, h.Do(r.method, r.path, e.acme, body(r.method)), "path.contact_id")
			}
		}
		// Scopes: reading needs asset.read, writing asset.write.
		for _, r := range endpoints("bess-1", id) {
			if r.method != "GET" {
				h.Do(r.method, r.path, e.acmeRO, body(r.method)).Expect(t, 403, "")
			}
			h.Do(r.method, r.path, e.none, body(r.method)).Expect(t, 403, "")
			h.Do(r.method, r.path, "", body(r.method)).Expect(t, 401, "")
		}
		e.unchanged(t, before)

		// The platform administrator sees and changes every organisation's.
		h.Do("GET", path("b-1", betaID), e.admin, nil).Expect(t, 200, "")
		h.Do("PUT", path("b-1", betaID), e.admin, with(fullBody(), "name", "Beta Leitwarte")).Expect(t, 200, "")
		h.Do("DELETE", path("b-1", betaID), e.admin, nil).Expect(t, 204, "")
	})
}

// TestVirtualAssets: a virtual asset reads its parent's contacts and
// cannot change them (409 virtual_asset).
func TestVirtualAssets(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		parent := h.Do("POST", "/v1/assets/bess-2/contacts", e.acme, fullBody()).Expect(t, 201, "").Map(t)
		id := int64(parent["contact_id"].(float64))
		var list struct{ Contacts []map[string]any }
		h.Do("GET", "/v1/assets/bess-2.a/contacts", e.acmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if !reflect.DeepEqual(list.Contacts, []map[string]any{parent}) {
			t.Fatalf("virtual asset lists %v", list.Contacts)
		}
		if got := h.Do("GET", path("bess-2.b", id), e.acmeRO, nil).Expect(t, 200, "").Map(t); !reflect.DeepEqual(got, parent) {
			t.Fatalf("virtual asset reads %v", got)
		}
		h.Do("GET", "/v1/assets/bess-2.a/contacts", e.beta, nil).Expect(t, 404, "not_found")
		h.Do("GET", "/v1/assets/bess-2.z/contacts", e.acme, nil).Expect(t, 404, "not_found")

		before := e.fingerprint(t)
		h.Do("POST", "/v1/assets/bess-2.a/contacts", e.acme, fullBody()).Expect(t, 409, "virtual_asset")
		h.Do("PUT", path("bess-2.a", id), e.acme, fullBody()).Expect(t, 409, "virtual_asset")
		h.Do("DELETE", path("bess-2.a", id), e.acme, nil).Expect(t, 409, "virtual_asset")
		h.Do("DELETE", path("bess-2.a", id), e.beta, nil).Expect(t, 404, "not_found")
		e.unchanged(t, before)
	})
}

// TestLimitPerAsset: the 51st contact of an asset is 409
// contact_limit_reached and stores nothing; other assets are not
// affected, and deleting one makes room.
func TestLimitPerAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		var last map[string]any
		for i := range contacts.MaxPerAsset {
			last = h.Do("POST", contacts1, e.acme, with(fullBody(), "name", fmt.Sprintf("Contact %d", i))).Expect(t, 201, "").Map(t)
		}
		before := e.fingerprint(t)
		h.Do("POST", contacts1, e.acme, fullBody()).Expect(t, 409, "contact_limit_reached")
		// A full directory still validates first.
		expectInvalid(t, h.Do("POST", contacts1, e.acme, with(fullBody(), "email", "nope")), "body.email")
		e.unchanged(t, before)
		h.Do("POST", "/v1/assets/b-1/contacts", e.beta, fullBody()).Expect(t, 201, "")
		h.Do("DELETE", path("bess-1", int64(last["contact_id"].(float64))), e.acme, nil).Expect(t, 204, "")
		h.Do("POST", contacts1, e.acme, fullBody()).Expect(t, 201, "")
	})
}

// TestDeletedAsset: an asset's contacts go with it.
func TestDeletedAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		created := h.Do("POST", contacts1, e.acme, fullBody()).Expect(t, 201, "").Map(t)
		h.Do("DELETE", "/v1/assets/bess-1", e.acme, nil).Expect(t, 204, "")
		h.Do("GET", contacts1, e.acme, nil).Expect(t, 404, "not_found")
		h.Do("GET", path("bess-1", int64(created["contact_id"].(float64))), e.admin, nil).Expect(t, 404, "not_found")
		h.Do("POST", contacts1, e.admin, fullBody()).Expect(t, 404, "not_found")
		if list, err := b.Contacts().List(context.Background(), auth.Visibility{All: true}, "bess-1"); err != nil || len(list) != 0 {
			t.Fatalf("contacts of a deleted asset: %v, %v", list, err)
		}
	})
}
