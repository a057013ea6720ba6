-- +goose Up
-- Who created a bid: 'api' (placed by its holder; every bid before this
-- migration) or 'capacity_bid' (an aFRR energy bid the platform created
-- from a capacity award, at the capacity bid's energy price). Set once at
-- insertion; a change of the bid's values does not change its origin.
ALTER TABLE bids ADD COLUMN source TEXT NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'capacity_bid'));

-- +goose Down
ALTER TABLE bids DROP COLUMN source;
