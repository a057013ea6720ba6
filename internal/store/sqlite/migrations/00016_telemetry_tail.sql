-- +goose Up
-- The tail of each asset's history: the rows the recorder holds that are
-- not yet in telemetry_chunks (a chunk, undeflated), written with the
-- latest snapshot each tick so that every instance reads history up to the
-- last tick. NULL when there is none (or written by an older version).
ALTER TABLE telemetry_latest ADD COLUMN tail BLOB;

-- +goose Down
ALTER TABLE telemetry_latest DROP COLUMN tail;
