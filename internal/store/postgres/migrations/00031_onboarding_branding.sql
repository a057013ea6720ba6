-- +goose Up
-- The onboarding branding of an organisation (docs/onboarding.md 4.1):
-- one row per organisation, created by the first PUT of its settings or
-- of its e-mail banner. Fields never set are NULL; templates_json is the
-- JSON object of subject/intro overrides by language; banner_key names
-- the banner in object storage (earlier banners stay there as versions).
-- etag is the content tag If-Match compares with.
CREATE TABLE onboarding_branding (
    organization_id     TEXT PRIMARY KEY REFERENCES organizations (organization_id),
    display_name        TEXT,
    primary_color       TEXT,
    support_email       TEXT,
    logo_url            TEXT,
    default_language    TEXT CHECK (default_language IN ('de', 'en')),
    templates_json      TEXT NOT NULL,
    banner_key          TEXT,
    banner_content_type TEXT,
    etag                TEXT NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE onboarding_branding;
