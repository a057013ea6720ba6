package dplhttp_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/adapters/simulated"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/onboarding/dplsvc/dplhttp"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/store"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

// latest is the recorded telemetry the tests set.
type latest struct {
	snap   map[string]telemetry.Snapshot
	during func() // runs while a test reads, when set
}

func (l *latest) Latest(_ context.Context, assetID string) (telemetry.Snapshot, error) {
	if l.during != nil {
		l.during()
	}
	s, ok := l.snap[assetID]
	if !ok {
		return telemetry.Snapshot{}, errs.NotFoundf("no telemetry of %s", assetID)
	}
	return s, nil
}

type env struct {
	*onboardingtest.Kit
	tel                            *latest
	ob                             onboarding.Onboarding // bess-1's
	onboardingID, betaOnboardingID string
}

func setup(t *testing.T, b store.Backend) env { return setupWith(t, b, nil) }

// setupWith reads the telemetry from rec when it is not nil, else from
// the env's tel.
func setupWith(t *testing.T, b store.Backend, rec dplsvc.Latest) env {
	t.Helper()
	ten := 10.0
	// As the demonstration environment's battery (internal/app demoAsset), on adapter.
	demo := func(adapter assets.AdapterName) func(*assets.Asset) {
		return func(a *assets.Asset) {
			a.UsableEnergyCapacityMWh, a.GridConnectionPowerMW, a.ChargeEfficiency, a.DischargeEfficiency = new(20.0), new(10.0), new(0.95), new(0.95)
			a.MaxPosRampRateMWPerSec, a.MinNegRampRateMWPerSec, a.ControlEnabled = new(2.0), new(2.0), true
			a.UsablePowerCapacityMW, a.Adapter = &ten, adapter
		}
	}
	k := onboardingtest.New(t, b, onboardingtest.Config{Assets: []onboardingtest.Asset{{ID: "bess-1", Org: "acme", Adjust: demo(assets.AdapterSimulator)},
		{ID: "bess-mq", Org: "acme", Adjust: demo(assets.AdapterMQTT)}, {ID: "b-1", Org: "beta", Adjust: demo(assets.AdapterSimulator)}}})
	tel := &latest{snap: map[string]telemetry.Snapshot{}}
	var from dplsvc.Latest = tel
	if rec != nil {
		from = rec
	}
	svc := dplsvc.New(dplsvc.Deps{Onboarding: k.Core, Store: b.OnboardingDPL(), Assets: k.Assets, Latest: from,
		Adapters: []assets.AdapterName{assets.AdapterSimulator}, Clock: k.Clock, Security: k.Security})
	dplhttp.Register(k.Server, k.Core, svc)
	ob := k.Start("bess-1", nil)
	return env{Kit: k, tel: tel, ob: ob, onboardingID: ob.ID, betaOnboardingID: k.Start("b-1", nil).ID}
}

func row(name, address, unit, dir string) map[string]any {
	return map[string]any{"point_name": name, "protocol": "iec104", "address": address, "data_type": "float32", "unit": unit, "direction": dir}
}

// fullList is a row for every point of fc_v1.
var fullList = []map[string]any{
	row("bess_power_mw", "ca:1/ioa:100", "MW", "read"), row("soc", "ca:1/ioa:101", "percent", "read"),
	row("bess_power_setpoint_mw", "ca:1/ioa:102", "MW", "write"), row("grid_power_mw", "ca:1/ioa:103", "kW", "read"),
	row("available_charge_energy", "ca:1/ioa:104", "MWh", "read"), row("available_discharge_energy", "ca:1/ioa:105", "MWh", "read"),
	row("frequency_hz", "ca:1/ioa:106", "Hz", "read"), row("lan_connected_device_1", "ca:1/ioa:107", "bool", "read"),
}

func (e env) send(method, path, token, contentType, preview, ifMatch string, body []byte) *testkit.Response {
	req, _ := http.NewRequest(method, e.URL+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if preview != "" {
		req.Header.Set("X-Onboarding-Preview-Role", preview)
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	return e.Send(req)
}

func gateStatus(t *testing.T, e env, kind string) string {
	t.Helper()
	ob := e.Do("GET", "/v1/onboardings/"+e.onboardingID, e.AcmeRO, nil).Expect(t, 200, "").Map(t)
	for _, g := range ob["gates"].([]any) {
		g := g.(map[string]any)
		if g["definition_id"] == "fc_"+kind {
			return g["status"].(string)
		}
	}
	t.Fatalf("no gate %s", kind)
	return ""
}

func TestRows(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		base := "/v1/onboardings/" + e.onboardingID + "/dpl-rows"
		var list struct {
			Rows    []map[string]any `json:"rows"`
			Missing []string         `json:"missing_points"`
		}
		tpl := h.Do("GET", "/v1/onboarding-templates/fc_v1", e.AcmeRO, nil).Expect(t, 200, "").Map(t)
		if points := tpl["dpl_points"].([]any); len(points) != 12 || points[0].(map[string]any)["point_name"] != "bess_power_mw" ||
			points[0].(map[string]any)["required"] != true {
			t.Fatalf("template points %v", tpl["dpl_points"])
		}
		h.Do("GET", base, e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Rows) != 0 || len(list.Missing) != 8 {
			t.Fatalf("empty list %+v", list)
		}
		r := row("soc", "ca:01/ioa:0101", "percent", "read")
		res := h.Do("POST", base, e.Acme, r).Expect(t, 201, "")
		created := res.Map(t)
		if created["address"] != "ca:1/ioa:101" || created["required"] != true || created["last_test_result"] != nil || res.Header.Get("ETag") != created["etag"] {
			t.Fatalf("created %v %v", created, res.Header)
		}
		if gateStatus(t, e, "dpl") != "in_progress" {
			t.Fatal("the DPL gate was not touched")
		}
		h.Do("POST", base, e.Acme, r).Expect(t, 409, "dpl_point_exists")
		h.Do("POST", base, e.Acme, row("grid_power_mw", "ca:1/ioa:101", "MW", "read")).Expect(t, 409, "dpl_address_in_use")
		h.Do("POST", base, e.Acme, row("grid_power_mw", "nowhere", "MW", "read")).Expect(t, 422, "validation_failed")
		h.Do("POST", base, e.Acme, row("grid_power_mw", "ca:1/ioa:1", "MWh", "read")).Expect(t, 422, "validation_failed")
		h.Do("POST", base, e.AcmeRO, r).Expect(t, 403, "insufficient_scope")
		h.Do("GET", base, e.None, nil).Expect(t, 403, "insufficient_scope")
		h.Do("GET", "/v1/onboardings/"+e.betaOnboardingID+"/dpl-rows", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("POST", "/v1/onboardings/"+e.betaOnboardingID+"/dpl-rows", e.Acme, r).Expect(t, 404, "onboarding_not_found")

		id := created["row_id"].(string)
		upd := row("soc", "ca:1/ioa:99", "percent", "read_write")
		e.send("PUT", base+"/"+id, e.Acme, "application/json", "", `"stale"`, []byte(`{"point_name":"soc","protocol":"iec104","address":"ca:1/ioa:99","data_type":"float32","unit":"percent","direction":"read"}`)).
			Expect(t, 409, "edit_conflict")
		put := h.Do("PUT", base+"/"+id, e.Acme, upd).Expect(t, 200, "").Map(t)
		if put["address"] != "ca:1/ioa:99" || put["direction"] != "read_write" || put["etag"] == created["etag"] {
			t.Fatalf("put %v", put)
		}
		h.Do("PUT", base+"/0194c1a2-7b3c-7d4e-8f50-6a7b8c9d0e1f", e.Acme, upd).Expect(t, 404, "dpl_row_not_found")
		h.Do("PUT", base+"/"+id, e.Beta, upd).Expect(t, 404, "onboarding_not_found")
		h.Do("DELETE", base+"/"+id, e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
		h.Do("DELETE", base+"/"+id, e.Acme, nil).Expect(t, 204, "")
		h.Do("DELETE", base+"/"+id, e.Acme, nil).Expect(t, 404, "dpl_row_not_found")

		var audit struct {
			Entries []struct {
				Action string `json:"action"`
			} `json:"entries"`
		}
		h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/audit?action=dpl_row.", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &audit)
		if len(audit.Entries) != 3 || audit.Entries[0].Action != "dpl_row.deleted" {
			t.Fatalf("audit %+v", audit)
		}

		// The DPL gate's requirement: every required point has a row.
		var gates struct {
			Gates []struct {
				ID           string `json:"id"`
				DefinitionID string `json:"definition_id"`
				Unmet        []struct {
					Location string `json:"location"`
				} `json:"requirements_unmet"`
			} `json:"gates"`
		}
		h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/gates", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &gates)
		if g := gates.Gates[1]; g.DefinitionID != "fc_dpl" || len(g.Unmet) != 8 || g.Unmet[0].Location != "dpl.bess_power_mw" {
			t.Fatalf("dpl gate %+v", g)
		}
		for _, r := range fullList {
			h.Do("POST", base, e.Acme, r).Expect(t, 201, "")
		}
		h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/gates", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &gates)
		if g := gates.Gates[1]; len(g.Unmet) != 0 {
			t.Fatalf("dpl gate %+v", g)
		}
		// Locked while the gate is waived.
		h.Do("POST", "/v1/onboardings/"+e.onboardingID+"/gates/"+gates.Gates[1].ID+"/waive", e.Platform, map[string]any{"note": "n"}).Expect(t, 200, "")
		h.Do("POST", base, e.Acme, row("x_temp", "ca:1/ioa:9", "degC", "read")).Expect(t, 409, "gate_locked")
		h.Do("DELETE", base+"/"+put["row_id"].(string), e.Acme, nil).Expect(t, 409, "gate_locked")
	})
}

func TestCSV(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		base := "/v1/onboardings/" + e.onboardingID + "/dpl-rows"
		for _, r := range fullList {
			h.Do("POST", base, e.Acme, r).Expect(t, 201, "")
		}
		x := row("x_cell_temp", "ca:2/ioa:1", "degC", "read")
		x["description"], x["notes"], x["scale"], x["offset"] = `Hottest cell, "max"`, "line one\nline two", 0.1, -40.0
		h.Do("POST", base, e.Acme, x).Expect(t, 201, "")
		exp := h.Do("GET", base+"/export", e.AcmeRO, nil).Expect(t, 200, "")
		if exp.Header.Get("Content-Disposition") != `attachment; filename="dpl-bess-1.csv"` || !bytes.HasPrefix(exp.Body, []byte("\xef\xbb\xbfpoint_name,")) ||
			!strings.HasPrefix(exp.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("export %v %q", exp.Header, exp.Body)
		}
		res := e.send("POST", base+"/import?mode=replace", e.Acme, "text/csv", "", "", exp.Body).Expect(t, 200, "").Map(t)
		if res["created"] != 0.0 || res["updated"] != 0.0 || res["deleted"] != 0.0 || len(res["rows"].([]any)) != 9 {
			t.Fatalf("identity import %v", res)
		}
		again := h.Do("GET", base+"/export", e.AcmeRO, nil).Expect(t, 200, "")
		if !bytes.Equal(again.Body, exp.Body) {
			t.Fatalf("round trip:\n%s\n%s", exp.Body, again.Body)
		}
		// merge: one changed, one added; replace drops the others.
		csv := "point_name,protocol,address,data_type,unit,direction\nsoc,iec104,ca:1/ioa:201,float32,percent,read\nx_new,mqtt,site/x,float32,none,read\n"
		res = e.send("POST", base+"/import", e.Acme, "text/csv; charset=utf-8", "", "", []byte(csv)).Expect(t, 200, "").Map(t)
		if res["created"] != 1.0 || res["updated"] != 1.0 || res["deleted"] != 0.0 || len(res["rows"].([]any)) != 10 {
			t.Fatalf("merge %v", res)
		}
		res = e.send("POST", base+"/import?mode=replace", e.Acme, "text/csv", "", "", []byte(csv)).Expect(t, 200, "").Map(t)
		if res["deleted"] != 8.0 || len(res["rows"].([]any)) != 2 {
			t.Fatalf("replace %v", res)
		}
		bad := "point_name,protocol,address,data_type,unit,direction\nsoc,iec104,nowhere,float32,percent,read\nx_b,mqtt,site/x,float32,none,read\n"
		p := e.send("POST", base+"/import", e.Acme, "text/csv", "", "", []byte(bad)).Expect(t, 422, "validation_failed").Map(t)
		if errs := p["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["location"] != "csv.row[2].address" {
			t.Fatalf("errors %v", p)
		}
		e.send("POST", base+"/import", e.Acme, "text/csv", "", "", []byte("point_name,colour\n")).Expect(t, 422, "validation_failed")
		e.send("POST", base+"/import", e.Acme, "application/json", "", "", []byte(csv)).Expect(t, 415, "")
		e.send("POST", base+"/import", e.Acme, "text/csv", "", "", bytes.Repeat([]byte("a"), 1<<20+1)).Expect(t, 413, "")
		e.send("POST", base+"/import", e.AcmeRO, "text/csv", "", "", []byte(csv)).Expect(t, 403, "insufficient_scope")
		e.send("POST", "/v1/onboardings/"+e.betaOnboardingID+"/dpl-rows/import", e.Acme, "text/csv", "", "", []byte(csv)).Expect(t, 404, "onboarding_not_found")
		h.Do("GET", "/v1/onboardings/"+e.betaOnboardingID+"/dpl-rows/export", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
		var list struct {
			Rows []map[string]any `json:"rows"`
		}
		h.Do("GET", base, e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if len(list.Rows) != 2 {
			t.Fatalf("a refused import changed the list: %v", list)
		}
	})
}

func TestTaskRoles(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	base := "/v1/onboarding-tasks/" + e.onboardingID + "/dpl-rows"
	r := []byte(`{"point_name":"soc","protocol":"iec104","address":"ca:1/ioa:1","data_type":"float32","unit":"percent","direction":"read"}`)
	for _, role := range []string{"ems_provider", "epc"} {
		e.send("POST", base, e.Acme, "application/json", role, "", r).Expect(t, 201, "")
		e.send("DELETE", base+"/"+firstRow(t, e, role), e.Acme, "", role, "", nil).Expect(t, 204, "")
	}
	for _, role := range []string{"asset_owner", "tso"} {
		e.send("GET", base, e.AcmeRO, "", role, "", nil).Expect(t, 200, "")
		e.send("GET", base+"/export", e.AcmeRO, "", role, "", nil).Expect(t, 200, "")
		e.send("POST", base, e.Acme, "application/json", role, "", r).Expect(t, 404, "task_not_found")
		e.send("POST", "/v1/onboarding-tasks/"+e.onboardingID+"/communication-tests", e.Acme, "", role, "", nil).Expect(t, 404, "task_not_found")
	}
	// Preview mutations need onboarding.write; another organisation's task is 404.
	e.send("POST", base, e.AcmeRO, "application/json", "ems_provider", "", r).Expect(t, 403, "insufficient_scope")
	e.send("GET", "/v1/onboarding-tasks/"+e.betaOnboardingID+"/dpl-rows", e.Acme, "", "ems_provider", "", nil).Expect(t, 404, "task_not_found")
	// A user without a contact role holds no task.
	e.send("GET", base, e.Acme, "", "", "", nil).Expect(t, 404, "task_not_found")
}

func firstRow(t *testing.T, e env, role string) string {
	var list struct {
		Rows []map[string]any `json:"rows"`
	}
	e.send("GET", "/v1/onboarding-tasks/"+e.onboardingID+"/dpl-rows", e.Acme, "", role, "", nil).Expect(t, 200, "").JSON(t, &list)
	return list.Rows[0]["row_id"].(string)
}

// measurements are those of a 10 MW battery discharging 4 MW.
func measurements(at time.Time) telemetry.Measurements {
	m := telemetry.Measurements{Timestamp: at, BatteryPowerActualAC: 4, PoCPowerActualAC: 3.9, AvailableChargeEnergy: 8, AvailableDischargeEnergy: 12,
		Frequency: 50.01, LANConnectedDevice1: 1, AvailablePowerCharge: 10, AvailablePowerDischarge: 10, GridSwitchStatus: 1, LTESignalDevice1: 20}
	return m
}

func TestCommunicationTest(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := e.Harness
		tests := "/v1/onboardings/" + e.onboardingID + "/communication-tests"
		h.Do("POST", tests, e.Acme, nil).Expect(t, 409, "dpl_empty")
		for _, r := range fullList {
			h.Do("POST", "/v1/onboardings/"+e.onboardingID+"/dpl-rows", e.Acme, r).Expect(t, 201, "")
		}
		// Never reported: not connected, failed.
		first := h.Do("POST", tests, e.Acme, nil).Expect(t, 201, "").Map(t)
		if first["status"] != "failed" || first["connected"] != false {
			t.Fatalf("first %v", first)
		}
		if gateStatus(t, e, "comm_test") != "in_progress" {
			t.Fatal("the comm-test gate was not touched")
		}
		r := h.Do("POST", tests, e.Acme, nil).Expect(t, 429, "test_rate_limited")
		if r.Header.Get("Retry-After") != "60" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		// The minute is real time: a platform minute (a tenth of a real
		// second on a demo clock at 600x) does not lift the limit.
		h.Clock.Advance(time.Minute)
		h.Do("POST", tests, e.Acme, nil).Expect(t, 429, "test_rate_limited")
		h.Security.Advance(45 * time.Second)
		if r := h.Do("POST", tests, e.Acme, nil).Expect(t, 429, "test_rate_limited"); r.Header.Get("Retry-After") != "15" {
			t.Fatalf("Retry-After %q after 45 s", r.Header.Get("Retry-After"))
		}
		// Retry-After rounds up, to at least a second.
		h.Security.Advance(15*time.Second - time.Microsecond)
		if r := h.Do("POST", tests, e.Acme, nil).Expect(t, 429, "test_rate_limited"); r.Header.Get("Retry-After") != "1" {
			t.Fatalf("Retry-After %q a microsecond before", r.Header.Get("Retry-After"))
		}
		h.Security.Advance(time.Microsecond)
		e.tel.snap["bess-1"] = telemetry.Snapshot{AssetID: "bess-1", Measurements: measurements(h.Clock.Now().Add(-time.Second))}
		passed := h.Do("POST", tests, e.Acme, nil).Expect(t, 201, "").Map(t)
		if passed["status"] != "passed" || passed["connected"] != true {
			t.Fatalf("passed %v", passed)
		}
		var list struct {
			Rows []map[string]any `json:"rows"`
		}
		h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/dpl-rows", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &list)
		if list.Rows[0]["point_name"] != "bess_power_mw" || list.Rows[0]["last_test_result"] != "ok" || list.Rows[1]["last_test_result"] != "not_mapped" {
			t.Fatalf("rows %v", list.Rows[:2])
		}
		// A change clears the row's result.
		upd := h.Do("PUT", "/v1/onboardings/"+e.onboardingID+"/dpl-rows/"+list.Rows[0]["row_id"].(string), e.Acme, fullList[0]).Expect(t, 200, "").Map(t)
		if upd["last_test_result"] != nil {
			t.Fatalf("changed row %v", upd)
		}
		// A missing point fails the next test (task side, as the EMS provider).
		h.Clock.Advance(time.Minute)
		h.Security.Advance(time.Minute)
		m := measurements(h.Clock.Now())
		m.Frequency = math.NaN()
		e.tel.snap["bess-1"] = telemetry.Snapshot{AssetID: "bess-1", Measurements: m}
		failed := e.send("POST", "/v1/onboarding-tasks/"+e.onboardingID+"/communication-tests", e.Acme, "", "ems_provider", "", nil).Expect(t, 201, "").Map(t)
		if failed["status"] != "failed" || failed["summary"].(map[string]any)["failed"] != 1.0 {
			t.Fatalf("failed %v", failed)
		}
		var tl struct {
			Tests []map[string]any `json:"communication_tests"`
			Total int              `json:"total"`
		}
		h.Do("GET", tests+"?limit=2", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &tl)
		if tl.Total != 3 || len(tl.Tests) != 2 || tl.Tests[0]["test_id"] != failed["test_id"] {
			t.Fatalf("list %+v", tl)
		}
		got := h.Do("GET", tests+"/"+passed["test_id"].(string), e.AcmeRO, nil).Expect(t, 200, "").Map(t)
		if got["status"] != "passed" {
			t.Fatalf("get %v", got)
		}
		h.Do("GET", tests+"/0194c1a2-7b3c-7d4e-8f50-6a7b8c9d0e1f", e.AcmeRO, nil).Expect(t, 404, "communication_test_not_found")
		h.Do("GET", tests+"/nope", e.AcmeRO, nil).Expect(t, 404, "communication_test_not_found")
		h.Do("GET", "/v1/onboardings/"+e.betaOnboardingID+"/communication-tests", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("POST", "/v1/onboardings/"+e.betaOnboardingID+"/communication-tests", e.Acme, nil).Expect(t, 404, "onboarding_not_found")
		h.Do("POST", tests, e.AcmeRO, nil).Expect(t, 403, "insufficient_scope")
		h.Do("GET", tests, e.None, nil).Expect(t, 403, "insufficient_scope")

		// The comm-test gate's requirement reads the latest test.
		var gates struct {
			Gates []struct {
				DefinitionID string `json:"definition_id"`
				Unmet        []struct {
					Location string `json:"location"`
				} `json:"requirements_unmet"`
			} `json:"gates"`
		}
		h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/gates", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &gates)
		if g := gates.Gates[3]; g.DefinitionID != "fc_comm_test" || g.Unmet[0].Location != "communication_test" {
			t.Fatalf("comm-test gate %+v", g)
		}
	})
}

func TestNotAttached(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	id := e.Do("POST", "/v1/onboardings", e.Platform, map[string]any{"asset_id": "bess-mq"}).Expect(t, 201, "").Map(t)["onboarding_id"].(string)
	e.Do("POST", "/v1/onboardings/"+id+"/dpl-rows", e.Acme, fullList[0]).Expect(t, 201, "")
	e.Do("POST", "/v1/onboardings/"+id+"/communication-tests", e.Acme, nil).Expect(t, 409, "asset_not_attached")
}

// TestCommunicationTestSimulator runs the test on what the simulator
// adapter measures of a demo-like battery, recorded as the control loop
// records it: passed; then with the frequency missing: failed.
func TestCommunicationTestSimulator(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		e := setupWith(t, b, b.Telemetry())
		h := e.Harness
		for _, r := range fullList {
			h.Do("POST", "/v1/onboardings/"+e.onboardingID+"/dpl-rows", e.Acme, r).Expect(t, 201, "")
		}
		a, err := assets.NewService(b.Assets(), h.Clock).Get(ctx, auth.Visibility{All: true}, "bess-1")
		if err != nil {
			t.Fatal(err)
		}
		sim := simulated.New(nil, 20260201, nil)
		record := func(change func(*telemetry.Measurements)) {
			now := h.Clock.Now().Truncate(time.Second)
			if err := sim.Attach(ctx, a, nil, now); err != nil {
				t.Fatal(err)
			}
			if err := sim.Advance(ctx, now); err != nil {
				t.Fatal(err)
			}
			m, err := sim.Read(ctx, "bess-1")
			if err != nil {
				t.Fatal(err)
			}
			change(&m)
			if err := b.Telemetry().SaveLatest(ctx, []telemetry.Snapshot{{AssetID: "bess-1", Measurements: m}}); err != nil {
				t.Fatal(err)
			}
		}
		record(func(*telemetry.Measurements) {})
		tests := "/v1/onboardings/" + e.onboardingID + "/communication-tests"
		passed := h.Do("POST", tests, e.Acme, nil).Expect(t, 201, "").Map(t)
		if passed["status"] != "passed" || passed["connected"] != true {
			t.Fatalf("simulator: %v", passed)
		}
		h.Clock.Advance(time.Minute)
		h.Security.Advance(time.Minute)
		record(func(m *telemetry.Measurements) { m.Frequency = math.NaN() })
		failed := h.Do("POST", tests, e.Acme, nil).Expect(t, 201, "").Map(t)
		points := failed["points"].([]any)
		var frequency map[string]any
		for _, p := range points {
			if p := p.(map[string]any); p["point_name"] == "frequency_hz" {
				frequency = p
			}
		}
		if failed["status"] != "failed" || frequency["result"] != "missing" {
			t.Fatalf("without frequency: %v", failed)
		}
	})
}

// TestRunningTest: a test another instance stored running holds the next
// one back until it is abandoned, 2*TestTimeout of security time after its
// start (its read times out in real time); the minute between tests counts
// from its start too. A running test without a mark (started before the
// marks) is abandoned.
func TestRunningTest(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		e := setup(t, b)
		h := e.Harness
		h.Do("POST", "/v1/onboardings/"+e.onboardingID+"/dpl-rows", e.Acme, fullList[0]).Expect(t, 201, "")
		// elsewhere stores a running test as Run does: the row and its mark.
		elsewhere := func(id string, mark bool) {
			t.Helper()
			if err := b.OnboardingDPL().InsertTest(ctx, "acme", dplsvc.Test{ID: id, OnboardingID: e.onboardingID, Status: dplsvc.TestRunning,
				StartedAt: h.Clock.Now(), StartedBy: "elsewhere"}); err != nil {
				t.Fatal(err)
			}
			if !mark {
				return
			}
			if err := b.Onboardings().AddRateMark(ctx, onboarding.RateMark{OrganizationID: "acme", OnboardingID: e.onboardingID,
				Kind: dplsvc.TestLimit.Kind, Subject: e.onboardingID, At: h.Security.Now()}, h.Security.Now().Add(-onboarding.RateWindow)); err != nil {
				t.Fatal(err)
			}
		}
		running := "0194c1a3-1111-7222-8333-444455556666"
		elsewhere(running, true)
		tests := "/v1/onboardings/" + e.onboardingID + "/communication-tests"
		h.Do("POST", tests, e.Acme, nil).Expect(t, 409, "test_running")
		h.Clock.Advance(dplsvc.TestTimeout*2 + time.Second)
		h.Do("POST", tests, e.Acme, nil).Expect(t, 409, "test_running")
		h.Security.Advance(dplsvc.TestTimeout*2 + time.Second)
		h.Do("POST", tests, e.Acme, nil).Expect(t, 429, "test_rate_limited")
		h.Security.Advance(dplsvc.TestInterval - dplsvc.TestTimeout*2 - time.Second)
		h.Do("POST", tests, e.Acme, nil).Expect(t, 201, "")
		old := h.Do("GET", tests+"/"+running, e.AcmeRO, nil).Expect(t, 200, "").Map(t)
		if old["status"] != "failed" || old["finished_at"] == nil {
			t.Fatalf("abandoned test %v", old)
		}

		h.Clock.Advance(time.Second)
		h.Security.Advance(dplsvc.TestInterval)
		unmarked := "0194c1a3-1111-7222-8333-444455556667"
		elsewhere(unmarked, false)
		h.Do("POST", tests, e.Acme, nil).Expect(t, 201, "")
		if old := h.Do("GET", tests+"/"+unmarked, e.AcmeRO, nil).Expect(t, 200, "").Map(t); old["status"] != "failed" {
			t.Fatalf("unmarked running test %v", old)
		}
	})
}

// TestSessions: magic-link sessions act as their one role on their
// onboarding only.
func TestSessions(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	ems, owner := e.Session(e.ob, "c-ems_provider", onboarding.RoleEMSProvider), e.Session(e.ob, "c-asset_owner", onboarding.RoleAssetOwner)
	base := "/v1/onboarding-tasks/" + e.onboardingID + "/dpl-rows"
	created := h.Do("POST", base, ems, fullList[0]).Expect(t, 201, "").Map(t)
	if created["updated_by_name"] != "c-ems_provider" {
		t.Fatalf("created %v", created)
	}
	h.Do("GET", base, owner, nil).Expect(t, 200, "")
	h.Do("POST", base, owner, fullList[1]).Expect(t, 404, "task_not_found")
	h.Do("GET", base+"?role=epc", ems, nil).Expect(t, 404, "task_not_found")
	h.Do("GET", "/v1/onboarding-tasks/"+e.betaOnboardingID+"/dpl-rows", ems, nil).Expect(t, 404, "task_not_found")
	h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/dpl-rows", ems, nil).Expect(t, 403, "magic_link_session_not_allowed")
	var audit struct {
		Entries []struct {
			Action string `json:"action"`
			Actor  struct {
				Kind string `json:"kind"`
				Role string `json:"role"`
			} `json:"actor"`
		} `json:"entries"`
	}
	h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/audit?action=dpl_row.", e.AcmeRO, nil).Expect(t, 200, "").JSON(t, &audit)
	if len(audit.Entries) != 1 || audit.Entries[0].Actor.Kind != "contact" || audit.Entries[0].Actor.Role != "ems_provider" {
		t.Fatalf("audit %+v", audit)
	}
}

// TestClosedWhileRunning: a workflow cancelled while its test reads still
// gets the test's outcome stored.
func TestClosedWhileRunning(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	h.Do("POST", "/v1/onboardings/"+e.onboardingID+"/dpl-rows", e.Acme, fullList[0]).Expect(t, 201, "")
	e.tel.during = func() {
		h.Do("POST", "/v1/onboardings/"+e.onboardingID+"/cancel", e.Platform, map[string]any{"reason": "sold"}).Expect(t, 200, "")
	}
	test := h.Do("POST", "/v1/onboardings/"+e.onboardingID+"/communication-tests", e.Acme, nil).Expect(t, 201, "").Map(t)
	got := h.Do("GET", "/v1/onboardings/"+e.onboardingID+"/communication-tests/"+test["test_id"].(string), e.AcmeRO, nil).Expect(t, 200, "").Map(t)
	if got["status"] != "failed" || got["finished_at"] == nil {
		t.Fatalf("test %v", got)
	}
}

// TestConcurrentCreates: of concurrent rows for one point, one is stored.
func TestConcurrentCreates(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		var wg sync.WaitGroup
		statuses := make(chan int, 4)
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := row("soc", fmt.Sprintf("ca:5/ioa:%d", i), "percent", "read")
				statuses <- e.Do("POST", "/v1/onboardings/"+e.onboardingID+"/dpl-rows", e.Acme, r).Status
			}()
		}
		wg.Wait()
		close(statuses)
		created := 0
		for st := range statuses {
			switch st {
			case 201:
				created++
			case 409:
			default:
				t.Fatalf("status %d", st)
			}
		}
		if created != 1 {
			t.Fatalf("%d created", created)
		}
	})
}
