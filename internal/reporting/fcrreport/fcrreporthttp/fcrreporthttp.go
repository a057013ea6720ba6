// Package fcrreporthttp serves the FCR and availability reports of an
// asset (docs/reporting.md, "FCR and availability reports"): JSON, or CSV
// for Accept: text/csv.
package fcrreporthttp

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/shopspring/decimal"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
	"atcp/internal/reporting/fcrreport"
	"atcp/internal/reporting/reportinghttp"
)

// AssetPath names the asset of a report.
type AssetPath struct {
	AssetID string `path:"asset_id" doc:"The asset id. A virtual asset lists its own FCR reservations; its measured reports are those of its battery (measured_asset_id)."`
}

// WindowQuery is a report's window.
type WindowQuery struct {
	StartTime time.Time `query:"start_time" doc:"Window start (UTC, inclusive). Default: 24 hours before end_time."`
	EndTime   time.Time `query:"end_time" doc:"Window end (UTC, exclusive). Default: the platform clock's now."`
}

func (q WindowQuery) window() reporting.Window {
	return reporting.Window{Start: q.StartTime, End: q.EndTime}
}

// GranularityQuery is a period report's granularity.
type GranularityQuery struct {
	Granularity string `query:"granularity" enum:"fifteen_minutes,hourly,daily" doc:"Period length: fifteen_minutes (UTC quarter-hours), hourly or daily (Europe/Berlin hours and days). Default hourly; the activation report without it is one histogram over the window."`
}

type reservationsInput struct {
	AssetPath
	WindowQuery
	reportinghttp.PageQuery
}

type measuredInput struct {
	AssetPath
	WindowQuery
	GranularityQuery
}

func money(p *bids.Price) *string {
	if p == nil {
		return nil
	}
	s := decimal.New(int64(*p), -2).StringFixed(2)
	return &s
}

// Reservation is one awarded FCR block.
type Reservation struct {
	BidID              string    `json:"bid_id" format:"uuid" doc:"The FCR bid awarded."`
	BlockStart         time.Time `json:"block_start" doc:"Start of the block (UTC, inclusive)."`
	BlockEnd           time.Time `json:"block_end" doc:"End of the block (UTC, exclusive)."`
	AwardedMW          float64   `json:"awarded_mw" doc:"Awarded FCR power (MW, symmetric)."`
	SettlementPrice    *string   `json:"settlement_price_eur_per_mw" doc:"Settlement price (EUR/MW per block; pay-as-cleared), decimal string with two decimals; null when the market gave none."`
	CapacityPayment    *string   `json:"capacity_payment_eur" doc:"Capacity payment in EUR: awarded MW x settlement price, exact to the cent, decimal string; null without a settlement price."`
	CoveredByPoolMW    float64   `json:"covered_by_pool_mw" doc:"MW of the award other pool members delivered when the battery could not, averaged over the block (MW x hours of cover / hours of the block); the award bears its share of the battery's shortfall."`
	UncoveredMW        float64   `json:"uncovered_mw" doc:"MW of the award nobody delivered when the battery could not, averaged over the block."`
	CoveredForOthersMW float64   `json:"covered_for_others_mw" doc:"MW of other pool members' FCR the battery delivered during the block, averaged over it; 0 for a virtual asset (its battery covers)."`
	Status             string    `json:"status" enum:"upcoming,in_delivery,delivered" doc:"Where the block stands at the platform clock's now."`
}

// ReservationList is the body of the reservations report.
type ReservationList struct {
	AssetID      string        `json:"asset_id" doc:"The asset asked for."`
	Reservations []Reservation `json:"reservations" nullable:"false" doc:"The awarded (SUCCESSFUL) FCR bids overlapping the window, oldest block first."`
	Total        int           `json:"total" doc:"Reservations in the window, all pages."`
	Limit        int           `json:"limit" doc:"The page size applied."`
	Offset       int           `json:"offset" doc:"The offset applied."`
}

// CSVHeader implements httpapi.Table.
func (ReservationList) CSVHeader() []string {
	return []string{"bid_id", "block_start", "block_end", "awarded_mw", "settlement_price_eur_per_mw", "capacity_payment_eur",
		"covered_by_pool_mw", "uncovered_mw", "covered_for_others_mw", "status"}
}

// CSVRows implements httpapi.Table.
func (l ReservationList) CSVRows() [][]string {
	out := make([][]string, len(l.Reservations))
	for i, r := range l.Reservations {
		out[i] = []string{r.BidID, httpapi.CSVInstant(r.BlockStart), httpapi.CSVInstant(r.BlockEnd), httpapi.CSVNumber(r.AwardedMW), httpapi.CSVOptional(r.SettlementPrice), httpapi.CSVOptional(r.CapacityPayment),
			httpapi.CSVNumber(r.CoveredByPoolMW), httpapi.CSVNumber(r.UncoveredMW), httpapi.CSVNumber(r.CoveredForOthersMW), r.Status}
	}
	return out
}

// Measured is what the measured reports share.
type Measured struct {
	AssetID         string    `json:"asset_id" doc:"The asset asked for."`
	MeasuredAssetID string    `json:"measured_asset_id" doc:"The battery whose measurements are reported: the asset itself, or a virtual asset's parent."`
	StartTime       time.Time `json:"start_time" doc:"The window's start as applied (UTC, rounded up to the second)."`
	EndTime         time.Time `json:"end_time" doc:"The window's end as applied (UTC, rounded up to the second)."`
}

func measured(m fcrreport.Measured) Measured {
	return Measured{AssetID: m.AssetID, MeasuredAssetID: m.MeasuredAssetID, StartTime: m.Window.Start, EndTime: m.Window.End}
}

// PeriodFields label a period.
type PeriodFields struct {
	PeriodStart time.Time `json:"period_start" doc:"Start of the period (UTC); a period the window cuts keeps its label and counts only its part inside the window."`
	PeriodEnd   time.Time `json:"period_end" doc:"End of the period (UTC, exclusive)."`
	Seconds     int       `json:"seconds" doc:"Seconds of the period inside the window."`
}

func period(p fcrreport.Period) PeriodFields {
	return PeriodFields{PeriodStart: p.Start, PeriodEnd: p.End, Seconds: p.Seconds()}
}

// DeliveryPeriod is FCR delivery in one period.
type DeliveryPeriod struct {
	PeriodFields
	ReservedSeconds         int      `json:"reserved_seconds" doc:"Seconds with an FCR reservation (fcr_upper_limit above 0)."`
	ReservedMeanMW          *float64 `json:"reserved_mean_mw" doc:"Mean reserved FCR power (MW) over the seconds with telemetry; null without any."`
	RequiredPosMWh          float64  `json:"required_pos_mwh" doc:"Energy the droop required as discharge (MWh)."`
	RequiredNegMWh          float64  `json:"required_neg_mwh" doc:"Energy the droop required as charge (MWh, a magnitude)."`
	DeliveredPosMWh         float64  `json:"delivered_pos_mwh" doc:"fcr_power_actual discharged while reserved (MWh)."`
	DeliveredNegMWh         float64  `json:"delivered_neg_mwh" doc:"fcr_power_actual charged while reserved (MWh, a magnitude)."`
	FillRatePct             *float64 `json:"fill_rate_pct" doc:"Required energy delivered, each second counting at most what it required and only in its direction, in % of the required energy; null when nothing was required."`
	SecondsOutsideTolerance int      `json:"seconds_outside_tolerance" doc:"Reserved seconds whose delivered power differed from the required by more than max(10 % of the reserve, 0.1 MW)."`
	SecondsOutsideSoCBand   int      `json:"seconds_outside_soc_band" doc:"Reserved seconds with less than reserve x 0.25 h of energy left to discharge or to charge."`
	SecondsWithoutTelemetry int      `json:"seconds_without_telemetry" doc:"Seconds of the period inside the window without a recorded measurement."`
}

// DeliveryReport is the body of the delivery report.
type DeliveryReport struct {
	Measured
	Granularity string           `json:"granularity" enum:"fifteen_minutes,hourly,daily" doc:"The period length."`
	Periods     []DeliveryPeriod `json:"periods" nullable:"false" doc:"The periods overlapping the window, in order."`
}

// CSVHeader implements httpapi.Table.
func (DeliveryReport) CSVHeader() []string {
	return []string{"period_start", "period_end", "seconds", "reserved_seconds", "reserved_mean_mw", "required_pos_mwh", "required_neg_mwh",
		"delivered_pos_mwh", "delivered_neg_mwh", "fill_rate_pct", "seconds_outside_tolerance", "seconds_outside_soc_band", "seconds_without_telemetry"}
}

// CSVRows implements httpapi.Table.
func (r DeliveryReport) CSVRows() [][]string {
	out := make([][]string, len(r.Periods))
	for i, p := range r.Periods {
		out[i] = []string{httpapi.CSVInstant(p.PeriodStart), httpapi.CSVInstant(p.PeriodEnd), strconv.Itoa(p.Seconds), strconv.Itoa(p.ReservedSeconds), httpapi.CSVOptionalNumber(p.ReservedMeanMW),
			httpapi.CSVNumber(p.RequiredPosMWh), httpapi.CSVNumber(p.RequiredNegMWh), httpapi.CSVNumber(p.DeliveredPosMWh), httpapi.CSVNumber(p.DeliveredNegMWh), httpapi.CSVOptionalNumber(p.FillRatePct),
			strconv.Itoa(p.SecondsOutsideTolerance), strconv.Itoa(p.SecondsOutsideSoCBand), strconv.Itoa(p.SecondsWithoutTelemetry)}
	}
	return out
}

// BandFigures are one frequency band's figures.
type BandFigures struct {
	Band            string   `json:"band" enum:"below_200,below_100_200,below_50_100,below_10_50,insensitivity,above_10_50,above_50_100,above_100_200,above_200" doc:"The band of the deviation f - 50 Hz: below_* under 50 Hz, above_* over it, in mHz; insensitivity is within ±10 mHz."`
	MinDeviationMHz *int     `json:"min_deviation_mhz" doc:"Lower bound of the deviation in mHz (exclusive above 50 Hz, inclusive below; inclusive for insensitivity); null: unbounded."`
	MaxDeviationMHz *int     `json:"max_deviation_mhz" doc:"Upper bound of the deviation in mHz (inclusive above 50 Hz, exclusive below; inclusive for insensitivity); null: unbounded."`
	Seconds         int      `json:"seconds" doc:"Seconds with a frequency reading in the band."`
	ReservedSeconds int      `json:"reserved_seconds" doc:"Of them, seconds with an FCR reservation."`
	MeanRequiredMW  *float64 `json:"mean_required_mw" doc:"Mean FCR power the droop required (MW, positive discharge; 0 in seconds without a reservation); null when seconds is 0."`
	MeanDeliveredMW *float64 `json:"mean_delivered_mw" doc:"Mean fcr_power_actual (MW, positive discharge); null when seconds is 0."`
	RequiredMWh     float64  `json:"required_mwh" doc:"Energy required (MWh, positive discharge)."`
	DeliveredMWh    float64  `json:"delivered_mwh" doc:"Energy delivered (MWh, positive discharge)."`
}

// ActivationPeriod is one histogram.
type ActivationPeriod struct {
	PeriodFields
	FrequencySeconds int           `json:"frequency_seconds" doc:"Seconds with a frequency reading."`
	Bands            []BandFigures `json:"bands" nullable:"false" doc:"The nine bands from the lowest frequency up."`
}

// ActivationReport is the body of the activation report.
type ActivationReport struct {
	Measured
	Granularity *string            `json:"granularity" enum:"fifteen_minutes,hourly,daily" doc:"The period length; null: one histogram over the window."`
	Periods     []ActivationPeriod `json:"periods" nullable:"false" doc:"The histograms: one per period, or one for the window."`
}

// TransformSchema lets granularity's enum admit its null.
func (ActivationReport) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

// CSVHeader implements httpapi.Table: one row per period and band.
func (ActivationReport) CSVHeader() []string {
	return []string{"period_start", "period_end", "seconds", "frequency_seconds", "band", "min_deviation_mhz", "max_deviation_mhz",
		"band_seconds", "reserved_seconds", "mean_required_mw", "mean_delivered_mw", "required_mwh", "delivered_mwh"}
}

// CSVRows implements httpapi.Table.
func (r ActivationReport) CSVRows() [][]string {
	var out [][]string
	optInt := func(v *int) string {
		if v == nil {
			return ""
		}
		return strconv.Itoa(*v)
	}
	for _, p := range r.Periods {
		for _, b := range p.Bands {
			out = append(out, []string{httpapi.CSVInstant(p.PeriodStart), httpapi.CSVInstant(p.PeriodEnd), strconv.Itoa(p.Seconds), strconv.Itoa(p.FrequencySeconds),
				b.Band, optInt(b.MinDeviationMHz), optInt(b.MaxDeviationMHz), strconv.Itoa(b.Seconds), strconv.Itoa(b.ReservedSeconds),
				httpapi.CSVOptionalNumber(b.MeanRequiredMW), httpapi.CSVOptionalNumber(b.MeanDeliveredMW), httpapi.CSVNumber(b.RequiredMWh), httpapi.CSVNumber(b.DeliveredMWh)})
		}
	}
	return out
}

// AvailabilityPeriod is availability in one period.
type AvailabilityPeriod struct {
	PeriodFields
	SecondsAvailable   int     `json:"seconds_available" doc:"Seconds with telemetry, asset_status not 0 and no restriction in force."`
	SecondsLimited     int     `json:"seconds_limited" doc:"Seconds with telemetry and asset_status not 0 under a partial power or energy limit."`
	SecondsUnavailable int     `json:"seconds_unavailable" doc:"Seconds under a full restriction: an unavailability, a power limit admitting no power, an energy limit with an empty window (counted first)."`
	SecondsStatusZero  int     `json:"seconds_status_zero" doc:"Seconds the asset reported asset_status 0 (not tradeable) without a full restriction."`
	SecondsNoTelemetry int     `json:"seconds_no_telemetry" doc:"Seconds without a recorded measurement (adapter offline, control loop stopped) and without a full restriction."`
	AvailabilityPct    float64 `json:"availability_pct" doc:"Available and limited seconds in % of the period's seconds inside the window, two decimals."`
}

// AvailabilityReport is the body of the availability report.
type AvailabilityReport struct {
	Measured
	Granularity string               `json:"granularity" enum:"fifteen_minutes,hourly,daily" doc:"The period length."`
	Periods     []AvailabilityPeriod `json:"periods" nullable:"false" doc:"The periods overlapping the window, in order."`
}

// CSVHeader implements httpapi.Table.
func (AvailabilityReport) CSVHeader() []string {
	return []string{"period_start", "period_end", "seconds", "seconds_available", "seconds_limited", "seconds_unavailable",
		"seconds_status_zero", "seconds_no_telemetry", "availability_pct"}
}

// CSVRows implements httpapi.Table.
func (r AvailabilityReport) CSVRows() [][]string {
	out := make([][]string, len(r.Periods))
	for i, p := range r.Periods {
		out[i] = []string{httpapi.CSVInstant(p.PeriodStart), httpapi.CSVInstant(p.PeriodEnd), strconv.Itoa(p.Seconds), strconv.Itoa(p.SecondsAvailable),
			strconv.Itoa(p.SecondsLimited), strconv.Itoa(p.SecondsUnavailable), strconv.Itoa(p.SecondsStatusZero),
			strconv.Itoa(p.SecondsNoTelemetry), httpapi.CSVNumber(p.AvailabilityPct)}
	}
	return out
}

type reservationsOutput struct{ Body ReservationList }
type deliveryOutput struct{ Body DeliveryReport }
type activationOutput struct{ Body ActivationReport }
type availabilityOutput struct{ Body AvailabilityReport }

const measuredErrors = " 422 (validation_failed) for a window that is empty, longer than 30 days (the history's retention) or " +
	"starting more than 30 days ago, or an unknown granularity; 404 when the asset is unknown, deleted or of another organisation."

// Register adds the four report endpoints to s.
func Register(s *httpapi.Server, svc *fcrreport.Service) {
	tags := []string{s.Tag("FCR and availability reports", "An asset's FCR reservations, FCR activation and delivery, and "+
		"availability, from its awards, cover steps, 1-second history and restrictions (docs/reporting.md).")}
	access := httpapi.Scopes(auth.ReportRead)
	errors := []int{http.StatusNotFound, http.StatusUnprocessableEntity}

	httpapi.Register(s, huma.Operation{
		OperationID: "report-fcr-reservations", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/fcr/reservations", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleReservations),
		Summary:   "List the asset's FCR reservations",
		Description: "The awarded FCR blocks overlapping [start_time, end_time) (default the last 24 hours, at most 90 days): award, " +
			"settlement price and capacity payment, the MW pool members covered for the asset and it covered for others. " +
			"422 for a bad window or page; 404 when the asset is unknown, deleted or of another organisation.",
		Errors: errors,
	}, access, func(ctx context.Context, in *reservationsInput) (*reservationsOutput, error) {
		r, err := svc.Reservations(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.window(),
			in.Page())
		if err != nil {
			return nil, err
		}
		out := &reservationsOutput{Body: ReservationList{AssetID: in.AssetID, Reservations: make([]Reservation, len(r.Items)),
			Total: r.Total, Limit: r.Page.Limit, Offset: r.Page.Offset}}
		for i, it := range r.Items {
			out.Body.Reservations[i] = Reservation{BidID: it.BidID, BlockStart: it.Start, BlockEnd: it.End, AwardedMW: it.AwardedMW,
				SettlementPrice: money(it.SettlementPrice), CapacityPayment: money(it.Payment), CoveredByPoolMW: it.CoveredByPoolMW,
				UncoveredMW: it.UncoveredMW, CoveredForOthersMW: it.CoveredForOthersMW, Status: string(it.Status)}
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "report-fcr-activations", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/fcr/activations", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleActivations),
		Summary:   "FCR activation by frequency band",
		Description: "From the 1-second history: per frequency-deviation band (each side of 50 Hz, ±10 mHz insensitivity in the middle) the " +
			"seconds in it, the mean FCR power the droop required (full reserve at ±200 mHz) and the mean delivered, the energies; " +
			"one histogram over the window, or one per period with granularity." + measuredErrors,
		Errors: errors,
	}, access, func(ctx context.Context, in *measuredInput) (*activationOutput, error) {
		r, err := svc.Activations(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.window(), in.Granularity)
		if err != nil {
			return nil, err
		}
		out := &activationOutput{Body: ActivationReport{Measured: measured(r.Measured), Periods: make([]ActivationPeriod, len(r.Periods))}}
		if r.Granularity != "" {
			g := string(r.Granularity)
			out.Body.Granularity = &g
		}
		for i, p := range r.Periods {
			ap := ActivationPeriod{PeriodFields: period(p.Period), FrequencySeconds: p.FrequencySeconds, Bands: make([]BandFigures, len(p.Bands))}
			for k, b := range p.Bands {
				band := fcrreport.Bands[b.Band]
				ap.Bands[k] = BandFigures{Band: band.Name, MinDeviationMHz: band.MinMHz, MaxDeviationMHz: band.MaxMHz, Seconds: b.Seconds,
					ReservedSeconds: b.ReservedSeconds, MeanRequiredMW: b.MeanRequiredMW, MeanDeliveredMW: b.MeanDeliveredMW,
					RequiredMWh: b.RequiredMWh, DeliveredMWh: b.DeliveredMWh}
			}
			out.Body.Periods[i] = ap
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "report-fcr-delivery", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/fcr/delivery", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleDelivery),
		Summary:   "FCR delivery per period",
		Description: "From the 1-second history, per period (granularity, default hourly; Berlin hours and days): the reserved MW, " +
			"required against delivered FCR energy each way, the fill rate, seconds outside the delivery tolerance, outside the " +
			"SoC band and without telemetry." + measuredErrors,
		Errors: errors,
	}, access, func(ctx context.Context, in *measuredInput) (*deliveryOutput, error) {
		r, err := svc.Delivery(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.window(), in.Granularity)
		if err != nil {
			return nil, err
		}
		out := &deliveryOutput{Body: DeliveryReport{Measured: measured(r.Measured), Granularity: string(r.Granularity),
			Periods: make([]DeliveryPeriod, len(r.Periods))}}
		for i, p := range r.Periods {
			out.Body.Periods[i] = DeliveryPeriod{PeriodFields: period(p.Period), ReservedSeconds: p.ReservedSeconds, ReservedMeanMW: p.ReservedMeanMW,
				RequiredPosMWh: p.RequiredPosMWh, RequiredNegMWh: p.RequiredNegMWh, DeliveredPosMWh: p.DeliveredPosMWh,
				DeliveredNegMWh: p.DeliveredNegMWh, FillRatePct: p.FillRatePct, SecondsOutsideTolerance: p.OutsideToleranceSeconds,
				SecondsOutsideSoCBand: p.OutsideSoCBandSeconds, SecondsWithoutTelemetry: p.WithoutTelemetrySeconds}
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "report-availability", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/availability", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleAvailability),
		Summary:   "Availability per period",
		Description: "From the 1-second history and the restrictions, per period (granularity, default hourly): each second counted once " +
			"as unavailable (full restriction), no telemetry, asset_status 0, limited (partial limit) or available, in that " +
			"precedence, and the availability percentage." + measuredErrors,
		Errors: errors,
	}, access, func(ctx context.Context, in *measuredInput) (*availabilityOutput, error) {
		r, err := svc.Availability(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.window(), in.Granularity)
		if err != nil {
			return nil, err
		}
		out := &availabilityOutput{Body: AvailabilityReport{Measured: measured(r.Measured), Granularity: string(r.Granularity),
			Periods: make([]AvailabilityPeriod, len(r.Periods))}}
		for i, p := range r.Periods {
			out.Body.Periods[i] = AvailabilityPeriod{PeriodFields: period(p.Period), SecondsAvailable: p.AvailableSeconds,
				SecondsLimited: p.LimitedSeconds, SecondsUnavailable: p.UnavailableSeconds, SecondsStatusZero: p.StatusZeroSeconds,
				SecondsNoTelemetry: p.NoTelemetrySeconds, AvailabilityPct: p.AvailabilityPct}
		}
		return out, nil
	})
}
