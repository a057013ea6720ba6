package poolshttp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/pools"
	"atcp/internal/telemetry"
	"atcp/internal/testkit"
)

// BenchmarkPoolState500 reads the state of a pool of the most members,
// each reporting, on the embedded store: one query each for the pool, the
// latest measurements, the active restrictions and the reservations of
// each market.
//
//	go test ./internal/pools/poolshttp -run '^$' -bench PoolState500
func BenchmarkPoolState500(b *testing.B) {
	ctx := context.Background()
	be := testkit.OpenSQLite(b)
	clk := clock.NewManual(testkit.Start)
	if err := identity.NewDirectory(be.Directory(), clk, "http://bench").EnsureOrganization(ctx, "acme", "acme"); err != nil {
		b.Fatal(err)
	}
	registry := assets.NewService(be.Assets(), clk)
	ids := make([]string, pools.MaxMembers)
	snaps := make([]telemetry.Snapshot, len(ids))
	for i := range ids {
		ids[i] = fmt.Sprintf("bess-%03d", i)
		if err := registry.EnsureAsset(ctx, assets.NewAsset(ids[i], "acme", ids[i], "Kiel", assets.Standalone)); err != nil {
			b.Fatal(err)
		}
		snaps[i] = telemetry.Snapshot{AssetID: ids[i], Measurements: telemetry.Measurements{Timestamp: testkit.Start, AssetStatus: 1, BatteryPowerActualAC: 1}}
	}
	if err := be.Telemetry().SaveLatest(ctx, snaps); err != nil {
		b.Fatal(err)
	}
	svc := pools.NewService(pools.Deps{Store: be.Pools(), Assets: registry, Organizations: be.Directory(), Latest: be.Telemetry(),
		Reservations: be.Bids(), Restrictions: be.Restrictions(), Clock: clk, StaleAfter: 5 * time.Second})
	t, err := svc.Target(ctx, &auth.Principal{OrganizationID: "acme"}, "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.Create(ctx, t, pools.Pool{ID: "big", AssetIDs: ids}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		st, err := svc.State(ctx, t, "big")
		if err != nil || !st.PoolStatus || st.PowerActualAC != pools.MaxMembers {
			b.Fatalf("%+v, %v", st.PoolStatus, err)
		}
	}
}
