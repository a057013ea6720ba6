package bids

import (
	"testing"

	"atcp/internal/markets/calendar"
)

// BenchmarkCheckCeiling30Days: one delivery day of requested bids (6
// blocks) against 30 days of committed bids on the asset.
func BenchmarkCheckCeiling30Days(b *testing.B) {
	first := calendar.Day{Year: 2026, Month: 2, Day: 2}
	var existing []Bid
	for d := range 30 {
		for _, blk := range first.AddDays(d).TenderBlocks() {
			existing = append(existing, Bid{ID: blk.Start.String(), Market: FCR, Product: Sym, Start: blk.Start, End: blk.End, OfferedMW: 4, Status: Pending})
		}
	}
	var requested []Bid
	for _, blk := range first.AddDays(15).TenderBlocks() {
		requested = append(requested, Bid{Market: FCR, Product: Sym, Start: blk.Start, End: blk.End, OfferedMW: 5, Status: Pending})
	}
	ceiling := func(Product) float64 { return 10 }
	b.ReportAllocs()
	for b.Loop() {
		if br := CheckCeiling(FCR, ceiling, existing, requested, nil); len(br) != 0 {
			b.Fatal(br)
		}
	}
}
