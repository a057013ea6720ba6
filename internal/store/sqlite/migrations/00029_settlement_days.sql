-- +goose Up
-- The settlement envelope's blocks rendered per asset and delivery day
-- (docs/settlement.md, "Storage"): the settlement store's Save renders
-- the day of every block it writes or deletes again from the day's
-- settlement_figures, in the same transaction; the figures stay the
-- source. delivery_day is the Europe/Berlin day YYYY-MM-DD; blocks the
-- day's block objects as JSON with a NUL byte where the clock-dependent
-- status and final_at go; totals_cents the day's sums of revenue, backup
-- fee and penalty of each product key in document 1's order, 30 integer
-- cents separated by spaces.
CREATE TABLE settlement_days (
    organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id        TEXT NOT NULL,
    delivery_day    TEXT NOT NULL,
    block_count     INTEGER NOT NULL,
    totals_cents    TEXT NOT NULL,
    blocks          BLOB NOT NULL,
    PRIMARY KEY (organization_id, asset_id, delivery_day)
) STRICT;

-- Figures stored before this migration have no days yet: the settlement
-- job's next run renders them (RenderPendingDays) and removes this row.
INSERT INTO settlement_progress (job, next_block)
    SELECT 'settlement.days', MIN(block_start) FROM settlement_figures HAVING COUNT(*) > 0;

-- +goose Down
DELETE FROM settlement_progress WHERE job = 'settlement.days';
DROP TABLE settlement_days;
