package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// awardEnv stores, on acme's bess, SUBMITTED negative aFRR capacity bids
// of power mw for the windows given (energy price 45.50 EUR/MWh), and
// returns their refs.
func awardEnv(t *testing.T, b store.Backend, windows []calendar.Interval, mw ...float64) []bids.Ref {
	t.Helper()
	bidEnv(t, b)
	price := bids.Price(4550)
	var ins []bids.Bid
	var refs []bids.Ref
	for i, w := range windows {
		sub := testkit.Start
		ins = append(ins, bids.Bid{ID: bids.NewID(), OrganizationID: "acme", AssetID: "bess", Market: bids.AFRRCapacity, Product: bids.Neg,
			Start: w.Start, End: w.End, CapacityPrice: &price, EnergyPrice: &price, OfferedMW: mw[i], Status: bids.Submitted,
			Source: bids.SourceAPI, SubmittedAt: &sub, CreatedAt: testkit.Start, UpdatedAt: testkit.Start})
		refs = append(refs, bids.Ref{AssetID: "bess", ID: ins[i].ID})
	}
	err := b.Bids().Apply(context.Background(), assetAcme, assets.Asset{ID: "bess"}, bids.AFRRCapacity, bids.Hull(windows...),
		func(assets.Asset, []bids.Bid) (bids.Changes, error) { return bids.Changes{Insert: ins}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// ownEnergy stores the holder's PENDING energy bid (no source given: an
// API bid) of mw at quarter-hour q.
func ownEnergy(t *testing.T, b store.Backend, q time.Time, mw float64) {
	t.Helper()
	w := calendar.Interval{Start: q, End: q.Add(calendar.PeriodLength)}
	price := bids.Price(-100)
	err := b.Bids().Apply(context.Background(), assetAcme, assets.Asset{ID: "bess"}, bids.AFRREnergy, w,
		func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Insert: []bids.Bid{{ID: bids.NewID(), OrganizationID: "acme", AssetID: "bess", Market: bids.AFRREnergy,
				Product: bids.Neg, Start: w.Start, End: w.End, EnergyPrice: &price, OfferedMW: mw, Status: bids.Pending,
				CreatedAt: testkit.Start, UpdatedAt: testkit.Start}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

func energyOfAwards(at time.Time) bids.FollowUp {
	return bids.FollowUp{Market: bids.AFRREnergy, Create: func(awards, existing []bids.Bid) []bids.Bid {
		return afrr.AwardEnergyBids(awards, existing, at)
	}}
}

// energyAt lists the asset's negative energy bids by quarter-hour.
func energyAt(t *testing.T, b store.Backend, w calendar.Interval) map[time.Time][]bids.Bid {
	t.Helper()
	list, err := b.Bids().List(context.Background(), assetAcme, "bess", bids.AFRREnergy, bids.Filter{Start: &w.Start, End: &w.End})
	if err != nil {
		t.Fatal(err)
	}
	out := map[time.Time][]bids.Bid{}
	for _, e := range list {
		out[e.Start] = append(out[e.Start], e)
	}
	return out
}

// TestBidStoreRecordAwards: recording an award creates what the follow-up
// returns, given the awards as recorded and the asset's bids of the
// follow-up's market; a re-run moves nothing and creates nothing; an
// error creating the bids leaves the award unrecorded.
func TestBidStoreRecordAwards(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		refs := awardEnv(t, b, []calendar.Interval{bidBlock, bidBlock, bidNext}, 6, 3, 4)
		ownEnergy(t, b, bidBlock.Start, 2)
		s := b.Bids()
		at := testkit.Start.Add(time.Hour)
		six := 6.0
		var gotAwards, gotExisting []bids.Bid
		calls := 0
		follow := bids.FollowUp{Market: bids.AFRREnergy, Create: func(awards, existing []bids.Bid) []bids.Bid {
			calls++
			gotAwards, gotExisting = awards, existing
			return afrr.AwardEnergyBids(awards, existing, at)
		}}
		outcomes := []bids.Outcome{{Ref: refs[0], Status: bids.Successful, AwardedMW: &six}, {Ref: refs[1], Status: bids.Rejected}}
		n, err := s.RecordAwards(ctx, outcomes, at, follow)
		if err != nil || n != 2 || calls != 1 {
			t.Fatalf("recorded %d (%v), follow-up called %d times", n, err, calls)
		}
		if len(gotAwards) != 1 || gotAwards[0].ID != refs[0].ID || gotAwards[0].Status != bids.Successful || *gotAwards[0].AwardedMW != 6 ||
			*gotAwards[0].EnergyPrice != 4550 {
			t.Fatalf("awards given %+v", gotAwards)
		}
		if len(gotExisting) != 1 || gotExisting[0].Market != bids.AFRREnergy || gotExisting[0].Source != bids.SourceAPI {
			t.Fatalf("existing bids given %+v", gotExisting)
		}
		energy := energyAt(t, b, bidBlock)
		if len(energy) != 16 {
			t.Fatalf("%d quarter-hours with energy bids, want 16", len(energy))
		}
		for q, list := range energy {
			var generated []bids.Bid
			for _, e := range list {
				if e.Source == bids.SourceCapacityBid {
					generated = append(generated, e)
				}
			}
			want := 6.0
			if q.Equal(bidBlock.Start) {
				want = 4 // the holder's own 2 MW are respected
			}
			if len(generated) != 1 || generated[0].OfferedMW != want || generated[0].Status != bids.Pending ||
				*generated[0].IdempotencyKey != "capacity-bid:"+refs[0].ID || *generated[0].EnergyPrice != 4550 || !generated[0].CreatedAt.Equal(at) {
				t.Fatalf("quarter-hour %v: %+v", q, list)
			}
		}

		// A re-run moves nothing and creates nothing.
		if n, err := s.RecordAwards(ctx, outcomes, at.Add(time.Minute), follow); err != nil || n != 0 || calls != 1 {
			t.Fatalf("re-run: %d, %v, %d calls", n, err, calls)
		}

		// A follow-up whose bids cannot be stored rolls the award back.
		clash := bids.FollowUp{Market: bids.AFRREnergy, Create: func(awards, existing []bids.Bid) []bids.Bid {
			out := afrr.AwardEnergyBids(awards, existing, at)
			return append(out, out[0])
		}}
		four := 4.0
		_, err = s.RecordAwards(ctx, []bids.Outcome{{Ref: refs[2], Status: bids.Successful, AwardedMW: &four}}, at, clash)
		if !isCode(err, "idempotency_key_in_use") {
			t.Fatalf("a follow-up clash: %v", err)
		}
		if got, _ := s.Get(ctx, assetAcme, "bess", bids.AFRRCapacity, refs[2].ID); got.Status != bids.Submitted {
			t.Fatalf("the award was recorded without its bids: %s", got.Status)
		}
		if e := energyAt(t, b, bidNext); len(e) != 0 {
			t.Fatalf("bids of an unrecorded award: %v", e)
		}
		// Outcomes other than awards call no follow-up.
		if n, err := s.RecordAwards(ctx, []bids.Outcome{{Ref: refs[2], Status: bids.Rejected}}, at, clash); err != nil || n != 1 {
			t.Fatalf("a rejection: %d, %v", n, err)
		}
	})
}

// TestBidStoreRecordAwardsRace: clearing runs racing on the same award
// record it once and create its energy bids once.
func TestBidStoreRecordAwardsRace(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		refs := awardEnv(t, b, []calendar.Interval{bidBlock}, 5)
		at := testkit.Start.Add(time.Hour)
		var wg sync.WaitGroup
		var mu sync.Mutex
		moved := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := b.Bids().RecordAwards(ctx, []bids.Outcome{{Ref: refs[0], Status: bids.Successful}}, at, energyOfAwards(at))
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				moved += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		energy := energyAt(t, b, bidBlock)
		if moved != 1 || len(energy) != 16 {
			t.Fatalf("moved %d, %d quarter-hours", moved, len(energy))
		}
		for q, list := range energy {
			if len(list) != 1 || list[0].OfferedMW != 5 {
				t.Fatalf("quarter-hour %v: %+v", q, list)
			}
		}
	})
}

// TestBidStoreRecordAwardsWaitsForTheHolder: an award recorded while the
// holder's energy bids are being written waits for them and respects them.
func TestBidStoreRecordAwardsWaitsForTheHolder(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		refs := awardEnv(t, b, []calendar.Interval{bidBlock}, 6)
		q := calendar.Interval{Start: bidBlock.Start, End: bidBlock.Start.Add(calendar.PeriodLength)}
		read := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			price := bids.Price(100)
			done <- b.Bids().Apply(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.AFRREnergy, q, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
				close(read)
				time.Sleep(100 * time.Millisecond) // the award is recorded now
				return bids.Changes{Insert: []bids.Bid{{ID: bids.NewID(), OrganizationID: "acme", AssetID: "bess", Market: bids.AFRREnergy,
					Product: bids.Neg, Start: q.Start, End: q.End, EnergyPrice: &price, OfferedMW: 2, Status: bids.Pending, Source: bids.SourceAPI,
					CreatedAt: testkit.Start, UpdatedAt: testkit.Start}}}, nil
			})
		}()
		<-read
		at := testkit.Start.Add(time.Hour)
		if _, err := b.Bids().RecordAwards(ctx, []bids.Outcome{{Ref: refs[0], Status: bids.Successful}}, at, energyOfAwards(at)); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, e := range energyAt(t, b, q)[q.Start] {
			total += e.OfferedMW
		}
		if total != 6 {
			t.Fatalf("%v MW offered in the first quarter-hour of a 6 MW award", total)
		}
	})
}
