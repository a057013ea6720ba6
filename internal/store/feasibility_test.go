package store_test

import (
	"context"
	"sync"
	"testing"

	"atcp/internal/assets"
	"atcp/internal/clock"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/fcr"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestCrossMarketFeasibilityUnderConcurrency: on a strict 10 MW / 20 MWh
// battery, 6 MW of FCR fits alone (6 MW, 3 MWh) and so does 5 MW of
// negative aFRR (5 MW, 20 MWh over 4 hours), but not both (11 MW on the
// charge side, 23 MWh). Submitted at the same time to the two markets for
// each block of a day, exactly one of each pair is stored: the second
// reads the first's bid under the asset's lock, whatever market it is in.
func TestCrossMarketFeasibilityUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx := context.Background()
		clk := clock.NewManual(testkit.Start)
		as := assets.NewService(b.Assets(), clk)
		a := assets.NewAsset("mix", "acme", "mix", "Kiel", assets.Standalone)
		a.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		a.FCREnabled, a.AFRREnabled, a.StrictValidation = true, true, true
		a.FCRPrequalifiedMW, a.AFRRPrequalifiedNegMW = 10, 10
		a.UsablePowerCapacityMW, a.UsableEnergyCapacityMWh = assetPtr(10.0), assetPtr(20.0)
		if err := as.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
		fcrSvc := fcr.NewService(as, b.Bids(), clk, fcr.Config{})
		capSvc := afrr.NewCapacityService(as, b.Bids(), clk)
		blocks := calendar.Day{Year: 2026, Month: 2, Day: 2}.TenderBlocks()

		errs := make([][2]error, len(blocks))
		var wg sync.WaitGroup
		for i, blk := range blocks {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, errs[i][0] = fcrSvc.Submit(ctx, assetAcme, "mix", bids.Submission{Bids: []bids.NewBid{fcrBid(blk, "", 6)}})
			}()
			go func() {
				defer wg.Done()
				nb := bids.NewBid{Product: bids.Neg, Start: blk.Start, End: blk.End, OfferedMW: 5,
					CapacityPrice: bids.PriceInput{Raw: []byte(`5`)}, EnergyPrice: bids.PriceInput{Raw: []byte(`50`)}}
				_, errs[i][1] = capSvc.Submit(ctx, assetAcme, "mix", bids.Submission{Bids: []bids.NewBid{nb}})
			}()
		}
		wg.Wait()
		for i, pair := range errs {
			ok := 0
			for _, err := range pair {
				switch {
				case err == nil:
					ok++
				case !isCode(err, "COMMITMENTS_EXCEED_POWER"):
					t.Errorf("block %d: %v", i, err)
				}
			}
			if ok != 1 {
				t.Errorf("block %d: %d of the pair accepted (%v), want exactly 1", i, ok, pair)
			}
		}
		stored := 0
		for _, m := range []bids.Market{bids.FCR, bids.AFRRCapacity} {
			list, err := b.Bids().List(ctx, assetAcme, "mix", m, bids.Filter{EndAfter: testkit.Start})
			if err != nil {
				t.Fatal(err)
			}
			stored += len(list)
		}
		if stored != len(blocks) {
			t.Fatalf("%d bids stored, want one per block (%d)", stored, len(blocks))
		}
	})
}

// TestBidStoreApplyAcross: decide gets the asset's own market as before
// and, of the markets named, the committed bids overlapping the window
// only (not released ones, not other assets', not outside the window).
func TestBidStoreApplyAcross(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		_, svc, _ := bidEnv(t, b)
		ctx := context.Background()
		if _, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidBlock, "", 2)}}); err != nil {
			t.Fatal(err)
		}
		mk := func(market bids.Market, iv calendar.Interval, st bids.Status) bids.Bid {
			return bids.Bid{ID: bids.NewID(), Market: market, Product: bids.Neg, Start: iv.Start, End: iv.End, OfferedMW: 1, Status: st,
				CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
		}
		want := mk(bids.AFRRCapacity, bidBlock, bids.Pending)
		for _, x := range []struct {
			asset string
			bid   bids.Bid
		}{
			{"bess", want},
			{"bess", mk(bids.AFRRCapacity, bidBlock, bids.Rejected)},
			{"bess", mk(bids.AFRREnergy, bidNext, bids.Pending)},
			{"bess-beta", mk(bids.AFRRCapacity, bidBlock, bids.Pending)},
		} {
			v := assetAcme
			if x.asset == "bess-beta" {
				v = assetBeta
			}
			if err := b.Bids().Apply(ctx, v, assets.Asset{ID: x.asset}, x.bid.Market, bidBlock, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
				return bids.Changes{Insert: []bids.Bid{x.bid}}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		var own, others []bids.Bid
		err := b.Bids().ApplyAcross(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.FCR, bidBlock, []bids.Market{bids.AFRRCapacity, bids.AFRREnergy},
			func(_ assets.Asset, existing, across []bids.Bid) (bids.Changes, error) {
				own, others = existing, across
				return bids.Changes{}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if len(own) != 1 || own[0].Market != bids.FCR {
			t.Fatalf("own market: %v", own)
		}
		if len(others) != 1 || others[0].ID != want.ID {
			t.Fatalf("others: %v, want only %s", others, want.ID)
		}
	})
}
