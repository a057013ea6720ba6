// Package afrrreporthttp serves the aFRR reports of an asset: its dispatch
// events, its performance per period and its capacity obligations per
// quarter-hour (docs/reporting.md).
package afrrreporthttp

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/auth"
	"atcp/internal/httpapi"
	"atcp/internal/reporting"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/reporting/reportinghttp"
)

// Dispatch is one aFRR dispatch event (document 1).
type Dispatch struct {
	EventID          string    `json:"event_id" format:"uuid" doc:"The event's id (UUIDv7)."`
	ActivationID     string    `json:"activation_id" format:"uuid" doc:"The TSO's activation: the same for every asset of its direction, quarter-hour and zone."`
	RequestID        string    `json:"request_id" format:"uuid" doc:"The dispatcher's request to this asset for that activation."`
	AssetID          string    `json:"asset_id" doc:"The battery asked (a virtual asset reads its battery's events)."`
	CreatedAtUTC     time.Time `json:"created_at_utc" doc:"When the event was recorded: the end of its quarter-hour (platform clock)."`
	Direction        string    `json:"direction" enum:"pos,neg" doc:"The aFRR direction: pos = discharge, neg = charge."`
	PlannedSetPower  float64   `json:"planned_set_power" doc:"The asset's share of the activation before the filters (MW, signed, mean over the quarter-hour)."`
	SetPower         float64   `json:"set_power" doc:"What the dispatcher sent after the filters (MW, signed, mean over the quarter-hour; 0 when skipped)."`
	Accepted         float64   `json:"accepted" doc:"What the asset delivered in aFRR: the mean of afrr_power_actual over the quarter-hour (MW, signed)."`
	Outcome          *string   `json:"outcome" enum:"partial,not_delivered,skipped" doc:"Null when the asset delivered what it was sent (within 5 % or 0.01 MW); partial, not_delivered (under 5 %), or skipped (nothing sent)."`
	FilterReason     *string   `json:"filter_reason" enum:"unavailable,power_limited,energy_limited,state_of_charge,adapter_offline,telemetry_stale,battery_control_disabled,immediate_dispatch_active,send_failed" doc:"Set when the dispatcher skipped or limited the asset (its first reason in the quarter-hour); null otherwise."`
	FilterDetails    *string   `json:"filter_details" doc:"Which restriction or state, since when, for how many seconds; null without a filter reason."`
	DispatchCategory string    `json:"dispatch_category" enum:"energy_bid,capacity_obligation,backup_cover" doc:"Why the asset was asked: its own energy bid, the energy of its capacity obligation, or a pool member's activation it covers."`
	DispatchSlotUTC  time.Time `json:"dispatch_slot_utc" doc:"Start of the 15-minute delivery period (UTC)."`
	EnergyPrice      *string   `json:"energy_price" doc:"Marginal price of the quarter-hour and direction (EUR/MWh, decimal string); null when not known."`
	CapacityPrice    *string   `json:"capacity_price" doc:"Price of the asset's aFRR capacity award in that direction (EUR/MW/h, decimal string); null without an award."`
}

// TransformSchema lets the nullable enums admit their null.
func (Dispatch) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullInEnums(s)
}

// DispatchList is the body of the dispatch report.
type DispatchList struct {
	Dispatches []Dispatch `json:"dispatches" nullable:"false" doc:"Ordered by dispatch_slot_utc, pos before neg."`
	Total      int        `json:"total" doc:"How many events the window holds."`
	Limit      int        `json:"limit" doc:"The page size applied."`
	Offset     int        `json:"offset" doc:"The offset applied."`
}

// CSVHeader implements httpapi.Table.
func (DispatchList) CSVHeader() []string {
	return []string{"event_id", "activation_id", "request_id", "asset_id", "created_at_utc", "direction", "planned_set_power",
		"set_power", "accepted", "outcome", "filter_reason", "filter_details", "dispatch_category", "dispatch_slot_utc",
		"energy_price", "capacity_price"}
}

// CSVRows implements httpapi.Table.
func (l DispatchList) CSVRows() [][]string {
	out := make([][]string, len(l.Dispatches))
	for i, d := range l.Dispatches {
		out[i] = []string{d.EventID, d.ActivationID, d.RequestID, d.AssetID, httpapi.CSVInstant(d.CreatedAtUTC), d.Direction, httpapi.CSVNumber(d.PlannedSetPower),
			httpapi.CSVNumber(d.SetPower), httpapi.CSVNumber(d.Accepted), httpapi.CSVOptional(d.Outcome), httpapi.CSVOptional(d.FilterReason), httpapi.CSVOptional(d.FilterDetails), d.DispatchCategory,
			httpapi.CSVInstant(d.DispatchSlotUTC), httpapi.CSVOptional(d.EnergyPrice), httpapi.CSVOptional(d.CapacityPrice)}
	}
	return out
}

func toDispatch(e afrrreport.Event) Dispatch {
	d := Dispatch{EventID: e.ID, ActivationID: e.ActivationID, RequestID: e.RequestID, AssetID: e.AssetID, CreatedAtUTC: e.CreatedAt,
		Direction: string(e.Direction), PlannedSetPower: e.PlannedMW, SetPower: e.SetMW, Accepted: e.AcceptedMW,
		Outcome: opt(string(e.Outcome)), FilterReason: opt(e.FilterReason), FilterDetails: opt(e.FilterDetails),
		DispatchCategory: string(e.Category), DispatchSlotUTC: e.Slot}
	if e.EnergyPrice != nil {
		d.EnergyPrice = opt(e.EnergyPrice.StringFixed(2))
	}
	if e.CapacityPrice != nil {
		d.CapacityPrice = opt(e.CapacityPrice.StringFixed(4))
	}
	return d
}

// PerformancePeriod is one aFRR performance period (document 1).
type PerformancePeriod struct {
	PeriodStart     time.Time `json:"period_start" doc:"Start of the period (UTC); hours and days are Europe/Berlin's."`
	Granularity     string    `json:"granularity" enum:"fifteen_minutes,hourly,daily" doc:"The period's length."`
	DispatchCount   int       `json:"dispatch_count" doc:"aFRR dispatch events in the period (one per quarter-hour and direction the asset was asked or skipped in)."`
	DispatchedCount int       `json:"dispatched_count" doc:"Events in which the asset was sent power."`
	FilteredCount   int       `json:"filtered_count" doc:"Events in which the dispatcher skipped or limited the asset; high against dispatch_count: often skipped."`
	TotalSetPower   float64   `json:"total_set_power" doc:"Sum of the events' set_power as magnitudes (MW, quarter-hour means)."`
	TotalAccepted   float64   `json:"total_accepted" doc:"Sum of the events' accepted power in their direction as magnitudes (MW, quarter-hour means)."`
	FillRatePct     *float64  `json:"fill_rate_pct" doc:"total_accepted / total_set_power x 100, two decimals; null when nothing was set. The primary health indicator."`
}

// Performance is the body of the performance report.
type Performance struct {
	AssetID     string              `json:"asset_id" doc:"The asset asked about."`
	Granularity string              `json:"granularity" enum:"fifteen_minutes,hourly,daily" doc:"The periods' length."`
	Periods     []PerformancePeriod `json:"periods" nullable:"false" doc:"Every period overlapping the window, in order; zero counts and a null fill rate where the asset was not asked."`
}

// CSVHeader implements httpapi.Table.
func (Performance) CSVHeader() []string {
	return []string{"period_start", "granularity", "dispatch_count", "dispatched_count", "filtered_count", "total_set_power",
		"total_accepted", "fill_rate_pct"}
}

// CSVRows implements httpapi.Table.
func (p Performance) CSVRows() [][]string {
	out := make([][]string, len(p.Periods))
	for i, r := range p.Periods {
		rate := ""
		if r.FillRatePct != nil {
			rate = httpapi.CSVNumber(*r.FillRatePct)
		}
		out[i] = []string{httpapi.CSVInstant(r.PeriodStart), r.Granularity, strconv.Itoa(r.DispatchCount), strconv.Itoa(r.DispatchedCount),
			strconv.Itoa(r.FilteredCount), httpapi.CSVNumber(r.TotalSetPower), httpapi.CSVNumber(r.TotalAccepted), rate}
	}
	return out
}

// Obligation is one quarter-hour and direction of an aFRR capacity award.
type Obligation struct {
	QuarterHour   time.Time `json:"quarter_hour" doc:"Start of the 15-minute delivery period (UTC)."`
	Direction     string    `json:"direction" enum:"pos,neg" doc:"The award's direction."`
	AwardedMW     float64   `json:"awarded_mw" doc:"The asset's SUCCESSFUL aFRR capacity awards covering the quarter-hour (MW)."`
	CapacityPrice string    `json:"capacity_price" doc:"The awards' price per MW and hour (EUR/MW/h, decimal string with four decimals): the bids' own capacity price, MW-weighted across the awards."`
	OfferedMW     float64   `json:"offered_mw" doc:"The asset's aFRR energy bids of the quarter-hour and direction that reached the market (SUBMITTED, SUCCESSFUL, REJECTED, FALLBACK) (MW)."`
	ShortfallMW   float64   `json:"shortfall_mw" doc:"awarded_mw less offered_mw, never negative: the part of the award not offered as energy (document 1, rule 8) (MW)."`
	ActivatedMW   float64   `json:"activated_mw" doc:"What the TSO activated of the SUCCESSFUL energy bids (MW, mean over the quarter-hour)."`
	MarginalPrice *string   `json:"marginal_price" doc:"The quarter-hour's marginal price of the direction (EUR/MWh, decimal string), from its cleared energy bids; null before clearing."`
	DeliveredMW   *float64  `json:"delivered_mw" doc:"What the asset's battery delivered in the direction (MW, the dispatch event's accepted power as a magnitude); null without a dispatch event."`
	Status        string    `json:"status" enum:"open,offer_shortfall,pending,delivery_shortfall,fulfilled" doc:"open: energy bids may still be placed; offer_shortfall: less offered than awarded; pending: the quarter-hour or its energy outcome is not over; delivery_shortfall: less delivered than activated; fulfilled."`
}

// ObligationList is the body of the obligation report.
type ObligationList struct {
	Obligations []Obligation `json:"obligations" nullable:"false" doc:"Ordered by quarter_hour, pos before neg."`
	Total       int          `json:"total" doc:"How many rows the window holds."`
	Limit       int          `json:"limit" doc:"The page size applied."`
	Offset      int          `json:"offset" doc:"The offset applied."`
}

// CSVHeader implements httpapi.Table.
func (ObligationList) CSVHeader() []string {
	return []string{"quarter_hour", "direction", "awarded_mw", "capacity_price", "offered_mw", "shortfall_mw", "activated_mw",
		"marginal_price", "delivered_mw", "status"}
}

// CSVRows implements httpapi.Table.
func (l ObligationList) CSVRows() [][]string {
	out := make([][]string, len(l.Obligations))
	for i, o := range l.Obligations {
		delivered := ""
		if o.DeliveredMW != nil {
			delivered = httpapi.CSVNumber(*o.DeliveredMW)
		}
		out[i] = []string{httpapi.CSVInstant(o.QuarterHour), o.Direction, httpapi.CSVNumber(o.AwardedMW), o.CapacityPrice, httpapi.CSVNumber(o.OfferedMW), httpapi.CSVNumber(o.ShortfallMW),
			httpapi.CSVNumber(o.ActivatedMW), httpapi.CSVOptional(o.MarginalPrice), delivered, o.Status}
	}
	return out
}

func toObligation(o afrrreport.Obligation) Obligation {
	out := Obligation{QuarterHour: o.Slot, Direction: string(o.Direction), AwardedMW: o.AwardedMW, CapacityPrice: o.CapacityPrice.StringFixed(4),
		OfferedMW: o.OfferedMW, ShortfallMW: o.ShortfallMW, ActivatedMW: o.ActivatedMW, DeliveredMW: o.DeliveredMW, Status: string(o.Status)}
	if o.MarginalPrice != nil {
		out.MarginalPrice = opt(o.MarginalPrice.StringFixed(2))
	}
	return out
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// WindowQuery is a report's window.
type WindowQuery struct {
	StartTime time.Time `query:"start_time" doc:"Overlap filter on the quarter-hour: items whose quarter-hour ends strictly after it. Default: 24 hours before end_time."`
	EndTime   time.Time `query:"end_time" doc:"Overlap filter on the quarter-hour: items whose quarter-hour starts strictly before it. Default: now. The window spans at most 90 days."`
}

func (q WindowQuery) window() reporting.Window {
	return reporting.Window{Start: q.StartTime, End: q.EndTime}
}

// AssetPath names the asset.
type AssetPath struct {
	AssetID string `path:"asset_id" doc:"The asset id; a virtual asset's dispatches and performance are its battery's."`
}

type listInput struct {
	AssetPath
	WindowQuery
	reportinghttp.PageQuery
}

type performanceInput struct {
	AssetPath
	WindowQuery
	Granularity string `query:"granularity" enum:"fifteen_minutes,hourly,daily" default:"hourly" doc:"Period length: UTC quarter-hours, Berlin hours or Berlin days (23 or 25 hours on the clock-change days)."`
}

type dispatchOutput struct{ Body DispatchList }
type performanceOutput struct{ Body Performance }
type obligationOutput struct{ Body ObligationList }

// Register adds the aFRR report endpoints to s.
func Register(s *httpapi.Server, svc *afrrreport.Service) {
	tags := []string{s.Tag("aFRR reports",
		"What the control loop asked each battery for in aFRR, what it sent and what the battery delivered; performance per period; the capacity obligations quarter-hour by quarter-hour.")}
	errors := []int{http.StatusNotFound, http.StatusUnprocessableEntity}
	httpapi.Register(s, huma.Operation{
		OperationID: "list-afrr-dispatches", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/afrr/dispatches", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleDispatches),
		Summary:   "List the aFRR dispatch events of an asset",
		Description: "One event per quarter-hour and direction in which the dispatcher asked the asset for aFRR energy or skipped it, " +
			"whose quarter-hour overlaps [start_time, end_time). Answers text/csv to Accept: text/csv. 422 for a window that is empty " +
			"or longer than 90 days or a limit outside 1 to 1000; 404 when the asset is unknown, deleted or of another organisation.",
		Errors: errors,
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *listInput) (*dispatchOutput, error) {
		events, total, pg, err := svc.Dispatches(ctx, httpapi.Principal(ctx), in.AssetID, in.window(), in.Page())
		if err != nil {
			return nil, err
		}
		out := &dispatchOutput{Body: DispatchList{Dispatches: make([]Dispatch, len(events)), Total: total, Limit: pg.Limit, Offset: pg.Offset}}
		for i, e := range events {
			out.Body.Dispatches[i] = toDispatch(e)
		}
		return out, nil
	})
	httpapi.Register(s, huma.Operation{
		OperationID: "get-afrr-performance", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/afrr/performance", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, examplePerformance),
		Summary:   "Get the aFRR performance of an asset per period",
		Description: "The asset's aFRR dispatch events summed per period of the granularity (default hourly) overlapping " +
			"[start_time, end_time): every period, zero-valued without events. Answers text/csv to Accept: text/csv. 422 for a " +
			"window that is empty or longer than 90 days or an unknown granularity; 404 when the asset is unknown, deleted or of " +
			"another organisation.",
		Errors: errors,
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *performanceInput) (*performanceOutput, error) {
		g := reporting.Granularity(in.Granularity)
		periods, err := svc.Performance(ctx, httpapi.Principal(ctx), in.AssetID, in.window(), g)
		if err != nil {
			return nil, err
		}
		out := &performanceOutput{Body: Performance{AssetID: in.AssetID, Granularity: string(g), Periods: make([]PerformancePeriod, len(periods))}}
		for i, p := range periods {
			out.Body.Periods[i] = PerformancePeriod{PeriodStart: p.Start, Granularity: string(p.Granularity), DispatchCount: p.DispatchCount,
				DispatchedCount: p.DispatchedCount, FilteredCount: p.FilteredCount, TotalSetPower: p.TotalSetMW,
				TotalAccepted: p.TotalAcceptedMW, FillRatePct: p.FillRatePct}
		}
		return out, nil
	})
	httpapi.Register(s, huma.Operation{
		OperationID: "list-afrr-obligations", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/afrr/obligations", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleObligations),
		Summary:   "List the aFRR capacity obligations of an asset per quarter-hour",
		Description: "Per quarter-hour overlapping [start_time, end_time) and direction in which the asset holds an aFRR capacity " +
			"award: the award and its price, the energy offered against it (document 1, rule 8), what was activated at which " +
			"marginal price and what the battery delivered. Answers text/csv to Accept: text/csv. 422 for a window that is " +
			"empty or longer than 90 days or a limit outside 1 to 1000; 404 when the asset is unknown, deleted or of another organisation.",
		Errors: errors,
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *listInput) (*obligationOutput, error) {
		rows, total, pg, err := svc.Obligations(ctx, httpapi.Principal(ctx), in.AssetID, in.window(), in.Page())
		if err != nil {
			return nil, err
		}
		out := &obligationOutput{Body: ObligationList{Obligations: make([]Obligation, len(rows)), Total: total, Limit: pg.Limit, Offset: pg.Offset}}
		for i, o := range rows {
			out.Body.Obligations[i] = toObligation(o)
		}
		return out, nil
	})
}
