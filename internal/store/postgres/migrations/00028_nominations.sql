-- +goose Up
-- Balancing-group nominations of activated aFRR energy (docs/reporting.md,
-- "Balancing-group schedules and nomination files").

-- The balancing-group configuration of an organisation (the assets'
-- owner) in a TSO zone: the organisation responsible for the balancing
-- group of its assets there, and the EICs of its own nominations, stated
-- for the pos series.
CREATE TABLE nomination_configs (
    organization_id             TEXT NOT NULL REFERENCES organizations (organization_id),
    tso                         TEXT NOT NULL CHECK (tso IN ('50HZ', 'TNNT', 'AMP', 'TNBW')),
    responsible_organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    control_area_eic            TEXT NOT NULL,
    source_control_area_eic     TEXT NOT NULL,
    target_control_area_eic     TEXT NOT NULL,
    source_balancing_group_eic  TEXT NOT NULL,
    target_balancing_group_eic  TEXT NOT NULL,
    note                        TEXT NOT NULL,
    updated_at                  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, tso)
);

-- Each revision of a nomination (nominating organisation, zone, Berlin
-- delivery day) and its exchange with the TSO. The EICs are the header it
-- was built with (NULL: none configured, the revision is held); periods
-- the published zone quarter-hours as JSON [{"s": UTC start, "p": pos MW,
-- "n": neg MW}] with decimal strings.
CREATE TABLE nomination_revisions (
    organization_id             TEXT NOT NULL REFERENCES organizations (organization_id),
    tso                         TEXT NOT NULL CHECK (tso IN ('50HZ', 'TNNT', 'AMP', 'TNBW')),
    delivery_day                TEXT NOT NULL,
    revision                    INTEGER NOT NULL CHECK (revision > 0),
    reason                      TEXT NOT NULL,
    data_exchange_reference     TEXT NOT NULL UNIQUE,
    status                      TEXT NOT NULL CHECK (status IN ('pending', 'held', 'sent', 'acknowledged', 'rejected')),
    detail                      TEXT NOT NULL,
    control_area_eic            TEXT,
    source_control_area_eic     TEXT,
    target_control_area_eic     TEXT,
    source_balancing_group_eic  TEXT,
    target_balancing_group_eic  TEXT,
    periods                     TEXT NOT NULL,
    created_at                  TIMESTAMPTZ NOT NULL,
    sent_at                     TIMESTAMPTZ,
    answered_at                 TIMESTAMPTZ,
    PRIMARY KEY (organization_id, tso, delivery_day, revision)
);
-- The job claims what is unsent.
CREATE INDEX nomination_revisions_unsent ON nomination_revisions (status) WHERE status IN ('pending', 'sent');

-- The asset rows of a revision: the asset's owner and its published
-- quarter-hours (as periods above).
CREATE TABLE nomination_assets (
    organization_id       TEXT NOT NULL,
    tso                   TEXT NOT NULL,
    delivery_day          TEXT NOT NULL,
    revision              INTEGER NOT NULL,
    asset_id              TEXT NOT NULL,
    asset_organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    periods               TEXT NOT NULL,
    PRIMARY KEY (organization_id, tso, delivery_day, revision, asset_id),
    FOREIGN KEY (organization_id, tso, delivery_day, revision)
        REFERENCES nomination_revisions (organization_id, tso, delivery_day, revision) ON DELETE CASCADE
);
-- An owner's rows in other organisations' nominations (asset_only).
CREATE INDEX nomination_assets_owner ON nomination_assets (asset_organization_id, delivery_day);

-- +goose Down
DROP TABLE nomination_assets;
DROP TABLE nomination_revisions;
DROP TABLE nomination_configs;
