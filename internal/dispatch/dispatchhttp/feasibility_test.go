package dispatchhttp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// TestScheduledDispatchFeasibility: a schedule that does not fit beside
// the asset's market commitments is stored with a warning per side and
// run of periods, strict_validation or not (targets inside the sanity
// bound are always accepted); one that fits gets none.
func TestScheduledDispatchFeasibility(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b)
		ctx := context.Background()
		// 8 MW of FCR awarded 07:00-11:00Z on a1 and strict (10 MW each),
		// 2 MW of negative aFRR pending on strict.
		block := calendar.Interval{Start: testkit.Start.Add(time.Hour), End: testkit.Start.Add(5 * time.Hour)}
		award := func(id string, market bids.Market, product bids.Product, st bids.Status, mw float64) {
			t.Helper()
			bid := bids.Bid{ID: bids.NewID(), Market: market, Product: product, Start: block.Start, End: block.End, OfferedMW: mw, AwardedMW: &mw,
				Status: st, CreatedAt: testkit.Start, UpdatedAt: testkit.Start}
			if err := b.Bids().Apply(ctx, auth.Visibility{All: true}, assets.Asset{ID: id}, market, block, func(assets.Asset, []bids.Bid) (bids.Changes, error) {
				return bids.Changes{Insert: []bids.Bid{bid}}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		award("a1", bids.FCR, bids.Sym, bids.Successful, 8)
		award("strict", bids.FCR, bids.Sym, bids.Successful, 8)
		award("strict", bids.AFRRCapacity, bids.Neg, bids.Pending, 2)

		m := time.Minute
		var l scheduleList
		// 3 MW from 07:00 (carried over at 07:15), -4 MW from 07:20.
		body := schedules(target(time.Hour, "bess_power_mw", 3), target(80*m, "bess_power_mw", -4))
		e.h.Do("PUT", scheduled, e.acme, body).Expect(t, 200, "").JSON(t, &l)
		want := []string{
			"the schedule does not fit beside the asset's market commitments in 2026-02-01T07:00:00Z/2026-02-01T07:30:00Z: " +
				"the discharge side commits 11 MW (FCR 8 + aFRR 0 + schedule 3), above the usable power capacity of 10 MW by 1 MW; " +
				"targets there are clipped to the headroom when executed",
			"the schedule does not fit beside the asset's market commitments in 2026-02-01T07:15:00Z/2026-02-01T07:30:00Z: " +
				"the charge side commits 12 MW (FCR 8 + aFRR 0 + schedule 4), above the usable power capacity of 10 MW by 2 MW; " +
				"targets there are clipped to the headroom when executed",
		}
		if strings.Join(l.Warnings, "\n") != strings.Join(want, "\n") {
			t.Fatalf("warnings\n%s\nwant\n%s", strings.Join(l.Warnings, "\n"), strings.Join(want, "\n"))
		}
		// Strict: stored all the same; the pending aFRR bid counts.
		e.h.Do("PUT", "/v1/assets/strict/dispatch/scheduled", e.acme, schedules(target(time.Hour, "bess_power_mw", -1))).
			Expect(t, 200, "").JSON(t, &l)
		if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "the charge side commits 11 MW (FCR 8 + aFRR 2 + schedule 1)") {
			t.Fatalf("strict warnings %q", l.Warnings)
		}
		// Within the headroom: no warning. Without usable power: none.
		e.h.Do("PUT", scheduled, e.acme, schedules(target(time.Hour, "bess_power_mw", 2), target(80*m, "bess_power_mw", -2))).
			Expect(t, 200, "").JSON(t, &l)
		if len(l.Warnings) != 0 {
			t.Fatalf("warnings %q", l.Warnings)
		}
		award("bare", bids.FCR, bids.Sym, bids.Successful, 8)
		e.h.Do("PUT", "/v1/assets/bare/dispatch/scheduled", e.acme, schedules(target(time.Hour, "bess_power_mw", 5))).
			Expect(t, 200, "").JSON(t, &l)
		if len(l.Warnings) != 0 {
			t.Fatalf("bare warnings %q", l.Warnings)
		}
	})
}
