-- +goose Up
-- Alarms (docs/alarms.md). Every table is keyed by asset first (shardable
-- by asset_id, e.g. with Citus); shard_hash is the engine's stable hash of
-- the asset id (alarms.ShardHash), so that each rule shard reads its own
-- rows with shard_hash % count = index.

-- One row per alarm key (asset, rule): its current or last lifecycle
-- (alarm_id) and the key's mute, which outlives a lifecycle. The engine
-- and the API change a row under its row lock, with the event in the same
-- transaction.
CREATE TABLE alarm_lifecycles (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    rule_id         TEXT NOT NULL,
    shard_hash      BIGINT NOT NULL CHECK (shard_hash >= 0),
    alarm_id        UUID NOT NULL,
    open            BOOLEAN NOT NULL,
    severity        TEXT NOT NULL CHECK (severity IN ('INFO', 'WARNING', 'MAJOR', 'CRITICAL')),
    alarm_type      TEXT NOT NULL,
    message         TEXT NOT NULL,
    evidence        JSONB NOT NULL,
    opened_at       TIMESTAMPTZ NOT NULL,
    resolved_at     TIMESTAMPTZ,
    acknowledged    BOOLEAN NOT NULL,
    acknowledged_by TEXT,
    acknowledged_at TIMESTAMPTZ,
    ack_event_id    BIGINT,
    ack_notes       TEXT,
    muted           BOOLEAN NOT NULL,
    mute_reason     TEXT,
    mute_expires_at TIMESTAMPTZ,
    muted_by        TEXT,
    muted_at        TIMESTAMPTZ,
    updated_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (asset_id, rule_id),
    CHECK (open = (resolved_at IS NULL))
);
-- What each engine run reads: its shard's open or muted keys.
CREATE INDEX alarm_lifecycles_engine ON alarm_lifecycles (shard_hash) WHERE open OR muted;
-- Active alarms of an organisation, most recently opened first.
CREATE INDEX alarm_lifecycles_active ON alarm_lifecycles (organization_id, opened_at DESC) WHERE open;

-- The alarm history. event_id increases in commit order (event-writing
-- transactions take one advisory lock), so that a reader resuming after
-- an event id misses nothing.
CREATE TABLE alarm_events (
    event_id        BIGINT GENERATED ALWAYS AS IDENTITY,
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    rule_id         TEXT NOT NULL,
    alarm_id        UUID NOT NULL,
    event_type      TEXT NOT NULL CHECK (event_type IN ('alarm.opened', 'alarm.resolved', 'alarm.acknowledged', 'alarm.muted', 'alarm.unmuted')),
    alarm_type      TEXT NOT NULL,
    severity        TEXT NOT NULL CHECK (severity IN ('INFO', 'WARNING', 'MAJOR', 'CRITICAL')),
    message         TEXT NOT NULL,
    evidence        JSONB NOT NULL,
    ts              TIMESTAMPTZ NOT NULL,
    date_partition  DATE NOT NULL, -- the Europe/Berlin day of ts
    opened_at       TIMESTAMPTZ NOT NULL,
    resolved_at     TIMESTAMPTZ,
    muted           BOOLEAN NOT NULL,
    acknowledged    BOOLEAN NOT NULL,
    acknowledged_by TEXT,
    acknowledged_at TIMESTAMPTZ,
    user_id         TEXT,
    user_email      TEXT,
    notes           TEXT,
    mute_reason     TEXT,
    mute_expires_at TIMESTAMPTZ,
    PRIMARY KEY (asset_id, event_id)
);
CREATE INDEX alarm_events_id ON alarm_events (event_id);
CREATE INDEX alarm_events_organization ON alarm_events (organization_id, ts DESC, event_id DESC);
CREATE INDEX alarm_events_asset ON alarm_events (asset_id, ts DESC, event_id DESC);

-- Rule condition tracks: since when a rule's condition has held (or,
-- while the key is open, been clear) on an asset, so that a new lease
-- holder continues the sustain and clear timing. Rows exist only while
-- they matter and change only when the condition flips.
CREATE TABLE alarm_conditions (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    rule_id         TEXT NOT NULL,
    shard_hash      BIGINT NOT NULL CHECK (shard_hash >= 0),
    holding         BOOLEAN NOT NULL,
    since           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (asset_id, rule_id)
);
CREATE INDEX alarm_conditions_shard ON alarm_conditions (shard_hash);

-- +goose Down
DROP TABLE alarm_conditions;
DROP TABLE alarm_events;
DROP TABLE alarm_lifecycles;
