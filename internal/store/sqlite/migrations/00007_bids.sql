-- +goose Up
-- Bids of every market (fcr, afrr_capacity, afrr_energy). Prices are
-- INTEGER cents (exact, two decimals); instants INTEGER microseconds since
-- the Unix epoch (UTC). last_edit_attempt is kept in the edit_* columns,
-- all NULL when there is none.
CREATE TABLE bids (
    bid_id                TEXT PRIMARY KEY,
    organization_id       TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id              TEXT NOT NULL, -- physical or virtual (<parent>.<segment>): no foreign key
    market                TEXT NOT NULL CHECK (market IN ('fcr', 'afrr_capacity', 'afrr_energy')),
    product               TEXT NOT NULL CHECK (product IN ('sym', 'pos', 'neg')),
    start_time            INTEGER NOT NULL,
    end_time              INTEGER NOT NULL CHECK (end_time > start_time),
    idempotency_key       TEXT,
    capacity_price_cents  INTEGER,
    energy_price_cents    INTEGER,
    offered_power_mw      REAL NOT NULL,
    awarded_power_mw      REAL,
    status                TEXT NOT NULL CHECK (status IN ('PENDING', 'SUBMITTED', 'SUCCESSFUL', 'REJECTED', 'FAILED', 'CANCELLED', 'FALLBACK')),
    settlement_price_cents INTEGER,
    price_source          TEXT,
    submitted_at          INTEGER,
    edit_type             TEXT,
    edit_status           TEXT,
    edit_attempted_at     INTEGER,
    edit_offered_power_mw REAL,
    edit_capacity_price_cents INTEGER,
    edit_energy_price_cents INTEGER,
    edit_failure_reason   TEXT,
    edit_failure_detail   TEXT,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
) STRICT;

-- One bid per idempotency scope (NULL keys never collide).
CREATE UNIQUE INDEX bids_idempotency ON bids (asset_id, market, product, start_time, end_time, idempotency_key);
CREATE INDEX bids_asset_time ON bids (asset_id, market, start_time);
CREATE INDEX bids_due ON bids (market, status, start_time);
CREATE INDEX bids_pending_edits ON bids (market) WHERE edit_status = 'PENDING_RESYNC';

-- +goose Down
DROP TABLE bids;
