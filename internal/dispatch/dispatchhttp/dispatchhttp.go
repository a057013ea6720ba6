// Package dispatchhttp serves immediate and scheduled dispatch, the
// anticipated-dispatch forecast and the schedule dispatch report.
package dispatchhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/dispatch"
	"atcp/internal/httpapi"
)

// ImmediateDispatch is an immediate dispatch record.
type ImmediateDispatch struct {
	StartTime  time.Time `json:"start_time"`
	EndTime    time.Time `json:"end_time" doc:"Exclusive."`
	SetPowerMW float64   `json:"set_power_mw" doc:"MW; positive discharges into the grid, negative charges."`
}

// ImmediateDispatchList is the body of the immediate-dispatch list.
type ImmediateDispatchList struct {
	Dispatches []ImmediateDispatch `json:"dispatches" nullable:"false"`
}

// ImmediateDispatchCreate is the body of an immediate dispatch.
type ImmediateDispatchCreate struct {
	StartTime  *time.Time `json:"start_time,omitempty" doc:"Defaults to now; must be within 1 s of now (no scheduling, no backdating). A start up to 1 s ahead is taken as now."`
	EndTime    time.Time  `json:"end_time" doc:"Exclusive; in the future, at least the configured minimum (default 10 s) after start_time."`
	SetPowerMW float64    `json:"set_power_mw" doc:"MW; positive discharges, negative charges."`
}

// ImmediateDispatchCreated is the answer to an immediate dispatch.
type ImmediateDispatchCreated struct {
	ImmediateDispatch
	Warnings []string `json:"warnings" nullable:"false"`
}

// ScheduledDispatchEvent is a stored scheduled-dispatch event.
type ScheduledDispatchEvent struct {
	ControlMode  string    `json:"control_mode" enum:"passive,bess_only,bess_and_poc,poc_only"`
	SetPowerMW   *float64  `json:"set_power_mw" nullable:"true" deprecated:"true" doc:"Deprecated alias of bess_power_mw."`
	BESSPowerMW  *float64  `json:"bess_power_mw" nullable:"true"`
	PoCPowerMW   *float64  `json:"poc_power_mw" nullable:"true"`
	DeliveryTime time.Time `json:"delivery_time" doc:"Start of the 15-minute UTC delivery block of set_time."`
	SetTime      time.Time `json:"set_time" doc:"When the target takes effect (whole seconds); it holds until the next event of the block."`
}

// ScheduledDispatchList is the body of the scheduled-dispatch responses.
type ScheduledDispatchList struct {
	Schedules []ScheduledDispatchEvent `json:"schedules" nullable:"false"`
	Warnings  []string                 `json:"warnings" nullable:"false"`
}

// ScheduledDispatchTarget is one target of a scheduled-dispatch request.
type ScheduledDispatchTarget struct {
	ControlMode  string    `json:"control_mode,omitempty" enum:"passive,bess_only,bess_and_poc,poc_only" doc:"Default bess_only."`
	BESSPowerMW  *float64  `json:"bess_power_mw,omitempty" nullable:"true" doc:"Battery target, MW (charging negative)."`
	PowerMW      *float64  `json:"power_mw,omitempty" nullable:"true" deprecated:"true" doc:"Deprecated alias of bess_power_mw; when both are given they must be equal."`
	PoCPowerMW   *float64  `json:"poc_power_mw,omitempty" nullable:"true" doc:"Point-of-connection target, MW (import negative)."`
	PVPowerMW    *float64  `json:"pv_power_mw,omitempty" nullable:"true" doc:"Reserved: must be null."`
	DeliveryTime time.Time `json:"delivery_time" doc:"When the target takes effect; sub-second parts are truncated."`
}

// ScheduledDispatchRequest is the body of a scheduled-dispatch PUT.
type ScheduledDispatchRequest struct {
	Schedules []ScheduledDispatchTarget `json:"schedules" minItems:"1"`
}

// AnticipatedDispatch is the forecast of the scheduled power at an instant.
type AnticipatedDispatch struct {
	SetTime    time.Time `json:"set_time" doc:"set_time of the event in force at the instant: the most recent event at or before it in its delivery block, or the block start (the reset to 0 MW) when the block has none by then"`
	SetPowerMW float64   `json:"set_power_mw"`
}

// ScheduleDispatchReportEntry is one schedule dispatch event of the
// report: document 1's fields, one name per fact, and the two a reader
// needs to place set_power_mw (its mode and delivery block).
type ScheduleDispatchReportEntry struct {
	EventID             string     `json:"event_id" doc:"Stable id of the entry (asset and set_time_utc)."`
	RequestID           *string    `json:"request_id" nullable:"true" doc:"Request id of the PUT that stored the target."`
	SourceID            *string    `json:"source_id" nullable:"true" doc:"Subject (integration or user) that sent the target."`
	AssetID             string     `json:"asset_id"`
	CreatedAtUTC        time.Time  `json:"created_at_utc" doc:"When the outcome was emitted."`
	SetTimeUTC          *time.Time `json:"set_time_utc" nullable:"true" doc:"When the target took effect (always set here)."`
	Status              string     `json:"status" enum:"full,clipped,rejected,failed,unknown"`
	SetPowerMW          *float64   `json:"set_power_mw" nullable:"true" doc:"Requested power, in the terms of effective_set_power_mw: the point-of-connection target in bess_and_poc and poc_only, the battery target in bess_only, 0 in passive."`
	EffectiveSetPowerMW float64    `json:"effective_set_power_mw" doc:"Power dispatched: at the point of connection in bess_and_poc and poc_only, of the battery otherwise."`
	Outcome             string     `json:"outcome" doc:"Raw outcome: success (full or clipped), rejected, error (failed), unknown."`
	Message             *string    `json:"message" nullable:"true" doc:"Why it was clipped, rejected, failed or unknown; null for full."`
	ControlMode         string     `json:"control_mode" enum:"passive,bess_only,bess_and_poc,poc_only" doc:"The target's mode: says whether set_power_mw is a battery or a point-of-connection power."`
	DeliveryTime        time.Time  `json:"delivery_time" doc:"Start of the 15-minute delivery block of set_time_utc."`
}

// ScheduleDispatchReport is the body of the schedule dispatch report.
type ScheduleDispatchReport struct {
	Dispatches []ScheduleDispatchReportEntry `json:"dispatches" nullable:"false"`
}

// CSVHeader and CSVRows are the report's CSV form (httpapi.Table).
func (r ScheduleDispatchReport) CSVHeader() []string {
	return []string{"event_id", "request_id", "source_id", "asset_id", "created_at_utc", "set_time_utc", "status", "set_power_mw",
		"effective_set_power_mw", "outcome", "message", "control_mode", "delivery_time"}
}

func (r ScheduleDispatchReport) CSVRows() [][]string {
	out := make([][]string, len(r.Dispatches))
	for i, e := range r.Dispatches {
		out[i] = []string{e.EventID, httpapi.CSVOptional(e.RequestID), httpapi.CSVOptional(e.SourceID), e.AssetID,
			httpapi.CSVInstant(e.CreatedAtUTC), httpapi.CSVOptionalInstant(e.SetTimeUTC), e.Status, httpapi.CSVOptionalNumber(e.SetPowerMW),
			httpapi.CSVNumber(e.EffectiveSetPowerMW), e.Outcome, httpapi.CSVOptional(e.Message), e.ControlMode, httpapi.CSVInstant(e.DeliveryTime)}
	}
	return out
}

type immediateListInput struct {
	AssetID   string    `path:"asset_id"`
	SortBy    string    `query:"sort_by" enum:"start_time,end_time" default:"start_time"`
	SortOrder string    `query:"sort_order" enum:"asc,desc" default:"asc"`
	StartTime time.Time `query:"start_time" doc:"Overlap filter: dispatches ending strictly after this instant; at most 30 days back (the default)."`
	EndTime   time.Time `query:"end_time" doc:"Overlap filter: dispatches starting strictly before this instant."`
}

type assetInput struct {
	AssetID string `path:"asset_id"`
}

type immediateCreateInput struct {
	AssetID string `path:"asset_id"`
	Body    ImmediateDispatchCreate
}

type scheduledGetInput struct {
	AssetID   string    `path:"asset_id"`
	StartTime time.Time `query:"start_time" doc:"On a 15-minute mark; given together with end_time. Both omitted: the current UTC day."`
	EndTime   time.Time `query:"end_time" doc:"On a 15-minute mark, exclusive."`
}

type scheduledPutInput struct {
	AssetID string `path:"asset_id"`
	Body    ScheduledDispatchRequest
}

type anticipatedInput struct {
	AssetID string `path:"asset_id"`
	Seconds int64  `query:"seconds_into_the_future" required:"true" minimum:"0" maximum:"86400" doc:"Whole seconds from now, 0 to 86400."`
}

type reportInput struct {
	AssetID   string    `path:"asset_id"`
	StartTime time.Time `query:"start_time" required:"true" doc:"Inclusive, on a 15-minute UTC mark."`
	EndTime   time.Time `query:"end_time" required:"true" doc:"Exclusive, on a 15-minute UTC mark; at most 1 hour after start_time."`
}

func toImmediate(im dispatch.Immediate) ImmediateDispatch {
	return ImmediateDispatch{StartTime: im.Start, EndTime: im.End, SetPowerMW: im.SetPowerMW}
}

func toEvent(e dispatch.Event) ScheduledDispatchEvent {
	return ScheduledDispatchEvent{ControlMode: string(e.ControlMode), SetPowerMW: e.BESSPowerMW, BESSPowerMW: e.BESSPowerMW,
		PoCPowerMW: e.PoCPowerMW, DeliveryTime: e.DeliveryTime, SetTime: e.SetTime}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// eventIDs names report entries: one entry per asset and set_time.
var eventIDs = uuid.MustParse("6f1c3b52-8f3e-4d8e-9a57-2f4d1f0b7c11")

var rawOutcome = map[dispatch.Status]string{
	dispatch.Full: "success", dispatch.Clipped: "success", dispatch.Rejected: "rejected", dispatch.Failed: "error", dispatch.Unknown: "unknown",
}

func toReportEntry(o dispatch.Outcome) ScheduleDispatchReportEntry {
	set := o.SetTime
	raw, ok := rawOutcome[o.Status]
	if !ok {
		raw = string(o.Status)
	}
	var msg *string
	if o.Status != dispatch.Full {
		msg = optional(o.Reason)
	}
	return ScheduleDispatchReportEntry{
		EventID:   uuid.NewSHA1(eventIDs, []byte(o.AssetID+"|"+o.SetTime.Format(time.RFC3339Nano))).String(),
		RequestID: optional(o.RequestID), SourceID: optional(o.SourceID), AssetID: o.AssetID,
		CreatedAtUTC: o.EmittedAt, SetTimeUTC: &set, Status: string(o.Status), SetPowerMW: o.RequestedMW(),
		EffectiveSetPowerMW: o.EffectivePowerMW, Outcome: raw, Message: msg,
		ControlMode: string(o.ControlMode), DeliveryTime: o.DeliveryTime,
	}
}

const virtualNote = " A virtual asset id is 409 virtual_asset: dispatch steers the physical asset."

// Register adds the dispatch endpoints and the schedule dispatch report to s.
func Register(s *httpapi.Server, svc *dispatch.Service) {
	tags := []string{s.Tag("Dispatch", "Immediate and scheduled dispatch of an asset's power, and the anticipated dispatch.")}
	immediate := "/v1/assets/{asset_id}/dispatch/immediate"
	scheduled := "/v1/assets/{asset_id}/dispatch/scheduled"

	httpapi.Register(s, huma.Operation{
		OperationID: "list-immediate-dispatches", Method: http.MethodGet, Path: immediate, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleImmediateList),
		Summary:   "List immediate dispatches",
		Description: "History of the last 30 days. start_time and end_time filter by overlap with [start_time, end_time): a dispatch " +
			"ending exactly at start_time or starting exactly at end_time is excluded. 422 for a start_time more than 30 days back " +
			"or an empty window." + virtualNote,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.DispatchRead), func(ctx context.Context, in *immediateListInput) (*httpapi.Output[ImmediateDispatchList], error) {
		list, err := svc.Immediates(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID,
			dispatch.Window{From: in.StartTime, To: in.EndTime}, dispatch.ImmediateSort(in.SortBy), dispatch.Order(in.SortOrder))
		if err != nil {
			return nil, err
		}
		out := ImmediateDispatchList{Dispatches: make([]ImmediateDispatch, len(list))}
		for i, im := range list {
			out.Dispatches[i] = toImmediate(im)
		}
		return &httpapi.Output[ImmediateDispatchList]{Body: out}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create-immediate-dispatch", Method: http.MethodPost, Path: immediate, Tags: tags,
		RequestBody: httpapi.RequestExample(exampleImmediateCreate), Responses: httpapi.ResponseExample(http.StatusOK, exampleImmediateCreated),
		Summary: "Start an immediate dispatch",
		Description: "An unrestricted emergency override: unavailabilities, power limits and market reservations are neither checked " +
			"nor enforced. It replaces the dispatch in force (whose end_time becomes this start_time). 400 window_too_short when " +
			"end_time - start_time is below the minimum (default 10 s); 422 for a start_time not within 1 s of now, an end_time " +
			"not in the future or |set_power_mw| above twice usable_power_capacity_mw; above the capacity itself a warning, or 409 " +
			"strict_validation when the asset has strict_validation. 409 control_disabled when battery control is off." + virtualNote,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.DispatchWrite), func(ctx context.Context, in *immediateCreateInput) (*httpapi.Output[ImmediateDispatchCreated], error) {
		im, warnings, err := svc.StartImmediate(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, dispatch.ImmediateDraft{
			Start: in.Body.StartTime, End: in.Body.EndTime, SetPowerMW: in.Body.SetPowerMW})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[ImmediateDispatchCreated]{Body: ImmediateDispatchCreated{ImmediateDispatch: toImmediate(im), Warnings: httpapi.NonNil(warnings)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "disable-immediate-dispatch", Method: http.MethodPut, Path: immediate + "/disable", Tags: tags,
		Responses:   httpapi.ResponseExample(http.StatusOK, exampleImmediateDisabled),
		Summary:     "End the immediate dispatch in force",
		Description: "Sets its end_time to now and returns it; the scheduled wholesale power applies again. 404 when none is in force. Allowed while battery control is off, so that an override cannot resume when control returns." + virtualNote,
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.DispatchWrite), func(ctx context.Context, in *assetInput) (*httpapi.Output[ImmediateDispatch], error) {
		im, err := svc.DisableImmediate(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[ImmediateDispatch]{Body: toImmediate(im)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-scheduled-dispatch", Method: http.MethodGet, Path: scheduled, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleScheduled),
		Summary:   "Read scheduled dispatch events",
		Description: "Events with set_time in [start_time, end_time), ordered by set_time. Power holds until the next event of the " +
			"same 15-minute block and resets to 0 MW at each block start. Both bounds or neither (the current UTC day), on " +
			"15-minute marks, at most 30 days back (422 otherwise). Currently control_mode is reported as bess_only and " +
			"poc_power_mw as null for all events. warnings name immediate dispatches overriding the window." + virtualNote,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.DispatchRead), func(ctx context.Context, in *scheduledGetInput) (*httpapi.Output[ScheduledDispatchList], error) {
		list, warnings, err := svc.ScheduledEvents(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.StartTime, in.EndTime)
		if err != nil {
			return nil, err
		}
		out := ScheduledDispatchList{Schedules: make([]ScheduledDispatchEvent, len(list)), Warnings: httpapi.NonNil(warnings)}
		for i, e := range list {
			out.Schedules[i] = toEvent(dispatch.Reported(e))
		}
		return &httpapi.Output[ScheduledDispatchList]{Body: out}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "put-scheduled-dispatch", Method: http.MethodPut, Path: scheduled, Tags: tags,
		RequestBody: httpapi.RequestExample(exampleScheduledPut), Responses: httpapi.ResponseExample(http.StatusOK, exampleScheduled),
		Summary: "Replace scheduled dispatch targets",
		Description: "Each target holds from its delivery_time (whole seconds) until the next target of the request, the last until " +
			"the end of its block; every 15-minute block from the first target's to the last target's is replaced in full. The " +
			"whole request is refused when any target is beyond the end of the next UTC day, overlaps another within the same " +
			"second, breaks the control_mode setpoint matrix or exceeds twice usable_power_capacity_mw (422, naming " +
			"body.schedules[i].<field>), or lands in a block starting in under 6 minutes (409 gate_closed). Returns the stored " +
			"events of the replaced blocks (including events carried over to block starts)." + virtualNote,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.DispatchWrite), func(ctx context.Context, in *scheduledPutInput) (*httpapi.Output[ScheduledDispatchList], error) {
		targets := make([]dispatch.Target, len(in.Body.Schedules))
		for i, t := range in.Body.Schedules {
			targets[i] = dispatch.Target{ControlMode: t.ControlMode, BESSPowerMW: t.BESSPowerMW, PowerMW: t.PowerMW,
				PoCPowerMW: t.PoCPowerMW, PVPowerMW: t.PVPowerMW, DeliveryTime: t.DeliveryTime}
		}
		sch, err := svc.PutSchedule(ctx, *httpapi.Principal(ctx), in.AssetID, httpapi.RequestID(ctx), targets)
		if err != nil {
			return nil, err
		}
		out := ScheduledDispatchList{Schedules: make([]ScheduledDispatchEvent, len(sch.Events)), Warnings: httpapi.NonNil(sch.Warnings)}
		for i, e := range sch.Events {
			out.Schedules[i] = toEvent(e)
		}
		return &httpapi.Output[ScheduledDispatchList]{Body: out}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-anticipated-dispatch", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/forecasts/anticipated_dispatch",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleAnticipated),
		Tags:      tags, Summary: "Forecast the scheduled power at a future instant",
		Description: "The step-interpolated scheduled battery power at now + seconds_into_the_future: the most recent event at or " +
			"before that instant in its delivery block, with that event's set_time; the block start and 0 MW when there is none." + virtualNote,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.DispatchRead), func(ctx context.Context, in *anticipatedInput) (*httpapi.Output[AnticipatedDispatch], error) {
		setTime, mw, err := svc.Anticipated(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, time.Duration(in.Seconds)*time.Second)
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[AnticipatedDispatch]{Body: AnticipatedDispatch{SetTime: setTime, SetPowerMW: mw}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-schedule-dispatch-report", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/reports/schedule/dispatches",
		Responses: httpapi.ResponseExample(http.StatusOK, exampleReport),
		Tags:      []string{s.Tag("Reporting", "Reports of what was dispatched.")}, Summary: "Schedule dispatch report",
		Description: "What became of each scheduled target with set_time in [start_time, end_time), ordered by set_time. Both " +
			"bounds 15-minute aligned UTC, start before end, at most 1 hour apart (422 otherwise). An outcome is visible as soon " +
			"as the control loop has executed the target." + virtualNote,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.ReportRead), func(ctx context.Context, in *reportInput) (*httpapi.Output[ScheduleDispatchReport], error) {
		list, err := svc.Report(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.StartTime, in.EndTime)
		if err != nil {
			return nil, err
		}
		out := ScheduleDispatchReport{Dispatches: make([]ScheduleDispatchReportEntry, len(list))}
		for i, o := range list {
			out.Dispatches[i] = toReportEntry(o)
		}
		return &httpapi.Output[ScheduleDispatchReport]{Body: out}, nil
	})
}
