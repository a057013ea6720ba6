package simulatedhttp_test

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/adapters/simulated"
	"atcp/internal/adapters/simulated/simulatedhttp"
	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/identity"
	"atcp/internal/segmentation"
	"atcp/internal/store"
	"atcp/internal/telemetry/simulator"
	"atcp/internal/testkit"
)

type env struct {
	h *testkit.Harness
	// Tokens: a platform administrator with every scope, one with
	// asset.read only; acme with every scope.
	admin, adminRO, acme string
}

// setup serves the fault endpoints with acme's sim (simulator), edge
// (MQTT) and split (segmented into the virtual split.a and split.b);
// simulating says whether the server runs the simulator.
func setup(t *testing.T, b store.Backend, simulating bool) *env {
	t.Helper()
	h := testkit.NewHarness(t, b)
	ctx := context.Background()
	if err := identity.NewDirectory(b.Directory(), h.Clock, h.URL).EnsureOrganization(ctx, "acme", "Acme Storage"); err != nil {
		t.Fatal(err)
	}
	as := assets.NewService(b.Assets(), h.Clock)
	for _, id := range []string{"sim", "edge", "split"} {
		a := assets.NewAsset(id, "acme", "Battery "+id, "Kiel", assets.Standalone)
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = new(10.0), new(20.0)
		if id == "edge" {
			a.Adapter = assets.AdapterMQTT
		}
		if err := as.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	seg := segmentation.NewService(b.Segmentations(), as, b.Bids(), h.Clock)
	as.SetVirtualResolver(seg)
	acme := auth.Visibility{OrganizationID: "acme"}
	if _, err := seg.Put(ctx, acme, "split", segmentation.Proportional,
		[]segmentation.Segment{{ID: "a", Name: "A", Share: 0.4}, {ID: "b", Name: "B", Share: 0.6}}); err != nil {
		t.Fatal(err)
	}
	if _, err := seg.Activate(ctx, acme, "split"); err != nil {
		t.Fatal(err)
	}
	simulatedhttp.Register(h.Server, simulated.NewFaultService(b.SimulatorFaults(), as, h.Clock, simulating))
	return &env{h: h, admin: h.AdminToken(), adminRO: h.TokenFor(auth.PlatformOrganization, auth.AssetRead),
		acme: h.TokenFor("acme", auth.AllScopes...)}
}

const faults = "/v1/assets/sim/simulator/faults"

func (e *env) list(t *testing.T, token string) []simulatedhttp.Fault {
	t.Helper()
	var l simulatedhttp.FaultList
	e.h.Do(http.MethodGet, faults, token, nil).Expect(t, http.StatusOK, "").JSON(t, &l)
	if l.Faults == nil {
		t.Fatal("faults is null")
	}
	return l.Faults
}

func (e *env) inject(t *testing.T, kind string, seconds int) simulatedhttp.Fault {
	t.Helper()
	var f simulatedhttp.Fault
	e.h.Do(http.MethodPost, faults, e.admin, map[string]any{"kind": kind, "duration_seconds": seconds}).
		Expect(t, http.StatusCreated, "").JSON(t, &f)
	return f
}

// TestFaultLifecycle: an injected fault is listed while in force, until
// it is cleared or ends.
func TestFaultLifecycle(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, true)
		if got := e.list(t, e.admin); len(got) != 0 {
			t.Fatalf("before: %+v", got)
		}
		now := e.h.Clock.Now()
		lost := e.inject(t, "communication_loss", 600)
		if _, err := uuid.Parse(lost.FaultID); err != nil || lost.AssetID != "sim" || lost.Kind != "communication_loss" ||
			!lost.StartTime.Equal(now) || !lost.EndTime.Equal(now.Add(600*time.Second)) || lost.CreatedBy != "test-platform" {
			t.Fatalf("injected %+v at %v", lost, now)
		}
		e.h.Clock.Advance(time.Minute)
		drift := e.inject(t, "soc_drift", 86400)
		// A reader with asset.read lists them, oldest first.
		if got := e.list(t, e.adminRO); !slices.Equal(got, []simulatedhttp.Fault{lost, drift}) {
			t.Fatalf("listed %+v", got)
		}

		e.h.Do(http.MethodDelete, faults+"/"+lost.FaultID, e.admin, nil).Expect(t, http.StatusNoContent, "")
		e.h.Do(http.MethodDelete, faults+"/"+lost.FaultID, e.admin, nil).Expect(t, http.StatusNotFound, "")
		if got := e.list(t, e.admin); !slices.Equal(got, []simulatedhttp.Fault{drift}) {
			t.Fatalf("after the clear %+v", got)
		}
		// A fault that ended is no longer in force.
		stuck := e.inject(t, "setpoint_ignored", 1)
		if got := e.list(t, e.admin); len(got) != 2 {
			t.Fatalf("with the short one %+v", got)
		}
		e.h.Clock.Advance(time.Second)
		if got := e.list(t, e.admin); !slices.Equal(got, []simulatedhttp.Fault{drift}) {
			t.Fatalf("after the short one ended %+v", got)
		}
		e.h.Do(http.MethodDelete, faults+"/"+stuck.FaultID, e.admin, nil).Expect(t, http.StatusNotFound, "")
		// Unknown fault ids.
		e.h.Do(http.MethodDelete, faults+"/"+uuid.NewString(), e.admin, nil).Expect(t, http.StatusNotFound, "")
		e.h.Do(http.MethodDelete, faults+"/not-a-uuid", e.admin, nil).Expect(t, http.StatusNotFound, "")
		// A fault is its asset's.
		e.h.Do(http.MethodDelete, "/v1/assets/split/simulator/faults/"+drift.FaultID, e.admin, nil).Expect(t, http.StatusNotFound, "")
		// Every kind.
		for _, k := range simulator.FaultKinds {
			e.inject(t, string(k), 60)
		}
		if got := e.list(t, e.admin); len(got) != 1+len(simulator.FaultKinds) {
			t.Fatalf("every kind: %+v", got)
		}
	})
}

// TestFaultErrors: who may inject, into which assets, and what.
func TestFaultErrors(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, true)
		h := e.h
		body := map[string]any{"kind": "grid_switch_open", "duration_seconds": 60}
		id := uuid.NewString()

		// Not a platform administrator, whatever the scopes.
		h.Do(http.MethodPost, faults, e.acme, body).Expect(t, http.StatusForbidden, "platform_admin_required")
		h.Do(http.MethodGet, faults, e.acme, nil).Expect(t, http.StatusForbidden, "platform_admin_required")
		h.Do(http.MethodDelete, faults+"/"+id, e.acme, nil).Expect(t, http.StatusForbidden, "platform_admin_required")
		// An administrator without asset.write.
		h.Do(http.MethodPost, faults, e.adminRO, body).Expect(t, http.StatusForbidden, "insufficient_scope")
		h.Do(http.MethodDelete, faults+"/"+id, e.adminRO, nil).Expect(t, http.StatusForbidden, "insufficient_scope")
		h.Do(http.MethodPost, faults, "", body).Expect(t, http.StatusUnauthorized, "")

		for _, tc := range []struct {
			asset  string
			status int
			code   errs.Code
		}{
			{"nope", http.StatusNotFound, "not_found"},
			{"edge", http.StatusConflict, "asset_not_simulated"},
			{"split.a", http.StatusConflict, "virtual_asset"},
		} {
			path := "/v1/assets/" + tc.asset + "/simulator/faults"
			h.Do(http.MethodPost, path, e.admin, body).Expect(t, tc.status, tc.code)
			h.Do(http.MethodGet, path, e.admin, nil).Expect(t, tc.status, tc.code)
			h.Do(http.MethodDelete, path+"/"+id, e.admin, nil).Expect(t, tc.status, tc.code)
		}

		for _, bad := range []any{
			map[string]any{"kind": "meteor_strike", "duration_seconds": 60},
			map[string]any{"kind": "soc_drift", "duration_seconds": 0},
			map[string]any{"kind": "soc_drift", "duration_seconds": 86401},
			map[string]any{"kind": "soc_drift", "duration_seconds": 1.5},
			map[string]any{"kind": "soc_drift"},
			map[string]any{"duration_seconds": 60},
		} {
			h.Do(http.MethodPost, faults, e.admin, bad).Expect(t, http.StatusUnprocessableEntity, "")
		}
		if got := e.list(t, e.admin); len(got) != 0 {
			t.Fatalf("a refused request stored %+v", got)
		}
	})
}

// TestFaultsWithoutTheSimulator: a server without the simulator simulates
// no asset.
func TestFaultsWithoutTheSimulator(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, false)
		e.h.Do(http.MethodPost, faults, e.admin, map[string]any{"kind": "soc_drift", "duration_seconds": 60}).
			Expect(t, http.StatusConflict, "asset_not_simulated")
		e.h.Do(http.MethodGet, faults, e.admin, nil).Expect(t, http.StatusConflict, "asset_not_simulated")
		e.h.Do(http.MethodDelete, faults+"/"+uuid.NewString(), e.admin, nil).Expect(t, http.StatusConflict, "asset_not_simulated")
	})
}

// TestKindEnumIsEveryKind: the documented kinds are the simulator's.
func TestKindEnumIsEveryKind(t *testing.T) {
	want := make([]string, len(simulator.FaultKinds))
	for i, k := range simulator.FaultKinds {
		want[i] = string(k)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[simulatedhttp.Fault](), reflect.TypeFor[simulatedhttp.FaultCreate]()} {
		f, _ := typ.FieldByName("Kind")
		if got := strings.Split(f.Tag.Get("enum"), ","); !slices.Equal(got, want) {
			t.Errorf("%s.Kind enum %v, want %v", typ.Name(), got, want)
		}
	}
}
