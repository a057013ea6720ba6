-- +goose Up
-- Immediate dispatches: [start_time, end_time) per asset, never
-- overlapping (a new one cuts or removes the one in force under the single
-- write transaction). Instants are INTEGER microseconds since the Unix
-- epoch. Every table is keyed by asset first (shardable by asset_id).
CREATE TABLE immediate_dispatches (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    start_time      INTEGER NOT NULL,
    end_time        INTEGER NOT NULL CHECK (end_time > start_time),
    dispatch_id     TEXT NOT NULL,
    set_power_mw    REAL NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (asset_id, start_time)
) STRICT;
-- ActiveImmediate over every asset: dispatches ending after an instant.
CREATE INDEX immediate_dispatches_end ON immediate_dispatches (end_time);

-- Scheduled dispatch events, one per asset and second; delivery_time is
-- the UTC quarter-hour block of set_time.
CREATE TABLE dispatch_events (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    set_time        INTEGER NOT NULL,
    delivery_time   INTEGER NOT NULL,
    control_mode    TEXT NOT NULL CHECK (control_mode IN ('passive', 'bess_only', 'bess_and_poc', 'poc_only')),
    bess_power_mw   REAL,
    poc_power_mw    REAL,
    request_id      TEXT NOT NULL,
    source_id       TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (asset_id, set_time)
) STRICT;
-- EventsBetween and CurrentEvents over every asset.
CREATE INDEX dispatch_events_set_time ON dispatch_events (set_time);

-- The schedule dispatch report: what became of each event when due,
-- written by the control loop (idempotent per asset and set_time).
CREATE TABLE dispatch_outcomes (
    organization_id    TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id           TEXT NOT NULL,
    set_time           INTEGER NOT NULL,
    delivery_time      INTEGER NOT NULL,
    control_mode       TEXT NOT NULL,
    requested_power_mw REAL,
    poc_power_mw       REAL,
    effective_power_mw REAL NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('full', 'clipped', 'rejected', 'failed', 'unknown')),
    reason             TEXT NOT NULL,
    emitted_at         INTEGER NOT NULL,
    PRIMARY KEY (asset_id, set_time)
) STRICT;

-- +goose Down
DROP TABLE dispatch_outcomes;
DROP TABLE dispatch_events;
DROP TABLE immediate_dispatches;
