package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/onboarding/branding"
	"atcp/internal/store/sqlutil"
)

// OnboardingBranding returns the onboarding branding store.
func (db *DB) OnboardingBranding() branding.Store { return brandingStore{db} }

// brandingStore serialises the updates of one organisation's branding by
// locking its organisation row (FOR UPDATE): the branding row may not
// exist yet.
type brandingStore struct{ db *DB }

func scanBranding(row pgx.Row) (branding.Branding, error) {
	var r sqlutil.BrandingRow
	var updated time.Time
	if err := row.Scan(r.Targets(&updated)...); err != nil {
		return branding.Branding{}, err
	}
	b, err := r.Branding()
	b.UpdatedAt = sqlutil.UTC(updated)
	return b, err
}

func brandingNotFound(orgID string) error {
	return errs.E(errs.NotFound, branding.CodeOrganizationNotFound, "organisation %q has no onboarding branding", orgID)
}

func (s brandingStore) Get(ctx context.Context, v auth.Visibility, orgID string) (_ branding.Branding, err error) {
	defer sqlutil.Wrap(&err, "branding: get")
	b, err := scanBranding(s.db.conn(ctx).QueryRow(ctx, `SELECT organization_id, `+sqlutil.BrandingColumns+`
		FROM onboarding_branding WHERE ($1 OR organization_id = $2) AND organization_id = $3`, v.All, v.OrganizationID, orgID))
	if errors.Is(err, pgx.ErrNoRows) {
		return branding.Branding{}, brandingNotFound(orgID)
	}
	return b, err
}

func (s brandingStore) Stored(ctx context.Context, orgIDs ...string) (_ map[string]branding.Branding, err error) {
	defer sqlutil.Wrap(&err, "branding: stored")
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT organization_id, `+sqlutil.BrandingColumns+`
		FROM onboarding_branding WHERE organization_id = ANY($1)`, orgIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]branding.Branding{}
	for rows.Next() {
		b, err := scanBranding(rows)
		if err != nil {
			return nil, err
		}
		out[b.OrganizationID] = b
	}
	return out, rows.Err()
}

func (s brandingStore) Update(ctx context.Context, v auth.Visibility, orgID string,
	change func(branding.Branding, bool) (branding.Branding, error)) (_ branding.Branding, err error) {
	defer sqlutil.Wrap(&err, "branding: update")
	var out branding.Branding
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM organizations WHERE ($1 OR organization_id = $2) AND organization_id = $3 FOR UPDATE`,
			v.All, v.OrganizationID, orgID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return errs.E(errs.NotFound, branding.CodeOrganizationNotFound, "no organisation %q", orgID)
		}
		if err != nil {
			return sqlutil.Wrapped("lock organization", err)
		}
		cur, err := s.Get(ctx, v, orgID)
		exists := err == nil
		if err != nil && !errs.Is(err, errs.NotFound) {
			return err
		}
		next, err := change(cur, exists)
		if err != nil {
			return err
		}
		next.OrganizationID = orgID
		next.ETag = next.ComputeETag()
		values, err := sqlutil.BrandingValues(next)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO onboarding_branding (organization_id, `+sqlutil.BrandingColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (organization_id) DO UPDATE SET display_name = excluded.display_name, primary_color = excluded.primary_color,
				support_email = excluded.support_email, logo_url = excluded.logo_url, default_language = excluded.default_language,
				templates_json = excluded.templates_json, banner_key = excluded.banner_key,
				banner_content_type = excluded.banner_content_type, etag = excluded.etag, updated_at = excluded.updated_at`,
			append(append([]any{orgID}, values...), next.UpdatedAt)...)
		if err != nil {
			return sqlutil.Wrapped("upsert onboarding_branding", err)
		}
		out, err = s.Get(ctx, v, orgID)
		return err
	})
	return out, err
}
