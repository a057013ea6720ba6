package assetstate_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/dispatch"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/feasibility"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestPlannedFeasibility: planned state lists where the committed bids
// and the schedule do not fit solo's 10 MW and 20 MWh: the energy of the
// whole tender block the window lies in (07:00-11:00Z, read beyond the
// window), the power of the window's periods only. Released bids do not
// count; pending ones do.
func TestPlannedFeasibility(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		h := time.Hour
		// Start is 06:00Z; the block is Start+1h to Start+5h. Each bid offers 5 MW.
		e.addBid(t, "solo", bids.FCR, bids.Sym, h, 5*h, bids.Pending)
		e.addBid(t, "solo", bids.AFRRCapacity, bids.Neg, h, 5*h, bids.Pending)
		e.addBid(t, "solo", bids.AFRRCapacity, bids.Pos, h, 5*h, bids.Rejected)
		e.schedules["solo"] = []dispatch.Event{
			{AssetID: "solo", SetTime: testkit.Start.Add(h + 10*time.Minute), BESSPowerMW: mw(-3)}, // before the window
			{AssetID: "solo", SetTime: testkit.Start.Add(2*h + 5*time.Minute), BESSPowerMW: mw(-2)},
		}
		start, end := testkit.Start.Add(2*h), testkit.Start.Add(3*h)
		p, err := e.svc.Planned(context.Background(), acme, "solo", start, end)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Feasibility) != 2 {
			t.Fatalf("feasibility %+v", p.Feasibility)
		}
		en, pw := p.Feasibility[0], p.Feasibility[1]
		// 5 x 0.25 x 2 + 5 x 4 = 22.5 MWh.
		if en.Rule != feasibility.Energy || !en.Start.Equal(testkit.Start.Add(h)) || !en.End.Equal(testkit.Start.Add(5*h)) ||
			en.Committed != 22.5 || en.Overshoot != 2.5 {
			t.Fatalf("energy %+v", en)
		}
		// 5 FCR + 5 aFRR + 2 scheduled on the charge side, 08:00-08:15 only.
		if pw.Rule != feasibility.Power || pw.Direction != feasibility.Charge || !pw.Start.Equal(start) ||
			!pw.End.Equal(start.Add(15*time.Minute)) || pw.Committed != 12 || *pw.ScheduleMW != 2 {
			t.Fatalf("power %+v", pw)
		}
		// The response's reservations stay those of the window (none accepted here).
		if len(p.FCR) != 0 || len(p.AFRRCapacity) != 0 {
			t.Fatalf("reservations %v %v", p.FCR, p.AFRRCapacity)
		}
		// Nothing to report outside the block.
		q, err := e.svc.Planned(context.Background(), acme, "solo", testkit.Start.Add(5*h), testkit.Start.Add(6*h))
		if err != nil || len(q.Feasibility) != 0 {
			t.Fatalf("next block: %+v %v", q.Feasibility, err)
		}
	})
}
