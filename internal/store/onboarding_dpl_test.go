package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/dpl"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func dplRow(ob onboarding.Onboarding, id, name, address string) dplsvc.Row {
	r := dpl.NewRow()
	r.ID, r.PointName, r.Protocol, r.Address, r.DataType, r.Unit, r.Direction = id, name, "iec104", address, "float32", "MW", dpl.Read
	return dplsvc.Row{Row: r, OnboardingID: ob.ID, UpdatedAt: testkit.Start, UpdatedBy: "Anna"}
}

func TestOnboardingDPLStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		svc, _, _ := onboardingFixture(t, b)
		ob, err := svc.Create(ctx, obPlatform, onboarding.CreateRequest{AssetID: "bess-1"})
		if err != nil {
			t.Fatal(err)
		}
		s := b.OnboardingDPL()
		id := func(i int) string { return fmt.Sprintf("0194c1a2-7b3c-7d4e-8f50-%012d", i) }
		a := dplRow(ob, id(1), "bess_power_mw", "ca:1/ioa:1")
		a.Scale, a.Offset, a.Notes = 0.001, -2.5, "n"
		if err := s.InsertRow(ctx, "acme", a); err != nil {
			t.Fatal(err)
		}
		rows, err := s.Rows(ctx, "acme", ob.ID)
		if err != nil || len(rows) != 1 || rows[0] != a {
			t.Fatalf("rows %+v %v, want %+v", rows, err, a)
		}
		if rows, _ := s.Rows(ctx, "beta", ob.ID); len(rows) != 0 {
			t.Fatal("another organisation's key reads the rows")
		}
		// Concurrent writers of the same point or address: the unique
		// indexes let exactly one through.
		for _, c := range []struct {
			other func(i int) dplsvc.Row
			code  errs.Code
		}{
			{func(i int) dplsvc.Row { return dplRow(ob, id(10+i), "soc", fmt.Sprintf("ca:2/ioa:%d", i)) }, dpl.CodePointExists},
			{func(i int) dplsvc.Row { return dplRow(ob, id(20+i), fmt.Sprintf("x_p%d", i), "ca:3/ioa:1") }, dpl.CodeAddressInUse},
		} {
			var wg sync.WaitGroup
			errc := make(chan error, 4)
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errc <- s.InsertRow(ctx, "acme", c.other(i))
				}()
			}
			wg.Wait()
			close(errc)
			ok := 0
			for err := range errc {
				switch {
				case err == nil:
					ok++
				case !obCode(err, errs.Conflict, c.code):
					t.Fatalf("%s: %v", c.code, err)
				}
			}
			if ok != 1 {
				t.Fatalf("%s: %d inserted", c.code, ok)
			}
		}
		a.Address = "ca:3/ioa:1"
		if err := s.UpdateRow(ctx, "acme", a); !obCode(err, errs.Conflict, dpl.CodeAddressInUse) {
			t.Fatalf("update onto a used address: %v", err)
		}
		if err := s.SetTestResults(ctx, "acme", ob.ID, map[string]dpl.Result{a.ID: dpl.OK}); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteRow(ctx, "acme", ob.ID, id(99)); !obCode(err, errs.NotFound, dplsvc.CodeRowNotFound) {
			t.Fatalf("delete unknown: %v", err)
		}

		if _, ok, err := s.LatestTest(ctx, "acme", ob.ID); ok || err != nil {
			t.Fatalf("latest test before any: %v %v", ok, err)
		}
		run := dplsvc.Test{ID: id(100), OnboardingID: ob.ID, Status: dplsvc.TestRunning, StartedAt: testkit.Start, StartedBy: "Anna"}
		if err := s.InsertTest(ctx, "acme", run); err != nil {
			t.Fatal(err)
		}
		second := run
		second.ID, second.StartedAt = id(101), testkit.Start.Add(time.Second)
		if err := s.InsertTest(ctx, "acme", second); !obCode(err, errs.Conflict, dplsvc.CodeTestRunning) {
			t.Fatalf("second running test: %v", err)
		}
		v := 4.2
		done := testkit.Start.Add(2 * time.Second)
		run.Status, run.FinishedAt, run.Connected, run.MeasuredAt = dplsvc.TestPassed, &done, true, &done
		run.Points = []dpl.PointResult{{PointName: "bess_power_mw", Result: dpl.OK, Value: &v, Unit: "MW"}}
		if err := s.FinishTest(ctx, "acme", run); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertTest(ctx, "acme", second); err != nil {
			t.Fatal(err)
		}
		ts, total, err := s.Tests(ctx, "acme", ob.ID, 10, 0)
		if err != nil || total != 2 || ts[0].ID != second.ID || ts[1].Status != dplsvc.TestPassed || *ts[1].Points[0].Value != 4.2 || !ts[1].FinishedAt.Equal(done) {
			t.Fatalf("tests %+v %d %v", ts, total, err)
		}
		if latest, ok, err := s.LatestTest(ctx, "acme", ob.ID); !ok || err != nil || latest.ID != second.ID {
			t.Fatalf("latest test: %+v %v %v", latest, ok, err)
		}
		if _, ok, err := s.LatestTest(ctx, "beta", ob.ID); ok || err != nil {
			t.Fatalf("another organisation's latest test: %v %v", ok, err)
		}
		if _, err := s.Test(ctx, "beta", ob.ID, run.ID); !obCode(err, errs.NotFound, dplsvc.CodeTestNotFound) {
			t.Fatalf("another organisation's test: %v", err)
		}
	})
}
