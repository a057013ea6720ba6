-- +goose Up
-- The rate marks of the onboarding area's abuse limits (access-link sends,
-- manual reminders, communication tests; docs/onboarding.md), keyed by the
-- onboarding's organisation first. at is security time (the machine's
-- clock, docs/authentication.md) in INTEGER microseconds since the Unix
-- epoch: the limits hold in real time whatever the platform clock's speed,
-- and across the instances sharing the database. A mark is written in the
-- transaction of its action, which holds the workflow's row lock; marks
-- older than the longest window (an hour) are pruned on write.
CREATE TABLE onboarding_rate_marks (
    organization_id TEXT NOT NULL,
    onboarding_id   TEXT NOT NULL,
    kind            TEXT NOT NULL,
    subject         TEXT NOT NULL,
    at              INTEGER NOT NULL,
    FOREIGN KEY (organization_id, onboarding_id) REFERENCES onboardings (organization_id, onboarding_id)
) STRICT;
CREATE INDEX onboarding_rate_marks_subject ON onboarding_rate_marks (organization_id, onboarding_id, kind, subject, at);

-- +goose Down
DROP TABLE onboarding_rate_marks;
