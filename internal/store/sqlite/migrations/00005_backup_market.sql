-- +goose Up
-- aFRR backup market. An override replaces the default price and/or cap of
-- one asset and product for [start_time, end_time); NULL values fall back
-- to the default, resolved when read. Prices are integer euro cents
-- (EUR/MWh with at most 2 decimals); instants are INTEGER microseconds
-- since the Unix epoch (UTC).
CREATE TABLE backup_overrides (
    override_id     TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL, -- physical or virtual (<parent>.<segment>): no foreign key
    product         TEXT NOT NULL CHECK (product IN ('pos', 'neg')),
    start_time      INTEGER NOT NULL,
    end_time        INTEGER NOT NULL,
    price_cents     INTEGER CHECK (price_cents BETWEEN -1500000 AND 1500000),
    max_capacity_mw REAL CHECK (max_capacity_mw >= 0),
    note            TEXT,
    created_at      INTEGER NOT NULL,
    CHECK (end_time > start_time)
) STRICT;
-- Overlap checks and window reads per asset and product.
CREATE INDEX backup_overrides_window ON backup_overrides (asset_id, product, start_time, end_time);

-- Each PUT of a default adds a version in force from effective_from (the
-- first block whose gate was open) until the next version, so that blocks
-- already gated keep the default they had.
CREATE TABLE backup_defaults (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL, -- physical or virtual (<parent>.<segment>): no foreign key
    product         TEXT NOT NULL CHECK (product IN ('pos', 'neg')),
    effective_from  INTEGER NOT NULL,
    price_cents     INTEGER NOT NULL CHECK (price_cents BETWEEN -1500000 AND 1500000),
    max_capacity_mw REAL CHECK (max_capacity_mw >= 0),
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (asset_id, product, effective_from)
) STRICT;

-- +goose Down
DROP TABLE backup_defaults;
DROP TABLE backup_overrides;
