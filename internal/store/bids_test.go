package store_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/markets/fcr"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// FCR block 04:00-08:00 CET of delivery day 2026-02-02, open at testkit.Start.
var (
	bidBlock = calendar.Interval{Start: time.Date(2026, 2, 2, 3, 0, 0, 0, time.UTC), End: time.Date(2026, 2, 2, 7, 0, 0, 0, time.UTC)}
	bidNext  = calendar.Interval{Start: bidBlock.End, End: bidBlock.End.Add(4 * time.Hour)}
)

// bidEnv registers acme's FCR asset bess (10 MW prequalified) and beta's.
func bidEnv(t *testing.T, b store.Backend) (*assets.Service, *fcr.Service, *clock.Manual) {
	t.Helper()
	withAssetOrganizations(t, b)
	clk := clock.NewManual(testkit.Start)
	as := assets.NewService(b.Assets(), clk)
	for id, org := range map[string]string{"bess": "acme", "bess-beta": "beta"} {
		a := assets.NewAsset(id, org, id, "Kiel", assets.Standalone)
		a.OperationalStatus = assets.Live // markets take live assets only (asset_not_live)
		a.FCREnabled, a.FCRPrequalifiedMW = true, 10
		if err := as.EnsureAsset(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	return as, fcr.NewService(as, b.Bids(), clk, fcr.Config{}), clk
}

func fcrBid(iv calendar.Interval, key string, mw float64) bids.NewBid {
	nb := bids.NewBid{Start: iv.Start, End: iv.End, OfferedMW: mw, CapacityPrice: bids.PriceInput{Raw: []byte(`"10.25"`)}}
	if key != "" {
		nb.IdempotencyKey = &key
	}
	return nb
}

func isCode(err error, code errs.Code) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Code == code
}

func TestBidStoreCeilingUnderConcurrency(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		_, svc, _ := bidEnv(t, b)
		ctx := context.Background()
		// 64 requests of 1 or 2 MW (96 MW together) against 10 MW.
		var wg sync.WaitGroup
		var mu sync.Mutex
		accepted := 0.0
		for i := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mw := float64(1 + i%2)
				_, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidBlock, "", mw)}})
				switch {
				case err == nil:
					mu.Lock()
					accepted += mw
					mu.Unlock()
				case !isCode(err, "FCR_PREQUALIFIED_CAPACITY_EXCEEDED"):
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		list, err := b.Bids().List(ctx, assetAcme, "bess", bids.FCR, bids.Filter{EndAfter: testkit.Start})
		if err != nil {
			t.Fatal(err)
		}
		stored := 0.0
		for _, x := range list {
			stored += x.OfferedMW
		}
		if stored != accepted || stored > 10 || stored < 9 {
			t.Fatalf("stored %v MW, accepted %v MW, ceiling 10", stored, accepted)
		}
	})
}

func TestBidStoreIdempotentRetriesRace(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		_, svc, _ := bidEnv(t, b)
		ctx := context.Background()
		ids := make([]string, 32)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidBlock, "retry", 2)}})
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = res.Bids[0].ID
			}()
		}
		wg.Wait()
		list, err := b.Bids().List(ctx, assetAcme, "bess", bids.FCR, bids.Filter{EndAfter: testkit.Start})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 {
			t.Fatalf("%d bids stored, want 1", len(list))
		}
		for _, id := range ids {
			if id != list[0].ID {
				t.Fatalf("a retry returned %s, stored %s", id, list[0].ID)
			}
		}
		// The unique index backs the rule up: a second insert into the
		// same scope is a conflict, not a second bid.
		err = b.Bids().Apply(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.FCR, bidBlock, func(a assets.Asset, _ []bids.Bid) (bids.Changes, error) {
			dup := list[0]
			dup.ID = uuid.NewString()
			return bids.Changes{Insert: []bids.Bid{dup}}, nil
		})
		if !isCode(err, "idempotency_key_in_use") {
			t.Fatalf("duplicate scope: %v", err)
		}
		// Among other new bids (SQLite writes them in one statement), the
		// error still names the bid whose key is taken, and none is kept.
		wide := calendar.Interval{Start: bidBlock.Start, End: bidNext.End}
		err = b.Bids().Apply(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.FCR, wide, func(a assets.Asset, _ []bids.Bid) (bids.Changes, error) {
			fresh, dup := list[0], list[0]
			fresh.ID, fresh.Start, fresh.End = uuid.NewString(), bidNext.Start, bidNext.End
			dup.ID = uuid.NewString()
			return bids.Changes{Insert: []bids.Bid{fresh, dup}}, nil
		})
		if !isCode(err, "idempotency_key_in_use") || !strings.Contains(err.Error(), bidBlock.Start.Format(time.RFC3339)) {
			t.Fatalf("duplicate scope among new bids: %v", err)
		}
		after, err := b.Bids().List(ctx, assetAcme, "bess", bids.FCR, bids.Filter{EndAfter: testkit.Start})
		if err != nil || len(after) != 1 {
			t.Fatalf("after a refused insert: %d bids (%v), want the 1 before", len(after), err)
		}
	})
}

func TestBidStoreRoundTripVisibilityAndRollback(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		_, svc, _ := bidEnv(t, b)
		ctx := context.Background()
		s := b.Bids()
		res, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidBlock, "k", 3), fcrBid(bidNext, "", 4)}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, assetAcme, "bess", bids.FCR, res.Bids[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		want := res.Bids[0]
		if got.ID != want.ID || got.OrganizationID != "acme" || got.AssetID != "bess" || got.Market != bids.FCR || got.Product != bids.Sym ||
			!got.Start.Equal(bidBlock.Start) || got.Start.Location() != time.UTC || !got.End.Equal(bidBlock.End) || *got.IdempotencyKey != "k" ||
			*got.CapacityPrice != 1025 || got.EnergyPrice != nil || got.OfferedMW != 3 || got.AwardedMW != nil || got.Status != bids.Pending ||
			got.LastEdit != nil || !got.CreatedAt.Equal(testkit.Start) || !got.UpdatedAt.Equal(testkit.Start) || got.SubmittedAt != nil {
			t.Fatalf("round trip %+v", got)
		}
		// Other organisations see nothing; other markets neither.
		if _, err := s.Get(ctx, assetBeta, "bess", bids.FCR, want.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta read acme's bid: %v", err)
		}
		if _, err := s.Get(ctx, assetAdmin, "bess", bids.AFRRCapacity, want.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("read across markets: %v", err)
		}
		if l, err := s.List(ctx, assetBeta, "bess", bids.FCR, bids.Filter{EndAfter: testkit.Start}); err != nil || len(l) != 0 {
			t.Fatalf("beta listed %v %v", l, err)
		}
		if l, err := s.List(ctx, assetAdmin, "bess", bids.FCR, bids.Filter{EndAfter: testkit.Start, Start: &bidNext.Start}); err != nil || len(l) != 1 {
			t.Fatalf("admin filtered list %v %v", l, err)
		}
		if err := s.Apply(ctx, assetBeta, assets.Asset{ID: "bess"}, bids.FCR, bidBlock, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{}, nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta locked acme's asset: %v", err)
		}
		// An error after the deletes and inserts are decided rolls all back.
		err = s.Apply(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.FCR, bidBlock, func(a assets.Asset, existing []bids.Bid) (bids.Changes, error) {
			fresh := existing[0]
			fresh.ID, fresh.IdempotencyKey = uuid.NewString(), nil
			// The delete and the first insert are undone by the second,
			// which repeats the first's id.
			return bids.Changes{Delete: []string{want.ID}, Insert: []bids.Bid{fresh, fresh}}, nil
		})
		if err == nil {
			t.Fatal("duplicate insert accepted")
		}
		if l, _ := s.List(ctx, assetAcme, "bess", bids.FCR, bids.Filter{EndAfter: testkit.Start}); len(l) != 2 || l[0].ID != want.ID {
			t.Fatalf("not rolled back: %+v", l)
		}
	})
}

// TestBidStoreReplaceWritesTheNewBid: a REPLACE of a bid by one of the
// same period (which the SQLite store writes over the old row) leaves
// exactly the new bid, every column its own, and the old one gone.
func TestBidStoreReplaceWritesTheNewBid(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		_, svc, _ := bidEnv(t, b)
		ctx := context.Background()
		res, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidNext, "", 4)}})
		if err != nil {
			t.Fatal(err)
		}
		old := res.Bids[0]
		later := testkit.Start.Add(time.Hour)
		price := bids.Price(2000)
		fresh := old
		fresh.ID, fresh.CapacityPrice, fresh.OfferedMW, fresh.CreatedAt, fresh.UpdatedAt = bids.NewID(), &price, 7, later, later
		err = b.Bids().Apply(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.FCR, bidNext, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{Delete: []string{old.ID}, Insert: []bids.Bid{fresh}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Bids().Get(ctx, assetAcme, "bess", bids.FCR, old.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("the replaced bid is still there: %v", err)
		}
		got, err := b.Bids().Get(ctx, assetAcme, "bess", bids.FCR, fresh.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, fresh) {
			t.Fatalf("stored %+v\nwant   %+v", got, fresh)
		}
	})
}

// TestBidStoreReplaceOfADay: a REPLACE of more bids than the SQLite store
// rewrites in one statement (a delivery day of energy bids, both
// products) leaves exactly the new bids, each with its own columns; a
// deleted bid the market has already touched (here submitted) is deleted,
// not written over.
func TestBidStoreReplaceOfADay(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		bidEnv(t, b)
		ctx := context.Background()
		day := calendar.Day{Year: 2026, Month: 2, Day: 2}
		// negSource is the source of the negative bids: the old day's were
		// created by an award, the new ones by the holder, whose rows must
		// not keep the old source.
		dayOf := func(at time.Time, price bids.Price, mw float64, negSource bids.Source) []bids.Bid {
			var out []bids.Bid
			for _, p := range day.Periods() {
				for _, prod := range []bids.Product{bids.Pos, bids.Neg} {
					source := bids.SourceAPI
					if prod == bids.Neg {
						source = negSource
					}
					out = append(out, bids.Bid{ID: bids.NewID(), OrganizationID: "acme", AssetID: "bess", Market: bids.AFRREnergy,
						Product: prod, Start: p.Start, End: p.End, EnergyPrice: &price, OfferedMW: mw, Status: bids.Pending,
						Source: source, CreatedAt: at, UpdatedAt: at})
				}
			}
			return out
		}
		apply := func(ch bids.Changes) {
			t.Helper()
			err := b.Bids().Apply(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.AFRREnergy, day.Span(),
				func(assets.Asset, []bids.Bid) (bids.Changes, error) { return ch, nil })
			if err != nil {
				t.Fatal(err)
			}
		}
		old := dayOf(testkit.Start, bids.Price(5000), 5, bids.SourceCapacityBid)
		submitted := testkit.Start.Add(time.Minute)
		old[7].SubmittedAt = &submitted
		apply(bids.Changes{Insert: old})
		fresh := dayOf(testkit.Start.Add(time.Hour), bids.Price(-1234), 3.3, bids.SourceAPI)
		var gone []string
		for _, o := range old {
			gone = append(gone, o.ID)
		}
		apply(bids.Changes{Delete: gone, Insert: fresh})
		got, err := b.Bids().List(ctx, assetAcme, "bess", bids.AFRREnergy, bids.Filter{EndAfter: testkit.Start})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]bids.Bid{}
		for _, g := range got {
			byID[g.ID] = g
		}
		if len(got) != len(fresh) || len(byID) != len(fresh) {
			t.Fatalf("%d bids stored (%d ids), want the %d new ones", len(got), len(byID), len(fresh))
		}
		for _, f := range fresh {
			if !reflect.DeepEqual(byID[f.ID], f) {
				t.Fatalf("stored %+v\nwant   %+v", byID[f.ID], f)
			}
		}
	})
}

func TestBidStoreClearing(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		as, svc, clk := bidEnv(t, b)
		ctx := context.Background()
		s := b.Bids()
		res, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidBlock, "", 1), fcrBid(bidBlock, "", 2), fcrBid(bidNext, "", 3), fcrBid(bidNext, "", 4)}})
		if err != nil {
			t.Fatal(err)
		}
		ref := func(i int) bids.Ref { return bids.Ref{AssetID: "bess", ID: res.Bids[i].ID} }
		// Due: the bids starting before bidNext.
		due, err := s.Due(ctx, bids.FCR, bids.Pending, bidNext.Start, 10)
		if err != nil || len(due) != 2 {
			t.Fatalf("due %v %v", due, err)
		}
		if due, _ := s.Due(ctx, bids.FCR, bids.Pending, bidNext.End, 3); len(due) != 3 {
			t.Fatalf("limit: %d", len(due))
		}
		at := testkit.Start.Add(time.Hour)
		if n, err := s.MarkSubmitted(ctx, []bids.Ref{ref(0), ref(1), ref(2)}, at); err != nil || n != 3 {
			t.Fatal(n, err)
		}
		// Only PENDING bids move.
		if n, err := s.MarkFailed(ctx, []bids.Ref{ref(0), ref(3), {AssetID: "bess-beta", ID: res.Bids[2].ID}}, at); err != nil || n != 1 {
			t.Fatal(n, err)
		}
		two, price, src, day, note := 1.0, bids.Price(1999), "auction", "2026-02-02", "cleared with block 1"
		n, err := s.RecordOutcomes(ctx, []bids.Outcome{
			{Ref: ref(0), Status: bids.Successful, AwardedMW: &two, SettlementPrice: &price, PriceSource: &src, SourceDay: &day, ClearingNote: &note},
			{Ref: ref(1), Status: bids.Rejected},
			{Ref: ref(3), Status: bids.Successful}, // FAILED: not moved
		}, at)
		if err != nil || n != 2 {
			t.Fatal(n, err)
		}
		got, _ := s.Get(ctx, assetAcme, "bess", bids.FCR, ref(0).ID)
		if got.Status != bids.Successful || *got.AwardedMW != 1 || *got.SettlementPrice != 1999 || *got.PriceSource != "auction" ||
			got.SourceDay == nil || *got.SourceDay != day || got.ClearingNote == nil || *got.ClearingNote != note ||
			got.SubmittedAt == nil || !got.SubmittedAt.Equal(at) || !got.UpdatedAt.Equal(at) {
			t.Fatalf("outcome %+v", got)
		}
		if got, _ := s.Get(ctx, assetAcme, "bess", bids.FCR, ref(1).ID); got.SourceDay != nil || got.ClearingNote != nil {
			t.Fatalf("rejected without a source: %+v", got)
		}
		if got, _ := s.Get(ctx, assetAcme, "bess", bids.FCR, ref(3).ID); got.Status != bids.Failed {
			t.Fatalf("failed bid %+v", got)
		}
		// A late edit that fails when the gate closes first.
		if _, _, err := svc.Update(ctx, assetAcme, "bess", ref(2).ID, bids.Change{Start: bidNext.Start, End: bidNext.End, OfferedMW: 5,
			CapacityPrice: bids.PriceInput{Raw: []byte(`11`)}}); err != nil {
			t.Fatal(err)
		}
		edits, err := s.PendingEdits(ctx, bids.FCR, 10)
		if err != nil || len(edits) != 1 || edits[0].ID != ref(2).ID || edits[0].LastEdit.RequestedValues.OfferedMW != 5 ||
			*edits[0].LastEdit.RequestedValues.CapacityPrice != 1100 || edits[0].OfferedMW != 3 {
			t.Fatalf("pending edits %+v %v", edits, err)
		}
		if err := s.ResolveEdit(ctx, ref(2), false, "gate_closed", "the gate closed before forwarding", at); err != nil {
			t.Fatal(err)
		}
		if err := s.ResolveEdit(ctx, ref(2), true, "", "", at); !errs.Is(err, errs.NotFound) {
			t.Fatalf("resolved twice: %v", err)
		}
		got, _ = s.Get(ctx, assetAcme, "bess", bids.FCR, ref(2).ID)
		if e := got.LastEdit; e == nil || e.Status != bids.EditFailedLateEdit || *e.FailureReason != "gate_closed" || got.OfferedMW != 3 {
			t.Fatalf("failed edit %+v", got)
		}
		// FALLBACK may also come from PENDING.
		res2, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidNext, "", 1)}})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.RecordOutcomes(ctx, []bids.Outcome{{Ref: bids.Ref{AssetID: "bess", ID: res2.Bids[0].ID}, Status: bids.Fallback}}, at); err != nil || n != 1 {
			t.Fatal(n, err)
		}

		// Committed future bids block the asset's deletion.
		counts, err := s.CommittedAfter(ctx, "bess", clk.Now())
		if err != nil || counts[bids.FCR] != 3 {
			t.Fatalf("committed %v %v", counts, err)
		}
		as.AddDeletionGuard(bids.DeletionGuard{Store: s})
		// A live asset is refused for being live; out of service first.
		for _, id := range []string{"bess", "bess-beta"} {
			if _, err := as.Update(ctx, assetAdmin, id, assets.Update{OperationalStatus: assets.Some(assets.Maintenance)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := as.Delete(ctx, assetAcme, "bess"); !isCode(err, "asset_in_use") {
			t.Fatalf("delete with committed bids: %v", err)
		}
		if counts, _ := s.CommittedAfter(ctx, "bess", bidNext.End); len(counts) != 0 {
			t.Fatalf("committed after delivery %v", counts)
		}
		if err := as.Delete(ctx, assetAcme, "bess-beta"); err == nil {
			t.Fatal("acme deleted beta's asset")
		}
		if err := as.Delete(ctx, assetBeta, "bess-beta"); err != nil {
			t.Fatal(err)
		}
		// A deleted asset takes no bids.
		if err := s.Apply(ctx, assetAdmin, assets.Asset{ID: "bess-beta"}, bids.FCR, bidBlock, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{}, nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("apply on a deleted asset: %v", err)
		}
	})
}

// TestMarketMovesWaitForBidRewrites: a market move (here MarkSubmitted)
// that arrives while Apply is between reading and rewriting the asset's
// bids waits for it instead of being undone by the rewrite.
func TestMarketMovesWaitForBidRewrites(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		_, svc, _ := bidEnv(t, b)
		ctx := context.Background()
		res, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidBlock, "", 2)}})
		if err != nil {
			t.Fatal(err)
		}
		id := res.Bids[0].ID
		s := b.Bids()
		read := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- s.Apply(ctx, assetAcme, assets.Asset{ID: "bess"}, bids.FCR, bidBlock, func(_ assets.Asset, existing []bids.Bid) (bids.Changes, error) {
				close(read)
				time.Sleep(100 * time.Millisecond) // the market move arrives now
				cur := existing[0]
				cur.OfferedMW = 3
				return bids.Changes{Update: []bids.Bid{cur}}, nil
			})
		}()
		<-read
		n, err := s.MarkSubmitted(ctx, []bids.Ref{{AssetID: "bess", ID: id}}, testkit.Start.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, assetAcme, "bess", bids.FCR, id)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 && got.Status != bids.Submitted {
			t.Fatalf("the submission was undone by a concurrent rewrite: status %s", got.Status)
		}
		if got.OfferedMW != 3 {
			t.Fatalf("the rewrite was lost: %v MW", got.OfferedMW)
		}
	})
}

// TestBidStoreCovering: the awards containing an instant, start inclusive,
// end exclusive, of one status only.
func TestBidStoreCovering(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		_, svc, _ := bidEnv(t, b)
		ctx := context.Background()
		res, err := svc.Submit(ctx, assetAcme, "bess", bids.Submission{Bids: []bids.NewBid{fcrBid(bidBlock, "", 2), fcrBid(bidNext, "", 3)}})
		if err != nil {
			t.Fatal(err)
		}
		s := b.Bids()
		won := 2.0
		if _, err := s.MarkSubmitted(ctx, []bids.Ref{{AssetID: "bess", ID: res.Bids[0].ID}}, testkit.Start); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordOutcomes(ctx, []bids.Outcome{{Ref: bids.Ref{AssetID: "bess", ID: res.Bids[0].ID}, Status: bids.Successful, AwardedMW: &won}}, testkit.Start); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			at   time.Time
			want int
		}{
			{bidBlock.Start.Add(-time.Microsecond), 0},
			{bidBlock.Start, 1},
			{bidBlock.End.Add(-time.Microsecond), 1},
			{bidBlock.End, 0}, // the next block's bid is PENDING, not SUCCESSFUL
		} {
			got, err := s.Covering(ctx, bids.FCR, bids.Successful, tc.at)
			if err != nil || len(got) != tc.want {
				t.Fatalf("covering %v: %d bids (%v), want %d", tc.at, len(got), err, tc.want)
			}
		}
		if got, _ := s.Covering(ctx, bids.FCR, bids.Pending, bidNext.Start); len(got) != 1 || got[0].ID != res.Bids[1].ID {
			t.Fatalf("pending covering %v", got)
		}
	})
}

// Apply on a virtual asset checks its parent's row, hands decide the
// virtual record and keeps the bids under the virtual id; the market's
// moves reach them.
func TestBidStoreVirtualAsset(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		bidEnv(t, b)
		ctx := context.Background()
		s := b.Bids()
		parent := "bess"
		va := assets.Asset{ID: "bess.x", OrganizationID: "acme", FCRPrequalifiedMW: 4, ParentAssetID: &parent}
		var seen assets.Asset
		bid := bids.Bid{ID: uuid.NewString(), Market: bids.FCR, Product: bids.Sym, Status: bids.Pending, Start: bidBlock.Start, End: bidBlock.End,
			OfferedMW: 4, CapacityPrice: new(bids.EUR(1)), CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
		err := s.Apply(ctx, assetAcme, va, bids.FCR, bidBlock, func(a assets.Asset, _ []bids.Bid) (bids.Changes, error) {
			seen = a
			bid.OrganizationID, bid.AssetID = a.OrganizationID, a.ID
			return bids.Changes{Insert: []bids.Bid{bid}}, nil
		})
		if err != nil || seen.ID != "bess.x" || seen.FCRPrequalifiedMW != 4 {
			t.Fatalf("decide saw %+v, %v", seen, err)
		}
		if l, err := s.List(ctx, assetAcme, "bess.x", bids.FCR, bids.Filter{EndAfter: testkit.Start}); err != nil || len(l) != 1 || l[0].ID != bid.ID {
			t.Fatalf("virtual bids %+v, %v", l, err)
		}
		if l, err := s.List(ctx, assetAcme, "bess", bids.FCR, bids.Filter{EndAfter: testkit.Start}); err != nil || len(l) != 0 {
			t.Fatalf("parent bids %+v, %v", l, err)
		}
		if err := s.Apply(ctx, assetBeta, va, bids.FCR, bidBlock, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
			return bids.Changes{}, nil
		}); !errs.Is(err, errs.NotFound) {
			t.Fatalf("beta wrote behind acme's parent: %v", err)
		}
		if n, err := s.MarkSubmitted(ctx, []bids.Ref{{AssetID: "bess.x", ID: bid.ID}}, testkit.Start); err != nil || n != 1 {
			t.Fatalf("submitted %d, %v", n, err)
		}
	})
}
