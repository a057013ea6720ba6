package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/adapters/simulated"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/store"
	"atcp/internal/telemetry/simulator"
	"atcp/internal/testkit"
)

func faultAt(asset, org string, kind simulator.FaultKind, start, end time.Duration) simulated.Fault {
	return simulated.Fault{ID: uuid.NewString(), AssetID: asset, OrganizationID: org, Kind: kind,
		Start: testkit.Start.Add(start), End: testkit.Start.Add(end), CreatedBy: "admin-1"}
}

// TestSimulatorFaultStore: faults are in force from start to end unless
// cleared, the simulator's read covers every asset, reads and clears of
// one asset are filtered by visibility.
func TestSimulatorFaultStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.SimulatorFaults()
		all, acme, beta := auth.Visibility{All: true}, auth.Visibility{OrganizationID: "acme"}, auth.Visibility{OrganizationID: "beta"}
		lost := faultAt("a1", "acme", simulator.CommunicationLoss, 0, time.Hour)
		drift := faultAt("a1", "acme", simulator.SoCDrift, 10*time.Minute, 20*time.Minute)
		later := faultAt("a1", "acme", simulator.GridSwitchOpen, 2*time.Hour, 3*time.Hour)
		other := faultAt("b1", "beta", simulator.AFRRUnderdelivery, 0, 30*time.Minute)
		for _, f := range []simulated.Fault{lost, drift, later, other} {
			if err := s.InsertFault(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(list []simulated.Fault, err error) []string {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, f := range list {
				out = append(out, f.ID)
			}
			return out
		}
		same := func(what string, got []string, want ...simulated.Fault) {
			t.Helper()
			if len(got) != len(want) {
				t.Fatalf("%s: %v, want %d", what, got, len(want))
			}
			for i := range want {
				if got[i] != want[i].ID {
					t.Fatalf("%s: %v, want %v at %d", what, got, want[i].ID, i)
				}
			}
		}
		at := func(d time.Duration) time.Time { return testkit.Start.Add(d) }

		// Every asset's, ordered by asset and start; start inclusive, end exclusive.
		same("active at the start", ids(s.ActiveFaults(ctx, at(0))), lost, other)
		same("active at 10 min", ids(s.ActiveFaults(ctx, at(10*time.Minute))), lost, drift, other)
		same("active at 20 min", ids(s.ActiveFaults(ctx, at(20*time.Minute))), lost, other)
		same("active at 1 h", ids(s.ActiveFaults(ctx, at(time.Hour))))
		list, err := s.ActiveFaults(ctx, at(2*time.Hour))
		if err != nil || len(list) != 1 || list[0] != later {
			t.Fatalf("read back %+v, %v; stored %+v", list, err, later)
		}

		// One asset's, by visibility.
		same("a1 for acme", ids(s.AssetFaults(ctx, acme, "a1", at(15*time.Minute))), lost, drift)
		same("a1 for everyone", ids(s.AssetFaults(ctx, all, "a1", at(15*time.Minute))), lost, drift)
		same("a1 for beta", ids(s.AssetFaults(ctx, beta, "a1", at(15*time.Minute))))

		// Clearing: only a fault in force, only when visible, only once.
		if err := s.ClearFault(ctx, beta, "a1", lost.ID, at(15*time.Minute)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("cleared by another organisation: %v", err)
		}
		if err := s.ClearFault(ctx, acme, "b1", other.ID, at(15*time.Minute)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("cleared through another asset: %v", err)
		}
		if err := s.ClearFault(ctx, all, "a1", later.ID, at(15*time.Minute)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("cleared before it started: %v", err)
		}
		if err := s.ClearFault(ctx, all, "a1", drift.ID, at(25*time.Minute)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("cleared after it ended: %v", err)
		}
		if err := s.ClearFault(ctx, acme, "a1", lost.ID, at(15*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.ClearFault(ctx, acme, "a1", lost.ID, at(16*time.Minute)); !errs.Is(err, errs.NotFound) {
			t.Fatalf("cleared twice: %v", err)
		}
		same("a1 after the clear", ids(s.AssetFaults(ctx, all, "a1", at(15*time.Minute))), drift)
		same("active after the clear", ids(s.ActiveFaults(ctx, at(15*time.Minute))), drift, other)
	})
}
