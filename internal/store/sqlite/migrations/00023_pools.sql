-- +goose Up
-- Pools (beta): named groups of an organisation's physical batteries
-- (docs/pools.md). pool_id is the customer's, unique within the
-- organisation. Instants are INTEGER microseconds since the Unix epoch,
-- booleans INTEGER 0 or 1.
CREATE TABLE pools (
    organization_id                  TEXT NOT NULL REFERENCES organizations (organization_id),
    pool_id                          TEXT NOT NULL,
    allow_internal_collateralisation INTEGER NOT NULL CHECK (allow_internal_collateralisation IN (0, 1)),
    created_at                       INTEGER NOT NULL,
    updated_at                       INTEGER NOT NULL,
    PRIMARY KEY (organization_id, pool_id)
) STRICT;
-- The members, one row per asset: the primary key on asset_id holds an
-- asset in at most one pool whatever the requests do. position keeps the
-- order the customer listed them in. Deleting a pool deletes its rows;
-- deleting or offboarding an asset deletes its row (the asset store's
-- Delete and Update).
CREATE TABLE pool_members (
    asset_id        TEXT NOT NULL PRIMARY KEY REFERENCES assets (asset_id),
    organization_id TEXT NOT NULL,
    pool_id         TEXT NOT NULL,
    position        INTEGER NOT NULL CHECK (position >= 0),
    FOREIGN KEY (organization_id, pool_id) REFERENCES pools (organization_id, pool_id) ON DELETE CASCADE,
    UNIQUE (organization_id, pool_id, position)
) STRICT;

-- +goose Down
DROP TABLE pool_members;
DROP TABLE pools;
