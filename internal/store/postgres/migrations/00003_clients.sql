-- +goose Up
-- Machine-to-machine integrations; integration_id is the OAuth client_id.
-- scopes is a space-separated list of scope names.
CREATE TABLE integrations (
    integration_id  TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    scopes          TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (organization_id, name)
);

-- Client secrets, only as argon2id hashes; at most two per integration
-- (enforced under a lock on the integration row).
CREATE TABLE integration_secrets (
    secret_id       TEXT PRIMARY KEY,
    integration_id  TEXT NOT NULL REFERENCES integrations (integration_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    secret_hash     TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX integration_secrets_by_integration ON integration_secrets (integration_id, created_at);

-- One sign-in of a person into a client; its code and refresh tokens hang
-- off it, so revoking it ends them all. scope is the requested narrowing
-- (empty: all of the person's scopes).
CREATE TABLE oauth_grants (
    grant_id        TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    scope           TEXT NOT NULL,
    nonce           TEXT NOT NULL,
    auth_time       TIMESTAMPTZ NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    revoked_at      TIMESTAMPTZ
);
CREATE INDEX oauth_grants_by_creation ON oauth_grants (created_at);

-- Authorization codes and refresh tokens are kept only as SHA-256 hashes.
CREATE TABLE oauth_codes (
    code_hash       TEXT PRIMARY KEY,
    grant_id        TEXT NOT NULL REFERENCES oauth_grants (grant_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    code_challenge  TEXT NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    used_at         TIMESTAMPTZ
);
CREATE INDEX oauth_codes_by_grant ON oauth_codes (grant_id);

CREATE TABLE oauth_refresh_tokens (
    token_hash      TEXT PRIMARY KEY,
    grant_id        TEXT NOT NULL REFERENCES oauth_grants (grant_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    used_at         TIMESTAMPTZ
);
CREATE INDEX oauth_refresh_tokens_by_grant ON oauth_refresh_tokens (grant_id);
CREATE INDEX oauth_refresh_tokens_by_expiry ON oauth_refresh_tokens (expires_at);

-- +goose Down
DROP TABLE oauth_refresh_tokens;
DROP TABLE oauth_codes;
DROP TABLE oauth_grants;
DROP TABLE integration_secrets;
DROP TABLE integrations;
