-- +goose Up
-- The backup market's product na is the symmetric offer to cover a pool
-- member's FCR obligation (docs/portfolio.md). SQLite cannot alter a
-- CHECK constraint: the two tables are rebuilt with the wider one.
CREATE TABLE backup_overrides_na (
    override_id     TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL, -- physical or virtual (<parent>.<segment>): no foreign key
    product         TEXT NOT NULL CHECK (product IN ('pos', 'neg', 'na')),
    start_time      INTEGER NOT NULL,
    end_time        INTEGER NOT NULL,
    price_cents     INTEGER CHECK (price_cents BETWEEN -1500000 AND 1500000),
    max_capacity_mw REAL CHECK (max_capacity_mw >= 0),
    note            TEXT,
    created_at      INTEGER NOT NULL,
    CHECK (end_time > start_time)
) STRICT;
INSERT INTO backup_overrides_na SELECT * FROM backup_overrides;
DROP TABLE backup_overrides;
ALTER TABLE backup_overrides_na RENAME TO backup_overrides;
CREATE INDEX backup_overrides_window ON backup_overrides (asset_id, product, start_time, end_time);

CREATE TABLE backup_defaults_na (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL, -- physical or virtual (<parent>.<segment>): no foreign key
    product         TEXT NOT NULL CHECK (product IN ('pos', 'neg', 'na')),
    effective_from  INTEGER NOT NULL,
    price_cents     INTEGER NOT NULL CHECK (price_cents BETWEEN -1500000 AND 1500000),
    max_capacity_mw REAL CHECK (max_capacity_mw >= 0),
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (asset_id, product, effective_from)
) STRICT;
INSERT INTO backup_defaults_na SELECT * FROM backup_defaults;
DROP TABLE backup_defaults;
ALTER TABLE backup_defaults_na RENAME TO backup_defaults;

-- Cover steps: during [from_time, to_time) of the quarter-hour starting at
-- quarter_hour, failing_asset_id could not deliver mw of its obligation of
-- product; covering_asset_id delivered it at price_cents (EUR/MWh; FCR:
-- EUR per MW and hour), or nobody did (both NULL). Instants are INTEGER
-- microseconds since the Unix epoch (UTC).
CREATE TABLE cover_steps (
    organization_id   TEXT NOT NULL REFERENCES organizations (organization_id),
    step_id           TEXT NOT NULL,
    pool_id           TEXT, -- NULL: the failing asset is in no pool
    quarter_hour      INTEGER NOT NULL,
    product           TEXT NOT NULL CHECK (product IN ('fcr', 'pos', 'neg')),
    failing_asset_id  TEXT NOT NULL,
    covering_asset_id TEXT,
    mw                REAL NOT NULL CHECK (mw > 0),
    obligation_mw     REAL NOT NULL CHECK (obligation_mw >= mw - 0.000001),
    price_cents       INTEGER CHECK (price_cents BETWEEN -1500000 AND 1500000),
    price_source      TEXT,
    from_time         INTEGER NOT NULL,
    to_time           INTEGER NOT NULL,
    created_at        INTEGER NOT NULL,
    PRIMARY KEY (organization_id, step_id),
    CHECK (to_time > from_time),
    CHECK ((covering_asset_id IS NULL) = (price_cents IS NULL))
) STRICT;
-- The control loop and the planner read the steps in force; settlement
-- reads a quarter-hour's.
CREATE INDEX cover_steps_quarter_hour ON cover_steps (quarter_hour, to_time);
CREATE INDEX cover_steps_pool ON cover_steps (organization_id, pool_id, from_time);

-- +goose Down
DROP TABLE cover_steps;
DELETE FROM backup_overrides WHERE product = 'na';
DELETE FROM backup_defaults WHERE product = 'na';
