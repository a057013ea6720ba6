-- +goose Up
-- The backup market's product na is the symmetric offer to cover a pool
-- member's FCR obligation (docs/portfolio.md).
ALTER TABLE backup_overrides DROP CONSTRAINT backup_overrides_product_check,
    ADD CONSTRAINT backup_overrides_product_check CHECK (product IN ('pos', 'neg', 'na'));
ALTER TABLE backup_defaults DROP CONSTRAINT backup_defaults_product_check,
    ADD CONSTRAINT backup_defaults_product_check CHECK (product IN ('pos', 'neg', 'na'));

-- Cover steps: during [from_time, to_time) of the quarter-hour starting at
-- quarter_hour, failing_asset_id could not deliver mw of its obligation of
-- product; covering_asset_id delivered it at price_cents (EUR/MWh; FCR:
-- EUR per MW and hour), or nobody did (both NULL).
CREATE TABLE cover_steps (
    organization_id   TEXT NOT NULL REFERENCES organizations (organization_id),
    step_id           UUID NOT NULL,
    pool_id           TEXT, -- NULL: the failing asset is in no pool
    quarter_hour      TIMESTAMPTZ NOT NULL,
    product           TEXT NOT NULL CHECK (product IN ('fcr', 'pos', 'neg')),
    failing_asset_id  TEXT NOT NULL,
    covering_asset_id TEXT,
    mw                DOUBLE PRECISION NOT NULL CHECK (mw > 0),
    obligation_mw     DOUBLE PRECISION NOT NULL CHECK (obligation_mw >= mw - 0.000001),
    price_cents       BIGINT CHECK (price_cents BETWEEN -1500000 AND 1500000),
    price_source      TEXT,
    from_time         TIMESTAMPTZ NOT NULL,
    to_time           TIMESTAMPTZ NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, step_id),
    CHECK (to_time > from_time),
    CHECK ((covering_asset_id IS NULL) = (price_cents IS NULL))
);
-- The control loop and the planner read the steps in force; settlement
-- reads a quarter-hour's.
CREATE INDEX cover_steps_quarter_hour ON cover_steps (quarter_hour, to_time);
CREATE INDEX cover_steps_pool ON cover_steps (organization_id, pool_id, from_time);

-- +goose Down
DROP TABLE cover_steps;
DELETE FROM backup_overrides WHERE product = 'na';
DELETE FROM backup_defaults WHERE product = 'na';
ALTER TABLE backup_overrides DROP CONSTRAINT backup_overrides_product_check,
    ADD CONSTRAINT backup_overrides_product_check CHECK (product IN ('pos', 'neg'));
ALTER TABLE backup_defaults DROP CONSTRAINT backup_defaults_product_check,
    ADD CONSTRAINT backup_defaults_product_check CHECK (product IN ('pos', 'neg'));
