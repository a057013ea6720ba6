package afrrhttp_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type env struct {
	h      *testkit.Harness
	svc    *afrr.BackupService
	assets *assets.Service
	// Tokens: platform administrator; acme read-write, read-only and
	// market scopes only; beta read-write.
	admin, acme, acmeRO, acmeMarket, beta string
}

// setup serves the backup-market endpoints with acme's asset a1
// (prequalified 4 MW pos, 10 MW neg) and beta's asset b1, both live; opts
// go to the service.
func setup(t *testing.T, b store.Backend, opts ...bids.Option) *env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for id, name := range map[string]string{"acme": "Acme Storage", "beta": "Beta Energie"} {
		if err := dir.EnsureOrganization(ctx, id, name); err != nil {
			t.Fatal(err)
		}
	}
	as := assets.NewService(b.Assets(), h.Clock)
	for id, org := range map[string]string{"a1": "acme", "b1": "beta"} {
		a := assets.NewAsset(id, org, "Battery "+id, "Kiel", assets.Standalone)
		a.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW = 4, 10
		if err := as.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	svc := afrr.NewBackupService(b.BackupMarket(), as, h.Clock, opts...)
	afrrhttp.RegisterBackup(h.Server, svc)
	e := &env{h: h, svc: svc, assets: as}
	e.mintTokens()
	return e
}

func (e *env) mintTokens() {
	e.admin = e.h.AdminToken()
	e.acme = e.h.TokenFor("acme", auth.AssetRead, auth.AssetWrite)
	e.acmeRO = e.h.TokenFor("acme", auth.AssetRead)
	e.acmeMarket = e.h.TokenFor("acme", auth.MarketRead, auth.MarketWrite)
	e.beta = e.h.TokenFor("beta", auth.AssetRead, auth.AssetWrite)
}

// at moves the clock and mints tokens valid at the new instant.
func (e *env) at(t time.Time) {
	e.h.Clock.Set(t)
	e.mintTokens()
}

const (
	bidsPath    = "/v1/assets/a1/backup_markets/afrr/bids"
	defaultPath = "/v1/assets/a1/backup_markets/afrr/default"
)

// qh is the n-th quarter-hour after the harness start (06:00 UTC).
func qh(n int) string {
	return testkit.Start.Add(time.Duration(n) * 15 * time.Minute).Format(time.RFC3339)
}

func body(product string, from, to int, kv ...any) map[string]any {
	m := map[string]any{"product": product, "start_time": qh(from), "end_time": qh(to)}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func (e *env) create(t *testing.T, b map[string]any) map[string]any {
	t.Helper()
	return e.h.Do("POST", bidsPath, e.acme, b).Expect(t, 201, "").Map(t)
}

// ids lists the override ids of a list response.
func ids(t *testing.T, r *testkit.Response) []string {
	t.Helper()
	var l struct {
		Bids []struct {
			ID string `json:"id"`
		} `json:"bids"`
	}
	r.JSON(t, &l)
	out := []string{}
	for _, b := range l.Bids {
		out = append(out, b.ID)
	}
	return out
}

func locations(t *testing.T, r *testkit.Response) []string {
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
	slices.Sort(out)
	return out
}

func expectInvalid(t *testing.T, r *testkit.Response, want ...string) {
	t.Helper()
	r.Expect(t, 422, "validation_failed")
	slices.Sort(want)
	if got := locations(t, r); !slices.Equal(got, want) {
		t.Fatalf("offending fields %v, want %v: %s", got, want, r.Body)
	}
}

// TestBackupAssetNotLive: defaults and overrides of an asset that is not
// live are 409 asset_not_live, before the capacity cap is judged against
// the prequalification; its overrides can still be cancelled. The
// demonstration environment's option turns the check off.
func TestBackupAssetNotLive(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		created := e.create(t, body("neg", 8, 12))
		if _, err := e.assets.Update(context.Background(), auth.Visibility{OrganizationID: "acme"}, "a1",
			assets.Update{OperationalStatus: assets.Some(assets.Maintenance)}); err != nil {
			t.Fatal(err)
		}
		e.h.Do("POST", bidsPath, e.acme, body("neg", 16, 20)).Expect(t, 409, "asset_not_live")
		e.h.Do("POST", bidsPath, e.acme, body("pos", 16, 20, "max_capacity_mw", 50)).Expect(t, 409, "asset_not_live")
		e.h.Do("PUT", defaultPath, e.acme, map[string]any{"product": "neg", "default_price": 1}).Expect(t, 409, "asset_not_live")
		e.h.Do("GET", defaultPath+"?product=neg", e.acme, nil).Expect(t, 404, "no_default")
		e.h.Do("DELETE", bidsPath+"/"+created["id"].(string), e.acme, nil).Expect(t, 204, "")
		// Another organisation's asset stays invisible.
		e.h.Do("POST", "/v1/assets/b1/backup_markets/afrr/bids", e.acme, body("neg", 16, 20)).Expect(t, 404, "")
	})
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, bids.AllowNotLive())
		if _, err := e.assets.Update(context.Background(), auth.Visibility{OrganizationID: "acme"}, "a1",
			assets.Update{OperationalStatus: assets.Some(assets.Onboarding)}); err != nil {
			t.Fatal(err)
		}
		e.create(t, body("neg", 8, 12))
		e.h.Do("PUT", defaultPath, e.acme, map[string]any{"product": "neg", "default_price": 1}).Expect(t, 200, "")
	})
}

func TestAuthAndVisibility(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		created := e.create(t, body("neg", 8, 12))
		del := bidsPath + "/" + created["id"].(string)
		for _, op := range []struct {
			method, path string
			body         any
			write        bool
		}{
			{"GET", bidsPath, nil, false},
			{"POST", bidsPath, body("neg", 20, 21), true},
			{"DELETE", del, nil, true},
			{"GET", defaultPath + "?product=neg", nil, false},
			{"PUT", defaultPath, map[string]any{"product": "neg", "default_price": 1}, true},
		} {
			e.h.Do(op.method, op.path, "", op.body).Expect(t, 401, "invalid_token")
			e.h.Do(op.method, op.path, "not-a-token", op.body).Expect(t, 401, "invalid_token")
			e.h.Do(op.method, op.path, e.acmeMarket, op.body).Expect(t, 403, "insufficient_scope")
			if op.write {
				e.h.Do(op.method, op.path, e.acmeRO, op.body).Expect(t, 403, "insufficient_scope")
			}
			// Another organisation's asset, an unknown one and a malformed
			// id are all the same 404.
			e.h.Do(op.method, op.path, e.beta, op.body).Expect(t, 404, "not_found")
			for _, asset := range []string{"nope", "a%20b"} {
				e.h.Do(op.method, strings.Replace(op.path, "/a1/", "/"+asset+"/", 1), e.acme, op.body).Expect(t, 404, "not_found")
			}
		}
		// Nothing changed: the override is still there, no default exists.
		if got := ids(t, e.h.Do("GET", bidsPath, e.acmeRO, nil).Expect(t, 200, "")); len(got) != 1 {
			t.Fatalf("overrides %v", got)
		}
		e.h.Do("GET", defaultPath+"?product=neg", e.acme, nil).Expect(t, 404, "no_default")

		// The platform administrator acts on every organisation; beta's own
		// asset is beta's alone.
		e.h.Do("GET", bidsPath, e.admin, nil).Expect(t, 200, "")
		e.h.Do("POST", "/v1/assets/b1/backup_markets/afrr/bids", e.admin, body("pos", 8, 9)).Expect(t, 201, "")
		if got := ids(t, e.h.Do("GET", "/v1/assets/b1/backup_markets/afrr/bids", e.beta, nil).Expect(t, 200, "")); len(got) != 1 {
			t.Fatalf("beta's overrides %v", got)
		}
		e.h.Do("GET", "/v1/assets/b1/backup_markets/afrr/bids", e.acme, nil).Expect(t, 404, "not_found")
		// acme's override id under beta's asset is unknown there.
		e.h.Do("DELETE", "/v1/assets/b1/backup_markets/afrr/bids/"+created["id"].(string), e.admin, nil).Expect(t, 404, "not_found")
		e.h.Do("PUT", "/v1/assets/b1/backup_markets/afrr/default", e.beta, map[string]any{"product": "pos", "default_price": "3"}).Expect(t, 200, "")
		e.h.Do("GET", "/v1/assets/b1/backup_markets/afrr/default?product=pos", e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("GET", "/v1/assets/b1/backup_markets/afrr/default?product=pos", e.admin, nil).Expect(t, 200, "")
		e.h.Do("DELETE", del, e.admin, nil).Expect(t, 204, "")
	})
}

func TestCreateAndList(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		full := e.h.Do("POST", bidsPath, e.acme, body("neg", 8, 12, "price", 85.5, "max_capacity_mw", 10, "note", "night shift")).
			Expect(t, 201, "").Map(t)
		want := map[string]any{
			"id": full["id"], "asset_id": "a1", "product": "neg", "start_time": "2026-02-01T08:00:00Z", "end_time": "2026-02-01T09:00:00Z",
			"price": "85.50", "max_capacity_mw": 10.0, "note": "night shift", "created_at": "2026-02-01T06:00:00Z",
		}
		if fmt.Sprint(full) != fmt.Sprint(want) {
			t.Fatalf("created %v\nwant %v", full, want)
		}
		str := e.create(t, body("neg", 12, 13, "price", "-15000"))
		if str["price"] != "-15000.00" || str["max_capacity_mw"] != nil || str["note"] != nil {
			t.Fatalf("string price %v", str)
		}
		null := e.create(t, body("pos", 8, 9, "price", nil, "max_capacity_mw", nil, "note", nil))
		if null["price"] != nil || null["max_capacity_mw"] != nil || null["product"] != "pos" {
			t.Fatalf("null values %v", null)
		}
		zero := e.create(t, body("pos", 9, 10, "max_capacity_mw", 0, "price", "1.5e1"))
		if zero["max_capacity_mw"] != 0.0 || zero["price"] != "15.00" {
			t.Fatalf("zero cap %v", zero)
		}
		// Offsets are accepted and returned in UTC.
		off := e.create(t, map[string]any{"product": "pos", "start_time": "2026-02-01T12:00:00+01:00", "end_time": "2026-02-01T12:15:00+01:00"})
		if off["start_time"] != "2026-02-01T11:00:00Z" {
			t.Fatalf("offset %v", off)
		}

		all := ids(t, e.h.Do("GET", bidsPath, e.acmeRO, nil).Expect(t, 200, ""))
		wantAll := []string{full["id"].(string), null["id"].(string), zero["id"].(string), str["id"].(string), off["id"].(string)}
		if !slices.Equal(all, wantAll) {
			t.Fatalf("list %v, want %v (by start_time, then product)", all, wantAll)
		}
		list := func(query string) []string {
			t.Helper()
			return ids(t, e.h.Do("GET", bidsPath+"?"+query, e.acmeRO, nil).Expect(t, 200, ""))
		}
		q := func(kv ...string) string {
			v := url.Values{}
			for i := 0; i < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v.Encode()
		}
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{q("product", "neg"), []string{full["id"].(string), str["id"].(string)}},
			{q("product", "pos"), []string{null["id"].(string), zero["id"].(string), off["id"].(string)}},
			// full is [08:00, 09:00), str [09:00, 09:15): ending exactly at
			// start_time and starting exactly at end_time are excluded.
			{q("product", "neg", "start_time", qh(12)), []string{str["id"].(string)}},
			{q("product", "neg", "end_time", qh(12)), []string{full["id"].(string)}},
			{q("product", "neg", "start_time", qh(11), "end_time", qh(12)), []string{full["id"].(string)}},
			{q("product", "neg", "start_time", "2026-02-01T08:59:59.999Z", "end_time", "2026-02-01T09:00:00.001Z"), []string{full["id"].(string), str["id"].(string)}},
			{q("start_time", qh(13), "end_time", qh(21)), []string{off["id"].(string)}},
			{q("start_time", qh(13), "end_time", qh(20)), []string{}},
			{q("start_time", "2026-02-01T09:00:00+01:00", "end_time", "2026-02-01T09:15:00+01:00"), []string{full["id"].(string), null["id"].(string)}},
			{q("end_time", qh(0)), []string{}},
		} {
			if got := list(tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("?%s: %v, want %v", tc.query, got, tc.want)
			}
		}
		if got := list("product=na"); len(got) != 0 {
			t.Errorf("?product=na: %v, want none", got)
		}
		expectInvalid(t, e.h.Do("GET", bidsPath+"?product=up", e.acme, nil), "query.product")
		expectInvalid(t, e.h.Do("GET", bidsPath+"?"+q("start_time", qh(4), "end_time", qh(4)), e.acme, nil), "query.end_time")
		expectInvalid(t, e.h.Do("GET", bidsPath+"?start_time=yesterday", e.acme, nil), "query.start_time")

		// Reads reach back 30 days: an override that ended longer ago is
		// no longer listed, one that ends later still is.
		e.at(testkit.Start.Add(afrr.BackupHistory).Add(3 * time.Hour))
		if got := list(""); !slices.Equal(got, []string{str["id"].(string), off["id"].(string)}) {
			t.Fatalf("after 30 days: %v", got)
		}
	})
}

func TestCreateRefused(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		for _, tc := range []struct {
			name string
			body any
			want []string
		}{
			{"na cap above the FCR prequalified capacity (0)", body("na", 8, 9, "max_capacity_mw", 1), []string{"body.max_capacity_mw"}},
			{"unknown product", body("sym", 8, 9), []string{"body.product"}},
			{"unaligned", body("neg", 8, 9, "start_time", "2026-02-01T08:07:00Z", "end_time", "2026-02-01T09:00:30Z"), []string{"body.start_time", "body.end_time"}},
			{"empty window", body("neg", 8, 8), []string{"body.end_time"}},
			{"reversed", body("neg", 9, 8), []string{"body.end_time"}},
			{"three decimals", body("neg", 8, 9, "price", 12.345), []string{"body.price"}},
			{"three decimal string", body("neg", 8, 9, "price", "12.345"), []string{"body.price"}},
			{"price above range", body("neg", 8, 9, "price", 15000.01), []string{"body.price"}},
			{"price below range", body("neg", 8, 9, "price", "-15001"), []string{"body.price"}},
			{"price text", body("neg", 8, 9, "price", "cheap"), []string{"body.price"}},
			{"price boolean", body("neg", 8, 9, "price", true), []string{"body.price"}},
			{"negative cap", body("neg", 8, 9, "max_capacity_mw", -1), []string{"body.max_capacity_mw"}},
			{"cap above prequalified pos", body("pos", 8, 9, "max_capacity_mw", 4.5), []string{"body.max_capacity_mw"}},
			{"cap above prequalified neg", body("neg", 8, 9, "max_capacity_mw", 10.5), []string{"body.max_capacity_mw"}},
			{"long note", body("neg", 8, 9, "note", strings.Repeat("x", 1001)), []string{"body.note"}},
			{"unknown field", body("neg", 8, 9, "colour", "red"), []string{"body.colour"}},
			{"start time not a time", body("neg", 8, 9, "start_time", "soon"), []string{"body.start_time"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				expectInvalid(t, e.h.Do("POST", bidsPath, e.acme, tc.body), tc.want...)
			})
		}
		for _, missing := range []string{"product", "start_time", "end_time"} {
			b := body("neg", 8, 9)
			delete(b, missing)
			r := e.h.Do("POST", bidsPath, e.acme, b).Expect(t, 422, "validation_failed")
			if !strings.Contains(string(r.Body), missing) {
				t.Fatalf("missing %s: %s", missing, r.Body)
			}
		}
		e.h.Do("POST", bidsPath, e.acme, `{"product": "neg",`).Expect(t, 400, "")
		e.h.Do("POST", bidsPath, e.acme, `[]`).Expect(t, 422, "")
		if got := ids(t, e.h.Do("GET", bidsPath, e.acme, nil).Expect(t, 200, "")); len(got) != 0 {
			t.Fatalf("a refused request stored %v", got)
		}
	})
}

func TestGateAndOverlap(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		// The block at 08:00 (qh 8) closes at 07:59:50.
		e.at(time.Date(2026, 2, 1, 7, 59, 49, 0, time.UTC))
		first := e.create(t, body("neg", 8, 12))
		e.at(time.Date(2026, 2, 1, 7, 59, 50, 0, time.UTC))
		e.h.Do("POST", bidsPath, e.acme, body("pos", 8, 9)).Expect(t, 409, "gate_closed")
		e.h.Do("POST", bidsPath, e.acme, body("pos", 4, 20)).Expect(t, 409, "gate_closed")
		e.create(t, body("pos", 9, 10)) // the next block is still open

		// Overlaps with the same product are refused; touching is not.
		for _, w := range [][2]int{{9, 10}, {11, 13}, {9, 16}, {10, 11}} {
			r := e.h.Do("POST", bidsPath, e.acme, body("neg", w[0], w[1])).Expect(t, 409, "override_overlaps")
			if !strings.Contains(string(r.Body), first["id"].(string)) {
				t.Fatalf("the conflict names the override: %s", r.Body)
			}
		}
		e.create(t, body("neg", 12, 13))

		// DELETE: the started (gated) override cannot be cancelled; a future one can.
		e.h.Do("DELETE", bidsPath+"/"+first["id"].(string), e.acme, nil).Expect(t, 409, "gate_closed")
		later := e.create(t, body("neg", 20, 24))
		e.at(time.Date(2026, 2, 1, 10, 59, 49, 999000000, time.UTC)) // qh 20 is 11:00
		e.h.Do("DELETE", bidsPath+"/"+later["id"].(string), e.acme, nil).Expect(t, 204, "")
		e.h.Do("DELETE", bidsPath+"/"+later["id"].(string), e.acme, nil).Expect(t, 404, "not_found")
		e.h.Do("DELETE", bidsPath+"/"+strings.ToUpper(first["id"].(string)), e.acme, nil).Expect(t, 409, "gate_closed")
		e.h.Do("DELETE", bidsPath+"/00000000-0000-4000-8000-000000000000", e.acme, nil).Expect(t, 404, "not_found")
		for _, bad := range []string{"not-a-uuid", "123", "{" + first["id"].(string) + "}"} {
			r := e.h.Do("DELETE", bidsPath+"/"+url.PathEscape(bad), e.acme, nil).Expect(t, 400, "malformed_request")
			if got := locations(t, r); !slices.Equal(got, []string{"path.bid_id"}) {
				t.Fatalf("%s: %v", bad, got)
			}
		}
		last := e.create(t, body("neg", 30, 31))
		e.at(time.Date(2026, 2, 1, 13, 29, 50, 0, time.UTC)) // qh 30 is 13:30
		e.h.Do("DELETE", bidsPath+"/"+last["id"].(string), e.acme, nil).Expect(t, 409, "gate_closed")
		if got := ids(t, e.h.Do("GET", bidsPath+"?product=neg", e.acme, nil).Expect(t, 200, "")); len(got) != 3 {
			t.Fatalf("after refused deletions %v", got)
		}
	})
}

func TestDefaults(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		e.h.Do("GET", defaultPath+"?product=pos", e.acme, nil).Expect(t, 404, "no_default")
		e.h.Do("GET", defaultPath+"?product=na", e.acme, nil).Expect(t, 404, "no_default")
		// na is the FCR cover offer; without a cap it needs no FCR
		// prequalification to be stored (it covers nothing without one).
		e.h.Do("PUT", defaultPath, e.acme, map[string]any{"product": "na", "default_price": "12.5"}).Expect(t, 200, "")
		if got := e.h.Do("GET", defaultPath+"?product=na", e.acme, nil).Expect(t, 200, "").Map(t); got["default_price"] != "12.50" || got["product"] != "na" {
			t.Errorf("na default: %v", got)
		}
		e.h.Do("GET", defaultPath, e.acme, nil).Expect(t, 422, "validation_failed")

		e.at(time.Date(2026, 2, 1, 6, 14, 50, 0, time.UTC)) // the 06:15 gate has just closed
		d := e.h.Do("PUT", defaultPath, e.acme, map[string]any{"product": "neg", "default_price": "42.1", "default_max_capacity_mw": 6}).
			Expect(t, 200, "").Map(t)
		want := map[string]any{"asset_id": "a1", "product": "neg", "default_price": "42.10", "default_max_capacity_mw": 6.0,
			"effective_from": "2026-02-01T06:30:00Z", "updated_at": "2026-02-01T06:14:50Z"}
		if fmt.Sprint(d) != fmt.Sprint(want) {
			t.Fatalf("put %v\nwant %v", d, want)
		}
		got := e.h.Do("GET", defaultPath+"?product=neg", e.acmeRO, nil).Expect(t, 200, "").Map(t)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("get %v", got)
		}
		e.h.Do("GET", defaultPath+"?product=pos", e.acme, nil).Expect(t, 404, "no_default")
		// No cap: absent or null.
		for _, cap := range []map[string]any{{}, {"default_max_capacity_mw": nil}} {
			body := map[string]any{"product": "pos", "default_price": -3}
			for k, v := range cap {
				body[k] = v
			}
			p := e.h.Do("PUT", defaultPath, e.acme, body).Expect(t, 200, "").Map(t)
			if p["default_max_capacity_mw"] != nil || p["default_price"] != "-3.00" {
				t.Fatalf("no cap %v", p)
			}
		}

		for _, tc := range []struct {
			name string
			body any
			want []string
		}{
			{"na cap above the FCR prequalified capacity (0)", map[string]any{"product": "na", "default_price": 1, "default_max_capacity_mw": 1}, []string{"body.default_max_capacity_mw"}},
			{"price precision", map[string]any{"product": "neg", "default_price": "1.005"}, []string{"body.default_price"}},
			{"price range", map[string]any{"product": "neg", "default_price": 20000}, []string{"body.default_price"}},
			{"price null", map[string]any{"product": "neg", "default_price": nil}, []string{"body.default_price"}},
			{"price missing", map[string]any{"product": "neg"}, []string{"body.default_price"}},
			{"cap above prequalified", map[string]any{"product": "pos", "default_price": 1, "default_max_capacity_mw": 5}, []string{"body.default_max_capacity_mw"}},
			{"negative cap", map[string]any{"product": "neg", "default_price": 1, "default_max_capacity_mw": -2}, []string{"body.default_max_capacity_mw"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				expectInvalid(t, e.h.Do("PUT", defaultPath, e.acme, tc.body), tc.want...)
			})
		}
		e.h.Do("PUT", defaultPath, e.acme, `{"product":`).Expect(t, 400, "")
		if got := e.h.Do("GET", defaultPath+"?product=neg", e.acme, nil).Expect(t, 200, "").Map(t); got["default_price"] != "42.10" {
			t.Fatalf("a refused PUT changed the default: %v", got)
		}
	})
}

// offers resolves the neg offers of a1 for quarter-hours [from, to) as
// "price/cap(sources)" strings.
func (e *env) offers(t *testing.T, from, to int) []string {
	t.Helper()
	start := testkit.Start.Add(time.Duration(from) * 15 * time.Minute)
	list, err := e.svc.Offers(context.Background(), auth.Visibility{All: true}, "a1", afrr.Neg,
		calendar.Interval{Start: start, End: start.Add(time.Duration(to-from) * 15 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, o := range list {
		price, cap := "-", "-"
		if o.Price != nil {
			price = afrr.FormatPrice(*o.Price)
		}
		if o.MaxCapacityMW != nil {
			cap = fmt.Sprint(*o.MaxCapacityMW)
		}
		out = append(out, fmt.Sprintf("%s/%s(%s,%s)", price, cap, o.PriceSource, o.CapacitySource))
	}
	return out
}

// A new default applies from the next open block; overrides keep explicit
// values and pick up the new default for values they left unset.
func TestDefaultPickUp(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		put := func(price any, cap any) {
			t.Helper()
			e.h.Do("PUT", defaultPath, e.acme, map[string]any{"product": "neg", "default_price": price, "default_max_capacity_mw": cap}).Expect(t, 200, "")
		}
		put(10, 8)                                           // from qh 1 (06:15)
		e.create(t, body("neg", 4, 6, "price", 99))          // price only
		e.create(t, body("neg", 6, 8, "max_capacity_mw", 2)) // cap only
		e.create(t, body("neg", 8, 9))                       // neither

		// Before the first default nothing is offered.
		if got := e.offers(t, 0, 2); fmt.Sprint(got) != "[-/-(none,none) 10.00/8(default,default)]" {
			t.Fatalf("before: %v", got)
		}
		e.at(time.Date(2026, 2, 1, 7, 10, 0, 0, time.UTC)) // blocks up to qh 4 (07:00) have started
		put("20.5", nil)                                   // from qh 5 (07:15): no cap
		want := []string{
			"99.00/8(override,default)", // qh 4: gated before the change, keeps the old default's cap
			"99.00/-(override,default)", // qh 5: the override's explicit price stays; the new default's "no cap" applies
			"20.50/2(default,override)", // qh 6
			"20.50/2(default,override)", // qh 7
			"20.50/-(default,default)",  // qh 8: an override setting nothing follows the default
			"20.50/-(default,default)",  // qh 9: no override
		}
		if got := e.offers(t, 4, 10); !slices.Equal(got, want) {
			t.Fatalf("after the change:\n%v\nwant\n%v", got, want)
		}
		// The stored override still holds only what the client sent.
		r := e.h.Do("GET", bidsPath+"?start_time="+url.QueryEscape(qh(6))+"&end_time="+url.QueryEscape(qh(7)), e.acme, nil).Expect(t, 200, "")
		var l afrrhttp.OverrideList
		r.JSON(t, &l)
		if len(l.Bids) != 1 || l.Bids[0].Price != nil || *l.Bids[0].MaxCapacityMW != 2 {
			t.Fatalf("override %s", r.Body)
		}
		// Two changes before one block: the later one wins from that block.
		put(30, 1)
		put(31, 1.5)
		if got := e.offers(t, 4, 6); fmt.Sprint(got) != "[99.00/8(override,default) 99.00/1.5(override,default)]" {
			t.Fatalf("second change: %v", got)
		}
		if _, err := e.svc.Offers(context.Background(), auth.Visibility{OrganizationID: "beta"}, "a1", afrr.Neg,
			calendar.Interval{Start: testkit.Start, End: testkit.Start.Add(time.Hour)}); err == nil {
			t.Fatal("beta resolved acme's offers")
		}
		// na, the FCR cover offer, resolves alike and apart from neg.
		e.h.Do("PUT", defaultPath, e.acme, map[string]any{"product": "na", "default_price": "12.5"}).Expect(t, 200, "")
		fcr, err := e.svc.Offers(context.Background(), auth.Visibility{All: true}, "a1", afrr.NA,
			calendar.Interval{Start: testkit.Start.Add(5 * time.Hour), End: testkit.Start.Add(5*time.Hour + 15*time.Minute)})
		if err != nil || len(fcr) != 1 || fcr[0].Price == nil || afrr.FormatPrice(*fcr[0].Price) != "12.50" || fcr[0].Product != afrr.NA {
			t.Fatalf("the na offer: %+v, %v", fcr, err)
		}
	})
}

// The OpenAPI document lists the five operations under their tag with
// their scopes, and the price as a number or a string.
func TestOpenAPI(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	var doc struct {
		Paths map[string]map[string]struct {
			Tags   []string `json:"tags"`
			Scopes []string `json:"x-required-scopes"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					OneOf []struct {
						Type string `json:"type"`
					} `json:"oneOf"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").JSON(t, &doc)
	base := "/v1/assets/{asset_id}/backup_markets/afrr"
	for _, op := range []struct{ path, method, scope string }{
		{base + "/bids", "get", "asset.read"}, {base + "/bids", "post", "asset.write"},
		{base + "/bids/{bid_id}", "delete", "asset.write"},
		{base + "/default", "get", "asset.read"}, {base + "/default", "put", "asset.write"},
	} {
		o, ok := doc.Paths[op.path][op.method]
		if !ok || !slices.Equal(o.Tags, []string{"aFRR backup market"}) || !slices.Equal(o.Scopes, []string{op.scope}) {
			t.Errorf("%s %s: %+v (found %v)", op.method, op.path, o, ok)
		}
	}
	for schema, field := range map[string]string{"OverrideCreateRequest": "price", "DefaultPutRequest": "default_price"} {
		p := doc.Components.Schemas[schema].Properties[field]
		if len(p.OneOf) != 2 || p.OneOf[0].Type != "number" || p.OneOf[1].Type != "string" {
			t.Errorf("%s.%s: %+v", schema, field, p)
		}
	}
}

// TestOverrideNoteControlCharacters: a note may hold line breaks and tabs
// but no NUL or other control character: 422 naming it on both stores (a
// NUL was a 500 on PostgreSQL), and nothing is stored.
func TestOverrideNoteControlCharacters(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		for _, note := range []string{"night\x00shift", "night\x1b[8mshift"} {
			r := e.h.Do("POST", bidsPath, e.acme, body("neg", 8, 12, "note", note)).Expect(t, 422, "validation_failed")
			if got := locations(t, r); !slices.Equal(got, []string{"body.note"}) {
				t.Fatalf("note %q: fields %v", note, got)
			}
		}
		if got := ids(t, e.h.Do("GET", bidsPath, e.acmeRO, nil).Expect(t, 200, "")); len(got) != 0 {
			t.Fatalf("stored: %v", got)
		}
		e.create(t, body("neg", 8, 12, "note", "night shift:\r\n\tcrew B"))
	})
}
