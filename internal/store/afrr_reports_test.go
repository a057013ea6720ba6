package store_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func afrrEvent(org, asset string, slot time.Time, dir bids.Product, set, accepted float64) afrrreport.Event {
	activation := afrrreport.ActivationID("50HZ", dir, slot)
	planned := set
	e := afrrreport.Event{ID: afrrreport.NewEventID(), OrganizationID: org, ActivationID: activation,
		RequestID: afrrreport.RequestID(activation, asset), AssetID: asset, CreatedAt: slot.Add(15 * time.Minute), Direction: dir,
		PlannedMW: planned, SetMW: set, AcceptedMW: accepted, Category: afrrreport.EnergyBid, Slot: slot}
	e.Outcome = afrrreport.Classify(planned, set, accepted)
	return e
}

// TestAFRRDispatchEventStore: the round trip of every field, a duplicate
// of an asset, quarter-hour and direction left alone (also written
// concurrently), the overlap window, paging, visibility and the totals.
func TestAFRRDispatchEventStore(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withDispatchAssets(t, b)
		ctx, s := context.Background(), b.AFRRDispatchEvents()
		qh := testkit.Start.Truncate(15 * time.Minute)
		price, capPrice := decimal.RequireFromString("123.45"), decimal.RequireFromString("2.5625")
		full := afrrEvent("acme", "a1", qh, bids.Neg, -4, -3)
		full.PlannedMW, full.FilterReason, full.FilterDetails = -5, afrrreport.ReasonPowerLimited, "capped by the power limit's lower bound -4 MW"
		full.Category, full.EnergyPrice, full.CapacityPrice = afrrreport.CapacityObligation, &price, &capPrice
		events := []afrrreport.Event{
			full,
			afrrEvent("acme", "a1", qh, bids.Pos, 2, 2),
			afrrEvent("acme", "a1", qh.Add(15*time.Minute), bids.Neg, -5, 0),
			afrrEvent("acme", "a1", qh.Add(30*time.Minute), bids.Neg, 0, 0),
			afrrEvent("beta", "b1", qh, bids.Neg, -1, -1),
		}
		events[3].PlannedMW, events[3].Outcome, events[3].FilterReason = -5, afrrreport.Skipped, afrrreport.ReasonUnavailable
		if n, err := s.Insert(ctx, events); err != nil || n != 5 {
			t.Fatalf("insert: %d %v", n, err)
		}
		// A second instance's copy of the same quarter-hour: left alone.
		dup := afrrEvent("acme", "a1", qh, bids.Neg, -1, -1)
		if n, err := s.Insert(ctx, []afrrreport.Event{dup}); err != nil || n != 0 {
			t.Fatalf("duplicate: %d %v", n, err)
		}
		// Concurrent writers of the same new quarter-hour: one row.
		var wg sync.WaitGroup
		added := make([]int, 4)
		for i := range added {
			wg.Go(func() {
				n, err := s.Insert(ctx, []afrrreport.Event{afrrEvent("acme", "a1", qh.Add(45*time.Minute), bids.Neg, -float64(i+1), 0)})
				if err != nil {
					t.Error(err)
				}
				added[i] = n
			})
		}
		wg.Wait()
		if n := added[0] + added[1] + added[2] + added[3]; n != 1 {
			t.Fatalf("concurrent duplicates stored %d rows", n)
		}

		acme := auth.Visibility{OrganizationID: "acme"}
		w := reporting.Window{Start: qh, End: qh.Add(time.Hour)}
		got, total, err := s.List(ctx, acme, "a1", w, reporting.Page{Limit: 100})
		if err != nil || total != 5 || len(got) != 5 {
			t.Fatalf("list: %d of %d %v", len(got), total, err)
		}
		if got[0].Direction != bids.Pos || got[1].ID != full.ID {
			t.Fatalf("order: %+v", got[:2])
		}
		g := got[1]
		if g.OrganizationID != "acme" || g.ActivationID != full.ActivationID || g.RequestID != full.RequestID || !g.CreatedAt.Equal(full.CreatedAt) ||
			!g.Slot.Equal(qh) || g.PlannedMW != -5 || g.SetMW != -4 || g.AcceptedMW != -3 || g.Outcome != afrrreport.Partial ||
			g.FilterReason != afrrreport.ReasonPowerLimited || g.FilterDetails != full.FilterDetails || g.Category != afrrreport.CapacityObligation ||
			!g.EnergyPrice.Equal(price) || !g.CapacityPrice.Equal(capPrice) {
			t.Fatalf("round trip: %+v", g)
		}
		if got[0].EnergyPrice != nil || got[0].CapacityPrice != nil || got[0].Outcome != afrrreport.Delivered || got[0].FilterReason != "" {
			t.Fatalf("nulls: %+v", got[0])
		}
		page, total, err := s.List(ctx, acme, "a1", w, reporting.Page{Limit: 2, Offset: 3})
		if err != nil || total != 5 || len(page) != 2 || page[0].ID != got[3].ID {
			t.Fatalf("page: %+v %d %v", page, total, err)
		}
		// The overlap: a window starting inside the first quarter-hour
		// holds it; one ending at its start does not.
		if _, n, _ := s.List(ctx, acme, "a1", reporting.Window{Start: qh.Add(14 * time.Minute), End: qh.Add(15 * time.Minute)}, reporting.Page{Limit: 10}); n != 2 {
			t.Fatalf("overlap: %d", n)
		}
		if _, n, _ := s.List(ctx, acme, "a1", reporting.Window{Start: qh.Add(-time.Hour), End: qh}, reporting.Page{Limit: 10}); n != 0 {
			t.Fatalf("window ending at the start: %d", n)
		}
		// Visibility.
		if _, n, _ := s.List(ctx, acme, "b1", w, reporting.Page{Limit: 10}); n != 0 {
			t.Fatalf("acme sees beta's events: %d", n)
		}
		if _, n, _ := s.List(ctx, auth.Visibility{All: true}, "b1", w, reporting.Page{Limit: 10}); n != 1 {
			t.Fatalf("an administrator sees beta's: %d", n)
		}

		totals, err := s.Totals(ctx, acme, "a1", w, afrrreport.PerQuarterHour)
		if err != nil || len(totals) != 5 {
			t.Fatalf("totals: %+v %v", totals, err)
		}
		first := totals[0]
		if !first.Slot.Equal(qh) || first.Direction != bids.Pos || first.Count != 1 || first.Dispatched != 1 || first.SetMW != 2 || first.AcceptedMW != 2 {
			t.Fatalf("pos totals: %+v", first)
		}
		if n := totals[1]; n.Filtered != 1 || n.SetMW != 4 || n.AcceptedMW != 3 {
			t.Fatalf("neg totals: %+v", n)
		}
		if skipped := totals[3]; skipped.Dispatched != 0 || skipped.Filtered != 1 || skipped.Count != 1 {
			t.Fatalf("skipped totals: %+v", skipped)
		}
		// Per hour (qh is one): the four quarter-hours of neg in one row (the
		// concurrent writers set 1 to 4 MW at qh+45).
		hourly, err := s.Totals(ctx, acme, "a1", w, afrrreport.PerHour)
		if err != nil || len(hourly) != 2 || !hourly[1].Slot.Equal(qh) || hourly[1].Direction != bids.Neg || hourly[1].Count != 4 ||
			hourly[1].Dispatched != 3 || hourly[1].Filtered != 2 || hourly[1].SetMW < 4+5+1 || hourly[1].SetMW > 4+5+4 || hourly[0].Count != 1 {
			t.Fatalf("hourly totals: %+v %v", hourly, err)
		}
		if bt, _ := s.Totals(ctx, acme, "b1", w, afrrreport.PerQuarterHour); len(bt) != 0 {
			t.Fatalf("acme's totals of beta: %+v", bt)
		}
	})
}

// BenchmarkAFRRReports times the two heaviest reads of the aFRR reports
// on each backend (PostgreSQL with ATCP_TEST_DATABASE_URL): the 90-day
// dispatch page (100 events and the total) and the 90-day daily
// performance report (the totals and their folding into Berlin days),
// for an asset with an event in every quarter-hour and both directions
// beside ATCP_AFRR_BENCH_OTHERS (default 20) other assets holding the
// same. Each iteration is timed; p50 and p99 are reported. Run with
// -benchtime 50x; docs/performance.md has the figures.
func BenchmarkAFRRReports(b *testing.B) {
	others := 20
	if v := os.Getenv("ATCP_AFRR_BENCH_OTHERS"); v != "" {
		if _, err := fmt.Sscan(v, &others); err != nil {
			b.Fatal(err)
		}
	}
	backends := map[string]func(testing.TB) store.Backend{"sqlite": testkit.OpenSQLiteFile}
	if testkit.PostgresURL() != "" {
		backends["postgres"] = testkit.OpenPostgres
	}
	for _, name := range []string{"sqlite", "postgres"} {
		open := backends[name]
		if open == nil {
			continue
		}
		b.Run(name, func(b *testing.B) {
			be := open(b)
			ctx, s := context.Background(), be.AFRRDispatchEvents()
			dir := identity.NewDirectory(be.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
			if err := dir.EnsureOrganization(ctx, "acme", "Acme"); err != nil {
				b.Fatal(err)
			}
			end := testkit.Start.Truncate(24 * time.Hour)
			start := end.Add(-reporting.MaxWindow)
			seed := time.Now()
			for k := 0; k <= others; k++ {
				asset := "a1"
				if k > 0 {
					asset = fmt.Sprintf("other-%03d", k)
				}
				var batch []afrrreport.Event
				for q := start; q.Before(end); q = q.Add(15 * time.Minute) {
					batch = append(batch, afrrEvent("acme", asset, q, bids.Pos, 2, 1.9), afrrEvent("acme", asset, q, bids.Neg, -3, -3))
				}
				if _, err := s.Insert(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("seeded %d assets x %d events in %s", others+1, 2*96*90, time.Since(seed).Round(time.Millisecond))
			acme := auth.Visibility{OrganizationID: "acme"}
			w := reporting.Window{Start: start, End: end}
			timed := func(b *testing.B, body func()) {
				var d []time.Duration
				for b.Loop() {
					began := time.Now()
					body()
					d = append(d, time.Since(began))
				}
				slices.Sort(d)
				b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
			}
			b.Run("dispatches", func(b *testing.B) {
				timed(b, func() {
					if _, n, err := s.List(ctx, acme, "a1", w, reporting.Page{Limit: 100, Offset: 5000}); err != nil || n != 2*96*90 {
						b.Fatalf("%d %v", n, err)
					}
				})
			})
			b.Run("performance-daily", func(b *testing.B) {
				timed(b, func() {
					totals, err := s.Totals(ctx, acme, "a1", w, afrrreport.PerHour)
					if err != nil {
						b.Fatal(err)
					}
					if p := afrrreport.Periods(totals, reporting.Daily, w); len(p) != 91 { // UTC midnights: 91 Berlin days
						b.Fatalf("%d periods", len(p))
					}
				})
			})
		})
	}
}
