-- +goose Up
-- The key access tokens are signed with; one row per slot so that
-- instances starting together agree on one key.
CREATE TABLE signing_keys (
    slot        TEXT PRIMARY KEY,
    key_id      TEXT NOT NULL,
    algorithm   TEXT NOT NULL,
    private_pem TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

-- The platform clock's anchor, shared by every instance.
CREATE TABLE clock_anchor (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    config        TEXT NOT NULL,
    virtual_start TIMESTAMPTZ NOT NULL,
    real_start    TIMESTAMPTZ NOT NULL,
    speed         DOUBLE PRECISION NOT NULL
);

CREATE TABLE organizations (
    organization_id TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE organizations;
DROP TABLE clock_anchor;
DROP TABLE signing_keys;
