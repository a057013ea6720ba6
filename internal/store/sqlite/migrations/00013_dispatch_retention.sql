-- +goose Up
-- Retention deletes report entries older than 30 days across every asset
-- each hour; without this index that is a scan of the whole report.
CREATE INDEX dispatch_outcomes_set_time ON dispatch_outcomes (set_time);

-- +goose Down
DROP INDEX dispatch_outcomes_set_time;
