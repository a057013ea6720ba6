package postgres

import (
	"bytes"
	"context"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
)

// TestSettlementDaysMigration: figures stored before migration 00029 get
// their rendered days on the settlement job's next run
// (RenderPendingDays), once; the migration goes down and up again.
func TestSettlementDaysMigration(t *testing.T) {
	db, p := unmigrated(t)
	if db == nil {
		return
	}
	ctx := context.Background()
	if _, err := p.UpTo(ctx, 28); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', now())`); err != nil {
		t.Fatal(err)
	}
	// a1: the last quarter-hour of 2026-02-01 and two of 2026-02-02
	// (Berlin); a2: one of 2026-02-02.
	for _, r := range []struct {
		asset, start, product, revenue string
	}{
		{"a1", "2026-02-01T22:45:00Z", "fcr", "12.23"}, {"a1", "2026-02-01T23:00:00Z", "fcr", "12.22"},
		{"a1", "2026-02-01T23:00:00Z", "afrre_neg_backup", "-0.05"}, {"a1", "2026-02-01T23:15:00Z", "fcr", "0.01"},
		{"a2", "2026-02-02T10:00:00Z", "afrrc_pos_4h", "7.00"},
	} {
		start, _ := time.Parse(time.RFC3339, r.start)
		if _, err := db.pool.Exec(ctx, `INSERT INTO settlement_figures (organization_id, asset_id, block_start, product,
			revenue_total, backup_fee_total, penalty_total, processed_at) VALUES ('acme', $1, $2, $3, $4::numeric, 0, 0.03, $5)`,
			r.asset, start, r.product, r.revenue, start.Add(20*time.Minute)); err != nil {
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
