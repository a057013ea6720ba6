-- +goose Up
-- Onboarding comments, prequalifications and deadline reminders
-- (docs/onboarding.md groups I, J, L and section 8), keyed by the
-- onboarding's organisation first. onboarding_id and gate_id name rows of
-- the onboarding core, whose service reaches these tables only inside its
-- own transactions. Dates are Europe/Berlin calendar days as YYYY-MM-DD
-- text; instants INTEGER microseconds since the Unix epoch (platform time).
CREATE TABLE onboarding_comments (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    onboarding_id   TEXT NOT NULL,
    comment_id      TEXT NOT NULL UNIQUE,
    gate_id         TEXT NOT NULL DEFAULT '',
    body            TEXT NOT NULL,
    visibility      TEXT NOT NULL CHECK (visibility IN ('shared', 'internal')),
    author_kind     TEXT NOT NULL,
    author_id       TEXT NOT NULL DEFAULT '',
    author_name     TEXT NOT NULL,
    author_role     TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (organization_id, onboarding_id, comment_id)
) STRICT;
CREATE INDEX onboarding_comments_created ON onboarding_comments (onboarding_id, created_at);

-- One prequalification that is not withdrawn per product and onboarding,
-- also under concurrent creates.
CREATE TABLE onboarding_prequalifications (
    organization_id         TEXT NOT NULL REFERENCES organizations (organization_id),
    onboarding_id           TEXT NOT NULL,
    prequalification_id     TEXT NOT NULL UNIQUE,
    product                 TEXT NOT NULL CHECK (product IN ('fcr', 'afrr_pos', 'afrr_neg')),
    tso                     TEXT NOT NULL,
    requested_mw            REAL NOT NULL,
    submitted_on            TEXT NOT NULL,
    tso_reference           TEXT NOT NULL DEFAULT '',
    status                  TEXT NOT NULL CHECK (status IN ('submitted', 'granted', 'partially_granted', 'rejected', 'withdrawn')),
    prequalified_mw         REAL,
    valid_from              TEXT,
    decided_on              TEXT,
    decision_note           TEXT NOT NULL DEFAULT '',
    certificate_document_id TEXT NOT NULL DEFAULT '',
    withdraw_reason         TEXT NOT NULL DEFAULT '',
    recorded_by             TEXT NOT NULL,
    created_at              INTEGER NOT NULL,
    updated_at              INTEGER NOT NULL,
    PRIMARY KEY (organization_id, onboarding_id, prequalification_id)
) STRICT;
CREATE UNIQUE INDEX onboarding_prequalifications_product ON onboarding_prequalifications (onboarding_id, product) WHERE status <> 'withdrawn';

-- The reminders of gate deadlines: an automatic one once per (gate, kind,
-- due_on), also when two instances ran the job; manual ones any number.
-- recipients_json lists {role, contact_id, name} (no e-mail addresses).
CREATE TABLE onboarding_reminders (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    onboarding_id   TEXT NOT NULL,
    reminder_id     TEXT NOT NULL UNIQUE,
    gate_id         TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('before_deadline', 'overdue', 'manual')),
    due_on          TEXT NOT NULL,
    recipients_json TEXT NOT NULL,
    message         TEXT NOT NULL DEFAULT '',
    delivery_status TEXT NOT NULL CHECK (delivery_status IN ('enqueued', 'not_sent')),
    enqueued_at     INTEGER NOT NULL,
    created_by      TEXT NOT NULL,
    PRIMARY KEY (organization_id, onboarding_id, reminder_id)
) STRICT;
CREATE UNIQUE INDEX onboarding_reminders_due ON onboarding_reminders (gate_id, kind, due_on) WHERE kind <> 'manual';
CREATE INDEX onboarding_reminders_gate ON onboarding_reminders (onboarding_id, gate_id, enqueued_at);

-- The reminder policy of a workflow as JSON; '' is the default policy.
ALTER TABLE onboardings ADD COLUMN reminder_policy_json TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE onboardings DROP COLUMN reminder_policy_json;
DROP TABLE onboarding_reminders;
DROP TABLE onboarding_prequalifications;
DROP TABLE onboarding_comments;
