-- +goose Up
-- The event outbox (docs/events.md): every event a producer enqueued, with
-- its delivery state. Keyed by organisation first (shardable by
-- organization_id). Instants are INTEGER microseconds since the Unix
-- epoch; created_at is on the platform clock, the delivery instants
-- (enqueued_at, next_attempt_at, sent_at, published_at, finished_at) on
-- the machine's clock. claim_id names the deliverer holding a pending
-- event until next_attempt_at; the single write connection serialises
-- claims, so that two deliverers never take one event together.
CREATE TABLE event_outbox (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    event_id        TEXT NOT NULL,
    asset_id        TEXT,
    type            TEXT NOT NULL,
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'chat', 'bus')),
    recipient       TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    payload         TEXT,
    created_at      INTEGER NOT NULL,
    enqueued_at     INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts        INTEGER NOT NULL CHECK (attempts >= 0),
    next_attempt_at INTEGER NOT NULL,
    claim_id        TEXT,
    last_error      TEXT NOT NULL,
    sent_at         INTEGER,
    published_at    INTEGER,
    finished_at     INTEGER,
    PRIMARY KEY (organization_id, event_id)
) STRICT;
-- Claim: the pending events by due time; delivered and dead ones drop out.
CREATE INDEX event_outbox_due ON event_outbox (next_attempt_at) WHERE status = 'pending';

-- +goose Down
DROP TABLE event_outbox;
