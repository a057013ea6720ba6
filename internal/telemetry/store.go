package telemetry

import (
	"context"
	"time"
)

// Snapshot is one asset's measurements at one instant.
type Snapshot struct {
	AssetID      string
	Measurements Measurements // Measurements.Timestamp is the instant
	// Tail is the asset's history recorded but not yet in its stored
	// chunks, as a chunk (the stored encoding, undeflated), Measurements
	// included: the Recorder sets it for SaveLatest, Latest returns it,
	// and the HistoryReader serves the live edge of history from it, on
	// every instance. Nil elsewhere.
	Tail []byte
}

// Chunk is a stretch of one asset's history in the stored encoding (see
// docs/telemetry.md, "Storage"): every point of every measurement between
// Start (inclusive) and End (exclusive), compressed. A chunk is rewritten
// as it grows, so a later PutChunks of the same (AssetID, Start) replaces
// the earlier version.
type Chunk struct {
	AssetID string
	Start   time.Time
	End     time.Time
	Points  int // timestamps in the chunk
	Data    []byte
}

// Store persists telemetry: the latest snapshot of each asset and its
// history as chunks. Rows are keyed by asset id; the service checks the
// caller's visibility of the asset before reading.
type Store interface {
	// SaveLatest upserts the latest snapshot of each asset, its Tail
	// included; an older snapshot never replaces a newer one. Each row
	// stands alone: a store may commit them in several transactions (the
	// SQLite store does, so that other writers need not wait for them
	// all), and a failure may leave earlier rows written.
	SaveLatest(ctx context.Context, snapshots []Snapshot) error
	// Latest returns the asset's latest snapshot with its Tail,
	// errs.NotFound when the asset never reported.
	Latest(ctx context.Context, assetID string) (Snapshot, error)
	// LatestMany returns the latest snapshots of the assets that ever
	// reported among assetIDs, in one query, without their Tail: the
	// alarm engine reads a shard's assets each second.
	LatestMany(ctx context.Context, assetIDs []string) ([]Snapshot, error)
	// PutChunks upserts chunks by (asset id, start), each standing alone
	// as SaveLatest's rows do.
	PutChunks(ctx context.Context, chunks []Chunk) error
	// Chunks returns the asset's chunks overlapping [from, to), ordered
	// by start.
	Chunks(ctx context.Context, assetID string, from, to time.Time) ([]Chunk, error)
	// PruneChunks deletes the chunks that ended at or before before and
	// returns how many.
	PruneChunks(ctx context.Context, before time.Time) (int, error)
}

// Point is one timestamped value of a measurement, the element of the
// state and state-history responses.
type Point struct {
	Timestamp time.Time `json:"timestamp"`
	Value     float64   `json:"value"`
}

// HistoryReader reads an asset's stored history. names are measurement
// names (canonical or deprecated alias, already validated; empty means
// every measurement, aliases included); the result is keyed by the names
// asked for, and a measurement without any point in the window is left
// out; a stored value that is not a finite number (NaN, ±Inf) is no point.
// maxPoints 0 returns every stored point; otherwise the window is cut
// into at most maxPoints equal buckets and each bucket with data yields one
// aggregated point stamped with the bucket's start.
type HistoryReader interface {
	History(ctx context.Context, assetID string, from, to time.Time, names []string, maxPoints int) (map[string][]Point, error)
}
