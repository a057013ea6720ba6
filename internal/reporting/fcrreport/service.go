package fcrreport

import (
	"context"
	"fmt"
	"time"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/fcr"
	"atcp/internal/portfolio"
	"atcp/internal/reporting"
	"atcp/internal/restrictions"
	"atcp/internal/telemetry"
)

// MaxMeasuredWindow is the longest window of the reports folded from the
// state history: its retention.
const MaxMeasuredWindow = telemetry.Retention

// maxCoverSteps bounds the cover steps one page of reservations reads
// (100 blocks of 4 hours hold at most a few thousand).
const maxCoverSteps = 100_000

// Assets resolves an asset the caller may see (assets.Service).
type Assets interface {
	Get(ctx context.Context, v auth.Visibility, assetID string) (assets.Asset, error)
}

// Bids lists an asset's bids (bids.Store).
type Bids interface {
	List(ctx context.Context, v auth.Visibility, assetID string, market bids.Market, f bids.Filter) ([]bids.Bid, error)
}

// CoverSteps lists cover steps (portfolio.Store).
type CoverSteps interface {
	List(ctx context.Context, v auth.Visibility, f portfolio.Filter) ([]portfolio.Step, error)
}

// Restrictions lists an asset's restriction intervals (restrictions.Store).
type Restrictions interface {
	Intervals(ctx context.Context, v auth.Visibility, assetID string, kind restrictions.Kind, w restrictions.Window) ([]restrictions.Interval, error)
}

// Deps are what the service reads.
type Deps struct {
	Assets       Assets
	Bids         Bids
	Covers       CoverSteps
	Restrictions Restrictions
	Telemetry    telemetry.Store
	Clock        clock.Clock // the platform clock
}

// Service answers the FCR and availability reports.
type Service struct{ d Deps }

// NewService returns the service.
func NewService(d Deps) *Service { return &Service{d} }

// Reservation is one awarded FCR block of the asset.
type Reservation struct {
	BidID           string
	Start, End      time.Time
	AwardedMW       float64
	SettlementPrice *bids.Price // EUR/MW for the block (pay-as-cleared)
	Payment         *bids.Price // EUR: awarded MW x settlement price
	Covers
	Status DeliveryStatus
}

// DeliveryStatus is where a reservation's block stands at the platform
// clock's now.
type DeliveryStatus string

const (
	Upcoming   DeliveryStatus = "upcoming"
	InDelivery DeliveryStatus = "in_delivery"
	Delivered  DeliveryStatus = "delivered"
)

func statusAt(start, end, now time.Time) DeliveryStatus {
	switch {
	case now.Before(start):
		return Upcoming
	case now.Before(end):
		return InDelivery
	}
	return Delivered
}

// Reservations is one page of an asset's reservations.
type Reservations struct {
	Items []Reservation
	Total int
	Page  reporting.Page
}

// Reservations lists the asset's SUCCESSFUL FCR bids overlapping the
// window (document 1, rule 5), oldest block first, with their payments
// and pool covers.
func (s *Service) Reservations(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, pg reporting.Page) (Reservations, error) {
	now := s.d.Clock.Now().UTC()
	w, err := w.Resolve(now, reporting.MaxWindow)
	if err != nil {
		return Reservations{}, err
	}
	if pg, err = pg.Resolve(); err != nil {
		return Reservations{}, err
	}
	a, err := s.d.Assets.Get(ctx, v, assetID)
	if err != nil {
		return Reservations{}, err
	}
	list, err := s.d.Bids.List(ctx, v, assetID, bids.FCR, bids.Filter{Start: &w.Start, End: &w.End})
	if err != nil {
		return Reservations{}, err
	}
	var awarded []bids.Bid
	for _, b := range list {
		if b.Status == bids.Successful {
			awarded = append(awarded, b)
		}
	}
	out := Reservations{Total: len(awarded), Page: pg, Items: []Reservation{}}
	page := awarded[min(pg.Offset, len(awarded)):min(pg.Offset+pg.Limit, len(awarded))]
	if len(page) == 0 {
		return out, nil
	}
	from, to := page[0].Start, page[0].End
	for _, b := range page {
		from, to = minTime(from, b.Start), maxTime(to, b.End)
	}
	steps, err := s.d.Covers.List(ctx, v, portfolio.Filter{OrganizationID: a.OrganizationID, AssetID: a.PhysicalID(),
		Start: from, End: to, Limit: maxCoverSteps})
	if err != nil {
		return Reservations{}, err
	}
	for _, b := range page {
		mw := b.CommittedMW()
		out.Items = append(out.Items, Reservation{BidID: b.ID, Start: b.Start, End: b.End, AwardedMW: mw,
			SettlementPrice: b.SettlementPrice, Payment: fcr.Payment(b),
			Covers: CoversOf(b.Start, b.End, mw, a.PhysicalID(), a.IsVirtual(), steps),
			Status: statusAt(b.Start, b.End, now)})
	}
	return out, nil
}

// Measured is what the reports folded from the history share: the asset
// asked for, the battery whose measurements are read (the asset itself,
// or a virtual asset's parent), the resolved window and granularity.
type Measured struct {
	AssetID, MeasuredAssetID string
	Window                   reporting.Window
	Granularity              reporting.Granularity // "" for the activation report over the whole window
}

// DeliveryReport is FCR delivery per period.
type DeliveryReport struct {
	Measured
	Periods []DeliveryPeriod
}

// ActivationReport is the activation histogram, per period or over the
// window.
type ActivationReport struct {
	Measured
	Periods []ActivationPeriod
}

// AvailabilityReport is availability per period.
type AvailabilityReport struct {
	Measured
	Periods []AvailabilityPeriod
}

// Delivery folds the battery's history of the window into FCR delivery
// per period of granularity (default hourly).
func (s *Service) Delivery(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, granularity string) (DeliveryReport, error) {
	m, err := s.measured(ctx, v, assetID, w, granularity, reporting.Hourly)
	if err != nil {
		return DeliveryReport{}, err
	}
	f := NewDelivery(m.Window, m.Granularity)
	if err := s.scan(ctx, m, SampleNames[:5], f.Add); err != nil {
		return DeliveryReport{}, err
	}
	return DeliveryReport{Measured: m, Periods: f.Periods()}, nil
}

// Activations folds the battery's history of the window into the
// activation histogram, per period of granularity when one is given.
func (s *Service) Activations(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, granularity string) (ActivationReport, error) {
	m, err := s.measured(ctx, v, assetID, w, granularity, "")
	if err != nil {
		return ActivationReport{}, err
	}
	f := NewActivations(m.Window, m.Granularity)
	if err := s.scan(ctx, m, SampleNames[:3], f.Add); err != nil {
		return ActivationReport{}, err
	}
	return ActivationReport{Measured: m, Periods: f.Periods()}, nil
}

// Availability folds the battery's history and restrictions of the
// window into availability per period of granularity (default hourly).
func (s *Service) Availability(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, granularity string) (AvailabilityReport, error) {
	m, err := s.measured(ctx, v, assetID, w, granularity, reporting.Hourly)
	if err != nil {
		return AvailabilityReport{}, err
	}
	intervals, err := s.d.Restrictions.Intervals(ctx, v, m.MeasuredAssetID, "", restrictions.Window{From: m.Window.Start, To: m.Window.End})
	if err != nil {
		return AvailabilityReport{}, err
	}
	f := NewAvailability(m.Window, m.Granularity, intervals)
	// asset_status alone: SampleFrom wants its predecessors, absent here.
	status := func(ms int64, v []float64) { f.Add(Sample{Ms: ms, AssetStatus: v[0]}) }
	if err := s.scanRows(ctx, m, SampleNames[5:], status); err != nil {
		return AvailabilityReport{}, err
	}
	return AvailabilityReport{Measured: m, Periods: f.Periods()}, nil
}

// measured checks the window and granularity and resolves the asset: at
// most MaxMeasuredWindow long, starting no earlier than the retention
// reaches back, both bounds rounded up to the whole second.
func (s *Service) measured(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, granularity string, def reporting.Granularity) (Measured, error) {
	now := s.d.Clock.Now().UTC()
	var verr errs.Validation
	g := def
	if granularity != "" {
		var err error
		if g, err = reporting.ParseGranularity(granularity); err != nil {
			verr.Add("query.granularity", err.Error(), granularity)
		}
	}
	w, err := w.Resolve(now, MaxMeasuredWindow)
	if err != nil {
		return Measured{}, err
	}
	if oldest := now.Add(-MaxMeasuredWindow); w.Start.Before(oldest) {
		verr.Add("query.start_time", fmt.Sprintf("history reaches back 30 days: not before %s", oldest.Format(time.RFC3339)), w.Start)
	}
	if err := verr.Err(); err != nil {
		return Measured{}, err
	}
	a, err := s.d.Assets.Get(ctx, v, assetID)
	if err != nil {
		return Measured{}, err
	}
	w.Start, w.End = ceilSecond(w.Start), ceilSecond(w.End)
	return Measured{AssetID: a.ID, MeasuredAssetID: a.PhysicalID(), Window: w, Granularity: g}, nil
}

func ceilSecond(t time.Time) time.Time {
	r := t.Truncate(time.Second)
	if r.Before(t) {
		r = r.Add(time.Second)
	}
	return r.UTC()
}

// scan reads names (a prefix of SampleNames) of the measured asset's
// history in the window into Samples.
func (s *Service) scan(ctx context.Context, m Measured, names []string, add func(Sample)) error {
	return s.scanRows(ctx, m, names, func(ms int64, v []float64) { add(SampleFrom(ms, v)) })
}

func (s *Service) scanRows(ctx context.Context, m Measured, names []string, fn func(int64, []float64)) error {
	return telemetry.ScanHistory(ctx, s.d.Telemetry, m.MeasuredAssetID, m.Window.Start, m.Window.End, names, fn)
}
