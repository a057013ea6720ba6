-- +goose Up
-- Fault-notification records: one per fault declaration (document 1,
-- state table "Asset fault declaration"), inserted pending in the
-- transaction that sets the fault unavailability, finalised after the
-- events are enqueued. Instants are INTEGER microseconds since the Unix
-- epoch; recipient_ids a JSON array.
CREATE TABLE fault_notifications (
    organization_id      TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id             TEXT NOT NULL,
    record_id            TEXT NOT NULL,
    alarm_key            TEXT NOT NULL,
    alarm_id             TEXT NOT NULL,
    declared_by          TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('pending', 'requested', 'not_requested', 'failed')),
    language             TEXT,
    subject              TEXT,
    body                 TEXT,
    recipient_ids        TEXT NOT NULL,
    unavailability_start INTEGER NOT NULL,
    unavailability_end   INTEGER,
    already_declared     INTEGER NOT NULL CHECK (already_declared IN (0, 1)),
    notes                TEXT,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    PRIMARY KEY (asset_id, record_id)
) STRICT;

-- +goose Down
DROP TABLE fault_notifications;
