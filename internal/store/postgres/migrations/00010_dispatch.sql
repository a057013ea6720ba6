-- +goose Up
-- Immediate dispatches: [start_time, end_time) per asset, never
-- overlapping (a new one cuts or removes the one in force under the asset row
-- lock, FOR NO KEY UPDATE). Every table is keyed by asset first
-- (shardable by asset_id, e.g. with Citus).
CREATE TABLE immediate_dispatches (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    start_time      TIMESTAMPTZ NOT NULL,
    end_time        TIMESTAMPTZ NOT NULL CHECK (end_time > start_time),
    dispatch_id     UUID NOT NULL,
    set_power_mw    DOUBLE PRECISION NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (asset_id, start_time)
);
-- ActiveImmediate over every asset: dispatches ending after an instant.
CREATE INDEX immediate_dispatches_end ON immediate_dispatches (end_time);

-- Scheduled dispatch events, one per asset and second; delivery_time is
-- the UTC quarter-hour block of set_time.
CREATE TABLE dispatch_events (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    set_time        TIMESTAMPTZ NOT NULL,
    delivery_time   TIMESTAMPTZ NOT NULL,
    control_mode    TEXT NOT NULL CHECK (control_mode IN ('passive', 'bess_only', 'bess_and_poc', 'poc_only')),
    bess_power_mw   DOUBLE PRECISION,
    poc_power_mw    DOUBLE PRECISION,
    request_id      TEXT NOT NULL,
    source_id       TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (asset_id, set_time)
);
-- EventsBetween and CurrentEvents over every asset.
CREATE INDEX dispatch_events_set_time ON dispatch_events (set_time);

-- The schedule dispatch report: what became of each event when due,
-- written by the control loop (idempotent per asset and set_time).
CREATE TABLE dispatch_outcomes (
    organization_id    TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id           TEXT NOT NULL,
    set_time           TIMESTAMPTZ NOT NULL,
    delivery_time      TIMESTAMPTZ NOT NULL,
    control_mode       TEXT NOT NULL,
    requested_power_mw DOUBLE PRECISION,
    poc_power_mw       DOUBLE PRECISION,
    effective_power_mw DOUBLE PRECISION NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('full', 'clipped', 'rejected', 'failed', 'unknown')),
    reason             TEXT NOT NULL,
    emitted_at         TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (asset_id, set_time)
);

-- +goose Down
DROP TABLE dispatch_outcomes;
DROP TABLE dispatch_events;
DROP TABLE immediate_dispatches;
