-- +goose Up
-- The contacts of an onboarding (docs/onboarding.md sections 5.H and 8):
-- the people who work its gates, each with one or more task roles
-- (comma-separated), keyed by the onboarding's organisation first. A
-- deleted contact keeps its row (deleted_at) so that the audit trail's
-- names stay explained; the e-mail address is unique, case-insensitively,
-- among the onboarding's contacts not deleted. user_id names a console
-- user who then holds the roles on task endpoints. Instants are INTEGER
-- microseconds since the Unix epoch on the platform clock.
CREATE TABLE onboarding_contacts (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    onboarding_id   TEXT NOT NULL,
    contact_id      TEXT NOT NULL,
    name            TEXT NOT NULL,
    email           TEXT NOT NULL,
    company         TEXT NOT NULL DEFAULT '',
    phone           TEXT NOT NULL DEFAULT '',
    roles           TEXT NOT NULL,
    language        TEXT NOT NULL DEFAULT '',
    user_id         TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    deleted_at      INTEGER,
    PRIMARY KEY (organization_id, onboarding_id, contact_id),
    FOREIGN KEY (organization_id, onboarding_id) REFERENCES onboardings (organization_id, onboarding_id)
) STRICT;
CREATE UNIQUE INDEX onboarding_contacts_email ON onboarding_contacts (organization_id, onboarding_id, lower(email))
    WHERE deleted_at IS NULL;
CREATE INDEX onboarding_contacts_user ON onboarding_contacts (user_id)
    WHERE deleted_at IS NULL AND user_id <> '';

-- The parts a branded e-mail adds to an outbox event (events.Mail as JSON:
-- the HTML part, the sender's name, Reply-To, the banner's object key),
-- cleared with the body once an access-link mail was sent.
ALTER TABLE event_outbox ADD COLUMN mail_parts TEXT;

-- +goose Down
ALTER TABLE event_outbox DROP COLUMN mail_parts;
DROP TABLE onboarding_contacts;
