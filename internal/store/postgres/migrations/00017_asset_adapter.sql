-- +goose Up
-- The adapter the platform steers each asset through and the MQTT topic
-- prefix of its gateway. Existing assets keep the simulator that steered
-- them so far and get the default prefix atcp/<asset_id>, stored like
-- every later asset's; the application writes both on every insert, so
-- the columns keep no default.
ALTER TABLE assets ADD COLUMN adapter TEXT NOT NULL DEFAULT 'simulator' CHECK (adapter IN ('simulator', 'mqtt'));
ALTER TABLE assets ALTER COLUMN adapter DROP DEFAULT;
ALTER TABLE assets ADD COLUMN adapter_topic_prefix TEXT;
UPDATE assets SET adapter_topic_prefix = 'atcp/' || asset_id;
ALTER TABLE assets ALTER COLUMN adapter_topic_prefix SET NOT NULL;

-- +goose Down
ALTER TABLE assets DROP COLUMN adapter_topic_prefix;
ALTER TABLE assets DROP COLUMN adapter;
