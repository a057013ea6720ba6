package sqlutil

import (
	"time"

	"atcp/internal/settlement"
)

// SettlementRow is one stored settlement figure: one product of one block.
type SettlementRow struct {
	OrganizationID, AssetID string
	BlockStart              time.Time
	Product                 settlement.ProductKey
	Figure                  settlement.Figure
	ProcessedAt             time.Time
}

// SettlementBlocks gathers rows ordered by asset and block start into
// blocks. A block's processed_at is the latest of its rows' (they are
// written together, so all the same).
func SettlementBlocks(rows []SettlementRow) []settlement.Block {
	var out []settlement.Block
	for _, r := range rows {
		n := len(out)
		if n == 0 || out[n-1].AssetID != r.AssetID || !out[n-1].Start.Equal(r.BlockStart) {
			out = append(out, settlement.Block{OrganizationID: r.OrganizationID, AssetID: r.AssetID, Start: r.BlockStart,
				Products: map[settlement.ProductKey]settlement.Figure{}, ProcessedAt: r.ProcessedAt})
			n++
		}
		b := &out[n-1]
		b.Products[r.Product] = r.Figure
		if r.ProcessedAt.After(b.ProcessedAt) {
			b.ProcessedAt = r.ProcessedAt
		}
	}
	return out
}

// SettlementRows are the rows of blocks, each stamped processed_at at.
func SettlementRows(blocks []settlement.Block, at time.Time) []SettlementRow {
	var out []SettlementRow
	for _, b := range blocks {
		for _, k := range settlement.ProductKeys {
			if f, ok := b.Products[k]; ok {
				out = append(out, SettlementRow{OrganizationID: b.OrganizationID, AssetID: b.AssetID, BlockStart: b.Start,
					Product: k, Figure: f, ProcessedAt: at})
			}
		}
	}
	return out
}
