package sqlutil

import (
	"encoding/json"
	"fmt"

	"atcp/internal/onboarding/branding"
)

// BrandingColumns are the columns of onboarding_branding after
// organization_id, in the order of BrandingValues and BrandingRow.Targets;
// updated_at is last and bound by each backend in its own type.
const BrandingColumns = `display_name, primary_color, support_email, logo_url, default_language, templates_json,
	banner_key, banner_content_type, etag, updated_at`

// BrandingValues are b's values of BrandingColumns but updated_at; a field
// never set is NULL.
func BrandingValues(b branding.Branding) ([]any, error) {
	templates := b.Templates
	if templates == nil {
		templates = map[string]branding.Template{}
	}
	j, err := json.Marshal(templates)
	if err != nil {
		return nil, err
	}
	return []any{NullIfEmpty(b.DisplayName), NullIfEmpty(b.PrimaryColor), NullIfEmpty(b.SupportEmail), NullIfEmpty(b.LogoURL),
		NullIfEmpty(b.DefaultLanguage), string(j), NullIfEmpty(b.BannerKey), NullIfEmpty(b.BannerContentType), b.ETag}, nil
}

// BrandingRow receives a row of onboarding_branding.
type BrandingRow struct {
	displayName, primaryColor, supportEmail, logoURL, language, bannerKey, bannerType *string
	templates                                                                         string
	b                                                                                 branding.Branding
}

// Targets are the scan destinations of organization_id and BrandingColumns,
// updatedAt that of updated_at in the backend's type.
func (r *BrandingRow) Targets(updatedAt any) []any {
	return []any{&r.b.OrganizationID, &r.displayName, &r.primaryColor, &r.supportEmail, &r.logoURL, &r.language, &r.templates,
		&r.bannerKey, &r.bannerType, &r.b.ETag, updatedAt}
}

// Branding returns the scanned branding (UpdatedAt set by the caller).
func (r *BrandingRow) Branding() (branding.Branding, error) {
	b := r.b
	b.DisplayName, b.PrimaryColor, b.SupportEmail = deref(r.displayName), deref(r.primaryColor), deref(r.supportEmail)
	b.LogoURL, b.DefaultLanguage = deref(r.logoURL), deref(r.language)
	b.BannerKey, b.BannerContentType = deref(r.bannerKey), deref(r.bannerType)
	if err := json.Unmarshal([]byte(r.templates), &b.Templates); err != nil {
		return branding.Branding{}, fmt.Errorf("templates_json of %s: %w", b.OrganizationID, err)
	}
	return b, nil
}
