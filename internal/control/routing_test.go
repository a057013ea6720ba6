package control

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/dispatch"
)

// routing is a loop over fake adapters: bess-1 and bess-2 (10 MW, control
// enabled), each with a 3 MW target at t0+5s and a 4 MW one at t0+25s.
type routing struct {
	sim, mqtt *fakeAdapter
	fleet     *fakeFleet
	plan      *fakePlan
	rec       *fakeRecorder
	logs      bytes.Buffer
}

// reroute moves an asset to another adapter, as an update of its
// registration would.
func (r *routing) reroute(id, adapter string) {
	r.fleet.mu.Lock()
	defer r.fleet.mu.Unlock()
	for i := range r.fleet.list {
		if r.fleet.list[i].ID == id {
			r.fleet.list[i].Adapter = adapter
		}
	}
}

// reregister changes bess-1's registration as a later update would.
func (r *routing) reregister(capacityMW float64) {
	r.fleet.mu.Lock()
	defer r.fleet.mu.Unlock()
	r.fleet.list[0].UsablePowerCapacityMW = f(capacityMW)
	r.fleet.list[0].UpdatedAt = r.fleet.list[0].UpdatedAt.Add(time.Second)
}

func TestAdapterRouting(t *testing.T) {
	tests := []struct {
		name   string
		mqtt   bool              // an "mqtt" adapter is configured besides the simulator
		route  map[string]string // routes at the start
		setup  func(r *routing)
		change func(t *testing.T, r *routing) // after the second t0+5s
		check  func(t *testing.T, r *routing)
	}{{
		name:  "adapter not configured",
		route: map[string]string{"bess-2": "mqtt"},
		check: func(t *testing.T, r *routing) {
			if attaches, _ := r.sim.calls(); len(attaches) != 1 || attaches[0] != "bess-1" {
				t.Fatalf("attached %v", attaches)
			}
			if o, _ := r.plan.outcome("bess-2", t0.Add(sec(5))); o.Status != dispatch.Failed || o.Reason != ReasonNotControlled {
				t.Fatalf("outcome %+v", o)
			}
			if o, _ := r.plan.outcome("bess-1", t0.Add(sec(5))); o.Status != dispatch.Full {
				t.Fatalf("outcome of the routed asset %+v", o)
			}
			if n := len(r.rec.points("bess-2")); n != 0 {
				t.Fatalf("%d points of an unsteered asset", n)
			}
			// Three asset refreshes, one warning.
			if n := strings.Count(r.logs.String(), "its adapter is not configured"); n != 1 {
				t.Fatalf("%d warnings:\n%s", n, r.logs.String())
			}
		},
	}, {
		name: "adapter changes",
		mqtt: true,
		change: func(_ *testing.T, r *routing) {
			r.reroute("bess-2", assets.AdapterMQTT)
		},
		check: func(t *testing.T, r *routing) {
			if _, detaches := r.sim.calls(); len(detaches) != 1 || detaches[0] != "bess-2" {
				t.Fatalf("simulator detached %v", detaches)
			}
			attaches, _ := r.mqtt.calls()
			if len(attaches) != 1 || attaches[0] != "bess-2" {
				t.Fatalf("mqtt attached %v", attaches)
			}
			// It resumes from what was stored before the refresh at t0+9s.
			if last := r.mqtt.lasts["bess-2"]; last == nil || !last.Timestamp.Equal(t0.Add(sec(8))) {
				t.Fatalf("attached with %+v", last)
			}
			sent := r.mqtt.sent("bess-2")
			if len(sent) == 0 || sent[len(sent)-1].BESSPowerMW != 4 {
				t.Fatalf("mqtt sent %+v", sent)
			}
			if o, _ := r.plan.outcome("bess-2", t0.Add(sec(25))); o.Status != dispatch.Full {
				t.Fatalf("outcome %+v", o)
			}
			if n := len(r.rec.points("bess-2")); n != 26 {
				t.Fatalf("%d points, want one a second through the move", n)
			}
		},
	}, {
		name:  "disconnected, then back",
		setup: func(r *routing) { r.sim.offline["bess-2"] = true },
		change: func(t *testing.T, r *routing) {
			if sent := r.sim.sent("bess-2"); len(sent) != 0 {
				t.Fatalf("sent to a disconnected asset: %+v", sent)
			}
			r.sim.mu.Lock()
			r.sim.offline["bess-2"] = false
			r.sim.mu.Unlock()
		},
		check: func(t *testing.T, r *routing) {
			o, _ := r.plan.outcome("bess-2", t0.Add(sec(5)))
			if o.Status != dispatch.Failed || o.Reason != ReasonUnreachable || o.EffectivePowerMW != 0 {
				t.Fatalf("outcome while disconnected %+v", o)
			}
			if o, _ := r.plan.outcome("bess-2", t0.Add(sec(25))); o.Status != dispatch.Full {
				t.Fatalf("outcome after reconnecting %+v", o)
			}
			// Left out of the snapshots while disconnected (t0..t0+5s),
			// recorded again after; the other asset throughout.
			points := r.rec.points("bess-2")
			if len(points) != 20 || !points[0].Timestamp.Equal(t0.Add(sec(6))) {
				t.Fatalf("%d points from %v", len(points), points[0].Timestamp)
			}
			if n := len(r.rec.points("bess-1")); n != 26 {
				t.Fatalf("%d points of the connected asset", n)
			}
		},
	}, {
		name:  "read error skips the asset",
		setup: func(r *routing) { r.sim.readErr["bess-2"] = errors.New("garbled measurement") },
		check: func(t *testing.T, r *routing) {
			if n := len(r.rec.points("bess-2")); n != 0 {
				t.Fatalf("%d points of an unreadable asset", n)
			}
			if n := len(r.rec.points("bess-1")); n != 26 {
				t.Fatalf("%d points of the other asset", n)
			}
			// Commands still reach it.
			if o, _ := r.plan.outcome("bess-2", t0.Add(sec(5))); o.Status != dispatch.Full {
				t.Fatalf("outcome %+v", o)
			}
		},
	}, {
		name:   "registration changes",
		change: func(_ *testing.T, r *routing) { r.reregister(6) },
		check: func(t *testing.T, r *routing) {
			attaches, detaches := r.sim.calls()
			if len(attaches) != 3 || attaches[2] != "bess-1" || len(detaches) != 0 {
				t.Fatalf("attaches %v, detaches %v", attaches, detaches)
			}
			if p := r.sim.attached["bess-1"].UsablePowerCapacityMW; p == nil || *p != 6 {
				t.Fatalf("registration applied: %v", p)
			}
			if r.sim.lasts["bess-1"] != nil {
				t.Fatal("a registration change resumed the battery")
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &routing{sim: newFakeAdapter(), mqtt: newFakeAdapter(), fleet: &fakeFleet{}, plan: newFakePlan(),
				rec: newFakeRecorder()}
			for _, id := range []string{"bess-1", "bess-2"} {
				a := assets.NewAsset(id, "acme", id, "Leipzig", assets.Standalone)
				a.UsablePowerCapacityMW, a.ControlEnabled, a.UpdatedAt = f(10), true, t0
				if name, ok := tc.route[id]; ok {
					a.Adapter = name
				}
				r.fleet.list = append(r.fleet.list, a)
				r.plan.schedule("acme", id, t0.Add(sec(5)), 3)
				r.plan.schedule("acme", id, t0.Add(sec(25)), 4)
			}
			adapters := map[string]Adapter{assets.AdapterSimulator: r.sim}
			if tc.mqtt {
				adapters["mqtt"] = r.mqtt
			}
			if tc.setup != nil {
				tc.setup(r)
			}
			l, err := New(Options{Assets: r.fleet, Adapters: adapters, Plan: r.plan, Restrictions: fakeRestrictions{},
				Curtailments: fakeCurtailments{}, Bids: fakeBids{}, Activations: noActivations{}, Covers: fakeCovers{}, Recorder: r.rec,
				Latest: r.rec, Logger: slog.New(slog.NewTextHandler(&r.logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for _, due := range []time.Time{t0, t0.Add(sec(5)), t0.Add(sec(25))} {
				if due.Equal(t0.Add(sec(25))) && tc.change != nil {
					tc.change(t, r)
				}
				if err := l.Run(ctx, due); err != nil {
					t.Fatal(err)
				}
			}
			tc.check(t, r)
		})
	}
}
