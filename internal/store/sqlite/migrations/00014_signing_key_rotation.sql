-- +goose Up
-- Several signing keys: a new key is published before it signs, a retired
-- key verifies until the tokens it signed have expired, then it is deleted.
-- private_pem holds the PKCS #8 PEM, or the PEM sealed with a
-- key-encryption key (atcp-kek-v1:...).
CREATE TABLE signing_keys_rotating (
    key_id       TEXT PRIMARY KEY,
    algorithm    TEXT NOT NULL,
    private_pem  TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    activates_at INTEGER NOT NULL,
    retired_at   INTEGER
) STRICT;

INSERT INTO signing_keys_rotating (key_id, algorithm, private_pem, created_at, activates_at)
    SELECT key_id, algorithm, private_pem, created_at, created_at FROM signing_keys;
DROP TABLE signing_keys;
ALTER TABLE signing_keys_rotating RENAME TO signing_keys;

-- +goose Down
-- The previous schema holds one key: the newest is kept.
CREATE TABLE signing_keys_single (
    slot        TEXT PRIMARY KEY,
    key_id      TEXT NOT NULL,
    algorithm   TEXT NOT NULL,
    private_pem TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;
INSERT INTO signing_keys_single (slot, key_id, algorithm, private_pem, created_at)
    SELECT 'primary', key_id, algorithm, private_pem, created_at FROM signing_keys ORDER BY activates_at DESC LIMIT 1;
DROP TABLE signing_keys;
ALTER TABLE signing_keys_single RENAME TO signing_keys;
