package sqlite

import (
	"bytes"
	"context"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
	"atcp/internal/store/sqlutil"
)

// TestSettlementDaysMigration: figures stored before migration 00029 get
// their rendered days on the settlement job's next run
// (RenderPendingDays), once; the migration goes down and up again.
func TestSettlementDaysMigration(t *testing.T) {
	ctx := context.Background()
	db, p := migratedUpTo(t, 28)
	if _, err := db.w.ExecContext(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', 0)`); err != nil {
		t.Fatal(err)
	}
	// a1: the last quarter-hour of 2026-02-01 and two of 2026-02-02
	// (Berlin); a2: one of 2026-02-02.
	for _, r := range []struct {
		asset, start, product string
		revenue               int64
	}{
		{"a1", "2026-02-01T22:45:00Z", "fcr", 1223}, {"a1", "2026-02-01T23:00:00Z", "fcr", 1222},
		{"a1", "2026-02-01T23:00:00Z", "afrre_neg_backup", -5}, {"a1", "2026-02-01T23:15:00Z", "fcr", 1},
		{"a2", "2026-02-02T10:00:00Z", "afrrc_pos_4h", 700},
	} {
		start, _ := time.Parse(time.RFC3339, r.start)
		if _, err := db.w.ExecContext(ctx, `INSERT INTO settlement_figures (organization_id, asset_id, block_start, product,
			revenue_total_cents, backup_fee_total_cents, penalty_total_cents, processed_at) VALUES ('acme', ?, ?, ?, ?, 0, 3, ?)`,
			r.asset, sqlutil.Micros(start), r.product, r.revenue, sqlutil.Micros(start.Add(20*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	s := db.Settlements()
	from, to := calendar.Day{Year: 2026, Month: 2, Day: 1}, calendar.Day{Year: 2026, Month: 2, Day: 3}
	all := auth.Visibility{All: true}
	if days, err := s.Days(ctx, all, "acme", nil, from, to); err != nil || len(days) != 0 {
		t.Fatalf("days before the job: %v %v", days, err)
	}
	if n, err := s.RenderPendingDays(ctx); err != nil || n != 3 {
		t.Fatalf("rendered %d days: %v", n, err)
	}
	days, err := s.Days(ctx, all, "acme", nil, from, to)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := s.Blocks(ctx, all, "acme", nil, calendar.Interval{Start: from.Local(0, 0), End: to.Local(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	want := settlement.RenderDays(blocks)
	if len(days) != 3 || len(want) != 3 {
		t.Fatalf("%d days, %d from the figures", len(days), len(want))
	}
	for i, d := range days {
		w := want[i]
		if d.AssetID != w.AssetID || d.Day != w.Day || d.Blocks != w.Blocks || d.Totals != w.Totals || !bytes.Equal(d.JSON, w.JSON) {
			t.Fatalf("day %d: %+v, want %+v", i, d, w)
		}
	}
	if days[1].Blocks != 2 || days[1].Totals[0][0] != 1223 || days[1].Totals[9] != [3]int64{-5, 0, 3} {
		t.Fatalf("a1's 2 February %+v", days[1])
	}
	// Once: the next run finds nothing to do.
	if n, err := s.RenderPendingDays(ctx); err != nil || n != 0 {
		t.Fatalf("again: %d, %v", n, err)
	}
	if _, err := p.DownTo(ctx, 28); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.RenderPendingDays(ctx); err != nil || n != 3 {
		t.Fatalf("after down and up: %d, %v", n, err)
	}
}
