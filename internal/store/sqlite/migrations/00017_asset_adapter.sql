-- +goose Up
-- The adapter the platform steers each asset through and the MQTT topic
-- prefix of its gateway. Existing assets keep the simulator that steered
-- them so far and get the default prefix atcp/<asset_id>, stored like
-- every later asset's (the application always writes both). SQLite cannot
-- add a NOT NULL column without a default, so the defaults stay in the
-- schema; they are never used by an insert.
ALTER TABLE assets ADD COLUMN adapter TEXT NOT NULL DEFAULT 'simulator' CHECK (adapter IN ('simulator', 'mqtt'));
ALTER TABLE assets ADD COLUMN adapter_topic_prefix TEXT NOT NULL DEFAULT '';
UPDATE assets SET adapter_topic_prefix = 'atcp/' || asset_id;

-- +goose Down
ALTER TABLE assets DROP COLUMN adapter_topic_prefix;
ALTER TABLE assets DROP COLUMN adapter;
