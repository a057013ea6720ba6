package restrictionshttp_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/identity"
	"atcp/internal/restrictions"
	"atcp/internal/restrictions/restrictionshttp"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

type env struct {
	h   *testkit.Harness
	svc *restrictions.Service
	// Tokens: platform administrator; acme writer (asset.write +
	// restrictions.write_direct), acme asset.write only, acme read-only,
	// acme reviewer/approver, a second acme requester; beta writer.
	admin, acme, acmeAssetOnly, acmeRO, approver, requester2, beta string
}

// setup serves the restriction endpoints with acme's a1 (10 MW, 20 MWh),
// acme's bare (no recorded capacities) and beta's b1.
func setup(t *testing.T, b store.Backend) *env {
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
	ten, twenty := 10.0, 20.0
	for _, x := range []struct{ id, org string }{{"a1", "acme"}, {"bare", "acme"}, {"b1", "beta"}} {
		a := assets.NewAsset(x.id, x.org, "Battery "+x.id, "Kiel", assets.Standalone)
		if x.id != "bare" {
			a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = &ten, &twenty
		}
		if err := as.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	svc := restrictions.NewService(b.Restrictions(), as, h.Clock)
	restrictionshttp.Register(h.Server, svc)
	e := &env{h: h, svc: svc}
	e.mint()
	return e
}

func (e *env) mint() {
	h := e.h
	e.admin = h.AdminToken()
	e.acme = h.TokenFor("acme", auth.AssetRead, auth.AssetWrite, auth.RestrictionsWriteDirect, auth.RestrictionsReview)
	e.acmeAssetOnly = h.TokenFor("acme", auth.AssetRead, auth.AssetWrite)
	e.acmeRO = h.TokenFor("acme", auth.AssetRead)
	e.approver = h.Token(auth.Principal{Subject: "approver", OrganizationID: "acme",
		Scopes: auth.NewScopeSet(auth.RestrictionsReview, auth.RestrictionsApprove, auth.AssetWrite)})
	e.requester2 = h.Token(auth.Principal{Subject: "someone-else", OrganizationID: "acme",
		Scopes: auth.NewScopeSet(auth.AssetWrite, auth.RestrictionsReview)})
	e.beta = h.TokenFor("beta", auth.AssetRead, auth.AssetWrite, auth.RestrictionsWriteDirect, auth.RestrictionsReview, auth.RestrictionsApprove)
}

// at moves the clock and mints tokens valid at the new instant.
func (e *env) at(t time.Time) {
	e.h.Clock.Set(t)
	e.mint()
}

// ts is the harness start (2026-02-01T06:00Z) plus d, as RFC 3339.
func ts(d time.Duration) string { return testkit.Start.Add(d).Format(time.RFC3339Nano) }

func q(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return path + "?" + v.Encode()
}

type limitList struct {
	Limits []struct {
		StartTime    time.Time  `json:"start_time"`
		EndTime      *time.Time `json:"end_time"`
		UpperLimitMW *float64   `json:"upper_limit_mw"`
		LowerLimitMW *float64   `json:"lower_limit_mw"`
		UpperMWh     *float64   `json:"upper_limit_mwh"`
		LowerMWh     *float64   `json:"lower_limit_mwh"`
		Reason       string     `json:"reason"`
	} `json:"limits"`
}

func starts(t *testing.T, r *testkit.Response) []string {
	t.Helper()
	var l limitList
	r.JSON(t, &l)
	out := []string{}
	for _, x := range l.Limits {
		out = append(out, x.StartTime.Format(time.RFC3339))
	}
	return out
}

const power = "/v1/assets/a1/power_limits"

func TestPowerLimitsLifecycle(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		// Defaults: only upper given -> lower = -10.
		r := h.Do("POST", power, e.acme, map[string]any{"start_time": ts(time.Hour), "end_time": ts(2 * time.Hour),
			"upper_limit_mw": 4, "reason": "maintenance", "reason_description": "inverter swap"}).Expect(t, 201, "")
		var l limitList
		r.JSON(t, &l)
		if len(l.Limits) != 1 || *l.Limits[0].UpperLimitMW != 4 || *l.Limits[0].LowerLimitMW != -10 || l.Limits[0].EndTime == nil {
			t.Fatalf("created %s", r.Body)
		}
		// Only lower given -> upper = 10; open-ended.
		r = h.Do("POST", power, e.acme, map[string]any{"start_time": ts(3 * time.Hour), "lower_limit_mw": -2, "reason": "grid_event"}).Expect(t, 201, "")
		r.JSON(t, &l)
		if *l.Limits[0].UpperLimitMW != 10 || *l.Limits[0].LowerLimitMW != -2 || l.Limits[0].EndTime != nil {
			t.Fatalf("created %s", r.Body)
		}
		// Overlap with the open-ended one.
		h.Do("POST", power, e.acme, map[string]any{"start_time": ts(30 * 24 * time.Hour), "upper_limit_mw": 1, "reason": "other"}).
			Expect(t, 409, "overlapping_interval")
		// Touching the first one's end is not an overlap.
		h.Do("POST", power, e.acme, map[string]any{"start_time": ts(2 * time.Hour), "end_time": ts(3 * time.Hour), "upper_limit_mw": 1, "reason": "other"}).
			Expect(t, 201, "")

		// Lists: ascending, descending, deprecated sort_by ignored.
		if got := starts(t, h.Do("GET", q(power, "sort_by", "end_time"), e.acmeRO, nil).Expect(t, 200, "")); fmt.Sprint(got) !=
			"[2026-02-01T07:00:00Z 2026-02-01T08:00:00Z 2026-02-01T09:00:00Z]" {
			t.Fatalf("asc %v", got)
		}
		if got := starts(t, h.Do("GET", q(power, "sort_order", "desc"), e.acmeRO, nil).Expect(t, 200, "")); got[0] != "2026-02-01T09:00:00Z" {
			t.Fatalf("desc %v", got)
		}

		// Active: none now; at 07:30 the first.
		if got := starts(t, h.Do("GET", power+"/active", e.acmeRO, nil).Expect(t, 200, "")); len(got) != 0 {
			t.Fatalf("active now %v", got)
		}
		e.at(testkit.Start.Add(90 * time.Minute))
		if got := starts(t, h.Do("GET", power+"/active", e.acmeRO, nil).Expect(t, 200, "")); fmt.Sprint(got) != "[2026-02-01T07:00:00Z]" {
			t.Fatalf("active %v", got)
		}

		// PATCH: both or neither is 400; scheduled shortening needs the lead.
		first := q(power, "start_time", ts(time.Hour), "end_time", "ignored")
		h.Do("PATCH", first, e.acme, map[string]any{}).Expect(t, 400, "bad_shortening")
		h.Do("PATCH", first, e.acme, map[string]any{"new_end_time": ts(100 * time.Minute), "end_now": true}).Expect(t, 400, "bad_shortening")
		h.Do("PATCH", first, e.acme, map[string]any{"new_end_time": ts(92 * time.Minute)}).Expect(t, 422, "validation_failed")
		h.Do("PATCH", first, e.acme, map[string]any{"new_end_time": ts(3 * time.Hour)}).Expect(t, 422, "validation_failed")
		r = h.Do("PATCH", first, e.acme, map[string]any{"new_end_time": ts(100 * time.Minute)}).Expect(t, 200, "")
		r.JSON(t, &l)
		if !l.Limits[0].EndTime.Equal(testkit.Start.Add(100 * time.Minute)) {
			t.Fatalf("shortened %s", r.Body)
		}
		h.Do("PATCH", q(power, "start_time", ts(61*time.Minute)), e.acme, map[string]any{"end_now": true}).Expect(t, 404, "not_found")
		// end_now on a future interval is 409; on the active one it ends at server time, and a retry is unchanged.
		h.Do("PATCH", q(power, "start_time", ts(3*time.Hour)), e.acme, map[string]any{"end_now": true}).Expect(t, 409, "interval_not_started")
		for range 2 {
			r = h.Do("PATCH", first, e.acme, map[string]any{"end_now": true}).Expect(t, 200, "")
			r.JSON(t, &l)
			if !l.Limits[0].EndTime.Equal(testkit.Start.Add(90 * time.Minute)) {
				t.Fatalf("ended %s", r.Body)
			}
			e.at(testkit.Start.Add(95 * time.Minute))
		}
		h.Do("PATCH", first, e.acme, map[string]any{"new_end_time": ts(4 * time.Hour)}).Expect(t, 409, "interval_ended")

		// DELETE: started is 409, unknown 404, future 204.
		h.Do("DELETE", first, e.acme, nil).Expect(t, 409, "interval_started")
		h.Do("DELETE", q(power, "start_time", ts(5*time.Hour)), e.acme, nil).Expect(t, 404, "not_found")
		h.Do("DELETE", q(power, "start_time", ts(3*time.Hour), "end_time", "x"), e.acme, nil).Expect(t, 204, "")
		if got := starts(t, h.Do("GET", power, e.acmeRO, nil).Expect(t, 200, "")); len(got) != 2 {
			t.Fatalf("after delete %v", got)
		}
	})
}

func TestIntervalErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		ok := map[string]any{"start_time": ts(time.Hour), "upper_limit_mw": 4, "reason": "maintenance"}
		for _, path := range []string{power, "/v1/assets/a1/energy_limits", "/v1/assets/a1/unavailability"} {
			h.Do("GET", path, "", nil).Expect(t, 401, "")
			h.Do("GET", path, e.approver, nil).Expect(t, 403, "")
			// asset.write alone is not enough: write_direct is needed too.
			h.Do("POST", path, e.acmeAssetOnly, ok).Expect(t, 403, "")
			h.Do("PATCH", q(path, "start_time", ts(time.Hour)), e.acmeAssetOnly, map[string]any{"end_now": true}).Expect(t, 403, "")
			h.Do("DELETE", q(path, "start_time", ts(time.Hour)), e.acmeRO, nil).Expect(t, 403, "")
			// Another organisation's asset is not found.
			h.Do("GET", path, e.beta, nil).Expect(t, 404, "not_found")
			h.Do("GET", "/v1/assets/nope/"+path[len("/v1/assets/a1/"):], e.acme, nil).Expect(t, 404, "not_found")
			h.Do("GET", q(path, "start_time", ts(2*time.Hour), "end_time", ts(time.Hour)), e.acme, nil).Expect(t, 422, "validation_failed")
			h.Do("PATCH", path, e.acme, map[string]any{"end_now": true}).Expect(t, 422, "")
		}
		for name, body := range map[string]map[string]any{
			"no reason":        {"start_time": ts(time.Hour), "upper_limit_mw": 4},
			"bad reason":       {"start_time": ts(time.Hour), "upper_limit_mw": 4, "reason": "bored"},
			"no bound":         {"start_time": ts(time.Hour), "reason": "other"},
			"above capacity":   {"start_time": ts(time.Hour), "upper_limit_mw": 11, "reason": "other"},
			"below capacity":   {"start_time": ts(time.Hour), "lower_limit_mw": -11, "reason": "other"},
			"lower over upper": {"start_time": ts(time.Hour), "upper_limit_mw": 1, "lower_limit_mw": 2, "reason": "other"},
			"end before start": {"start_time": ts(time.Hour), "end_time": ts(time.Hour), "upper_limit_mw": 1, "reason": "other"},
			"in the past":      {"start_time": ts(-2 * time.Minute), "upper_limit_mw": 1, "reason": "other"},
			"unknown field":    {"start_time": ts(time.Hour), "upper_limit_mw": 1, "reason": "other", "x": 1},
		} {
			t.Run(name, func(t *testing.T) { h.Do("POST", power, e.acme, body).Expect(t, 422, "") })
		}
		// No recorded capacity: an omitted bound has nothing to default to.
		h.Do("POST", "/v1/assets/bare/power_limits", e.acme, ok).Expect(t, 422, "validation_failed")
		h.Do("POST", "/v1/assets/bare/power_limits", e.acme, map[string]any{"start_time": ts(time.Hour),
			"upper_limit_mw": 400, "lower_limit_mw": -1, "reason": "other"}).Expect(t, 201, "")
		h.Do("POST", "/v1/assets/b1/power_limits", e.acme, ok).Expect(t, 404, "not_found")
		h.Do("POST", power, "", ok).Expect(t, 401, "")
		h.Do("POST", power, e.admin, ok).Expect(t, 201, "")
	})
}

func TestEnergyLimitsAndUnavailability(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		const energy = "/v1/assets/a1/energy_limits"
		r := h.Do("POST", energy, e.acme, map[string]any{"start_time": ts(time.Hour), "end_time": ts(2 * time.Hour),
			"lower_limit_mwh": 5, "reason": "commercial"}).Expect(t, 201, "")
		var l limitList
		r.JSON(t, &l)
		if *l.Limits[0].LowerMWh != 5 || *l.Limits[0].UpperMWh != 20 {
			t.Fatalf("energy defaults %s", r.Body)
		}
		r = h.Do("POST", energy, e.acme, map[string]any{"start_time": ts(2 * time.Hour), "upper_limit_mwh": 8, "reason": "commercial"}).Expect(t, 201, "")
		r.JSON(t, &l)
		if *l.Limits[0].LowerMWh != 0 || *l.Limits[0].UpperMWh != 8 {
			t.Fatalf("energy defaults %s", r.Body)
		}
		h.Do("POST", energy, e.acme, map[string]any{"start_time": ts(time.Hour), "upper_limit_mwh": 21, "reason": "other"}).Expect(t, 422, "")
		h.Do("POST", energy, e.acme, map[string]any{"start_time": ts(time.Hour), "lower_limit_mwh": -1, "reason": "other"}).Expect(t, 422, "")
		h.Do("POST", energy, e.acme, map[string]any{"start_time": ts(90 * time.Minute), "upper_limit_mwh": 3, "reason": "other"}).Expect(t, 409, "overlapping_interval")
		// Power limits are another kind: no overlap across kinds.
		h.Do("POST", power, e.acme, map[string]any{"start_time": ts(90 * time.Minute), "upper_limit_mw": 3, "reason": "other"}).Expect(t, 201, "")

		const unav = "/v1/assets/a1/unavailability"
		r = h.Do("POST", unav, e.acme, map[string]any{"start_time": ts(time.Hour), "reason": "fault", "availability_status": "unavailable"}).Expect(t, 201, "")
		m := r.Map(t)["unavailabilities"].([]any)[0].(map[string]any)
		if m["availability_status"] != "unavailable" || m["end_time"] != nil {
			t.Fatalf("unavailability %v", m)
		}
		h.Do("POST", unav, e.acme, map[string]any{"start_time": ts(time.Hour), "reason": "fault", "availability_status": "available"}).Expect(t, 422, "")
		h.Do("POST", unav, e.acme, map[string]any{"start_time": ts(3 * time.Hour), "reason": "fault"}).Expect(t, 409, "overlapping_interval")
		h.Do("GET", unav+"/active", e.acme, nil).Expect(t, 404, "")
		h.Do("PATCH", q(unav, "start_time", ts(time.Hour)), e.acme, map[string]any{"new_end_time": ts(5 * time.Hour)}).Expect(t, 200, "")
		r = h.Do("GET", q(unav, "start_time", ts(5*time.Hour)), e.acmeRO, nil).Expect(t, 200, "")
		if n := len(r.Map(t)["unavailabilities"].([]any)); n != 0 {
			t.Fatalf("ending exactly at start filter returned %d", n)
		}
		h.Do("DELETE", q(unav, "start_time", ts(time.Hour)), e.acme, nil).Expect(t, 204, "")
		h.Do("DELETE", q(unav, "start_time", ts(time.Hour)), e.acme, nil).Expect(t, 404, "")
	})
}

// TestOverlapFilterBoundaries pins document 1, rule 5 on both stores.
func TestOverlapFilterBoundaries(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		// [07:00, 08:00) and open-ended from 10:00.
		h.Do("POST", power, e.acme, map[string]any{"start_time": ts(time.Hour), "end_time": ts(2 * time.Hour), "upper_limit_mw": 1, "reason": "other"}).Expect(t, 201, "")
		h.Do("POST", power, e.acme, map[string]any{"start_time": ts(4 * time.Hour), "upper_limit_mw": 2, "reason": "other"}).Expect(t, 201, "")
		// An empty or inverted window is refused.
		h.Do("GET", q(power, "start_time", ts(time.Hour), "end_time", ts(time.Hour)), e.acmeRO, nil).Expect(t, 422, "validation_failed")
		for _, c := range []struct {
			from, to string
			want     string
		}{
			{ts(2 * time.Hour), "", "[2026-02-01T10:00:00Z]"},                                    // ending exactly at the start filter: excluded
			{"", ts(time.Hour), "[]"},                                                            // starting exactly at the end filter: excluded
			{ts(59 * time.Minute), ts(61 * time.Minute), "[2026-02-01T07:00:00Z]"},               // inside
			{ts(30 * 24 * time.Hour), ts(31 * 24 * time.Hour), "[2026-02-01T10:00:00Z]"},         // open-ended, far future
			{ts(2 * time.Hour), ts(4 * time.Hour), "[]"},                                         // between the two
			{ts(2 * time.Hour), ts(4*time.Hour + time.Microsecond), "[2026-02-01T10:00:00Z]"},    // just reaching the open-ended one
			{"2026-02-01T07:59:59+01:00", "2026-02-01T08:00:01+01:00", "[2026-02-01T07:00:00Z]"}, // offsets are instants
		} {
			args := []string{}
			if c.from != "" {
				args = append(args, "start_time", c.from)
			}
			if c.to != "" {
				args = append(args, "end_time", c.to)
			}
			r := h.Do("GET", q(power, args...), e.acmeRO, nil)
			if got := fmt.Sprint(starts(t, r.Expect(t, 200, ""))); got != c.want {
				t.Errorf("%s..%s: got %s want %s", c.from, c.to, got, c.want)
			}
		}
	})
}
