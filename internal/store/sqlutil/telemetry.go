package sqlutil

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

// LatestPayload encodes a snapshot's measurements for
// telemetry_latest.payload: its values in telemetry.PointNames order as
// little-endian float64 (NaN for an absent PV point). Decoding is a copy,
// which keeps the state endpoint's read cheap.
func LatestPayload(m telemetry.Measurements) []byte {
	var values [64]float64
	vs := m.Values(values[:0])
	out := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out
}

// SnapshotFromLatest decodes a telemetry_latest row. A payload written
// before a point was added lacks it (it reads as 0, or absent for PV).
func SnapshotFromLatest(assetID string, ts time.Time, payload []byte) (telemetry.Snapshot, error) {
	if len(payload)%8 != 0 {
		return telemetry.Snapshot{}, fmt.Errorf("telemetry_latest %s: payload of %d bytes", assetID, len(payload))
	}
	values := make([]float64, len(payload)/8)
	for i := range values {
		values[i] = math.Float64frombits(binary.LittleEndian.Uint64(payload[8*i:]))
	}
	return telemetry.Snapshot{AssetID: assetID, Measurements: telemetry.MeasurementsFromValues(ts, values)}, nil
}

// NewestPerAsset keeps the newest snapshot of each asset, ordered by asset
// id: a multi-row upsert may touch a row only once, and one lock order
// keeps concurrent batches from deadlocking.
func NewestPerAsset(snapshots []telemetry.Snapshot) []telemetry.Snapshot {
	out := slices.Clone(snapshots)
	slices.SortStableFunc(out, func(a, b telemetry.Snapshot) int {
		if c := cmp.Compare(a.AssetID, b.AssetID); c != 0 {
			return c
		}
		return b.Measurements.Timestamp.Compare(a.Measurements.Timestamp)
	})
	return slices.CompactFunc(out, func(a, b telemetry.Snapshot) bool { return a.AssetID == b.AssetID })
}

// UniqueChunks checks chunks and keeps the last of each (asset id, start),
// ordered by both, for the same reasons as NewestPerAsset.
func UniqueChunks(chunks []telemetry.Chunk) ([]telemetry.Chunk, error) {
	for _, c := range chunks {
		if err := CheckChunk(c); err != nil {
			return nil, err
		}
	}
	out := slices.Clone(chunks)
	slices.Reverse(out) // the stable sort then keeps the last written first
	slices.SortStableFunc(out, func(a, b telemetry.Chunk) int {
		if c := cmp.Compare(a.AssetID, b.AssetID); c != 0 {
			return c
		}
		return a.Start.Compare(b.Start)
	})
	return slices.CompactFunc(out, func(a, b telemetry.Chunk) bool {
		return a.AssetID == b.AssetID && a.Start.Equal(b.Start)
	}), nil
}

// CheckChunk rejects chunks the chunk queries could not find: an empty
// span or one longer than telemetry.MaxChunkSpan.
func CheckChunk(c telemetry.Chunk) error {
	span := c.End.Sub(c.Start)
	if c.AssetID == "" || span <= 0 || span > telemetry.MaxChunkSpan || c.Points < 0 {
		return errs.Invalidf("chunk", c.AssetID, "chunk of %s from %s spanning %s with %d points: want a span in (0, %s]",
			c.AssetID, c.Start, span, c.Points, telemetry.MaxChunkSpan)
	}
	return nil
}
