-- +goose Up
-- Settlement figures (docs/settlement.md): one row per organisation,
-- asset, 15-minute block and product key of the settlement envelope.
-- Amounts are exact INTEGER cents of EUR; instants INTEGER microseconds
-- since the Unix epoch. processed_at is the block's: every row of a block
-- carries the same instant, set when any of its figures changed.
CREATE TABLE settlement_figures (
    organization_id        TEXT NOT NULL REFERENCES organizations (organization_id),
    asset_id               TEXT NOT NULL,
    block_start            INTEGER NOT NULL,
    product                TEXT NOT NULL CHECK (product IN ('fcr', 'fcr_backup', 'afrrc_pos_4h', 'afrrc_neg_4h',
                               'afrrc_pos_15min', 'afrrc_neg_15min', 'afrre_pos', 'afrre_pos_backup', 'afrre_neg', 'afrre_neg_backup')),
    revenue_total_cents    INTEGER NOT NULL,
    backup_fee_total_cents INTEGER NOT NULL,
    penalty_total_cents    INTEGER NOT NULL,
    processed_at           INTEGER NOT NULL,
    PRIMARY KEY (organization_id, asset_id, block_start, product)
) STRICT;
-- The job rewrites one quarter-hour of every organisation at a time.
CREATE INDEX settlement_figures_block ON settlement_figures (block_start);

-- The settlement job's progress: the first quarter-hour it has not
-- settled yet. A platform table (the job acts for every organisation),
-- like worker_leases.
CREATE TABLE settlement_progress (
    job        TEXT PRIMARY KEY,
    next_block INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE settlement_progress;
DROP TABLE settlement_figures;
