-- +goose Up
-- Faults injected into simulated batteries (docs/telemetry.md, "Fault
-- injection"): in force on the platform clock from start_time (inclusive)
-- to end_time (exclusive) unless cleared_at is set. Rows stay after they
-- end or are cleared, the record of what was injected.
CREATE TABLE simulator_faults (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    fault_id        UUID NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('communication_loss', 'grid_switch_open', 'soc_drift',
                                                  'setpoint_ignored', 'afrr_underdelivery')),
    start_time      TIMESTAMPTZ NOT NULL,
    end_time        TIMESTAMPTZ NOT NULL CHECK (end_time > start_time),
    created_by      TEXT NOT NULL,
    cleared_at      TIMESTAMPTZ,
    PRIMARY KEY (asset_id, fault_id)
);
-- The simulator's read every second over every asset: the faults not
-- cleared that end after an instant.
CREATE INDEX simulator_faults_active ON simulator_faults (end_time) WHERE cleared_at IS NULL;

-- +goose Down
DROP TABLE simulator_faults;
