-- +goose Up
-- Instants are INTEGER microseconds since the Unix epoch, UTC.
CREATE TABLE signing_keys (
    slot        TEXT PRIMARY KEY,
    key_id      TEXT NOT NULL,
    algorithm   TEXT NOT NULL,
    private_pem TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE clock_anchor (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    config        TEXT NOT NULL,
    virtual_start INTEGER NOT NULL,
    real_start    INTEGER NOT NULL,
    speed         REAL NOT NULL
) STRICT;

CREATE TABLE organizations (
    organization_id TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE organizations;
DROP TABLE clock_anchor;
DROP TABLE signing_keys;
