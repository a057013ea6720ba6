-- +goose Up
-- The event outbox (docs/events.md): every event a producer enqueued, with
-- its delivery state. Keyed by organisation first (shardable by
-- organization_id, e.g. with Citus). payload is the producer's JSON as
-- written. created_at is on the platform clock;
-- the delivery instants (enqueued_at, next_attempt_at, sent_at,
-- published_at, finished_at) are on the machine's clock. claim_id names
-- the deliverer holding a pending event until next_attempt_at; claims
-- are taken with FOR UPDATE SKIP LOCKED, so that deliverers of several
-- instances never take one event together.
CREATE TABLE event_outbox (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    event_id        UUID NOT NULL,
    asset_id        TEXT,
    type            TEXT NOT NULL,
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'chat', 'bus')),
    recipient       TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    payload         TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    enqueued_at     TIMESTAMPTZ NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts        INTEGER NOT NULL CHECK (attempts >= 0),
    next_attempt_at TIMESTAMPTZ NOT NULL,
    claim_id        UUID,
    last_error      TEXT NOT NULL,
    sent_at         TIMESTAMPTZ,
    published_at    TIMESTAMPTZ,
    finished_at     TIMESTAMPTZ,
    PRIMARY KEY (organization_id, event_id)
);
-- Claim: the pending events by due time; delivered and dead ones drop out.
CREATE INDEX event_outbox_due ON event_outbox (next_attempt_at) WHERE status = 'pending';

-- +goose Down
DROP TABLE event_outbox;
