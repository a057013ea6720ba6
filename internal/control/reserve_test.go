package control

import (
	"math"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/dispatch"
	"atcp/internal/markets/bids"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestFCRReserveBandClipsTheSchedule: a 10 MW / 2 MWh battery at half
// charge (1 MWh) with 2 MW of FCR must keep 0.5 MWh to deliver. A 9 MW
// discharge target runs at the 7.5 MW headroom until the state of charge
// reaches the band, then the loop holds it there: the next target is
// clipped with the band's reason, and no second's wholesale power takes
// the energy left below the reserve (FCR's own activation may: the
// reserve is there for it).
func TestFCRReserveBandClipsTheSchedule(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := newEnv(t, b, func(a *assets.Asset) {
			a.FCREnabled, a.FCRPrequalifiedMW, a.UsableEnergyCapacityMWh = true, 2, f(2)
		})
		price := bids.EUR(10)
		e.insertBid(bids.Bid{AssetID: "bess-1", Market: bids.FCR, Product: bids.Sym, Start: fcrBlock.Start, End: fcrBlock.End,
			CapacityPrice: &price, OfferedMW: 2, AwardedMW: f(2), Status: bids.Successful})
		start, later := t0.Add(time.Minute), t0.Add(5*time.Minute+sec(30))
		e.plan.schedule("acme", "bess-1", start, 9)
		e.plan.schedule("acme", "bess-1", later, 9)
		l := e.loop()
		e.run(l, start)
		if o := e.outcome("bess-1", start); o.Status != dispatch.Clipped || o.EffectivePowerMW != 7.5 || o.Reason != ReasonReserved {
			t.Fatalf("first outcome %+v", o)
		}
		e.run(l, later)
		o := e.outcome("bess-1", later)
		if o.Status != dispatch.Clipped || o.Reason != ReasonFCRReserve || o.EffectivePowerMW >= 7.5 || o.EffectivePowerMW < 0 {
			t.Fatalf("outcome at the band %+v", o)
		}
		// Every second, the wholesale power commanded moved the state of
		// charge no further than the band's edge from where the second
		// before left it; FCR activation may take the reserve beyond.
		points := e.rec.points("bess-1")
		bound := 0
		for i := 1; i < len(points); i++ {
			prev, cur := points[i-1], points[i]
			edge := math.Max(0, (prev.AvailableDischargeEnergy-0.5)*3600)
			if cur.DispatchSetpoint > edge+1e-6 {
				t.Fatalf("%s: %v MW of wholesale discharge with %v MWh left", cur.Timestamp, cur.DispatchSetpoint, prev.AvailableDischargeEnergy)
			}
			if cur.DispatchSetpoint < 7.5 {
				bound++
			}
		}
		if bound == 0 {
			t.Fatal("the band never bound")
		}
	})
}
