-- +goose Up
-- People of an organisation. The e-mail address is the global username,
-- stored in lower case; a user is active once a password is set. Scopes
-- are one space-separated list.
CREATE TABLE users (
    user_id         TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    email           TEXT NOT NULL UNIQUE CHECK (email = lower(email)),
    scopes          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('invited', 'active')),
    enabled         INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    password_hash   TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    CHECK ((status = 'active') = (password_hash IS NOT NULL))
) STRICT;
CREATE INDEX users_organization_email ON users (organization_id, email);

-- A person's portal settings; a missing row means nothing saved yet.
CREATE TABLE user_preferences (
    user_id         TEXT PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    locale          TEXT CHECK (locale IN ('en', 'de')),
    theme           TEXT CHECK (theme IN ('light', 'dark')),
    updated_at      INTEGER NOT NULL
) STRICT;

-- One-time set-password links, by the SHA-256 of their token. A user has
-- at most one; issuing a new one deletes the earlier.
CREATE TABLE set_password_links (
    token_hash      TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    used_at         INTEGER
) STRICT;
CREATE INDEX set_password_links_user ON set_password_links (user_id);

-- +goose Down
DROP TABLE set_password_links;
DROP TABLE user_preferences;
DROP TABLE users;
