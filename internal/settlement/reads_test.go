package settlement

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"atcp/internal/markets/calendar"
)

func amounts(revenue, fee, penalty string) Figure {
	return Figure{Revenue: decimal.RequireFromString(revenue), BackupFee: decimal.RequireFromString(fee), Penalty: decimal.RequireFromString(penalty)}
}

// TestDecideGates: on the fall-back day (100 quarter-hours) and the day
// after, at 2026-10-26 10:00 CET, with the job's progress at 08:00 CET.
func TestDecideGates(t *testing.T) {
	rule := NewRule(DefaultFinalLag)
	day := calendar.Interval{Start: utc("2026-10-24T22:00:00Z"), End: utc("2026-10-25T23:00:00Z")} // 25 hours
	next := calendar.Interval{Start: day.End, End: utc("2026-10-26T23:00:00Z")}
	now := utc("2026-10-26T09:00:00Z")
	published := day.End
	blocks := []Block{
		{AssetID: "a", Start: day.Start, Products: map[ProductKey]Figure{FCR: amounts("1", "0", "0")}, ProcessedAt: day.Start.Add(20 * time.Minute)},
		{AssetID: "a", Start: day.Start.Add(15 * time.Minute), Products: map[ProductKey]Figure{FCR: amounts("1", "0", "0")}, ProcessedAt: day.Start.Add(35 * time.Minute)},
		// The day's last block changed after publication, within the lookback.
		{AssetID: "a", Start: day.End.Add(-15 * time.Minute), Products: map[ProductKey]Figure{AFRRENeg: amounts("-3", "0", "0")}, ProcessedAt: now.Add(-time.Hour)},
	}
	runs := DecideGates(GateInput{Window: calendar.Interval{Start: day.Start, End: next.End}, Assets: []string{"a", "b"}, Blocks: blocks,
		Pending: []AssetQuarter{{"b", utc("2026-10-26T08:30:00Z")}}, Progress: utc("2026-10-26T07:00:00Z"), HasProgress: true, Now: now, Rule: rule})
	sortRuns(runs)
	type run struct {
		asset      string
		gate       Gate
		start, end string
		until      string
		blocks     int
	}
	want := []run{
		{"a", GateAwaitingTSOSettlement, "2026-10-24T22:00:00Z", "2026-10-24T22:30:00Z", "2026-11-25T23:00:00Z", 2},
		{"a", GateAwaitingTSOSettlement, "2026-10-25T22:45:00Z", "2026-10-25T23:00:00Z", "2026-11-25T23:00:00Z", 1},
		{"a", GateRecentlyChanged, "2026-10-25T22:45:00Z", "2026-10-25T23:00:00Z", "", 1},
		{"a", GateChangedAfterPublication, "2026-10-25T22:45:00Z", "2026-10-25T23:00:00Z", "", 1},
		{"a", GateNotPublished, "2026-10-25T23:00:00Z", "2026-10-26T23:00:00Z", "2026-10-26T23:00:00Z", 96},
		{"a", GateNotComputed, "2026-10-26T07:00:00Z", "2026-10-26T09:00:00Z", "", 8},
		{"b", GateNotPublished, "2026-10-25T23:00:00Z", "2026-10-26T23:00:00Z", "2026-10-26T23:00:00Z", 96},
		{"b", GateNotComputed, "2026-10-26T07:00:00Z", "2026-10-26T09:00:00Z", "", 8},
		{"b", GateEnergyOutcomePending, "2026-10-26T08:30:00Z", "2026-10-26T08:45:00Z", "2026-10-26T10:45:00Z", 1},
	}
	if len(runs) != len(want) {
		t.Fatalf("%d runs: %+v", len(runs), runs)
	}
	for i, w := range want {
		r := runs[i]
		until := ""
		if !r.Until.IsZero() {
			until = r.Until.Format(time.RFC3339)
		}
		if r.AssetID != w.asset || r.Gate != w.gate || !r.Start.Equal(utc(w.start)) || !r.End.Equal(utc(w.end)) || until != w.until || r.Blocks() != w.blocks {
			t.Errorf("run %d: %+v (%s), want %+v", i, r, until, w)
		}
	}
	if !runs[3].ProcessedAt.After(published) {
		t.Fatal("changed_after_publication without its processed_at")
	}
}

// TestSummarise: daily on the spring-forward day (23 hours) and monthly
// across the month end in Berlin, unpublished blocks left out, MIXED.
func TestSummarise(t *testing.T) {
	rule := NewRule(FinalLag{Days: 1})
	now := utc("2026-03-31T10:00:00Z") // 29 March is FINAL (at 31 March 00:00), 30 March PRELIMINARY, 31 March unpublished
	mk := func(start string, k ProductKey, f Figure) Block {
		return Block{AssetID: "a", Start: utc(start), Products: map[ProductKey]Figure{k: f}}
	}
	blocks := []Block{
		mk("2026-03-28T23:00:00Z", FCR, amounts("10.00", "1.00", "0.50")), // 29 March 00:00 CET
		mk("2026-03-29T21:45:00Z", FCR, amounts("5.00", "0", "0")),        // 29 March 23:45 CEST
		mk("2026-03-29T22:00:00Z", FCR, amounts("2.00", "0", "0")),        // 30 March 00:00 CEST
		mk("2026-03-30T22:00:00Z", FCR, amounts("99.00", "0", "0")),       // 31 March: not published
	}
	w := calendar.Interval{Start: utc("2026-03-28T23:00:00Z"), End: utc("2026-03-31T22:00:00Z")}
	daily := Summarise("acme", w, Daily, now, rule, blocks)
	if len(daily.Rows) != 2 {
		t.Fatalf("daily %+v", daily.Rows)
	}
	r0, r1 := daily.Rows[0], daily.Rows[1]
	if !r0.PeriodStart.Equal(utc("2026-03-28T23:00:00Z")) || !r0.PeriodEnd.Equal(utc("2026-03-29T22:00:00Z")) || r0.Figure.Revenue.String() != "15" ||
		r0.Figure.Net().StringFixed(2) != "13.50" || r0.Status != Final || r0.Blocks != 2 {
		t.Fatalf("29 March %+v", r0)
	}
	if r1.Status != Preliminary || r1.Figure.Revenue.String() != "2" {
		t.Fatalf("30 March %+v", r1)
	}
	monthly := Summarise("acme", w, Monthly, now, rule, blocks)
	if len(monthly.Rows) != 1 || monthly.Rows[0].Status != Mixed || !monthly.Rows[0].PeriodStart.Equal(utc("2026-02-28T23:00:00Z")) ||
		!monthly.Rows[0].PeriodEnd.Equal(utc("2026-03-31T22:00:00Z")) || monthly.Status != Mixed {
		t.Fatalf("monthly %+v", monthly.Rows)
	}
	if len(monthly.Totals) != 10 || monthly.Totals[0].Figure.Revenue.StringFixed(2) != "17.00" || monthly.Totals[1].Status != Final ||
		monthly.Total.Net().StringFixed(2) != "15.50" {
		t.Fatalf("totals %+v", monthly.Totals)
	}
}
