package assets

import "atcp/internal/errs"

// The codes of the asset registry.
const (
	// CodeAssetExists: the id is taken, by an asset (ids of deleted assets
	// are never reused) or by a virtual asset (409).
	CodeAssetExists errs.Code = "asset_exists"
	// CodeVirtualAsset: a write addresses a virtual asset where only a
	// physical one may be changed, segmented or steered (409).
	CodeVirtualAsset errs.Code = "virtual_asset"
	// CodeOrganisationNotPermitted: an asset is registered for an
	// organisation other than the caller's (403).
	CodeOrganisationNotPermitted errs.Code = "organisation_not_permitted"
	// CodeAssetLive: deleting an asset whose operational status is live (409).
	CodeAssetLive errs.Code = "asset_live"
	// CodeAssetInUse: deleting an asset a deletion guard reports
	// commitments of, such as bids or dispatches (409).
	CodeAssetInUse errs.Code = "asset_in_use"
	// CodeOnboardingInProgress: changing asset_operational_status through
	// the asset API while an onboarding workflow of the asset is in
	// progress; the workflow moves it (409, docs/onboarding.md).
	CodeOnboardingInProgress errs.Code = "onboarding_in_progress"
)
