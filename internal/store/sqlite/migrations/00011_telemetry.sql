-- +goose Up
-- The latest snapshot of each asset: payload is its values in
-- telemetry.PointNames order as little-endian float64 (sqlutil.LatestPayload);
-- ts is INTEGER microseconds since the Unix epoch like every instant here.
-- No foreign key: measurements arrive every second and history outlives a
-- decommissioned asset until retention drops it.
CREATE TABLE telemetry_latest (
    asset_id TEXT PRIMARY KEY,
    ts       INTEGER NOT NULL,
    payload  BLOB NOT NULL
) STRICT;

-- History in compressed columnar chunks (package telemetry/chunk), one row
-- per asset and UTC-aligned window [chunk_start, chunk_end), rewritten as
-- the open window grows. Keyed by asset first so that a sharded
-- deployment can distribute it by asset_id.
CREATE TABLE telemetry_chunks (
    asset_id    TEXT NOT NULL,
    chunk_start INTEGER NOT NULL,
    chunk_end   INTEGER NOT NULL CHECK (chunk_end > chunk_start),
    points      INTEGER NOT NULL,
    data        BLOB NOT NULL,
    PRIMARY KEY (asset_id, chunk_start)
) STRICT;
-- Retention deletes by end across every asset.
CREATE INDEX telemetry_chunks_end ON telemetry_chunks (chunk_end);

-- +goose Down
DROP TABLE telemetry_chunks;
DROP TABLE telemetry_latest;
