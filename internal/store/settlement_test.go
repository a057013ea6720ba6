package store_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// settlementQ is the quarter-hour 04:15-04:30 CET of 2026-02-02.
var settlementQ = time.Date(2026, 2, 2, 3, 15, 0, 0, time.UTC)

// seedSettlementBids stores bids as they are (any status), through Apply.
func seedSettlementBids(t *testing.T, b store.Backend, in ...bids.Bid) {
	t.Helper()
	for _, x := range in {
		x.CreatedAt, x.UpdatedAt = testkit.Start, testkit.Start
		err := b.Bids().Apply(context.Background(), auth.Visibility{All: true}, assets.Asset{ID: x.AssetID}, x.Market, x.Interval(),
			func(assets.Asset, []bids.Bid) (bids.Changes, error) { return bids.Changes{Insert: []bids.Bid{x}}, nil })
		if err != nil {
			t.Fatal(err)
		}
	}
}

func settlementBid(id, asset string, market bids.Market, p bids.Product, start, end time.Time, status bids.Status) bids.Bid {
	price := bids.EUR(1)
	mw := 2.0
	b := bids.Bid{ID: id, OrganizationID: "acme", AssetID: asset, Market: market, Product: p, Start: start, End: end,
		OfferedMW: 2, Status: status, EnergyPrice: &price}
	if market != bids.AFRREnergy {
		b.CapacityPrice = &price
	}
	if status == bids.Successful {
		b.AwardedMW, b.SettlementPrice = &mw, &price
	}
	return b
}

func TestSettlementStoreDeliveryBids(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withBackupAssets(t, b)
		q := settlementQ
		block := calendar.Interval{Start: q.Add(-15 * time.Minute), End: q.Add(225 * time.Minute)}
		fiveHours := calendar.Interval{Start: q.Add(-4*time.Hour - 45*time.Minute), End: q.Add(15 * time.Minute)}
		next := calendar.Interval{Start: q.Add(15 * time.Minute), End: q.Add(30 * time.Minute)}
		seedSettlementBids(t, b,
			settlementBid("00000000-0000-7000-8000-000000000001", "a1", bids.FCR, bids.Sym, block.Start, block.End, bids.Successful),
			settlementBid("00000000-0000-7000-8000-000000000002", "a1", bids.FCR, bids.Sym, block.Start, block.End, bids.Rejected),
			settlementBid("00000000-0000-7000-8000-000000000003", "a1", bids.FCR, bids.Sym, block.End, block.End.Add(4*time.Hour), bids.Successful),
			settlementBid("00000000-0000-7000-8000-000000000004", "a1", bids.AFRRCapacity, bids.Neg, fiveHours.Start, fiveHours.End, bids.Successful),
			settlementBid("00000000-0000-7000-8000-000000000005", "b1", bids.AFRRCapacity, bids.Pos, fiveHours.Start.Add(-4*time.Hour), fiveHours.Start, bids.Successful),
			settlementBid("00000000-0000-7000-8000-000000000006", "b1", bids.AFRRCapacity, bids.Pos, block.Start, block.End, bids.Submitted),
		)
		want := []string{"00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000004"}
		for i, s := range []bids.Status{bids.Pending, bids.Submitted, bids.Successful, bids.Rejected, bids.Fallback, bids.Failed, bids.Cancelled} {
			id := fmt.Sprintf("00000000-0000-7000-8000-0000000001%02d", i)
			seedSettlementBids(t, b, settlementBid(id, "b1", bids.AFRREnergy, bids.Neg, q, q.Add(15*time.Minute), s))
			if s != bids.Failed && s != bids.Cancelled {
				want = append(want, id)
			}
		}
		seedSettlementBids(t, b, settlementBid("00000000-0000-7000-8000-000000000201", "b1", bids.AFRREnergy, bids.Neg, next.Start, next.End, bids.Successful))
		got, err := b.Settlements().DeliveryBids(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, x := range got {
			ids = append(ids, x.ID)
			if x.OrganizationID == "" || x.Start.IsZero() || x.Start.Location() != time.UTC {
				t.Fatalf("bid read incompletely: %+v", x)
			}
		}
		slices.Sort(ids)
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Fatalf("delivery bids %v, want %v", ids, want)
		}
	})
}

func settlementFigure(rev, fee, pen string) settlement.Figure {
	return settlement.Figure{Revenue: decimal.RequireFromString(rev), BackupFee: decimal.RequireFromString(fee), Penalty: decimal.RequireFromString(pen)}
}

func settlementBlock(org, asset string, q time.Time, products map[settlement.ProductKey]settlement.Figure) settlement.Block {
	return settlement.Block{OrganizationID: org, AssetID: asset, Start: q, Products: products}
}

// readBlocks reads the blocks of q for the assets, as the given caller.
func readBlocks(t *testing.T, b store.Backend, v auth.Visibility, org string, ids []string, w calendar.Interval) map[string]settlement.Block {
	t.Helper()
	got, err := b.Settlements().Blocks(context.Background(), v, org, ids, w)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]settlement.Block{}
	for _, x := range got {
		out[x.AssetID+" "+x.Start.Format(time.RFC3339)] = x
	}
	return out
}

func TestSettlementStoreSave(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withBackupAssets(t, b)
		ctx := context.Background()
		s := b.Settlements()
		q, q2 := settlementQ, settlementQ.Add(15*time.Minute)
		t1 := time.Date(2026, 2, 2, 3, 35, 0, 123456000, time.UTC)
		all := []settlement.Block{
			settlementBlock("acme", "a1", q, map[settlement.ProductKey]settlement.Figure{
				settlement.FCR:        settlementFigure("12.23", "3.00", "2.45"),
				settlement.AFRRENeg:   settlementFigure("-76.29", "21.70", "19.07"),
				settlement.AFRRCNeg4h: settlementFigure("1234567890123.45", "0", "0.01"),
			}),
			settlementBlock("acme", "c1", q, map[settlement.ProductKey]settlement.Figure{settlement.AFRRENegBackup: settlementFigure("5.17", "0", "0")}),
			settlementBlock("beta", "b1", q, map[settlement.ProductKey]settlement.Figure{settlement.FCRBackup: settlementFigure("-0.01", "0", "0")}),
		}
		if n, err := s.Save(ctx, q, all, t1); err != nil || n != 3 {
			t.Fatalf("first save: %d, %v", n, err)
		}
		// Another quarter-hour is another set; a block of another
		// quarter-hour is refused and writes nothing.
		next := settlementBlock("acme", "a1", q2, all[0].Products)
		if n, err := s.Save(ctx, q2, []settlement.Block{next}, t1); err != nil || n != 1 {
			t.Fatalf("save of the next quarter-hour: %d, %v", n, err)
		}
		if _, err := s.Save(ctx, q2, []settlement.Block{settlementBlock("acme", "c1", q2, all[1].Products), all[1]}, t1); err == nil {
			t.Fatal("a block of another quarter-hour was saved")
		}
		if got := readBlocks(t, b, assetAcme, "acme", []string{"c1"}, calendar.Interval{Start: q2, End: q2.Add(time.Minute)}); len(got) != 0 {
			t.Fatalf("a refused save wrote %v", got)
		}
		w := calendar.Interval{Start: q, End: q2}
		acme := readBlocks(t, b, assetAcme, "acme", []string{"a1", "c1", "b1", "nothing"}, w)
		if len(acme) != 2 {
			t.Fatalf("acme reads %v", acme)
		}
		a1 := acme["a1 2026-02-02T03:15:00Z"]
		if a1.OrganizationID != "acme" || !a1.Start.Equal(q) || !a1.ProcessedAt.Equal(t1) || len(a1.Products) != 3 ||
			a1.Figure(settlement.AFRRENeg).Revenue.StringFixed(2) != "-76.29" ||
			a1.Figure(settlement.AFRRCNeg4h).Revenue.StringFixed(2) != "1234567890123.45" ||
			a1.Figure(settlement.AFRRCNeg4h).Penalty.StringFixed(2) != "0.01" ||
			a1.Figure(settlement.FCR) != a1.Products[settlement.FCR] || !a1.Figure(settlement.FCR).Equal(settlementFigure("12.23", "3", "2.45")) ||
			!a1.Figure(settlement.AFRRCPos15min).Equal(settlement.Figure{}) {
			t.Fatalf("a1 read back as %+v", a1)
		}
		// Isolation: beta sees none of acme's, even naming acme's assets;
		// a platform administrator reads any organisation.
		if got := readBlocks(t, b, assetBeta, "acme", []string{"a1", "c1"}, w); len(got) != 0 {
			t.Fatalf("beta reads acme's %v", got)
		}
		if got := readBlocks(t, b, assetBeta, "beta", []string{"b1", "a1"}, w); len(got) != 1 || got["b1 2026-02-02T03:15:00Z"].Figure(settlement.FCRBackup).Revenue.StringFixed(2) != "-0.01" {
			t.Fatalf("beta reads %v", got)
		}
		if got := readBlocks(t, b, auth.Visibility{All: true}, "acme", []string{"a1"}, calendar.Interval{Start: q, End: q2.Add(time.Minute)}); len(got) != 2 {
			t.Fatalf("the administrator reads %v", got)
		}
		// The window is [start, end) on block_start; an empty list of assets
		// reads none, nil every asset of the organisation.
		if got := readBlocks(t, b, assetAcme, "acme", []string{"a1"}, calendar.Interval{Start: q.Add(time.Microsecond), End: q2}); len(got) != 0 {
			t.Fatalf("a block before the window: %v", got)
		}
		if got := readBlocks(t, b, assetAcme, "acme", []string{"a1"}, calendar.Interval{Start: q.Add(-time.Hour), End: q}); len(got) != 0 {
			t.Fatalf("a block at the window's end: %v", got)
		}
		if got := readBlocks(t, b, assetAcme, "acme", []string{}, w); len(got) != 0 {
			t.Fatalf("no assets: %v", got)
		}
		if got := readBlocks(t, b, assetAcme, "acme", nil, w); len(got) != 2 {
			t.Fatalf("every asset: %v", got)
		}
		if got := readBlocks(t, b, auth.Visibility{OrganizationID: "beta"}, "acme", nil, w); len(got) != 0 {
			t.Fatalf("another organisation reads every asset: %v", got)
		}
		// FINAL's window starts at the zero time.
		if got := readBlocks(t, b, assetAcme, "acme", []string{"a1"}, calendar.Interval{End: q2}); len(got) != 1 {
			t.Fatalf("from the zero time: %v", got)
		}

		// The same figures again (1.5 written as 1.50 or 1.5 alike): nothing
		// changes, processed_at stays.
		t2 := t1.Add(5 * time.Minute)
		same := slices.Clone(all)
		same[1] = settlementBlock("acme", "c1", q, map[settlement.ProductKey]settlement.Figure{settlement.AFRRENegBackup: settlementFigure("5.170", "0.00", "0")})
		if n, err := s.Save(ctx, q, same, t2); err != nil || n != 0 {
			t.Fatalf("identical save: %d, %v", n, err)
		}
		// One figure of a1 changes, c1 gets no figures, b1 unchanged: a1's
		// rows all get t3, c1's are deleted, b1 keeps t1.
		t3 := t2.Add(5 * time.Minute)
		changed := []settlement.Block{
			settlementBlock("acme", "a1", q, map[settlement.ProductKey]settlement.Figure{
				settlement.FCR:        settlementFigure("12.23", "3.00", "2.45"),
				settlement.AFRRENeg:   settlementFigure("-76.28", "21.70", "19.07"),
				settlement.AFRRCNeg4h: settlementFigure("1234567890123.45", "0", "0.01"),
			}),
			all[2],
		}
		if n, err := s.Save(ctx, q, changed, t3); err != nil || n != 2 {
			t.Fatalf("changed save: %d, %v", n, err)
		}
		acme = readBlocks(t, b, assetAcme, "acme", []string{"a1", "c1"}, w)
		if len(acme) != 1 || !acme["a1 2026-02-02T03:15:00Z"].ProcessedAt.Equal(t3) ||
			acme["a1 2026-02-02T03:15:00Z"].Figure(settlement.AFRRENeg).Revenue.StringFixed(2) != "-76.28" {
			t.Fatalf("after the change: %+v", acme)
		}
		if got := readBlocks(t, b, assetBeta, "beta", []string{"b1"}, w); !got["b1 2026-02-02T03:15:00Z"].ProcessedAt.Equal(t1) {
			t.Fatalf("an unchanged block got a new processed_at: %+v", got)
		}
		// A product appearing is a change too.
		changed[1].Products[settlement.FCR] = settlementFigure("0", "0", "0")
		if n, err := s.Save(ctx, q, changed, t3.Add(time.Minute)); err != nil || n != 1 {
			t.Fatalf("a new product: %d, %v", n, err)
		}
		if got := readBlocks(t, b, assetBeta, "beta", []string{"b1"}, w); len(got["b1 2026-02-02T03:15:00Z"].Products) != 2 ||
			!got["b1 2026-02-02T03:15:00Z"].ProcessedAt.Equal(t3.Add(time.Minute)) {
			t.Fatalf("after a new product: %+v", got)
		}
		// The days follow: a1 holds both quarter-hours, c1 none (its day
		// deleted with its last block), beta's b1 one.
		day := calendar.DayOf(q)
		if got := checkDays(t, b, "acme", day); len(got) != 1 || got[0].AssetID != "a1" || got[0].Blocks != 2 ||
			got[0].Totals[8] != [3]int64{-7628 - 7629, 4340, 3814} || got[0].Totals[3][0] != 2*123456789012345 {
			t.Fatalf("acme's days %+v", got)
		}
		if got := checkDays(t, b, "beta", day); len(got) != 1 || got[0].AssetID != "b1" || got[0].Blocks != 1 {
			t.Fatalf("beta's days %+v", got)
		}
		// Isolation: beta reads none of acme's days; a list of assets narrows.
		if got, err := s.Days(ctx, assetBeta, "acme", nil, day, day.AddDays(1)); err != nil || len(got) != 0 {
			t.Fatalf("beta reads acme's days: %v %v", got, err)
		}
		if got, err := s.Days(ctx, assetAcme, "acme", []string{"c1"}, day, day.AddDays(1)); err != nil || len(got) != 0 {
			t.Fatalf("c1's days: %v %v", got, err)
		}
		if got, err := s.Days(ctx, assetAcme, "acme", nil, day.AddDays(1), day.AddDays(2)); err != nil || len(got) != 0 {
			t.Fatalf("the next day: %v %v", got, err)
		}
	})
}

// checkDays reads the organisation's rendered days of d and checks them
// against the days rendered from its figures (the source).
func checkDays(t *testing.T, b store.Backend, org string, d calendar.Day) []settlement.Day {
	t.Helper()
	ctx := context.Background()
	got, err := b.Settlements().Days(ctx, auth.Visibility{All: true}, org, nil, d, d.AddDays(1))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := b.Settlements().Blocks(ctx, auth.Visibility{All: true}, org, nil, d.Span())
	if err != nil {
		t.Fatal(err)
	}
	want := settlement.RenderDays(blocks)
	if len(got) != len(want) {
		t.Fatalf("%d days stored, %d from the figures", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.OrganizationID != w.OrganizationID || g.AssetID != w.AssetID || g.Day != w.Day || g.Blocks != w.Blocks ||
			g.Totals != w.Totals || !bytes.Equal(g.JSON, w.JSON) {
			t.Fatalf("day %s of %s stored as %s %d blocks %v\n%q\nfrom the figures %s %d blocks %v\n%q", w.Day, w.AssetID,
				g.AssetID, g.Blocks, g.Totals, g.JSON, w.AssetID, w.Blocks, w.Totals, w.JSON)
		}
	}
	return got
}

// TestSettlementStoreDaysConcurrently: writers of different quarter-hours
// of one delivery day, each changing every asset's block, leave each
// asset's day holding all their blocks (the day rendered by the last
// writer from every writer's figures).
func TestSettlementStoreDaysConcurrently(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withBackupAssets(t, b)
		ctx := context.Background()
		const writers, assets = 8, 20
		var wg sync.WaitGroup
		for w := range writers {
			q := settlementQ.Add(time.Duration(w) * 15 * time.Minute)
			var blocks []settlement.Block
			for i := range assets {
				blocks = append(blocks, settlementBlock("acme", fmt.Sprintf("a%03d", i), q,
					map[settlement.ProductKey]settlement.Figure{settlement.FCR: settlementFigure(fmt.Sprintf("%d.%02d", i, w), "0", "0")}))
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := range 3 { // the later rounds find nothing changed
					if _, err := b.Settlements().Save(ctx, q, blocks, q.Add(time.Duration(round+20)*time.Minute)); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		got := checkDays(t, b, "acme", calendar.DayOf(settlementQ))
		if len(got) != assets {
			t.Fatalf("%d days", len(got))
		}
		for i, d := range got {
			if d.Blocks != writers || d.Totals[0][0] != int64(writers*100*i+(writers-1)*writers/2) {
				t.Fatalf("%s: %d blocks, %d cents", d.AssetID, d.Blocks, d.Totals[0][0])
			}
		}
	})
}

// TestSettlementStoreSaveConcurrently: writers of one quarter-hour apply
// one after the other: the first stores, every later one finds the same
// figures and changes nothing, whatever the interleaving.
func TestSettlementStoreSaveConcurrently(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withBackupAssets(t, b)
		ctx := context.Background()
		q := settlementQ
		// 150 blocks of one row: more than one SQLite insert batch.
		var blocks []settlement.Block
		for i := range 150 {
			blocks = append(blocks, settlementBlock("acme", fmt.Sprintf("a%03d", i), q,
				map[settlement.ProductKey]settlement.Figure{settlement.FCR: settlementFigure(fmt.Sprintf("%d.25", i), "0", "0")}))
		}
		const writers = 8
		var wg sync.WaitGroup
		changed := make([]int, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := b.Settlements().Save(ctx, q, blocks, q.Add(time.Duration(w+1)*time.Minute))
				if err != nil {
					t.Error(err)
				}
				changed[w] = n
			}()
		}
		wg.Wait()
		first := -1
		for w, n := range changed {
			switch n {
			case 0:
			case len(blocks):
				if first >= 0 {
					t.Fatalf("writers %d and %d both stored the quarter-hour", first, w)
				}
				first = w
			default:
				t.Fatalf("writer %d changed %d blocks", w, n)
			}
		}
		if first < 0 {
			t.Fatal("nobody stored the quarter-hour")
		}
		ids := make([]string, len(blocks))
		for i, x := range blocks {
			ids[i] = x.AssetID
		}
		got := readBlocks(t, b, assetAcme, "acme", ids, calendar.Interval{Start: q, End: q.Add(time.Minute)})
		if len(got) != len(blocks) {
			t.Fatalf("%d blocks stored", len(got))
		}
		for _, x := range got {
			if !x.ProcessedAt.Equal(q.Add(time.Duration(first+1) * time.Minute)) {
				t.Fatalf("%s processed at %s, stored by writer %d", x.AssetID, x.ProcessedAt, first)
			}
		}
		if days := checkDays(t, b, "acme", calendar.DayOf(q)); len(days) != len(blocks) {
			t.Fatalf("%d days", len(days))
		}
	})
}

func TestSettlementStoreProgress(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		ctx := context.Background()
		s := b.Settlements()
		if _, ok, err := s.Progress(ctx); err != nil || ok {
			t.Fatalf("progress before the first run: %v %v", ok, err)
		}
		for _, next := range []time.Time{settlementQ, settlementQ.Add(-time.Hour)} {
			if err := s.SetProgress(ctx, next); err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.Progress(ctx)
			if err != nil || !ok || !got.Equal(next) || got.Location() != time.UTC {
				t.Fatalf("progress %s %v %v, want %s", got, ok, err, next)
			}
		}
	})
}
