-- +goose Up
-- The control loop reads every asset's active intervals once a second
-- (end_time NULL or after now): this index keeps that read to the live
-- rows instead of a scan over 30 days of ended ones.
CREATE INDEX restriction_intervals_end ON restriction_intervals (end_time);

-- +goose Down
DROP INDEX restriction_intervals_end;
