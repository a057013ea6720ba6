-- +goose Up
-- Background-job leases: the instance named in holder runs the job until
-- expires_at (platform-clock time) unless it renews. A platform table, not
-- organisation data: jobs act for every organisation.
CREATE TABLE worker_leases (
    job         TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    acquired_at TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE worker_leases;
