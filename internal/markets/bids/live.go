package bids

import (
	"atcp/internal/assets"
	"atcp/internal/errs"
)

// Option adjusts an engine (or the backup market) to its environment.
type Option func(*Options)

// Options are what the options set.
type Options struct {
	// AllowNotLive turns the asset_not_live check off: the demonstration
	// environment (ATCP_DEMO=true) trades its assets whatever their
	// operational status.
	AllowNotLive bool
}

// AllowNotLive is the option of the demonstration environment: assets that
// are not live may bid.
func AllowNotLive() Option { return func(o *Options) { o.AllowNotLive = true } }

// NewOptions applies opts to the defaults (every check on).
func NewOptions(opts ...Option) Options {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// CheckLive refuses a market commitment of an asset whose operational
// status is not live (409 asset_not_live): one still onboarding has no
// proven delivery, one in maintenance or offboarded cannot deliver.
// Callers run it before the prequalified ceiling, so that the answer names
// the status rather than a ceiling of zero.
func (o Options) CheckLive(a assets.Asset, market string) error {
	if o.AllowNotLive || a.OperationalStatus == assets.Live {
		return nil
	}
	return errs.Conflictf(CodeAssetNotLive,
		"asset %q is %s; the %s market takes commitments of live assets only (asset_operational_status live)",
		a.ID, a.OperationalStatus, market)
}
