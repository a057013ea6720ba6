-- +goose Up
-- Alarms (docs/alarms.md). Instants are INTEGER microseconds since the
-- Unix epoch, booleans 0/1. Every table is keyed by asset first;
-- shard_hash is the engine's stable hash of the asset id
-- (alarms.ShardHash), so that each rule shard reads its own rows with
-- shard_hash % count = index.

-- One row per alarm key (asset, rule): its current or last lifecycle
-- (alarm_id) and the key's mute, which outlives a lifecycle. Rows change
-- in the single write transaction, with their events.
CREATE TABLE alarm_lifecycles (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    rule_id         TEXT NOT NULL,
    shard_hash      INTEGER NOT NULL CHECK (shard_hash >= 0),
    alarm_id        TEXT NOT NULL,
    open            INTEGER NOT NULL CHECK (open IN (0, 1)),
    severity        TEXT NOT NULL CHECK (severity IN ('INFO', 'WARNING', 'MAJOR', 'CRITICAL')),
    alarm_type      TEXT NOT NULL,
    message         TEXT NOT NULL,
    evidence        TEXT NOT NULL,
    opened_at       INTEGER NOT NULL,
    resolved_at     INTEGER,
    acknowledged    INTEGER NOT NULL CHECK (acknowledged IN (0, 1)),
    acknowledged_by TEXT,
    acknowledged_at INTEGER,
    ack_event_id    INTEGER,
    ack_notes       TEXT,
    muted           INTEGER NOT NULL CHECK (muted IN (0, 1)),
    mute_reason     TEXT,
    mute_expires_at INTEGER,
    muted_by        TEXT,
    muted_at        INTEGER,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (asset_id, rule_id),
    CHECK (open = (resolved_at IS NULL))
) STRICT;
-- What each engine run reads: its shard's open or muted keys.
CREATE INDEX alarm_lifecycles_engine ON alarm_lifecycles (shard_hash) WHERE open OR muted;
-- Active alarms of an organisation, most recently opened first.
CREATE INDEX alarm_lifecycles_active ON alarm_lifecycles (organization_id, opened_at DESC) WHERE open;

-- The alarm history. event_id increases in commit order (one writer) and
-- is never reused (AUTOINCREMENT), so that a reader resuming after an
-- event id misses nothing.
CREATE TABLE alarm_events (
    event_id        INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    rule_id         TEXT NOT NULL,
    alarm_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL CHECK (event_type IN ('alarm.opened', 'alarm.resolved', 'alarm.acknowledged', 'alarm.muted', 'alarm.unmuted')),
    alarm_type      TEXT NOT NULL,
    severity        TEXT NOT NULL CHECK (severity IN ('INFO', 'WARNING', 'MAJOR', 'CRITICAL')),
    message         TEXT NOT NULL,
    evidence        TEXT NOT NULL,
    ts              INTEGER NOT NULL,
    date_partition  TEXT NOT NULL, -- the Europe/Berlin day of ts, YYYY-MM-DD
    opened_at       INTEGER NOT NULL,
    resolved_at     INTEGER,
    muted           INTEGER NOT NULL CHECK (muted IN (0, 1)),
    acknowledged    INTEGER NOT NULL CHECK (acknowledged IN (0, 1)),
    acknowledged_by TEXT,
    acknowledged_at INTEGER,
    user_id         TEXT,
    user_email      TEXT,
    notes           TEXT,
    mute_reason     TEXT,
    mute_expires_at INTEGER
) STRICT;
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
    shard_hash      INTEGER NOT NULL CHECK (shard_hash >= 0),
    holding         INTEGER NOT NULL CHECK (holding IN (0, 1)),
    since           INTEGER NOT NULL,
    PRIMARY KEY (asset_id, rule_id)
) STRICT;
CREATE INDEX alarm_conditions_shard ON alarm_conditions (shard_hash);

-- +goose Down
DROP TABLE alarm_conditions;
DROP TABLE alarm_events;
DROP TABLE alarm_lifecycles;
