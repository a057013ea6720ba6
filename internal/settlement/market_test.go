package settlement_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/fcr"
	"atcp/internal/markets/replay"
	"atcp/internal/markets/simulation"
	"atcp/internal/settlement"
	"atcp/internal/testkit"
)

// TestFiguresAgreeWithTheMarketResults runs the simulated market through
// the replayed delivery day 2026-02-02 for one asset (3 MW FCR in 04-08,
// 10 MW negative aFRR in 08-12 at 0.50 EUR/MW/h below the 1.00 margin, all
// of it offered as energy) and the settlement job after it: the block's
// quarter-hours add up to the results' capacity payments, and each
// quarter-hour's energy revenue is the energy result's amount.
func TestFiguresAgreeWithTheMarketResults(t *testing.T) {
	data, err := replay.Load()
	if err != nil {
		t.Fatal(err)
	}
	b := testkit.OpenSQLite(t)
	ctx := context.Background()
	clk := clock.NewManual(testkit.Start)
	if err := identity.NewDirectory(b.Directory(), clk, "http://atcp.test").EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	as := assets.NewService(b.Assets(), clk)
	a := assets.NewAsset("bess", "acme", "bess", "Kiel", assets.Standalone)
	a.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
	ten := 10.0
	a.UsablePowerCapacityMW = &ten
	a.FCREnabled, a.FCRPrequalifiedMW = true, 10
	a.AFRREnabled, a.AFRRPrequalifiedNegMW = true, 10
	if err := as.EnsureAsset(ctx, a); err != nil {
		t.Fatal(err)
	}
	acme := auth.Visibility{OrganizationID: "acme"}
	fcrBlock := calendar.Interval{Start: time.Date(2026, 2, 2, 3, 0, 0, 0, time.UTC), End: time.Date(2026, 2, 2, 7, 0, 0, 0, time.UTC)}
	afrrBlock := calendar.Interval{Start: fcrBlock.End, End: fcrBlock.End.Add(4 * time.Hour)}
	price := func(s string) bids.PriceInput { return bids.PriceInput{Raw: []byte(`"` + s + `"`)} }
	if _, err := fcr.NewService(as, b.Bids(), clk, fcr.Config{}).Submit(ctx, acme, "bess", bids.Submission{Bids: []bids.NewBid{
		{Start: fcrBlock.Start, End: fcrBlock.End, OfferedMW: 3, CapacityPrice: price("10")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := afrr.NewCapacityService(as, b.Bids(), clk).Submit(ctx, acme, "bess", bids.Submission{Bids: []bids.NewBid{
		{Product: bids.Neg, Start: afrrBlock.Start, End: afrrBlock.End, OfferedMW: 10, CapacityPrice: price("0.50"), EnergyPrice: price("-100")}}}); err != nil {
		t.Fatal(err)
	}
	clk.Set(time.Date(2026, 2, 1, 9, 30, 0, 0, time.UTC)) // the energy bids of the day are open
	var energy []bids.NewBid
	for _, p := range calendar.Split(afrrBlock, calendar.PeriodLength) {
		energy = append(energy, bids.NewBid{Product: bids.Neg, Start: p.Start, End: p.End, OfferedMW: 10, EnergyPrice: price("-15000")})
	}
	if _, err := afrr.NewEnergyService(as, b.Bids(), clk).Submit(ctx, acme, "bess", bids.Submission{Bids: energy}); err != nil {
		t.Fatal(err)
	}

	market := simulation.New(b.Bids(), data)
	for _, step := range []struct {
		job  func(context.Context, time.Time) error
		when time.Time
	}{
		{market.Forward, time.Date(2026, 2, 1, 7, 35, 0, 0, time.UTC)},
		{market.Clear, time.Date(2026, 2, 1, 8, 15, 0, 0, time.UTC)},
		{market.Energy, afrrBlock.End},
	} {
		clk.Set(step.when)
		if err := step.job(ctx, step.when); err != nil {
			t.Fatal(err)
		}
	}
	// The job catches up from the start of the delivery day.
	s := b.Settlements()
	if err := s.SetProgress(ctx, fcrBlock.Start.Add(-4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := settlement.NewSettler(s, &fakeSteps{}, clk).Run(ctx, afrrBlock.End); err != nil {
		t.Fatal(err)
	}
	blocks, err := s.Blocks(ctx, acme, "acme", []string{"bess"}, calendar.Interval{Start: fcrBlock.Start, End: afrrBlock.End})
	if err != nil {
		t.Fatal(err)
	}
	byStart := map[time.Time]settlement.Block{}
	for _, x := range blocks {
		byStart[x.Start] = x
	}
	if len(byStart) != 32 {
		t.Fatalf("%d blocks, want 32", len(byStart))
	}

	all := auth.Visibility{All: true}
	fcrBids, err := b.Bids().List(ctx, all, "bess", bids.FCR, bids.Filter{})
	if err != nil || len(fcrBids) != 1 || fcrBids[0].Status != bids.Successful {
		t.Fatalf("FCR %+v %v", fcrBids, err)
	}
	capBids, err := b.Bids().List(ctx, all, "bess", bids.AFRRCapacity, bids.Filter{})
	if err != nil || len(capBids) != 1 || capBids[0].Status != bids.Successful {
		t.Fatalf("aFRR capacity %+v %v", capBids, err)
	}
	sum := func(iv calendar.Interval, k settlement.ProductKey) bids.Price {
		var total int64
		for _, p := range calendar.Split(iv, calendar.PeriodLength) {
			f := byStart[p.Start].Figure(k)
			if !f.Penalty.IsZero() || !f.BackupFee.IsZero() {
				t.Fatalf("%s %s: %+v", p.Start, k, f)
			}
			total += f.Revenue.Shift(2).IntPart()
		}
		return bids.Price(total)
	}
	if got, want := sum(fcrBlock, settlement.FCR), *fcr.Payment(fcrBids[0]); got != want {
		t.Fatalf("FCR quarter-hours add up to %s, the result is %s", got, want)
	}
	if got, want := sum(afrrBlock, settlement.AFRRCNeg4h), *afrr.CapacityPayment(capBids[0]); got != want {
		t.Fatalf("aFRR capacity quarter-hours add up to %s, the result is %s", got, want)
	}
	energyBids, err := b.Bids().List(ctx, all, "bess", bids.AFRREnergy, bids.Filter{})
	if err != nil || len(energyBids) != 16 {
		t.Fatalf("energy %d %v", len(energyBids), err)
	}
	activated := 0
	for _, e := range energyBids {
		st, ok := afrr.SettleEnergy(e)
		if !ok {
			t.Fatalf("energy bid %s not settled: %s", e.Start, e.Status)
		}
		f := byStart[e.Start].Figure(settlement.AFRRENeg)
		if bids.Price(f.Revenue.Shift(2).IntPart()) != st.Amount || !f.Penalty.IsZero() || !f.BackupFee.IsZero() {
			t.Fatalf("%s: figure %+v, the result is %s", e.Start, f, st.Amount)
		}
		if st.Amount != 0 {
			activated++
		}
	}
	if activated == 0 {
		t.Fatal("no quarter-hour of the block was activated: the comparison proves little")
	}
}
