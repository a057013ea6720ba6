package afrr

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/calendar"
)

// AssetResolver finds a visible asset (errs.NotFound otherwise); the asset
// registry's Service is one.
type AssetResolver interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// backupMarket names the backup market in messages.
const backupMarket = "aFRR backup"

// BackupHistory is how far back override reads reach (document 1, Limits:
// bid history of the last 30 days).
const BackupHistory = 30 * 24 * time.Hour

// BackupService is the aFRR backup market: overrides and defaults per
// asset and product, and the offer they make for each quarter-hour.
type BackupService struct {
	store  BackupStore
	assets AssetResolver
	clk    clock.Clock
	opts   bids.Options
}

// NewBackupService returns the backup market on store, resolving assets
// through resolver; opts adjust it to its environment (bids.AllowNotLive).
func NewBackupService(store BackupStore, resolver AssetResolver, clk clock.Clock, opts ...bids.Option) *BackupService {
	return &BackupService{store: store, assets: resolver, clk: clk, opts: bids.NewOptions(opts...)}
}

// OverrideQuery filters an override list; zero values do not filter.
type OverrideQuery struct {
	Product    string // pos, neg (na is refused); empty for both
	Start, End time.Time
}

// ListOverrides returns the asset's overrides matching q with the overlap
// filter of document 1, rule 5, limited to those that ended within the
// last 30 days or later.
func (s *BackupService) ListOverrides(ctx context.Context, v auth.Visibility, assetID string, q OverrideQuery) ([]Override, error) {
	var inv errs.Validation
	f := OverrideFilter{From: q.Start.UTC(), To: q.End.UTC()}
	if q.Product != "" {
		f.Product = ParseProduct(&inv, "query.product", q.Product)
	}
	if !q.Start.IsZero() && !q.End.IsZero() && !q.End.After(q.Start) {
		inv.Add("query.end_time", "must be after start_time", q.End)
	}
	if err := inv.Err(); err != nil {
		return nil, err
	}
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	if horizon := s.clk.Now().UTC().Add(-BackupHistory); f.From.Before(horizon) {
		f.From = horizon
	}
	return s.store.Overrides(ctx, v, assetID, f)
}

// CreateOverride validates and stores a new override (see NewOverride):
// 404 for an invisible asset, 409 asset_not_live, 422 for invalid input,
// 409 gate_closed or override_overlaps.
func (s *BackupService) CreateOverride(ctx context.Context, v auth.Visibility, assetID string, r OverrideRequest) (Override, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return Override{}, err
	}
	// Before the validation, whose capacity cap is the prequalified
	// ceiling: an asset that is not live is told so, not that its cap
	// exceeds a prequalification it does not have yet.
	if err := s.opts.CheckLive(a, backupMarket); err != nil {
		return Override{}, err
	}
	o, err := NewOverride(r, a, s.clk.Now())
	if err != nil {
		return Override{}, err
	}
	o.ID = uuid.NewString()
	return s.store.CreateOverride(ctx, v, a, o)
}

// DeleteOverride cancels an override that has not started: 400 for an id
// that is not a UUID, 404 for an unknown one, 409 gate_closed once the
// gate of its first block has passed.
func (s *BackupService) DeleteOverride(ctx context.Context, v auth.Visibility, assetID, id string) error {
	parsed, err := uuid.Parse(id)
	if err != nil || len(id) != len(parsed.String()) {
		return &errs.Error{Kind: errs.Malformed, Code: errs.CodeMalformedRequest, Message: "bid_id must be a UUID",
			Fields: []errs.FieldError{{Location: "path.bid_id", Message: "must be a UUID", Value: id}}}
	}
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return err
	}
	return s.store.DeleteOverride(ctx, v, assetID, strings.ToLower(id), func(o Override) error {
		return gateOpen(o.Start, s.clk.Now())
	})
}

// Default returns the latest default version of the asset and product
// (possibly effective from the next block): 404 no_default when none was
// ever set.
func (s *BackupService) Default(ctx context.Context, v auth.Visibility, assetID, product string) (Default, error) {
	var inv errs.Validation
	p := ParseProduct(&inv, "query.product", product)
	if err := inv.Err(); err != nil {
		return Default{}, err
	}
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return Default{}, err
	}
	return s.store.LatestDefault(ctx, v, assetID, p)
}

// PutDefault sets the default of the asset and product from the first
// block whose gate is still open; blocks already gated keep the version
// they had. Overrides are untouched: those that left a value unset pick up
// the new default because values are resolved when read. An asset that is
// not live is 409 asset_not_live.
func (s *BackupService) PutDefault(ctx context.Context, v auth.Visibility, assetID string, r DefaultRequest) (Default, error) {
	a, err := s.assets.Get(ctx, v, assetID)
	if err != nil {
		return Default{}, err
	}
	// Before the validation, whose capacity cap is the prequalified
	// ceiling: an asset that is not live is told so, not that its cap
	// exceeds a prequalification it does not have yet.
	if err := s.opts.CheckLive(a, backupMarket); err != nil {
		return Default{}, err
	}
	d, err := NewDefault(r, a, s.clk.Now())
	if err != nil {
		return Default{}, err
	}
	return s.store.PutDefault(ctx, v, a, d)
}

// Offers resolves the asset's backup offer for every quarter-hour of w
// (quarter-hour aligned) in direction p, for the clearing worker.
func (s *BackupService) Offers(ctx context.Context, v auth.Visibility, assetID string, p Product, w calendar.Interval) ([]Offer, error) {
	if p != Pos && p != Neg && p != NA {
		return nil, errs.Invalidf("product", p, "must be pos, neg or na")
	}
	if !calendar.AlignedToPeriod(w.Start) || !calendar.AlignedToPeriod(w.End) || !w.End.After(w.Start) {
		return nil, errs.Invalidf("window", w, "must be a non-empty window of whole quarter-hours")
	}
	if _, err := s.assets.Get(ctx, v, assetID); err != nil {
		return nil, err
	}
	defaults, err := s.store.DefaultVersions(ctx, v, assetID, p, w)
	if err != nil {
		return nil, err
	}
	overrides, err := s.store.Overrides(ctx, v, assetID, OverrideFilter{Product: p, From: w.Start, To: w.End})
	if err != nil {
		return nil, err
	}
	var out []Offer
	for _, q := range calendar.Split(w, calendar.PeriodLength) {
		out = append(out, EffectiveBackupOffer(defaults, overrides, p, q.Start))
	}
	return out, nil
}
