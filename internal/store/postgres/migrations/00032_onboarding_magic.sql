-- +goose Up
-- Onboarding access links and the magic-link sessions they open
-- (docs/onboarding.md sections 7 and 8), keyed by the onboarding's
-- organisation first. A link's token is stored only as its SHA-256
-- (token_hash; prior_token_hash while the token before a resend still
-- works); each has a global unique index, the one lookup of an exchange.
-- expires_at of links and sessions and auth_time are security time; the
-- other instants platform time. onboarding_id and contact_id name rows of
-- the onboarding core and its contacts, which end their links and
-- sessions through the service.
CREATE TABLE onboarding_links (
    organization_id  TEXT NOT NULL REFERENCES organizations (organization_id),
    onboarding_id    TEXT NOT NULL,
    link_id          TEXT NOT NULL,
    contact_id       TEXT NOT NULL,
    role             TEXT NOT NULL,
    language         TEXT,
    token_hash       BYTEA NOT NULL,
    prior_token_hash BYTEA,
    created_at       TIMESTAMPTZ NOT NULL,
    created_by       TEXT NOT NULL,
    expires_at       TIMESTAMPTZ NOT NULL,
    revoked_at       TIMESTAMPTZ,
    revoke_reason    TEXT,
    last_used_at     TIMESTAMPTZ,
    use_count        INTEGER NOT NULL DEFAULT 0,
    send_count       INTEGER NOT NULL DEFAULT 0,
    last_sent_at     TIMESTAMPTZ,
    PRIMARY KEY (organization_id, onboarding_id, link_id)
);
CREATE UNIQUE INDEX onboarding_links_token ON onboarding_links (token_hash);
CREATE UNIQUE INDEX onboarding_links_prior_token ON onboarding_links (prior_token_hash) WHERE prior_token_hash IS NOT NULL;
CREATE INDEX onboarding_links_contact ON onboarding_links (organization_id, onboarding_id, contact_id, role);

-- session_id is unique on its own too: a refresh names only the session.
CREATE TABLE onboarding_sessions (
    organization_id    TEXT NOT NULL,
    session_id         TEXT NOT NULL,
    onboarding_id      TEXT NOT NULL,
    link_id            TEXT NOT NULL,
    contact_id         TEXT NOT NULL,
    role               TEXT NOT NULL,
    language           TEXT NOT NULL,
    refresh_hash       BYTEA NOT NULL,
    refresh_generation INTEGER NOT NULL,
    auth_time          TIMESTAMPTZ NOT NULL,
    expires_at         TIMESTAMPTZ NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    last_seen_at       TIMESTAMPTZ NOT NULL,
    ended_at           TIMESTAMPTZ,
    end_reason         TEXT,
    PRIMARY KEY (organization_id, session_id),
    FOREIGN KEY (organization_id, onboarding_id, link_id) REFERENCES onboarding_links (organization_id, onboarding_id, link_id)
);
CREATE UNIQUE INDEX onboarding_sessions_id ON onboarding_sessions (session_id);
CREATE INDEX onboarding_sessions_link ON onboarding_sessions (organization_id, onboarding_id, link_id);
CREATE INDEX onboarding_sessions_contact ON onboarding_sessions (organization_id, onboarding_id, contact_id);

-- +goose Down
DROP TABLE onboarding_sessions;
DROP TABLE onboarding_links;
