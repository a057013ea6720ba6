-- +goose Up
-- Onboarding workflows, their gates and their audit trail (issue 15,
-- docs/onboarding.md sections 3 and 8), keyed by the asset's organisation
-- first. Dates (started_on, target_hc_date, deadline) are Europe/Berlin
-- calendar days as YYYY-MM-DD text.
CREATE TABLE onboardings (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    onboarding_id   UUID NOT NULL UNIQUE,
    asset_id        TEXT NOT NULL REFERENCES assets (asset_id),
    template_id     TEXT NOT NULL,
    overall_status  TEXT NOT NULL CHECK (overall_status IN ('in_progress', 'completed', 'cancelled')),
    started_on      TEXT NOT NULL,
    target_hc_date  TEXT,
    notes           TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL,
    created_by      TEXT NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    cancelled_at    TIMESTAMPTZ,
    cancel_reason   TEXT NOT NULL DEFAULT '',
    completed_at    TIMESTAMPTZ,
    PRIMARY KEY (organization_id, onboarding_id)
);
-- One in_progress workflow per asset, also under concurrent creates.
CREATE UNIQUE INDEX onboardings_in_progress ON onboardings (organization_id, asset_id) WHERE overall_status = 'in_progress';

-- The gates of a workflow. fields_json holds the RfI values (group D),
-- fields_updated_at/by their last save.
CREATE TABLE onboarding_gates (
    organization_id     TEXT NOT NULL,
    onboarding_id       UUID NOT NULL,
    gate_id             UUID NOT NULL UNIQUE,
    definition_id       TEXT NOT NULL,
    gate_order          INTEGER NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'submitted', 'changes_requested', 'passed', 'waived', 'blocked')),
    blocked_from        TEXT NOT NULL DEFAULT '',
    blocked_by          TEXT NOT NULL DEFAULT '',
    deadline            TEXT,
    assignee_contact_id TEXT NOT NULL DEFAULT '',
    last_note           TEXT NOT NULL DEFAULT '',
    submitted_at        TIMESTAMPTZ,
    submitted_by        TEXT NOT NULL DEFAULT '',
    passed_at           TIMESTAMPTZ,
    passed_by           TEXT NOT NULL DEFAULT '',
    fields_json         TEXT NOT NULL DEFAULT '{}',
    fields_updated_at   TIMESTAMPTZ,
    fields_updated_by   TEXT NOT NULL DEFAULT '',
    updated_at          TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, onboarding_id, gate_id),
    UNIQUE (onboarding_id, definition_id),
    FOREIGN KEY (organization_id, onboarding_id) REFERENCES onboardings (organization_id, onboarding_id)
);

-- The append-only audit trail: actor_json {kind, id, name, role,
-- preview_as}, changes_json {member: [old, new]}.
CREATE TABLE onboarding_audit (
    organization_id TEXT NOT NULL,
    onboarding_id   UUID NOT NULL,
    entry_id        UUID NOT NULL,
    at              TIMESTAMPTZ NOT NULL,
    actor_kind      TEXT NOT NULL,
    actor_json      TEXT NOT NULL,
    action          TEXT NOT NULL,
    target_type     TEXT NOT NULL,
    target_id       TEXT NOT NULL,
    changes_json    TEXT NOT NULL,
    request_id      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (organization_id, onboarding_id, entry_id),
    FOREIGN KEY (organization_id, onboarding_id) REFERENCES onboardings (organization_id, onboarding_id)
);
CREATE INDEX onboarding_audit_at ON onboarding_audit (onboarding_id, at);

-- +goose Down
DROP TABLE onboarding_audit;
DROP TABLE onboarding_gates;
DROP TABLE onboardings;
