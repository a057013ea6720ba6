-- +goose Up
-- The data-point list of each onboarding and its communication tests
-- (issue 15, docs/onboarding.md sections 5.E, 5.K and 8), keyed by the
-- asset's organisation first. Instants are INTEGER microseconds since the
-- Unix epoch.
CREATE TABLE onboarding_dpl_rows (
    organization_id  TEXT NOT NULL,
    onboarding_id    TEXT NOT NULL,
    row_id           TEXT NOT NULL UNIQUE,
    point_name       TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    protocol         TEXT NOT NULL,
    address          TEXT NOT NULL,
    data_type        TEXT NOT NULL,
    unit             TEXT NOT NULL,
    scale            REAL NOT NULL,
    "offset"         REAL NOT NULL,
    direction        TEXT NOT NULL CHECK (direction IN ('read', 'write', 'read_write')),
    notes            TEXT NOT NULL DEFAULT '',
    last_test_result TEXT NOT NULL DEFAULT '',
    updated_at       INTEGER NOT NULL,
    updated_by       TEXT NOT NULL,
    PRIMARY KEY (organization_id, onboarding_id, row_id),
    FOREIGN KEY (organization_id, onboarding_id) REFERENCES onboardings (organization_id, onboarding_id)
) STRICT;
-- A point once per list and an address once per protocol, also under
-- concurrent writers; the store maps a violation to its 409 by the index name.
CREATE UNIQUE INDEX onboarding_dpl_rows_point_name ON onboarding_dpl_rows (organization_id, onboarding_id, point_name);
CREATE UNIQUE INDEX onboarding_dpl_rows_address ON onboarding_dpl_rows (organization_id, onboarding_id, protocol, address);

-- The communication tests. A test is stored running before the telemetry is
-- read, so that one running test per onboarding holds across instances.
CREATE TABLE onboarding_comm_tests (
    organization_id TEXT NOT NULL,
    onboarding_id   TEXT NOT NULL,
    test_id         TEXT NOT NULL UNIQUE,
    status          TEXT NOT NULL CHECK (status IN ('running', 'passed', 'failed')),
    started_at      INTEGER NOT NULL,
    started_by      TEXT NOT NULL,
    finished_at     INTEGER,
    connected       INTEGER NOT NULL DEFAULT 0,
    measured_at     INTEGER,
    points_json     TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (organization_id, onboarding_id, test_id),
    FOREIGN KEY (organization_id, onboarding_id) REFERENCES onboardings (organization_id, onboarding_id)
) STRICT;
CREATE UNIQUE INDEX onboarding_comm_tests_running ON onboarding_comm_tests (organization_id, onboarding_id) WHERE status = 'running';
CREATE INDEX onboarding_comm_tests_started ON onboarding_comm_tests (organization_id, onboarding_id, started_at);

-- +goose Down
DROP TABLE onboarding_comm_tests;
DROP TABLE onboarding_dpl_rows;
