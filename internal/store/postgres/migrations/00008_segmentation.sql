-- +goose Up
-- Virtual segmentation: at most one design per physical asset. The
-- segments are one JSON array (segment_id, name, share, counterparty,
-- color) in ranking order, always read and written whole.
CREATE TABLE segmentations (
    asset_id        TEXT PRIMARY KEY REFERENCES assets (asset_id),
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    mode            TEXT NOT NULL CHECK (mode IN ('proportional', 'priority')),
    status          TEXT NOT NULL CHECK (status IN ('draft', 'active')),
    version         BIGINT NOT NULL CHECK (version >= 1),
    updated_at      TIMESTAMPTZ NOT NULL,
    segments        JSONB NOT NULL
);
CREATE INDEX segmentations_active ON segmentations (organization_id) WHERE status = 'active';

-- +goose Down
DROP TABLE segmentations;
