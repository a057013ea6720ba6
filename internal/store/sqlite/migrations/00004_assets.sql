-- +goose Up
-- The asset registry. A deleted asset keeps its row with deleted_at set:
-- settlement and history keep referring to its id, which is never reused.
-- Instants are INTEGER microseconds since the Unix epoch (UTC); booleans
-- are INTEGER 0 or 1.
CREATE TABLE assets (
    asset_id                          TEXT PRIMARY KEY,
    organization_id                   TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_name                        TEXT NOT NULL,
    asset_type                        TEXT NOT NULL CHECK (asset_type IN ('standalone', 'green_colocation', 'grey_colocation')),
    description                       TEXT,
    location                          TEXT NOT NULL,
    optimizer_org_id                  TEXT REFERENCES organizations (organization_id),
    charge_efficiency                 REAL,
    discharge_efficiency              REAL,
    country                           TEXT,
    tso                               TEXT CHECK (tso IN ('50HZ', 'TNNT', 'AMP', 'TNBW')),
    max_pos_ramp_rate_mw_per_sec      REAL,
    min_neg_ramp_rate_mw_per_sec      REAL,
    usable_energy_capacity_mwh        REAL,
    usable_power_capacity_mw          REAL,
    afrr_prequalified_capacity_pos_mw REAL NOT NULL,
    afrr_prequalified_capacity_neg_mw REAL NOT NULL,
    fcr_prequalified_capacity_mw      REAL NOT NULL,
    tso_pool_id                       INTEGER,
    ioa_middle                        INTEGER CHECK (ioa_middle BETWEEN 0 AND 255),
    latitude                          REAL,
    longitude                         REAL,
    disable_pq_capacity_check         INTEGER NOT NULL CHECK (disable_pq_capacity_check IN (0, 1)),
    strict_validation                 INTEGER NOT NULL CHECK (strict_validation IN (0, 1)),
    tso_connected                     INTEGER NOT NULL CHECK (tso_connected IN (0, 1)),
    fcr_enabled                       INTEGER NOT NULL CHECK (fcr_enabled IN (0, 1)),
    afrr_enabled                      INTEGER NOT NULL CHECK (afrr_enabled IN (0, 1)),
    wholesale_enabled                 INTEGER NOT NULL CHECK (wholesale_enabled IN (0, 1)),
    control_enabled                   INTEGER NOT NULL CHECK (control_enabled IN (0, 1)),
    pv_active                         INTEGER NOT NULL CHECK (pv_active IN (0, 1)),
    grid_connection_power_mw          REAL,
    bess_priority                     INTEGER CHECK (bess_priority IN (0, 1)),
    grid_import_allowed               INTEGER CHECK (grid_import_allowed IN (0, 1)),
    bess_control_enabled              INTEGER CHECK (bess_control_enabled IN (0, 1)),
    pv_control_enabled                INTEGER CHECK (pv_control_enabled IN (0, 1)),
    asset_integration_type            TEXT CHECK (asset_integration_type IN ('full_control', 'monitoring_only')),
    asset_operational_status          TEXT NOT NULL CHECK (asset_operational_status IN ('onboarding', 'onboarding_testing', 'live', 'maintenance', 'offboarded')),
    operational_status_reason         TEXT,
    maintenance_until                 INTEGER,
    created_at                        INTEGER NOT NULL,
    updated_at                        INTEGER NOT NULL,
    deleted_at                        INTEGER
) STRICT;
-- Listing one organisation's assets in id order.
CREATE INDEX assets_organization ON assets (organization_id, asset_id) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE assets;
