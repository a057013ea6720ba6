package simulated

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

// fakeFaults is the fault store as the adapter reads it.
type fakeFaults struct {
	mu     sync.Mutex
	faults []Fault
	err    error
	reads  int
}

func (f *fakeFaults) ActiveFaults(_ context.Context, at time.Time) ([]Fault, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.err != nil {
		return nil, f.err
	}
	var out []Fault
	for _, x := range f.faults {
		if !at.Before(x.Start) && at.Before(x.End) {
			out = append(out, x)
		}
	}
	return out, nil
}

func (f *fakeFaults) set(err error, faults ...Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults, f.err = faults, err
}

// TestAdvanceAppliesTheFaultsInForce: each second the adapter reads the
// faults in force for every asset at once and applies them to the
// batteries they name; a fault that ends or is cleared stops; a failed
// read keeps the last faults until they end.
func TestAdvanceAppliesTheFaultsInForce(t *testing.T) {
	ctx := context.Background()
	store := &fakeFaults{}
	ad := New(nil, 1, store)
	for _, id := range []string{"bess-1", "bess-2"} {
		if err := ad.Attach(ctx, battery10(id), nil, start); err != nil {
			t.Fatal(err)
		}
		if err := ad.Send(ctx, id, telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: 4}, start); err != nil {
			t.Fatal(err)
		}
	}
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	advance := func(from, to int) {
		t.Helper()
		for s := from; s <= to; s++ {
			if err := ad.Advance(ctx, at(s)); err != nil {
				t.Fatal(err)
			}
		}
	}
	advance(1, 2)
	lost := Fault{ID: "f1", AssetID: "bess-1", OrganizationID: "acme", Kind: simulator.CommunicationLoss, Start: at(3), End: at(10)}
	stuck := Fault{ID: "f2", AssetID: "bess-2", OrganizationID: "acme", Kind: simulator.SetpointIgnored, Start: at(3), End: at(20)}
	store.set(nil, lost, stuck)
	advance(3, 3)
	if ad.Connected("bess-1") || !ad.Connected("bess-2") {
		t.Fatalf("connected during the loss: bess-1 %v, bess-2 %v", ad.Connected("bess-1"), ad.Connected("bess-2"))
	}
	if _, err := ad.Read(ctx, "bess-1"); !errs.Is(err, errs.Unavailable) {
		t.Fatalf("read during the loss: %v", err)
	}
	if err := ad.Send(ctx, "bess-1", telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: -4}, at(3)); !errs.Is(err, errs.Unavailable) {
		t.Fatalf("send during the loss: %v", err)
	}
	if err := ad.Send(ctx, "bess-2", telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: -4}, at(3)); err != nil {
		t.Fatal(err)
	}
	// A failed read keeps the faults read last, and the physics steps on.
	store.set(errors.New("store down"))
	if err := ad.Advance(ctx, at(4)); err == nil {
		t.Fatal("a failed read of the faults was not reported")
	}
	if m, err := ad.Read(ctx, "bess-2"); err != nil || !m.Timestamp.Equal(at(4)) || m.BatteryPowerActualAC != 4 || m.DispatchSetpoint != -4 {
		t.Fatalf("bess-2 while the store is down: %+v, %v", m, err)
	}
	if ad.Connected("bess-1") {
		t.Fatal("the loss ended with a failed read")
	}
	// Still unreadable, the faults read last end on their own.
	for s := 5; s <= 10; s++ {
		_ = ad.Advance(ctx, at(s))
	}
	if !ad.Connected("bess-1") {
		t.Fatal("the loss outlived its end")
	}
	m, err := ad.Read(ctx, "bess-1")
	if err != nil || !m.Timestamp.Equal(at(10)) || m.BatteryPowerActualAC != 4 {
		t.Fatalf("bess-1 after the loss: %+v, %v", m, err)
	}
	if m, _ := ad.Read(ctx, "bess-2"); m.BatteryPowerActualAC != 4 {
		t.Fatalf("bess-2 stuck: %v", m.BatteryPowerActualAC)
	}
	// Cleared (no longer read as in force): bess-2 follows again.
	store.set(nil)
	advance(11, 11)
	if m, _ := ad.Read(ctx, "bess-2"); m.BatteryPowerActualAC != -4 {
		t.Fatalf("bess-2 after the clear: %v", m.BatteryPowerActualAC)
	}
	if store.reads != 11 {
		t.Fatalf("%d reads in 11 seconds", store.reads)
	}
}
