-- +goose Up
-- The latest snapshot of each asset: payload is its values in
-- telemetry.PointNames order as little-endian float64 (sqlutil.LatestPayload).
-- No foreign key: measurements arrive every second and history outlives a
-- decommissioned asset until retention drops it.
CREATE TABLE telemetry_latest (
    asset_id TEXT PRIMARY KEY,
    ts       TIMESTAMPTZ NOT NULL,
    payload  BYTEA NOT NULL
);

-- History in compressed columnar chunks (package telemetry/chunk), one row
-- per asset and UTC-aligned window [chunk_start, chunk_end), rewritten as
-- the open window grows. Keyed by asset first so that Citus can distribute
-- it by asset_id.
CREATE TABLE telemetry_chunks (
    asset_id    TEXT NOT NULL,
    chunk_start TIMESTAMPTZ NOT NULL,
    chunk_end   TIMESTAMPTZ NOT NULL CHECK (chunk_end > chunk_start),
    points      INTEGER NOT NULL,
    data        BYTEA NOT NULL,
    PRIMARY KEY (asset_id, chunk_start)
);
-- The data is compressed already: store it out of line without pglz.
ALTER TABLE telemetry_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
-- Retention deletes by end across every asset.
CREATE INDEX telemetry_chunks_end ON telemetry_chunks (chunk_end);

-- +goose Down
DROP TABLE telemetry_chunks;
DROP TABLE telemetry_latest;
