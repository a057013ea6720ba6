package dispatch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/dispatch"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// failingImmediates is a store whose immediate-dispatch reads fail, as
// on a lost database connection.
type failingImmediates struct{ dispatch.Store }

func (failingImmediates) Immediates(context.Context, auth.Visibility, string, dispatch.Window) ([]dispatch.Immediate, error) {
	return nil, errors.New("connection lost")
}

// TestPutScheduleErrorStoresNothing: a scheduled PUT that answers with an
// error has replaced nothing.
func TestPutScheduleErrorStoresNothing(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		if err := identity.NewDirectory(b.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme Storage"); err != nil {
			t.Fatal(err)
		}
		as := assets.NewService(b.Assets(), clk)
		a := assets.NewAsset("a1", "acme", "Battery a1", "Kiel", assets.Standalone)
		a.ControlEnabled = true
		if err := as.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
		svc := dispatch.NewService(failingImmediates{b.Dispatch()}, as, clk, dispatch.Config{})
		one := 1.0
		_, err := svc.PutSchedule(ctx, auth.Principal{Subject: "s", OrganizationID: "acme"}, "a1", "req",
			[]dispatch.Target{{BESSPowerMW: &one, DeliveryTime: testkit.Start.Add(time.Hour)}})
		if err == nil {
			t.Fatal("PUT succeeded on a failing store")
		}
		events, err := b.Dispatch().Events(ctx, auth.Visibility{All: true}, "a1", testkit.Start, testkit.Start.Add(2*time.Hour))
		if err != nil || len(events) != 0 {
			t.Fatalf("stored %+v %v", events, err)
		}
	})
}
