-- +goose Up
-- The contact directory of each physical asset: the only source of the
-- recipients of a fault notification. contact_id is AUTOINCREMENT so that
-- it is never reused (plain rowids reuse the largest after a deletion),
-- and an id a client still holds (a reviewed recipient list) cannot come
-- to mean another person. Fields not given are NULL; instants are INTEGER
-- microseconds since the Unix epoch, booleans INTEGER 0 or 1. A deleted
-- asset's contacts are deleted with it (the asset store's Delete); the
-- foreign key keeps contacts on physical assets.
CREATE TABLE asset_contacts (
    contact_id       INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id  TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id         TEXT NOT NULL REFERENCES assets (asset_id),
    name             TEXT NOT NULL,
    role             TEXT,
    company          TEXT,
    email            TEXT,
    phone            TEXT,
    chat_webhook_url TEXT,
    is_emergency     INTEGER NOT NULL CHECK (is_emergency IN (0, 1)),
    notifiable       INTEGER NOT NULL CHECK (notifiable IN (0, 1)),
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
) STRICT;
-- Listing an asset's directory in id order.
CREATE INDEX asset_contacts_asset ON asset_contacts (asset_id, contact_id);

-- +goose Down
DROP TABLE asset_contacts;
