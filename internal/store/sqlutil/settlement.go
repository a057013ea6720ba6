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

// Arena holds the rendered days of a settlement read in a few large
// buffers instead of one allocation each (a month of 100 assets is 2,800
// days and about 50 MB).
type Arena struct{ buf []byte }

// arenaChunk is the least an arena allocates at a time.
const arenaChunk = 4 << 20

// Copy returns a copy of b inside the arena.
func (a *Arena) Copy(b []byte) []byte {
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(arenaChunk, len(b)))
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}
