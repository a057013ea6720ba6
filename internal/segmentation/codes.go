package segmentation

import "atcp/internal/errs"

// The codes of virtual segmentation. Segmenting a virtual asset is
// assets.CodeVirtualAsset.
const (
	// CodeVirtualAssetIDTaken: a segment's virtual asset id is the id of a
	// physical asset (409).
	CodeVirtualAssetIDTaken errs.Code = "virtual_asset_id_taken"
	// CodeSegmentationActive: activating a segmentation that is active
	// already (409).
	CodeSegmentationActive errs.Code = "segmentation_active"
	// CodeAssetHasBids: activating while the parent asset holds committed
	// future bids of its own (409).
	CodeAssetHasBids errs.Code = "asset_has_bids"
	// CodeSegmentInUse: a change removes a segment whose virtual asset holds
	// committed future bids (409).
	CodeSegmentInUse errs.Code = "segment_in_use"
	// CodeSegmentationInUse: deleting a segmentation while a virtual asset
	// holds committed future bids (409).
	CodeSegmentationInUse errs.Code = "segmentation_in_use"
)
