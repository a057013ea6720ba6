-- +goose Up
-- Several signing keys: a new key is published before it signs, a retired
-- key verifies until the tokens it signed have expired, then it is deleted.
-- private_pem holds the PKCS #8 PEM, or the PEM sealed with a
-- key-encryption key (atcp-kek-v1:...). The change is additive: the first
-- key keeps slot 'primary', later keys have none, so that an instance of
-- the previous version still starts during a rolling upgrade; the default
-- of activates_at serves its insert.
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_pkey;
ALTER TABLE signing_keys ALTER COLUMN slot DROP NOT NULL;
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_slot_key UNIQUE (slot);
ALTER TABLE signing_keys ADD PRIMARY KEY (key_id);
ALTER TABLE signing_keys ADD COLUMN activates_at TIMESTAMPTZ NOT NULL DEFAULT now();
ALTER TABLE signing_keys ADD COLUMN retired_at TIMESTAMPTZ;
UPDATE signing_keys SET activates_at = created_at;

-- +goose Down
-- The previous schema holds one key in slot 'primary': the newest is kept.
DELETE FROM signing_keys WHERE key_id <> (SELECT key_id FROM signing_keys ORDER BY activates_at DESC LIMIT 1);
UPDATE signing_keys SET slot = 'primary';
ALTER TABLE signing_keys DROP COLUMN retired_at;
ALTER TABLE signing_keys DROP COLUMN activates_at;
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_pkey;
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_slot_key;
ALTER TABLE signing_keys ALTER COLUMN slot SET NOT NULL;
ALTER TABLE signing_keys ADD PRIMARY KEY (slot);
