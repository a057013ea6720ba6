package branding

import "atcp/internal/errs"

// Error codes of the onboarding branding.
const (
	// CodeOrganizationNotFound: the organisation is unknown or not the
	// caller's (404); one answer, so that no id is confirmed.
	CodeOrganizationNotFound errs.Code = "organization_not_found"
	// CodeEditConflict: If-Match named another version than the stored
	// one, or there is none yet (409).
	CodeEditConflict errs.Code = "edit_conflict"
	// CodeImageTypeMismatch: the banner's Content-Type is not what its
	// bytes are (400).
	CodeImageTypeMismatch errs.Code = "image_type_mismatch"
	// CodeUnsupportedImage: the banner is not a PNG, JPEG or SVG image
	// atcp can read, or is larger than MaxBannerDimension (400).
	CodeUnsupportedImage errs.Code = "unsupported_image"
	// CodeSVGActiveContent: the SVG banner holds scripts, event handlers,
	// external references or declarations; it is refused, not
	// sanitised (400).
	CodeSVGActiveContent errs.Code = "svg_active_content"
)
