-- +goose Up
-- The asset registry. A deleted asset keeps its row with deleted_at set:
-- settlement and history keep referring to its id, which is never reused.
CREATE TABLE assets (
    asset_id                          TEXT PRIMARY KEY,
    organization_id                   TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_name                        TEXT NOT NULL,
    asset_type                        TEXT NOT NULL CHECK (asset_type IN ('standalone', 'green_colocation', 'grey_colocation')),
    description                       TEXT,
    location                          TEXT NOT NULL,
    optimizer_org_id                  TEXT REFERENCES organizations (organization_id),
    charge_efficiency                 DOUBLE PRECISION,
    discharge_efficiency              DOUBLE PRECISION,
    country                           TEXT,
    tso                               TEXT CHECK (tso IN ('50HZ', 'TNNT', 'AMP', 'TNBW')),
    max_pos_ramp_rate_mw_per_sec      DOUBLE PRECISION,
    min_neg_ramp_rate_mw_per_sec      DOUBLE PRECISION,
    usable_energy_capacity_mwh        DOUBLE PRECISION,
    usable_power_capacity_mw          DOUBLE PRECISION,
    afrr_prequalified_capacity_pos_mw DOUBLE PRECISION NOT NULL,
    afrr_prequalified_capacity_neg_mw DOUBLE PRECISION NOT NULL,
    fcr_prequalified_capacity_mw      DOUBLE PRECISION NOT NULL,
    tso_pool_id                       BIGINT,
    ioa_middle                        INTEGER CHECK (ioa_middle BETWEEN 0 AND 255),
    latitude                          DOUBLE PRECISION,
    longitude                         DOUBLE PRECISION,
    disable_pq_capacity_check         BOOLEAN NOT NULL,
    strict_validation                 BOOLEAN NOT NULL,
    tso_connected                     BOOLEAN NOT NULL,
    fcr_enabled                       BOOLEAN NOT NULL,
    afrr_enabled                      BOOLEAN NOT NULL,
    wholesale_enabled                 BOOLEAN NOT NULL,
    control_enabled                   BOOLEAN NOT NULL,
    pv_active                         BOOLEAN NOT NULL,
    grid_connection_power_mw          DOUBLE PRECISION,
    bess_priority                     BOOLEAN,
    grid_import_allowed               BOOLEAN,
    bess_control_enabled              BOOLEAN,
    pv_control_enabled                BOOLEAN,
    asset_integration_type            TEXT CHECK (asset_integration_type IN ('full_control', 'monitoring_only')),
    asset_operational_status          TEXT NOT NULL CHECK (asset_operational_status IN ('onboarding', 'onboarding_testing', 'live', 'maintenance', 'offboarded')),
    operational_status_reason         TEXT,
    maintenance_until                 TIMESTAMPTZ,
    created_at                        TIMESTAMPTZ NOT NULL,
    updated_at                        TIMESTAMPTZ NOT NULL,
    deleted_at                        TIMESTAMPTZ
);
-- Listing one organisation's assets in id order.
CREATE INDEX assets_organization ON assets (organization_id, asset_id COLLATE "C") WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE assets;
