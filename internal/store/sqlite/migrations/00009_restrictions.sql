-- +goose Up
-- Power limits, energy limits and unavailability of an asset: one table,
-- one row per interval [start_time, end_time) (end_time NULL is
-- open-ended). An interval is identified by asset, kind and exact start;
-- intervals of one kind never overlap (checked inside the single write transaction
-- lock; instants are INTEGER microseconds since the Unix epoch). asset_id carries no foreign key so that virtual asset ids, which
-- resolve against a segmentation, can hold restrictions too.
CREATE TABLE restriction_intervals (
    organization_id    TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id           TEXT NOT NULL,
    kind               TEXT NOT NULL CHECK (kind IN ('power_limit', 'energy_limit', 'unavailability')),
    start_time         INTEGER NOT NULL,
    end_time           INTEGER CHECK (end_time > start_time),
    upper_limit        REAL,
    lower_limit        REAL,
    reason             TEXT NOT NULL,
    reason_description TEXT,
    created_at         INTEGER NOT NULL,
    PRIMARY KEY (asset_id, kind, start_time)
) STRICT;

CREATE TABLE restriction_requests (
    request_id         TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id           TEXT NOT NULL,
    kind               TEXT NOT NULL CHECK (kind IN ('power_limit', 'energy_limit', 'unavailability')),
    action             TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled', 'expired')),
    start_time         INTEGER NOT NULL,
    end_time           INTEGER,
    upper_limit        REAL,
    lower_limit        REAL,
    reason             TEXT NOT NULL,
    reason_description TEXT,
    requested_by       TEXT NOT NULL,
    requested_at       INTEGER NOT NULL,
    decided_by         TEXT,
    decided_at         INTEGER,
    decision_note      TEXT
) STRICT;
CREATE INDEX restriction_requests_org ON restriction_requests (organization_id, requested_at);

-- DSO curtailments; end_time NULL while ongoing, at most one ongoing per asset.
CREATE TABLE curtailments (
    curtailment_id  TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    start_time      INTEGER NOT NULL,
    end_time        INTEGER CHECK (end_time >= start_time),
    max_curtailment REAL NOT NULL,
    min_curtailment REAL NOT NULL
) STRICT;
CREATE INDEX curtailments_window ON curtailments (asset_id, start_time);
CREATE UNIQUE INDEX curtailments_ongoing ON curtailments (asset_id) WHERE end_time IS NULL;

-- +goose Down
DROP TABLE curtailments;
DROP TABLE restriction_requests;
DROP TABLE restriction_intervals;
