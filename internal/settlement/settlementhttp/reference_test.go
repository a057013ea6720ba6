package settlementhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// The reference rendering of the envelope: the wire types filled from
// Service.Settlement and encoded by reflection, as the endpoint did before
// it wrote Service.Rendered (reference_test.go compares the two).

func product(f settlement.Figure) SettlementProduct {
	return SettlementProduct{RevenueTotal: amount(f.Revenue), BackupFeeTotal: amount(f.BackupFee), PenaltyTotal: amount(f.Penalty)}
}

func backupProduct(f settlement.Figure) SettlementBackupProduct {
	return SettlementBackupProduct{RevenueTotal: amount(f.Revenue), PenaltyTotal: amount(f.Penalty)}
}

func products(t settlement.Totals) SettlementProducts {
	return SettlementProducts{
		FCR: product(t[0]), FCRBackup: backupProduct(t[1]), AFRRCPos4h: product(t[2]), AFRRCNeg4h: product(t[3]),
		AFRRCPos15min: product(t[4]), AFRRCNeg15min: product(t[5]), AFRREPos: product(t[6]), AFRREPosBackup: backupProduct(t[7]),
		AFRRENeg: product(t[8]), AFRRENegBackup: backupProduct(t[9]),
	}
}

func blockProducts(b settlement.Block) SettlementBlockProducts {
	var out SettlementBlockProducts
	p := func(k settlement.ProductKey) *SettlementProduct {
		if f, ok := b.Products[k]; ok {
			v := product(f)
			return &v
		}
		return nil
	}
	bp := func(k settlement.ProductKey) *SettlementBackupProduct {
		if f, ok := b.Products[k]; ok {
			v := backupProduct(f)
			return &v
		}
		return nil
	}
	out.FCR, out.FCRBackup, out.AFRRCPos4h, out.AFRRCNeg4h = p(settlement.FCR), bp(settlement.FCRBackup), p(settlement.AFRRCPos4h), p(settlement.AFRRCNeg4h)
	out.AFRRCPos15min, out.AFRRCNeg15min = p(settlement.AFRRCPos15min), p(settlement.AFRRCNeg15min)
	out.AFRREPos, out.AFRREPosBackup = p(settlement.AFRREPos), bp(settlement.AFRREPosBackup)
	out.AFRRENeg, out.AFRRENegBackup = p(settlement.AFRRENeg), bp(settlement.AFRRENegBackup)
	return out
}

func toEnvelope(e settlement.Envelope, rule settlement.Rule) SettlementEnvelope {
	out := SettlementEnvelope{OrganizationID: e.OrganizationID, Start: e.Window.Start, End: e.Window.End, Status: string(e.Status), Currency: "EUR",
		Assets: make([]SettlementAsset, len(e.Assets)), SettlementProducts: products(e.Totals)}
	for i, a := range e.Assets {
		blocks := make([]SettlementBlock, len(a.Blocks))
		for j, b := range a.Blocks {
			blocks[j] = SettlementBlock{BlockStart: b.Start, BlockEnd: b.Start.Add(15 * time.Minute), DeliveryDay: deliveryDay(b.Start),
				ProcessedAt: b.ProcessedAt, Status: string(e.Status), FinalAt: rule.FinalAt(b.Start), SettlementBlockProducts: blockProducts(b)}
		}
		out.Assets[i] = SettlementAsset{AssetID: a.AssetID, Blocks: blocks, SettlementProducts: products(a.Totals)}
	}
	return out
}

func deliveryDay(t time.Time) string { return calendar.DayOf(t).String() }

// seedVaried stores figures for acme's assets a, b, c and "gone" (not
// registered: deleted since, it keeps its settlement) and beta's b-1 over
// the clock-change days and the days around the FINAL/PRELIMINARY
// boundary of 2026-11-05 10:00 UTC (FINAL up to 2026-10-04): each
// quarter-hour but every fifth, products varied by asset and quarter-hour
// (negative revenue, backup products, amounts over a million), processed
// at instants with microseconds.
func seedVaried(t *testing.T, be store.Backend) (*settlement.Service, *clock.Manual) {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewManual(time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC))
	dir := identity.NewDirectory(be.Directory(), clk, "http://test")
	registry := assets.NewService(be.Assets(), clk)
	for org, ids := range map[string][]string{"acme": {"a", "b", "c"}, "beta": {"b-1"}} {
		if err := dir.EnsureOrganization(ctx, org, org); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if err := registry.EnsureAsset(ctx, assets.NewAsset(id, org, id, "Kiel", assets.Standalone)); err != nil {
				t.Fatal(err)
			}
		}
	}
	cents := func(n int64) decimal.Decimal { return decimal.New(n, -2) }
	owners := []struct{ org, id string }{{"acme", "a"}, {"acme", "b"}, {"acme", "c"}, {"acme", "gone"}, {"beta", "b-1"}}
	var days []calendar.Day
	for _, span := range [][2]calendar.Day{{{Year: 2026, Month: 3, Day: 28}, {Year: 2026, Month: 3, Day: 31}},
		{{Year: 2026, Month: 10, Day: 2}, {Year: 2026, Month: 10, Day: 7}}, {{Year: 2026, Month: 10, Day: 24}, {Year: 2026, Month: 10, Day: 27}}} {
		for d := span[0]; d != span[1]; d = d.AddDays(1) {
			days = append(days, d)
		}
	}
	s := be.Settlements()
	for _, d := range days {
		for n, p := range d.Periods() {
			if n%5 == 3 {
				continue
			}
			var blocks []settlement.Block
			for i, o := range owners {
				if (n+i)%7 == 6 {
					continue // the asset has no block in this quarter-hour
				}
				bl := settlement.Block{OrganizationID: o.org, AssetID: o.id, Start: p.Start, Products: map[settlement.ProductKey]settlement.Figure{}}
				for k, key := range settlement.ProductKeys {
					if (n*3+i+k)%4 != 0 {
						continue
					}
					f := settlement.Figure{Revenue: cents(int64(n*1000+k*37) - 45_000), Penalty: cents(int64((n + i) % 11))}
					if !key.Backup() {
						f.BackupFee = cents(int64(i * k * 5))
					}
					if k == 2 && n%13 == 0 {
						f.Revenue = cents(123_456_789)
					}
					bl.Products[key] = f
				}
				if len(bl.Products) == 0 {
					bl.Products[settlement.FCR] = settlement.Figure{Revenue: cents(-5)}
				}
				blocks = append(blocks, bl)
			}
			at := p.Start.Add(20*time.Minute + time.Duration(n)*1234*time.Microsecond)
			if _, err := s.Save(ctx, p.Start, blocks, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	return settlement.NewService(settlement.Deps{Store: s, Assets: registry, Organizations: be.Directory(), Clock: clk,
		Rule: settlement.NewRule(settlement.DefaultFinalLag)}), clk
}

// TestRenderedMatchesReference: the envelope the endpoint writes from the
// rendered days is byte for byte the reference rendering (the wire types
// encoded by reflection as the server's JSON format does), for windows
// that cut days at either end or lie inside one or two days, over the
// clock-change days, in both statuses, for every asset and for a few.
func TestRenderedMatchesReference(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, be store.Backend) {
		svc, clk := seedVaried(t, be)
		ctx := context.Background()
		at := func(s string) time.Time {
			x, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		windows := [][2]string{
			{"2026-03-27T23:00:00Z", "2026-03-30T22:00:00Z"}, // whole days, the 23-hour day among them
			{"2026-03-28T05:15:00Z", "2026-03-29T13:45:00Z"}, // inside two days, no whole one
			{"2026-03-28T05:15:00Z", "2026-03-30T13:45:00Z"}, // cut, whole 29 March, cut
			{"2026-10-24T21:45:00Z", "2026-10-25T23:15:00Z"}, // the 25-hour day and a quarter-hour either side
			{"2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z"}, // inside the 25-hour day
			{"2026-10-01T00:00:00Z", "2026-10-27T00:00:00Z"}, // across the FINAL/PRELIMINARY boundary
			{"2026-10-03T10:00:00Z", "2026-10-03T10:15:00Z"}, // one quarter-hour
			{"2026-03-01T00:00:00Z", "2026-05-31T00:00:00Z"}, // 91 days
			{"2026-11-04T00:00:00Z", "2026-11-06T00:00:00Z"}, // not published
		}
		principals := map[string]*auth.Principal{"acme": {OrganizationID: "acme"}, "beta": {OrganizationID: "beta"}}
		for _, w := range windows {
			for _, status := range []string{"PRELIMINARY", "FINAL"} {
				for _, c := range []struct {
					org string
					ids []string
				}{{"acme", nil}, {"acme", []string{"c", "a"}}, {"beta", nil}} {
					q := settlement.Query{Start: at(w[0]), End: at(w[1]), Status: status, AssetIDs: c.ids}
					p := principals[c.org]
					env, err := svc.Settlement(ctx, p, q)
					if err != nil {
						t.Fatal(err)
					}
					var want bytes.Buffer
					enc := json.NewEncoder(&want)
					enc.SetEscapeHTML(false)
					if err := enc.Encode(toEnvelope(env, svc.Rule())); err != nil {
						t.Fatal(err)
					}
					r, err := svc.Rendered(ctx, p, q)
					if err != nil {
						t.Fatal(err)
					}
					got := r.AppendJSON(nil)
					if !bytes.Equal(got, want.Bytes()) {
						i := 0
						for i < len(got) && i < len(want.Bytes()) && got[i] == want.Bytes()[i] {
							i++
						}
						t.Fatalf("%s %s %v %v at %s: differs at byte %d:\n got %.300s\nwant %.300s", c.org, status, c.ids, w,
							clk.Now().Format(time.RFC3339), i, got[max(0, i-100):], want.Bytes()[max(0, i-100):])
					}
					blocks := 0
					for _, a := range env.Assets {
						blocks += len(a.Blocks)
					}
					if r.Blocks() != blocks {
						t.Fatalf("%d blocks, want %d", r.Blocks(), blocks)
					}
				}
			}
		}
	})
}
