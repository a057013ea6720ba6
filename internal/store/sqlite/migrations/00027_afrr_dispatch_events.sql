-- +goose Up
-- aFRR dispatch events (docs/reporting.md): one per battery, quarter-hour
-- and direction in which the control loop asked it for aFRR energy or
-- skipped it. The primary key makes a second writer's copy (another
-- instance, a retry) a no-op; it also serves the reports, which read one
-- asset's quarter-hours in a window. Instants are INTEGER microseconds
-- since the Unix epoch (UTC); capacity_price a decimal string (EUR/MW/h).
CREATE TABLE afrr_dispatch_events (
    organization_id    TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id           TEXT NOT NULL,
    dispatch_slot      INTEGER NOT NULL,
    direction          TEXT NOT NULL CHECK (direction IN ('pos', 'neg')),
    event_id           TEXT NOT NULL UNIQUE,
    activation_id      TEXT NOT NULL,
    request_id         TEXT NOT NULL,
    created_at         INTEGER NOT NULL,
    planned_mw         REAL NOT NULL,
    set_mw             REAL NOT NULL,
    accepted_mw        REAL NOT NULL,
    outcome            TEXT CHECK (outcome IN ('partial', 'not_delivered', 'skipped')),
    filter_reason      TEXT,
    filter_details     TEXT,
    category           TEXT NOT NULL CHECK (category IN ('energy_bid', 'capacity_obligation', 'backup_cover')),
    energy_price_cents INTEGER,
    capacity_price     TEXT,
    PRIMARY KEY (asset_id, dispatch_slot, direction)
) STRICT, WITHOUT ROWID;
CREATE INDEX afrr_dispatch_events_organization ON afrr_dispatch_events (organization_id, dispatch_slot);
-- The reports' counts and totals read only these columns: a narrow
-- covering index spares them the wide rows (filter_details).
CREATE INDEX afrr_dispatch_events_totals ON afrr_dispatch_events
    (asset_id, dispatch_slot, direction, organization_id, set_mw, accepted_mw, filter_reason);

-- +goose Down
DROP TABLE afrr_dispatch_events;
