-- +goose Up
-- Pools (beta): named groups of an organisation's physical batteries
-- (docs/pools.md). pool_id is the customer's, unique within the
-- organisation.
CREATE TABLE pools (
    organization_id                  TEXT NOT NULL REFERENCES organizations (organization_id),
    pool_id                          TEXT NOT NULL,
    allow_internal_collateralisation BOOLEAN NOT NULL,
    created_at                       TIMESTAMPTZ NOT NULL,
    updated_at                       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, pool_id)
);
-- The members, one row per asset: the primary key on asset_id holds an
-- asset in at most one pool whatever the requests do (two transactions
-- claiming one asset: the second fails on it). position keeps the order
-- the customer listed them in. Deleting a pool deletes its rows;
-- deleting or offboarding an asset deletes its row (the asset store's
-- Delete and Update).
CREATE TABLE pool_members (
    asset_id        TEXT NOT NULL PRIMARY KEY REFERENCES assets (asset_id),
    organization_id TEXT NOT NULL,
    pool_id         TEXT NOT NULL,
    position        INTEGER NOT NULL CHECK (position >= 0),
    FOREIGN KEY (organization_id, pool_id) REFERENCES pools (organization_id, pool_id) ON DELETE CASCADE,
    UNIQUE (organization_id, pool_id, position)
);

-- +goose Down
DROP TABLE pool_members;
DROP TABLE pools;
