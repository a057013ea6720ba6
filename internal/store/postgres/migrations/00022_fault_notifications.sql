-- +goose Up
-- Fault-notification records: one per fault declaration (document 1,
-- state table "Asset fault declaration"), inserted pending in the
-- transaction that sets the fault unavailability, finalised after the
-- events are enqueued. Keyed by asset (shardable with the asset's rows).
CREATE TABLE fault_notifications (
    organization_id      TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id             TEXT NOT NULL,
    record_id            UUID NOT NULL,
    alarm_key            TEXT NOT NULL,
    alarm_id             TEXT NOT NULL,
    declared_by          TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('pending', 'requested', 'not_requested', 'failed')),
    language             TEXT,
    subject              TEXT,
    body                 TEXT,
    recipient_ids        JSONB NOT NULL,
    unavailability_start TIMESTAMPTZ NOT NULL,
    unavailability_end   TIMESTAMPTZ,
    already_declared     BOOLEAN NOT NULL,
    notes                TEXT,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (asset_id, record_id)
);

-- +goose Down
DROP TABLE fault_notifications;
