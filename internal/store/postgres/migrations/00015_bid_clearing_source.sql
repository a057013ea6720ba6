-- +goose Up
-- What a cleared bid's figures are: source_day is the replayed day
-- (YYYY-MM-DD) whose results cleared it, clearing_note says with what.
-- price_source gains 'replayed': a day without published results of its
-- own is cleared with those of the replayed day. Bids cleared before this
-- migration said 'published' for every day: those of days other than the
-- replayed days (delivery days 2026-02-01 and 2026-02-02, Europe/Berlin)
-- were cleared with 2026-02-02's results.
ALTER TABLE bids ADD COLUMN source_day TEXT, ADD COLUMN clearing_note TEXT;

UPDATE bids SET source_day = CASE
        WHEN start_time >= '2026-01-31T23:00:00Z' AND start_time < '2026-02-01T23:00:00Z' THEN '2026-02-01'
        ELSE '2026-02-02' END
    WHERE price_source IS NOT NULL;
UPDATE bids SET price_source = 'replayed'
    WHERE price_source = 'published' AND (start_time < '2026-01-31T23:00:00Z' OR start_time >= '2026-02-02T23:00:00Z');

-- +goose Down
UPDATE bids SET price_source = 'published' WHERE price_source = 'replayed';
ALTER TABLE bids DROP COLUMN clearing_note, DROP COLUMN source_day;
