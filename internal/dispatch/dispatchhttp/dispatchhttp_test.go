package dispatchhttp_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/dispatch"
	"atcp/internal/dispatch/dispatchhttp"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

type env struct {
	h      *testkit.Harness
	svc    *dispatch.Service
	assets *assets.Service
	// Tokens: acme read+write, acme read only, acme write only, acme
	// report.read only, beta read+write.
	acme, acmeRO, acmeWO, acmeReport, beta string

	mu     sync.Mutex
	events []string
}

// setup serves the dispatch endpoints with acme's assets a1 (standalone,
// 10 MW, control on), off (control off), strict (strict_validation),
// bare (no capacity), grey and green (co-located), seg (segmented into
// seg.x and seg.y) and beta's b1.
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
	ten, off := 10.0, false
	for _, x := range []struct {
		id, org string
		typ     assets.AssetType
	}{{"a1", "acme", assets.Standalone}, {"off", "acme", assets.Standalone}, {"strict", "acme", assets.Standalone},
		{"bare", "acme", assets.Standalone}, {"grey", "acme", assets.GreyColocation}, {"green", "acme", assets.GreenColocation},
		{"seg", "acme", assets.Standalone}, {"b1", "beta", assets.Standalone}} {
		a := assets.NewAsset(x.id, x.org, "Battery "+x.id, "Kiel", x.typ)
		a.ControlEnabled = true
		if x.id != "bare" {
			a.UsablePowerCapacityMW = &ten
		}
		switch x.id {
		case "off":
			a.BESSControlEnabled = &off
		case "strict":
			a.StrictValidation = true
		}
		if err := as.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	seg := segmentation.NewService(b.Segmentations(), as, b.Bids(), h.Clock)
	as.SetVirtualResolver(seg)
	acme := auth.Visibility{OrganizationID: "acme"}
	if _, err := seg.Put(ctx, acme, "seg", segmentation.Proportional,
		[]segmentation.Segment{{ID: "x", Name: "X", Share: 0.4}, {ID: "y", Name: "Y", Share: 0.6}}); err != nil {
		t.Fatal(err)
	}
	if _, err := seg.Activate(ctx, acme, "seg"); err != nil {
		t.Fatal(err)
	}
	svc := dispatch.NewService(b.Dispatch(), as, h.Clock, dispatch.Config{Commitments: bids.CommitmentReader{Store: b.Bids()}})
	dispatchhttp.Register(h.Server, svc)
	e := &env{h: h, svc: svc, assets: as}
	svc.OnImmediate(func(ev dispatch.ImmediateEvent) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.events = append(e.events, fmt.Sprintf("%s %s..%s", ev.Kind, clockOf(ev.Dispatch.Start), clockOf(ev.Dispatch.End)))
	})
	e.mint()
	return e
}

func clockOf(t time.Time) string { return t.Format("15:04:05") }

func (e *env) mint() {
	h := e.h
	e.acme = h.TokenFor("acme", auth.DispatchRead, auth.DispatchWrite, auth.ReportRead)
	e.acmeRO = h.TokenFor("acme", auth.DispatchRead)
	e.acmeWO = h.TokenFor("acme", auth.DispatchWrite)
	e.acmeReport = h.TokenFor("acme", auth.ReportRead)
	e.beta = h.TokenFor("beta", auth.DispatchRead, auth.DispatchWrite, auth.ReportRead)
}

func (e *env) published() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := strings.Join(e.events, "; ")
	e.events = nil
	return out
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

type immediateList struct {
	Dispatches []struct {
		StartTime  time.Time `json:"start_time"`
		EndTime    time.Time `json:"end_time"`
		SetPowerMW float64   `json:"set_power_mw"`
	} `json:"dispatches"`
}

func (l immediateList) String() string {
	var out []string
	for _, d := range l.Dispatches {
		out = append(out, fmt.Sprintf("%g@%s..%s", d.SetPowerMW, clockOf(d.StartTime), clockOf(d.EndTime)))
	}
	return strings.Join(out, " ")
}

const immediate = "/v1/assets/a1/dispatch/immediate"

func TestImmediateDispatch(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		r := h.Do("POST", immediate, e.acme, map[string]any{"end_time": ts(time.Hour), "set_power_mw": 5}).Expect(t, 200, "")
		m := r.Map(t)
		if m["start_time"] != "2026-02-01T06:00:00Z" || m["end_time"] != "2026-02-01T07:00:00Z" || m["set_power_mw"] != 5.0 ||
			len(m["warnings"].([]any)) != 0 {
			t.Fatalf("created %s", r.Body)
		}
		if got := e.published(); got != "enable 06:00:00..07:00:00" {
			t.Fatalf("events %q", got)
		}
		// A new one replaces it; above capacity is a warning.
		h.Clock.Advance(10 * time.Minute)
		r = h.Do("POST", immediate, e.acme, map[string]any{"start_time": ts(10*time.Minute - 500*time.Millisecond),
			"end_time": ts(2 * time.Hour), "set_power_mw": -12}).Expect(t, 200, "")
		if w := r.Map(t)["warnings"].([]any); len(w) != 1 || !strings.Contains(w[0].(string), "exceeds") {
			t.Fatalf("warnings %s", r.Body)
		}
		if got := e.published(); got != "reset 06:00:00..06:09:59; enable 06:09:59..08:00:00" {
			t.Fatalf("events %q", got)
		}
		var l immediateList
		h.Do("GET", immediate, e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if l.String() != "5@06:00:00..06:09:59 -12@06:09:59..08:00:00" {
			t.Fatalf("list %s", l)
		}
		h.Do("GET", q(immediate, "sort_by", "end_time", "sort_order", "desc"), e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if l.String() != "-12@06:09:59..08:00:00 5@06:00:00..06:09:59" {
			t.Fatalf("desc %s", l)
		}
		// Rule 5: ending exactly at the start filter is excluded.
		h.Do("GET", q(immediate, "start_time", ts(10*time.Minute-500*time.Millisecond)), e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if len(l.Dispatches) != 1 {
			t.Fatalf("filtered %s", l)
		}
		h.Do("GET", q(immediate, "end_time", ts(0)), e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if len(l.Dispatches) != 0 {
			t.Fatalf("filtered %s", l)
		}

		// Disable closes the one in force at now; a second disable is 404.
		h.Clock.Advance(time.Minute)
		r = h.Do("PUT", immediate+"/disable", e.acmeWO, nil).Expect(t, 200, "")
		if m := r.Map(t); m["end_time"] != "2026-02-01T06:11:00Z" || m["set_power_mw"] != -12.0 {
			t.Fatalf("disabled %s", r.Body)
		}
		if got := e.published(); got != "reset 06:09:59..06:11:00" {
			t.Fatalf("events %q", got)
		}
		h.Do("PUT", immediate+"/disable", e.acme, nil).Expect(t, 404, "not_found")
		if got := e.published(); got != "" {
			t.Fatalf("events %q", got)
		}
		// No recorded capacity: not refused.
		h.Do("POST", "/v1/assets/bare/dispatch/immediate", e.acme, map[string]any{"end_time": ts(time.Hour), "set_power_mw": 500}).Expect(t, 200, "")
		// Disabled at the instant it started: closed at once.
		r = h.Do("PUT", "/v1/assets/bare/dispatch/immediate/disable", e.acme, nil).Expect(t, 200, "")
		if m := r.Map(t); m["start_time"] != m["end_time"] {
			t.Fatalf("disabled at its start %s", r.Body)
		}
		if got := e.published(); got != "enable 06:11:00..07:00:00; reset 06:11:00..06:11:00" {
			t.Fatalf("events %q", got)
		}
		// A backdated replacement removes one that starts after it: its
		// reset says it ended at its start, not at its old end_time.
		h.Clock.Advance(time.Minute)
		h.Do("POST", immediate, e.acme, map[string]any{"end_time": ts(2 * time.Hour), "set_power_mw": 1}).Expect(t, 200, "")
		h.Do("POST", immediate, e.acme, map[string]any{"start_time": ts(12*time.Minute - 500*time.Millisecond),
			"end_time": ts(2 * time.Hour), "set_power_mw": 2}).Expect(t, 200, "")
		if got := e.published(); got != "enable 06:12:00..08:00:00; reset 06:12:00..06:12:00; enable 06:11:59..08:00:00" {
			t.Fatalf("events %q", got)
		}
	})
}

func TestImmediateDispatchErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		ok := map[string]any{"end_time": ts(time.Hour), "set_power_mw": 5}
		h.Do("POST", immediate, "", ok).Expect(t, 401, "")
		h.Do("GET", immediate, "", nil).Expect(t, 401, "")
		h.Do("POST", immediate, e.acmeRO, ok).Expect(t, 403, "")
		h.Do("PUT", immediate+"/disable", e.acmeRO, nil).Expect(t, 403, "")
		h.Do("GET", immediate, e.acmeWO, nil).Expect(t, 403, "")
		h.Do("POST", immediate, e.beta, ok).Expect(t, 404, "not_found")
		h.Do("GET", immediate, e.beta, nil).Expect(t, 404, "not_found")
		h.Do("PUT", immediate+"/disable", e.beta, nil).Expect(t, 404, "not_found")
		h.Do("POST", "/v1/assets/nope/dispatch/immediate", e.acme, ok).Expect(t, 404, "not_found")
		h.Do("POST", "/v1/assets/off/dispatch/immediate", e.acme, ok).Expect(t, 409, "control_disabled")
		h.Do("PUT", "/v1/assets/off/dispatch/immediate/disable", e.acme, nil).Expect(t, 404, "not_found")
		for _, p := range []string{"/v1/assets/seg.x/dispatch/immediate"} {
			h.Do("POST", p, e.acme, ok).Expect(t, 409, "virtual_asset")
			// A virtual asset has no dispatch of its own: reads are empty.
			if r := h.Do("GET", p, e.acme, nil).Expect(t, 200, ""); strings.TrimSpace(string(r.Body)) != `{"dispatches":[]}` {
				t.Fatalf("virtual asset's immediate dispatches: %s", r.Body)
			}
			h.Do("PUT", p+"/disable", e.acme, nil).Expect(t, 409, "virtual_asset")
		}
		h.Do("POST", "/v1/assets/strict/dispatch/immediate", e.acme, map[string]any{"end_time": ts(time.Hour), "set_power_mw": -10.5}).
			Expect(t, 409, "strict_validation")
		h.Do("POST", immediate, e.acme, map[string]any{"end_time": ts(9 * time.Second), "set_power_mw": 1}).Expect(t, 400, "window_too_short")
		for name, body := range map[string]map[string]any{
			"above twice capacity": {"end_time": ts(time.Hour), "set_power_mw": 20.5},
			"end in the past":      {"end_time": ts(-time.Second), "set_power_mw": 1},
			"end now":              {"end_time": ts(0), "set_power_mw": 1},
			"backdated":            {"start_time": ts(-2 * time.Second), "end_time": ts(time.Hour), "set_power_mw": 1},
			"scheduled":            {"start_time": ts(time.Minute), "end_time": ts(time.Hour), "set_power_mw": 1},
			"no end":               {"set_power_mw": 1},
			"no power":             {"end_time": ts(time.Hour)},
			"power as text":        {"end_time": ts(time.Hour), "set_power_mw": "5"},
		} {
			t.Run(name, func(t *testing.T) { h.Do("POST", immediate, e.acme, body).Expect(t, 422, "") })
		}
		h.Do("GET", q(immediate, "start_time", ts(-31*24*time.Hour)), e.acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", q(immediate, "start_time", ts(time.Hour), "end_time", ts(time.Hour)), e.acme, nil).Expect(t, 422, "validation_failed")
		h.Do("GET", q(immediate, "sort_by", "power"), e.acme, nil).Expect(t, 422, "")
		if got := e.published(); got != "" {
			t.Fatalf("a refused request published %q", got)
		}
	})
}

// TestImmediateDisableControlOff: an override in force can be ended after
// battery control was switched off (else it would take the battery again
// when control returns); starting one stays refused.
func TestImmediateDisableControlOff(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		h.Do("POST", immediate, e.acme, map[string]any{"end_time": ts(time.Hour), "set_power_mw": 5}).Expect(t, 200, "")
		h.Clock.Advance(time.Minute)
		if _, err := e.assets.Update(context.Background(), auth.Visibility{OrganizationID: "acme"}, "a1",
			assets.Update{BESSControlEnabled: assets.Set(false)}); err != nil {
			t.Fatal(err)
		}
		e.published()
		h.Do("POST", immediate, e.acme, map[string]any{"end_time": ts(time.Hour), "set_power_mw": 5}).Expect(t, 409, "control_disabled")
		r := h.Do("PUT", immediate+"/disable", e.acme, nil).Expect(t, 200, "")
		if m := r.Map(t); m["end_time"] != "2026-02-01T06:01:00Z" {
			t.Fatalf("disabled %s", r.Body)
		}
		if got := e.published(); got != "reset 06:00:00..06:01:00" {
			t.Fatalf("events %q", got)
		}
		if active, err := e.svc.ActiveImmediate(context.Background(), testkit.Start.Add(2*time.Minute)); err != nil || len(active) != 0 {
			t.Fatalf("active %+v %v", active, err)
		}
	})
}

// TestImmediateDispatchConcurrentHTTP: concurrent POSTs leave one in force.
func TestImmediateDispatchConcurrentHTTP(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				e.h.Do("POST", immediate, e.acme, map[string]any{"end_time": ts(time.Hour), "set_power_mw": i}).Expect(t, 200, "")
			})
		}
		wg.Wait()
		active, err := e.svc.ActiveImmediate(context.Background(), testkit.Start)
		if err != nil || len(active) != 1 {
			t.Fatalf("active %+v %v", active, err)
		}
	})
}

const scheduled = "/v1/assets/a1/dispatch/scheduled"

type scheduleList struct {
	Schedules []struct {
		ControlMode  string    `json:"control_mode"`
		SetPowerMW   *float64  `json:"set_power_mw"`
		BESSPowerMW  *float64  `json:"bess_power_mw"`
		PoCPowerMW   *float64  `json:"poc_power_mw"`
		DeliveryTime time.Time `json:"delivery_time"`
		SetTime      time.Time `json:"set_time"`
	} `json:"schedules"`
	Warnings []string `json:"warnings"`
}

func (l scheduleList) String() string {
	var out []string
	for _, s := range l.Schedules {
		p := func(v *float64) string {
			if v == nil {
				return "nil"
			}
			return fmt.Sprint(*v)
		}
		out = append(out, fmt.Sprintf("%s:%s/%s@%s(%s)", s.ControlMode, p(s.BESSPowerMW), p(s.PoCPowerMW), clockOf(s.SetTime), s.DeliveryTime.Format("15:04")))
		if p(s.SetPowerMW) != p(s.BESSPowerMW) {
			out = append(out, "alias differs")
		}
	}
	return strings.Join(out, " ")
}

func target(at time.Duration, kv ...any) map[string]any {
	m := map[string]any{"delivery_time": ts(at)}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func schedules(targets ...map[string]any) map[string]any { return map[string]any{"schedules": targets} }

func TestScheduledDispatch(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		m := time.Minute
		var l scheduleList
		r := h.Do("PUT", scheduled, e.acmeWO, schedules(
			target(40*m+300*time.Millisecond, "bess_power_mw", -3),
			target(20*m, "power_mw", 4),
		)).Expect(t, 200, "")
		r.JSON(t, &l)
		if l.String() != "bess_only:4/nil@06:20:00(06:15) bess_only:4/nil@06:30:00(06:30) bess_only:-3/nil@06:40:00(06:30)" {
			t.Fatalf("stored %s", l)
		}
		if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "power_mw is deprecated") {
			t.Fatalf("warnings %v", l.Warnings)
		}
		// Replacing the 06:30 block leaves 06:15 untouched.
		h.Do("PUT", scheduled, e.acme, schedules(target(35*m, "bess_power_mw", 1))).Expect(t, 200, "")
		h.Do("GET", scheduled, e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if l.String() != "bess_only:4/nil@06:20:00(06:15) bess_only:1/nil@06:35:00(06:30)" || len(l.Warnings) != 0 {
			t.Fatalf("day %s %v", l, l.Warnings)
		}
		h.Do("GET", q(scheduled, "start_time", ts(30*m), "end_time", ts(45*m)), e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if l.String() != "bess_only:1/nil@06:35:00(06:30)" {
			t.Fatalf("window %s", l)
		}
		// Co-located modes are stored as sent and read back as bess_only with poc null.
		grey := "/v1/assets/grey/dispatch/scheduled"
		h.Do("PUT", grey, e.acme, schedules(target(time.Hour, "control_mode", "bess_and_poc", "bess_power_mw", -2, "poc_power_mw", 1))).
			Expect(t, 200, "").JSON(t, &l)
		if l.String() != "bess_and_poc:-2/1@07:00:00(07:00)" {
			t.Fatalf("grey stored %s", l)
		}
		h.Do("GET", grey, e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if l.String() != "bess_only:-2/nil@07:00:00(07:00)" {
			t.Fatalf("grey read %s", l)
		}
		// A passive event reads as a bess_only target of 0 MW, which can be sent back as is.
		h.Do("PUT", grey, e.acme, schedules(target(75*m, "control_mode", "passive"))).Expect(t, 200, "")
		h.Do("GET", q(grey, "start_time", ts(75*m), "end_time", ts(90*m)), e.acmeRO, nil).Expect(t, 200, "").JSON(t, &l)
		if l.String() != "bess_only:0/nil@07:15:00(07:15)" {
			t.Fatalf("passive read %s", l)
		}
		h.Do("PUT", grey, e.acme, schedules(target(75*m, "control_mode", l.Schedules[0].ControlMode,
			"bess_power_mw", *l.Schedules[0].BESSPowerMW))).Expect(t, 200, "")
		// Green co-location charges through bess_and_poc with poc 0 only.
		green := "/v1/assets/green/dispatch/scheduled"
		h.Do("PUT", green, e.acme, schedules(target(time.Hour, "bess_power_mw", -1))).Expect(t, 422, "validation_failed")
		h.Do("PUT", green, e.acme, schedules(target(time.Hour, "control_mode", "bess_and_poc", "bess_power_mw", -1, "poc_power_mw", 0))).Expect(t, 200, "")

		// An immediate dispatch overlapping the blocks is named in warnings.
		h.Do("POST", immediate, e.acme, map[string]any{"end_time": ts(50 * m), "set_power_mw": 1}).Expect(t, 200, "")
		h.Do("PUT", scheduled, e.acme, schedules(target(45*m, "bess_power_mw", 2))).Expect(t, 200, "").JSON(t, &l)
		if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "immediate dispatch") {
			t.Fatalf("warnings %v", l.Warnings)
		}
		// Control off: stored, with a warning.
		h.Do("PUT", "/v1/assets/off/dispatch/scheduled", e.acme, schedules(target(time.Hour, "bess_power_mw", 2))).Expect(t, 200, "").JSON(t, &l)
		if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "control") {
			t.Fatalf("warnings %v", l.Warnings)
		}

		// The telemetry read: visible assets only, [from, to).
		ev, err := e.svc.Scheduled(context.Background(), auth.Visibility{OrganizationID: "acme"}, "a1", testkit.Start, testkit.Start.Add(35*m))
		if err != nil || len(ev) != 1 || ev[0].ControlMode != telemetry.BESSOnly {
			t.Fatalf("scheduled %+v %v", ev, err)
		}
		if ev, _ := e.svc.Scheduled(context.Background(), auth.Visibility{OrganizationID: "beta"}, "a1", testkit.Start, testkit.Start.Add(time.Hour)); len(ev) != 0 {
			t.Fatalf("beta sees %+v", ev)
		}
	})
}

// expectFields checks a 422 names exactly these locations.
func expectFields(t *testing.T, r *testkit.Response, want ...string) {
	t.Helper()
	r.Expect(t, 422, "")
	var p struct {
		Errors []struct {
			Location string `json:"location"`
		} `json:"errors"`
	}
	r.JSON(t, &p)
	var got []string
	for _, f := range p.Errors {
		got = append(got, f.Location)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("locations %v, want %v: %s", got, want, r.Body)
	}
}

func TestScheduledDispatchErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		m := time.Minute
		ok := schedules(target(time.Hour, "bess_power_mw", 1))
		h.Do("PUT", scheduled, "", ok).Expect(t, 401, "")
		h.Do("GET", scheduled, "", nil).Expect(t, 401, "")
		h.Do("PUT", scheduled, e.acmeRO, ok).Expect(t, 403, "")
		h.Do("GET", scheduled, e.acmeWO, nil).Expect(t, 403, "")
		h.Do("PUT", scheduled, e.beta, ok).Expect(t, 404, "not_found")
		h.Do("GET", scheduled, e.beta, nil).Expect(t, 404, "not_found")
		h.Do("PUT", "/v1/assets/seg.y/dispatch/scheduled", e.acme, ok).Expect(t, 409, "virtual_asset")
		if r := h.Do("GET", "/v1/assets/seg.y/dispatch/scheduled", e.acme, nil).Expect(t, 200, ""); strings.TrimSpace(string(r.Body)) != `{"schedules":[],"warnings":[]}` {
			t.Fatalf("virtual asset's schedule: %s", r.Body)
		}
		h.Do("PUT", scheduled, e.acme, schedules(target(8*m, "bess_power_mw", 1))).Expect(t, 409, "gate_closed")
		h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "bess_power_mw", 1), target(-time.Hour, "bess_power_mw", 1))).Expect(t, 409, "gate_closed")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(42*time.Hour, "bess_power_mw", 1))), "body.schedules[0].delivery_time")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "bess_power_mw", 1), target(time.Hour+500*time.Millisecond, "bess_power_mw", 2))),
			"body.schedules[1].delivery_time")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "bess_power_mw", 1, "poc_power_mw", 2))), "body.schedules[0].poc_power_mw")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "bess_power_mw", 1, "power_mw", 2))), "body.schedules[0].power_mw")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "bess_power_mw", 1, "pv_power_mw", 0))), "body.schedules[0].pv_power_mw")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "bess_power_mw", 21))), "body.schedules[0].bess_power_mw")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "control_mode", "poc_only", "poc_power_mw", 1))), "body.schedules[0].control_mode")
		expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "control_mode", "auto", "bess_power_mw", 1))), "body.schedules[0].control_mode")
		expectFields(t, h.Do("PUT", "/v1/assets/grey/dispatch/scheduled", e.acme,
			schedules(target(time.Hour, "control_mode", "bess_and_poc", "bess_power_mw", 3, "poc_power_mw", 2))), "body.schedules[0].bess_power_mw")
		h.Do("PUT", scheduled, e.acme, schedules()).Expect(t, 422, "")
		h.Do("PUT", scheduled, e.acme, map[string]any{}).Expect(t, 422, "")
		h.Do("PUT", scheduled, e.acme, "[").Expect(t, 400, "")
		// Nothing of a refused request is stored.
		var l scheduleList
		h.Do("GET", scheduled, e.acme, nil).Expect(t, 200, "").JSON(t, &l)
		if len(l.Schedules) != 0 {
			t.Fatalf("stored %s", l)
		}
		expectFields(t, h.Do("GET", q(scheduled, "start_time", ts(0)), e.acme, nil), "query.end_time")
		expectFields(t, h.Do("GET", q(scheduled, "start_time", ts(time.Minute), "end_time", ts(time.Hour)), e.acme, nil), "query.start_time")
		expectFields(t, h.Do("GET", q(scheduled, "start_time", ts(-31*24*time.Hour), "end_time", ts(0)), e.acme, nil), "query.start_time")
		h.Do("GET", q(scheduled, "start_time", "yesterday", "end_time", ts(0)), e.acme, nil).Expect(t, 422, "")
	})
}

func TestAnticipatedDispatch(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		m := time.Minute
		path := "/v1/assets/a1/forecasts/anticipated_dispatch"
		h.Do("PUT", scheduled, e.acme, schedules(target(20*m, "bess_power_mw", 4), target(40*m, "bess_power_mw", -3))).Expect(t, 200, "")
		h.Clock.Advance(300 * time.Millisecond) // sub-second now is truncated
		// set_time is that of the event in force (document 2), the block
		// start when the block has none yet; the 06:30 event is the 4 MW
		// target carried over the block start.
		for secs, want := range map[string]string{
			"0": "06:00:00 0", "1199": "06:15:00 0", "1200": "06:20:00 4", "1500": "06:20:00 4", "1800": "06:30:00 4",
			"2399": "06:30:00 4", "2400": "06:40:00 -3", "2599": "06:40:00 -3", "2700": "06:45:00 0", "3000": "06:45:00 0",
			"86400": "06:00:00 0",
		} {
			var a struct {
				SetTime    time.Time `json:"set_time"`
				SetPowerMW float64   `json:"set_power_mw"`
			}
			h.Do("GET", q(path, "seconds_into_the_future", secs), e.acmeRO, nil).Expect(t, 200, "").JSON(t, &a)
			if got := fmt.Sprintf("%s %g", clockOf(a.SetTime), a.SetPowerMW); got != want {
				t.Errorf("%s s: got %s want %s", secs, got, want)
			}
		}
		h.Do("GET", path, e.acmeRO, nil).Expect(t, 422, "")
		h.Do("GET", q(path, "seconds_into_the_future", "86401"), e.acmeRO, nil).Expect(t, 422, "")
		h.Do("GET", q(path, "seconds_into_the_future", "-1"), e.acmeRO, nil).Expect(t, 422, "")
		h.Do("GET", q(path, "seconds_into_the_future", "1.5"), e.acmeRO, nil).Expect(t, 422, "")
		h.Do("GET", q(path, "seconds_into_the_future", "1"), "", nil).Expect(t, 401, "")
		h.Do("GET", q(path, "seconds_into_the_future", "1"), e.acmeWO, nil).Expect(t, 403, "")
		h.Do("GET", q(path, "seconds_into_the_future", "1"), e.beta, nil).Expect(t, 404, "not_found")
		if r := h.Do("GET", q("/v1/assets/seg.x/forecasts/anticipated_dispatch", "seconds_into_the_future", "1"), e.acmeRO, nil).Expect(t, 200, ""); !strings.Contains(string(r.Body), `"set_power_mw":0`) {
			t.Fatalf("virtual asset's forecast: %s", r.Body)
		}
	})
}

func TestScheduleDispatchReport(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		m := time.Minute
		r := h.Do("PUT", scheduled, e.acme, schedules(target(20*m, "bess_power_mw", 4))).Expect(t, 200, "")
		reqID := r.Header.Get("X-Request-ID")
		four := 4.0
		ctx := context.Background()
		events, err := e.svc.EventsBetween(ctx, testkit.Start, testkit.Start.Add(time.Hour))
		if err != nil || len(events) != 1 {
			t.Fatal(events, err)
		}
		out := dispatch.Outcome{OrganizationID: "acme", AssetID: "a1", SetTime: events[0].SetTime, DeliveryTime: events[0].DeliveryTime,
			ControlMode: telemetry.BESSOnly, RequestedPowerMW: &four, EffectivePowerMW: 2.5, Status: dispatch.Clipped,
			Reason: "power_limit", EmittedAt: events[0].SetTime}
		if err := e.svc.RecordOutcomes(ctx, []dispatch.Outcome{out, out}); err != nil {
			t.Fatal(err)
		}
		path := "/v1/assets/a1/reports/schedule/dispatches"
		r = h.Do("GET", q(path, "start_time", ts(15*m), "end_time", ts(30*m)), e.acmeReport, nil).Expect(t, 200, "")
		var rep struct {
			Dispatches []map[string]any `json:"dispatches"`
		}
		r.JSON(t, &rep)
		if len(rep.Dispatches) != 1 {
			t.Fatalf("report %s", r.Body)
		}
		d := rep.Dispatches[0]
		want := map[string]any{
			"asset_id": "a1", "status": "clipped", "set_power_mw": 4.0, "effective_set_power_mw": 2.5, "outcome": "success",
			"message": "power_limit", "set_time_utc": "2026-02-01T06:20:00Z", "request_id": reqID, "source_id": "test-acme",
			"control_mode": "bess_only", "delivery_time": "2026-02-01T06:15:00Z", "created_at_utc": "2026-02-01T06:20:00Z",
		}
		for k, w := range want {
			if d[k] != w {
				t.Errorf("%s = %v, want %v", k, d[k], w)
			}
		}
		// One name per fact, document 1's: no second name for the emission
		// time, set time, powers or reason.
		wantKeys := append(slices.Collect(maps.Keys(want)), "event_id")
		slices.Sort(wantKeys)
		if keys := slices.Sorted(maps.Keys(d)); !slices.Equal(keys, wantKeys) {
			t.Errorf("entry fields %v, want %v", keys, wantKeys)
		}
		if id, _ := d["event_id"].(string); len(id) != 36 {
			t.Errorf("event_id %v", d["event_id"])
		}
		// The same entry as CSV, for a client asking for it.
		req, _ := http.NewRequest("GET", h.HTTP.URL+q(path, "start_time", ts(15*m), "end_time", ts(30*m)), nil)
		req.Header.Set("Authorization", "Bearer "+e.acmeReport)
		req.Header.Set("Accept", "text/csv")
		csvResp := h.Send(req).Expect(t, 200, "")
		wantCSV := "event_id,request_id,source_id,asset_id,created_at_utc,set_time_utc,status,set_power_mw,effective_set_power_mw," +
			"outcome,message,control_mode,delivery_time\r\n" + d["event_id"].(string) + "," + reqID +
			",test-acme,a1,2026-02-01T06:20:00Z,2026-02-01T06:20:00Z,clipped,4,2.5,success,power_limit,bess_only,2026-02-01T06:15:00Z\r\n"
		if csvResp.Header.Get("Content-Type") != "text/csv" || string(csvResp.Body) != wantCSV {
			t.Errorf("CSV form %q:\n%s", csvResp.Header.Get("Content-Type"), csvResp.Body)
		}
		// In the PoC modes the requested power is the point-of-connection
		// target, as the effective power is; passive requests 0 MW.
		bess, poc := -2.0, 1.5
		pocOut := out
		pocOut.AssetID, pocOut.ControlMode, pocOut.RequestedPowerMW, pocOut.PoCPowerMW = "grey", telemetry.BESSAndPoC, &bess, &poc
		pocOut.Status, pocOut.EffectivePowerMW, pocOut.Reason = dispatch.Full, 1.5, ""
		passive := pocOut
		passive.SetTime, passive.ControlMode, passive.RequestedPowerMW, passive.PoCPowerMW, passive.EffectivePowerMW =
			pocOut.SetTime.Add(time.Minute), telemetry.Passive, nil, nil, 0
		if err := e.svc.RecordOutcomes(ctx, []dispatch.Outcome{pocOut, passive}); err != nil {
			t.Fatal(err)
		}
		var greyRep struct {
			Dispatches []map[string]any `json:"dispatches"`
		}
		h.Do("GET", q("/v1/assets/grey/reports/schedule/dispatches", "start_time", ts(15*m), "end_time", ts(30*m)), e.acmeReport, nil).
			Expect(t, 200, "").JSON(t, &greyRep)
		if len(greyRep.Dispatches) != 2 {
			t.Fatalf("grey report %v", greyRep.Dispatches)
		}
		for i, want := range []map[string]any{
			{"control_mode": "bess_and_poc", "set_power_mw": 1.5, "effective_set_power_mw": 1.5, "message": nil},
			{"control_mode": "passive", "set_power_mw": 0.0, "effective_set_power_mw": 0.0, "message": nil},
		} {
			for k, w := range want {
				if got := greyRep.Dispatches[i][k]; got != w {
					t.Errorf("grey entry %d: %s = %v, want %v", i, k, got, w)
				}
			}
		}
		r = h.Do("GET", q(path, "start_time", ts(30*m), "end_time", ts(90*m)), e.acme, nil).Expect(t, 200, "")
		if len(r.Map(t)["dispatches"].([]any)) != 0 {
			t.Fatalf("later window %s", r.Body)
		}
		expectFields(t, h.Do("GET", q(path, "start_time", ts(0), "end_time", ts(75*m)), e.acme, nil), "query.end_time")
		expectFields(t, h.Do("GET", q(path, "start_time", ts(5*m), "end_time", ts(30*m)), e.acme, nil), "query.start_time")
		expectFields(t, h.Do("GET", q(path, "start_time", ts(30*m), "end_time", ts(30*m)), e.acme, nil), "query.end_time")
		h.Do("GET", q(path, "start_time", ts(0)), e.acme, nil).Expect(t, 422, "")
		h.Do("GET", q(path, "start_time", ts(0), "end_time", ts(m*15)), "", nil).Expect(t, 401, "")
		h.Do("GET", q(path, "start_time", ts(0), "end_time", ts(m*15)), e.acmeRO, nil).Expect(t, 403, "")
		h.Do("GET", q(path, "start_time", ts(0), "end_time", ts(m*15)), e.beta, nil).Expect(t, 404, "not_found")
		if r := h.Do("GET", q("/v1/assets/seg.x/reports/schedule/dispatches", "start_time", ts(0), "end_time", ts(m*15)), e.acme, nil).Expect(t, 200, ""); strings.TrimSpace(string(r.Body)) != `{"dispatches":[]}` {
			t.Fatalf("virtual asset's report: %s", r.Body)
		}
	})
}

func TestOpenAPI(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	doc := string(e.h.Do("GET", "/openapi.json", "", nil).Expect(t, 200, "").Body)
	for _, want := range []string{`"ImmediateDispatchCreate"`, `"ScheduledDispatchRequest"`, `"ScheduleDispatchReportEntry"`,
		`"/v1/assets/{asset_id}/forecasts/anticipated_dispatch"`, `"/v1/assets/{asset_id}/reports/schedule/dispatches"`, `"report.read"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("OpenAPI document lacks %s", want)
		}
	}
}

// TestControlCharactersAreRefused: dispatch takes no free-form name; its
// one string of a body, control_mode, and the asset id of the path refuse
// control characters on both stores (422 and 404, never a 500), and
// nothing is stored.
func TestControlCharactersAreRefused(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.h
		for _, mode := range []string{"bess_only\x00", "\x1bbess_only"} {
			expectFields(t, h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "control_mode", mode, "bess_power_mw", 1))),
				"body.schedules[0].control_mode")
		}
		for _, path := range []string{"/v1/assets/a1%00/dispatch/scheduled", "/v1/assets/a1%1B/dispatch/immediate"} {
			h.Do("GET", path, e.acme, nil).Expect(t, 404, "not_found")
		}
		var l scheduleList
		h.Do("GET", scheduled, e.acme, nil).Expect(t, 200, "").JSON(t, &l)
		if len(l.Schedules) != 0 {
			t.Fatalf("stored %s", l)
		}
	})
}
