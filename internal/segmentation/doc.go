// Package segmentation splits one physical asset into virtual assets: the
// design (mode and segments with shares), its validation, the allocation
// arithmetic of both modes, and the service behind the four segmentation
// endpoints. While a design is active, every segment is a virtual asset
// with id <parent_asset_id>.<segment_id>; the service resolves those ids
// for the asset registry (assets.VirtualResolver). HTTP endpoints live in
// segmentationhttp; docs/segmentation.md documents the decisions.
package segmentation
