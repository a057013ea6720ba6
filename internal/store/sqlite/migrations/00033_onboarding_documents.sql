-- +goose Up
-- The documents of onboarding workflows (docs/onboarding.md 4.4, 5.F, 6
-- and 8), keyed by the onboarding's organisation first. A row is one
-- version: lineage_id is the first version's document_id, version counts
-- within the lineage. The bytes live in object storage under object_key.
-- status: pending (presigned, not finalized), available, discarded (a
-- pending upload dropped when its workflow was cancelled). content_type is
-- the declared type, checked against the sniffed one on finalize; sha256
-- (hex) is set then. upload_expires_at is security time; the other
-- instants platform time, INTEGER microseconds since the Unix epoch. Rows
-- stay for the audit trail; object_removed_at records the housekeeping
-- job's removal of the object.
CREATE TABLE onboarding_documents (
    organization_id      TEXT NOT NULL,
    onboarding_id        TEXT NOT NULL,
    document_id          TEXT NOT NULL UNIQUE,
    gate_definition_id   TEXT NOT NULL,
    document_type        TEXT NOT NULL,
    lineage_id           TEXT NOT NULL,
    version              INTEGER NOT NULL,
    filename             TEXT NOT NULL,
    content_type         TEXT NOT NULL,
    size_bytes           INTEGER NOT NULL,
    sha256               TEXT NOT NULL DEFAULT '',
    object_key           TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('pending', 'available', 'discarded')),
    created_at           INTEGER NOT NULL,
    upload_expires_at    INTEGER NOT NULL,
    uploaded_at          INTEGER,
    uploader_kind        TEXT NOT NULL,
    uploader_id          TEXT NOT NULL,
    uploader_name        TEXT NOT NULL,
    replaces_document_id TEXT NOT NULL DEFAULT '',
    superseded_by        TEXT NOT NULL DEFAULT '',
    deleted_at           INTEGER,
    deleted_by           TEXT NOT NULL DEFAULT '',
    object_removed_at    INTEGER,
    PRIMARY KEY (organization_id, onboarding_id, document_id),
    FOREIGN KEY (organization_id, onboarding_id) REFERENCES onboardings (organization_id, onboarding_id)
) STRICT;
-- The housekeeping job's scan: objects not yet removed.
CREATE INDEX onboarding_documents_objects ON onboarding_documents (created_at) WHERE object_removed_at IS NULL;

-- +goose Down
DROP TABLE onboarding_documents;
