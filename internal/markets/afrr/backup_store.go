package afrr

import (
	"context"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/markets/calendar"
)

// BackupStore persists backup-market overrides and default versions.
// Every query is filtered by the caller's auth.Visibility in the SQL
// itself, and a deleted physical asset is invisible: both are
// errs.NotFound. Rows are keyed by the asset id as addressed, a virtual
// asset's own id included; writes lock the physical asset row behind it
// (the parent's for a virtual asset), so the writes of one battery run
// one after the other.
type BackupStore interface {
	// CreateOverride stores o (o.AssetID is a.ID) unless the asset is not
	// visible (errs.NotFound) or o overlaps another override of the same
	// asset and product (errs.Conflict override_overlaps). The overlap
	// check and the insert are one atomic step per asset, also across
	// instances.
	CreateOverride(ctx context.Context, v auth.Visibility, a assets.Asset, o Override) (Override, error)
	// Overrides returns the visible overrides of the asset that match f,
	// ordered by start_time, product and id.
	Overrides(ctx context.Context, v auth.Visibility, assetID string, f OverrideFilter) ([]Override, error)
	// DeleteOverride reads the visible override id of the asset
	// (errs.NotFound when there is none), calls check with it and, when
	// check returns nil, deletes it, atomically.
	DeleteOverride(ctx context.Context, v auth.Visibility, assetID, id string, check func(Override) error) error
	// PutDefault makes d the default of its asset a (d.AssetID is a.ID)
	// and product from d.EffectiveFrom on: versions effective at or after
	// that instant are replaced. errs.NotFound when the asset is not
	// visible.
	PutDefault(ctx context.Context, v auth.Visibility, a assets.Asset, d Default) (Default, error)
	// LatestDefault returns the most recently effective version, which may
	// start in the future; errs.NotFound with code no_default when the
	// product has never had a default.
	LatestDefault(ctx context.Context, v auth.Visibility, assetID string, p Product) (Default, error)
	// DefaultVersions returns the versions in force at some instant of w:
	// the last one effective at or before w.Start and every one effective
	// inside w, ordered by EffectiveFrom.
	DefaultVersions(ctx context.Context, v auth.Visibility, assetID string, p Product, w calendar.Interval) ([]Default, error)
}

// OverrideFilter selects overrides. Zero values do not filter.
type OverrideFilter struct {
	Product Product // pos or neg; empty for both
	// From and To are the half-open overlap window of document 1, rule 5:
	// an override matches when it ends strictly after From and starts
	// strictly before To.
	From, To time.Time
}
