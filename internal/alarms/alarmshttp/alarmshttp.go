// Package alarmshttp serves the alarm area: the rule catalogue, the
// alarm history and active alarms of an organisation and of an asset,
// and acknowledge, mute and unmute (docs/alarms.md).
package alarmshttp

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/alarms"
	"atcp/internal/auth"
	"atcp/internal/httpapi"
)

// AlarmRule is an entry of the rule catalogue.
type AlarmRule struct {
	RuleID            string `json:"rule_id" doc:"Such as TELEMETRY-001; the second half of an alarm key."`
	Name              string `json:"name"`
	AlarmType         string `json:"alarm_type" doc:"What the rule watches: communication, grid, energy, control, market, limit, data_quality."`
	Severity          string `json:"severity" enum:"INFO,WARNING,MAJOR,CRITICAL"`
	Description       string `json:"description" doc:"The condition the rule raises an alarm on."`
	SustainSeconds    int64  `json:"sustain_seconds" doc:"How long (platform seconds) the condition must hold before an alarm opens."`
	ClearSeconds      int64  `json:"clear_seconds" doc:"How long the clearing condition must hold before the alarm resolves."`
	ClearingCondition string `json:"clearing_condition"`
	Pages             bool   `json:"pages" doc:"An unmuted alarm of this rule opens an incident on a production-critical asset."`
}

// AlarmRuleCatalog is the rule catalogue.
type AlarmRuleCatalog struct {
	CatalogVersion string      `json:"catalog_version" doc:"Changes whenever a rule is added, removed or changes its condition, severity or timing."`
	GeneratedAt    time.Time   `json:"generated_at"`
	RuleCount      int         `json:"rule_count"`
	Rules          []AlarmRule `json:"rules" nullable:"false"`
}

// Evidence is what a rule saw when an event was recorded.
type Evidence struct {
	Facts            []string   `json:"facts" nullable:"false" doc:"Short sentences with the numbers the rule judged."`
	MeasuredAt       *time.Time `json:"measured_at,omitempty" doc:"When the measurements behind the facts were taken."`
	SustainedSeconds int64      `json:"sustained_seconds" doc:"alarm.opened: how long the condition had held; alarm.resolved: how long it had been clear."`
}

// AlarmEvent is a record of the alarm history, with the lifecycle's
// state right after it.
type AlarmEvent struct {
	EventID        int64      `json:"event_id" doc:"Increases in the order events are recorded."`
	EventType      string     `json:"event_type" enum:"alarm.opened,alarm.resolved,alarm.acknowledged,alarm.muted,alarm.unmuted"`
	AlarmID        string     `json:"alarm_id" format:"uuid" doc:"The lifecycle: a new alarm_id each time the key opens."`
	AlarmKey       string     `json:"alarm_key" doc:"asset_id:rule_id"`
	AssetID        string     `json:"asset_id"`
	OrganizationID string     `json:"organization_id"`
	RuleID         string     `json:"rule_id"`
	AlarmType      string     `json:"alarm_type"`
	Severity       string     `json:"severity" enum:"INFO,WARNING,MAJOR,CRITICAL"`
	Message        string     `json:"message"`
	Evidence       Evidence   `json:"evidence"`
	Timestamp      time.Time  `json:"timestamp"`
	OpenedAt       time.Time  `json:"opened_at"`
	ResolvedAt     *time.Time `json:"resolved_at" nullable:"true"`
	DatePartition  string     `json:"date_partition" format:"date" doc:"The Europe/Berlin calendar day of timestamp."`
	Muted          bool       `json:"muted"`
	Acknowledged   bool       `json:"acknowledged"`
	AcknowledgedBy *string    `json:"acknowledged_by" nullable:"true"`
	AcknowledgedAt *time.Time `json:"acknowledged_at" nullable:"true"`
	UserID         *string    `json:"user_id" nullable:"true" doc:"Who acknowledged, muted or unmuted; null for what the platform records."`
	UserEmail      *string    `json:"user_email" nullable:"true"`
	Notes          *string    `json:"notes" nullable:"true"`
	MuteReason     *string    `json:"mute_reason" nullable:"true"`
	MuteExpiresAt  *time.Time `json:"mute_expires_at" nullable:"true"`
}

// AlarmEventList is a page of the alarm history.
type AlarmEventList struct {
	Alarms []AlarmEvent `json:"alarms" nullable:"false"`
	Total  int          `json:"total" doc:"Events matching the query in all pages."`
	Limit  int          `json:"limit"`
	Offset int          `json:"offset"`
}

// ActiveAlarm is an open alarm as it stands.
type ActiveAlarm struct {
	AlarmID        string     `json:"alarm_id" format:"uuid"`
	AlarmKey       string     `json:"alarm_key"`
	AssetID        string     `json:"asset_id"`
	OrganizationID string     `json:"organization_id"`
	RuleID         string     `json:"rule_id"`
	RuleName       string     `json:"rule_name"`
	AlarmType      string     `json:"alarm_type"`
	Severity       string     `json:"severity" enum:"INFO,WARNING,MAJOR,CRITICAL"`
	Message        string     `json:"message"`
	Evidence       Evidence   `json:"evidence" doc:"What the rule saw when the alarm opened."`
	OpenedAt       time.Time  `json:"opened_at"`
	Acknowledged   bool       `json:"acknowledged"`
	AcknowledgedBy *string    `json:"acknowledged_by" nullable:"true"`
	AcknowledgedAt *time.Time `json:"acknowledged_at" nullable:"true"`
	Notes          *string    `json:"notes" nullable:"true" doc:"The acknowledgement's notes."`
	Muted          bool       `json:"muted"`
	MuteReason     *string    `json:"mute_reason" nullable:"true"`
	MuteExpiresAt  *time.Time `json:"mute_expires_at" nullable:"true"`
	MutedBy        *string    `json:"muted_by" nullable:"true"`
	MutedAt        *time.Time `json:"muted_at" nullable:"true"`
}

// ActiveAlarmList is a page of active alarms.
type ActiveAlarmList struct {
	Alarms []ActiveAlarm `json:"alarms" nullable:"false"`
	Total  int           `json:"total"`
	Limit  int           `json:"limit"`
	Offset int           `json:"offset"`
}

// AcknowledgeBody is the body of acknowledge.
type AcknowledgeBody struct {
	Notes   *string `json:"notes,omitempty" maxLength:"2000"`
	AlarmID *string `json:"alarm_id,omitempty" format:"uuid" doc:"Optimistic concurrency: the alarm_id read; 409 alarm_id_mismatch when the key has another alarm now."`
}

// Acknowledgement is the answer to acknowledge.
type Acknowledgement struct {
	EventID        int64     `json:"event_id" doc:"The alarm.acknowledged event (the first one when acknowledged before)."`
	AlarmKey       string    `json:"alarm_key"`
	AlarmID        string    `json:"alarm_id" format:"uuid"`
	Acknowledged   bool      `json:"acknowledged"`
	AcknowledgedBy string    `json:"acknowledged_by"`
	AcknowledgedAt time.Time `json:"acknowledged_at"`
}

// MuteBody is the body of mute.
type MuteBody struct {
	Reason          string     `json:"reason" minLength:"1" maxLength:"500"`
	DurationSeconds *int64     `json:"duration_seconds,omitempty" minimum:"1" maximum:"604800" doc:"How long from now; give this or expires_at."`
	ExpiresAt       *time.Time `json:"expires_at,omitempty" doc:"When the mute ends, at most 7 days ahead; give this or duration_seconds."`
	AlarmID         *string    `json:"alarm_id,omitempty" format:"uuid" doc:"Optimistic concurrency, as for acknowledge."`
}

// MuteResult is the answer to mute.
type MuteResult struct {
	EventID       int64     `json:"event_id"`
	AlarmKey      string    `json:"alarm_key"`
	AlarmID       string    `json:"alarm_id" format:"uuid"`
	Muted         bool      `json:"muted"`
	MuteReason    string    `json:"mute_reason"`
	MuteExpiresAt time.Time `json:"mute_expires_at"`
	MutedBy       string    `json:"muted_by"`
	MutedAt       time.Time `json:"muted_at"`
}

// UnmuteBody is the body of unmute.
type UnmuteBody struct {
	Notes   *string `json:"notes,omitempty" maxLength:"2000"`
	AlarmID *string `json:"alarm_id,omitempty" format:"uuid" doc:"Optimistic concurrency, as for acknowledge."`
}

// UnmuteResult is the answer to unmute.
type UnmuteResult struct {
	EventID   int64     `json:"event_id"`
	AlarmKey  string    `json:"alarm_key"`
	AlarmID   string    `json:"alarm_id" format:"uuid"`
	Muted     bool      `json:"muted"`
	UnmutedBy string    `json:"unmuted_by"`
	UnmutedAt time.Time `json:"unmuted_at"`
}

type noInput struct{}

const orgDoc = "Optional for a caller of one organisation (its own; another is 403 organization_not_permitted); required for " +
	"platform administrators, who see every organisation (422 without it)."

// The inputs repeat their query parameters: huma reads no embedded ones.

type listInput struct {
	OrganizationID string    `query:"organization_id" doc:"The organisation: optional for a caller of one organisation (its own; another is 403 organization_not_permitted), required for platform administrators, who see every organisation (422 without it)."`
	StartTime      time.Time `query:"start_time" required:"true" doc:"Events with a timestamp at or after this instant."`
	EndTime        time.Time `query:"end_time" required:"true" doc:"Events with a timestamp before this instant; after start_time."`
	EventType      []string  `query:"event_type,explode" enum:"alarm.opened,alarm.resolved,alarm.acknowledged,alarm.muted,alarm.unmuted" doc:"Only these event types; repeat the parameter for several."`
	Severity       []string  `query:"severity,explode" enum:"INFO,WARNING,MAJOR,CRITICAL" doc:"Only these severities; repeat the parameter for several."`
	Limit          int       `query:"limit" default:"100" minimum:"1" maximum:"1000" doc:"Page size, at most 1000."`
	Offset         int       `query:"offset" default:"0" minimum:"0"`
}

type orgHistoryInput struct {
	OrganizationID string    `path:"organization_id"`
	StartTime      time.Time `query:"start_time" required:"true" doc:"Events with a timestamp at or after this instant."`
	EndTime        time.Time `query:"end_time" required:"true" doc:"Events with a timestamp before this instant; after start_time."`
	EventType      []string  `query:"event_type,explode" enum:"alarm.opened,alarm.resolved,alarm.acknowledged,alarm.muted,alarm.unmuted" doc:"Only these event types; repeat the parameter for several."`
	Severity       []string  `query:"severity,explode" enum:"INFO,WARNING,MAJOR,CRITICAL" doc:"Only these severities; repeat the parameter for several."`
	Limit          int       `query:"limit" default:"100" minimum:"1" maximum:"1000" doc:"Page size, at most 1000."`
	Offset         int       `query:"offset" default:"0" minimum:"0"`
}

type orgActiveInput struct {
	OrganizationID string   `path:"organization_id"`
	Severity       []string `query:"severity,explode" enum:"INFO,WARNING,MAJOR,CRITICAL" doc:"Only these severities; repeat the parameter for several."`
	Limit          int      `query:"limit" default:"100" minimum:"1" maximum:"1000" doc:"Page size, at most 1000."`
	Offset         int      `query:"offset" default:"0" minimum:"0"`
}

type assetHistoryInput struct {
	AssetID   string    `path:"asset_id"`
	StartTime time.Time `query:"start_time" required:"true" doc:"Events with a timestamp at or after this instant."`
	EndTime   time.Time `query:"end_time" required:"true" doc:"Events with a timestamp before this instant; after start_time."`
	EventType []string  `query:"event_type,explode" enum:"alarm.opened,alarm.resolved,alarm.acknowledged,alarm.muted,alarm.unmuted" doc:"Only these event types; repeat the parameter for several."`
	Severity  []string  `query:"severity,explode" enum:"INFO,WARNING,MAJOR,CRITICAL" doc:"Only these severities; repeat the parameter for several."`
	Limit     int       `query:"limit" default:"100" minimum:"1" maximum:"1000" doc:"Page size, at most 1000."`
	Offset    int       `query:"offset" default:"0" minimum:"0"`
}

type assetActiveInput struct {
	AssetID  string   `path:"asset_id"`
	Severity []string `query:"severity,explode" enum:"INFO,WARNING,MAJOR,CRITICAL" doc:"Only these severities; repeat the parameter for several."`
	Limit    int      `query:"limit" default:"100" minimum:"1" maximum:"1000" doc:"Page size, at most 1000."`
	Offset   int      `query:"offset" default:"0" minimum:"0"`
}

type acknowledgeInput struct {
	AlarmKey string `path:"alarm_key" doc:"The alarm key asset_id:rule_id."`
	Body     *AcknowledgeBody
}

type muteInput struct {
	AlarmKey string `path:"alarm_key" doc:"The alarm key asset_id:rule_id."`
	Body     MuteBody
}

type unmuteInput struct {
	AlarmKey string `path:"alarm_key" doc:"The alarm key asset_id:rule_id."`
	Body     *UnmuteBody
}

// query is the domain's query of the parameters.
func query(org string, from, to time.Time, types, severities []string, limit, offset int) alarms.Query {
	q := alarms.Query{OrganizationID: org, From: from, To: to, Limit: limit, Offset: offset}
	for _, t := range types {
		q.Types = append(q.Types, alarms.EventType(t))
	}
	for _, s := range severities {
		q.Severities = append(q.Severities, alarms.Severity(s))
	}
	return q
}

func toEvidence(e alarms.Evidence) Evidence {
	return Evidence{Facts: httpapi.NonNil(e.Facts), MeasuredAt: e.MeasuredAt, SustainedSeconds: e.SustainedSeconds}
}

// EventOf is e's wire form, also the message of the live stream.
func EventOf(e alarms.Event) AlarmEvent {
	return AlarmEvent{
		EventID: e.ID, EventType: string(e.Type), AlarmID: e.AlarmID, AlarmKey: e.Key.String(), AssetID: e.Key.AssetID,
		OrganizationID: e.OrganizationID, RuleID: e.Key.RuleID, AlarmType: e.AlarmType, Severity: string(e.Severity),
		Message: e.Message, Evidence: toEvidence(e.Evidence), Timestamp: e.Timestamp, OpenedAt: e.OpenedAt,
		ResolvedAt: e.ResolvedAt, DatePartition: e.DatePartition(), Muted: e.Muted, Acknowledged: e.Acknowledged,
		AcknowledgedBy: e.AcknowledgedBy, AcknowledgedAt: e.AcknowledgedAt, UserID: e.UserID, UserEmail: e.UserEmail,
		Notes: e.Notes, MuteReason: e.MuteReason, MuteExpiresAt: e.MuteExpiresAt,
	}
}

func toActive(l alarms.Lifecycle) ActiveAlarm {
	name := l.Key.RuleID
	if r, ok := alarms.RuleByID(l.Key.RuleID); ok {
		name = r.Name
	}
	return ActiveAlarm{
		AlarmID: l.AlarmID, AlarmKey: l.Key.String(), AssetID: l.Key.AssetID, OrganizationID: l.OrganizationID,
		RuleID: l.Key.RuleID, RuleName: name, AlarmType: l.AlarmType, Severity: string(l.Severity), Message: l.Message,
		Evidence: toEvidence(l.Evidence), OpenedAt: l.OpenedAt, Acknowledged: l.Acknowledged,
		AcknowledgedBy: l.AcknowledgedBy, AcknowledgedAt: l.AcknowledgedAt, Notes: l.AckNotes, Muted: l.Muted,
		MuteReason: l.MuteReason, MuteExpiresAt: l.MuteExpiresAt, MutedBy: l.MutedBy, MutedAt: l.MutedAt,
	}
}

func eventList(p alarms.Page[alarms.Event]) *httpapi.Output[AlarmEventList] {
	out := &httpapi.Output[AlarmEventList]{Body: AlarmEventList{Alarms: make([]AlarmEvent, len(p.Items)), Total: p.Total,
		Limit: p.Limit, Offset: p.Offset}}
	for i, e := range p.Items {
		out.Body.Alarms[i] = EventOf(e)
	}
	return out
}

func activeList(p alarms.Page[alarms.Lifecycle]) *httpapi.Output[ActiveAlarmList] {
	out := &httpapi.Output[ActiveAlarmList]{Body: ActiveAlarmList{Alarms: make([]ActiveAlarm, len(p.Items)), Total: p.Total,
		Limit: p.Limit, Offset: p.Offset}}
	for i, l := range p.Items {
		out.Body.Alarms[i] = toActive(l)
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefTime(p *time.Time) time.Time {
	if p == nil {
		return time.Time{}
	}
	return *p
}

// Register adds the alarm endpoints to s.
func Register(s *httpapi.Server, svc *alarms.Service) {
	tags := []string{s.Tag("Alarms", "The rule catalogue, alarm history and active alarms of an organisation or an asset, "+
		"and acknowledging, muting and unmuting an alarm (docs/alarms.md).")}
	read, write := httpapi.Scopes(auth.AlarmRead), httpapi.Scopes(auth.AlarmWrite)
	notFound := " An unknown key, or one of an asset the caller may not see, is 404."

	httpapi.Register(s, huma.Operation{
		OperationID: "list-alarm-rules", Method: http.MethodGet, Path: "/v1/alarm-rules", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleCatalog), Summary: "The alarm-rule catalogue",
		Description: "Every rule the engine evaluates on every asset each second: its severity, sustain and clear times, " +
			"clearing condition and whether it pages.",
	}, read, func(ctx context.Context, _ *noInput) (*httpapi.Output[AlarmRuleCatalog], error) {
		c := svc.Catalog()
		out := AlarmRuleCatalog{CatalogVersion: c.Version, GeneratedAt: c.GeneratedAt, RuleCount: len(c.Rules), Rules: make([]AlarmRule, len(c.Rules))}
		for i, r := range c.Rules {
			out.Rules[i] = AlarmRule{RuleID: r.ID, Name: r.Name, AlarmType: r.AlarmType, Severity: string(r.Severity),
				Description: r.Description, SustainSeconds: int64(r.Sustain / time.Second), ClearSeconds: int64(r.ClearAfter / time.Second),
				ClearingCondition: r.ClearingCondition, Pages: r.Pages}
		}
		return &httpapi.Output[AlarmRuleCatalog]{Body: out}, nil
	})

	pageDoc := " Newest first (timestamp, then event_id); limit (default 100, at most 1000) and offset page through them, total counts them all."
	httpapi.Register(s, huma.Operation{
		OperationID: "list-alarms", Method: http.MethodGet, Path: "/v1/alarms", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleEventList), Summary: "Alarm history of an organisation",
		Description: "The organisation's alarm events with a timestamp in [start_time, end_time), filtered by severity and event_type." +
			pageDoc + " organization_id: " + orgDoc,
		Errors: []int{http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *listInput) (*httpapi.Output[AlarmEventList], error) {
		p, err := svc.Events(ctx, *httpapi.Principal(ctx), query(in.OrganizationID, in.StartTime, in.EndTime, in.EventType, in.Severity, in.Limit, in.Offset))
		if err != nil {
			return nil, err
		}
		return eventList(p), nil
	})

	const orgPath = "/v1/organizations/{organization_id}/alarms"
	httpapi.Register(s, huma.Operation{
		OperationID: "list-organization-alarms", Method: http.MethodGet, Path: orgPath, Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleEventList), Summary: "Alarm history of an organisation, by path",
		Description: "The organisation's alarm events, with the query of GET /v1/alarms." + pageDoc +
			" An organisation the caller may not see is 404.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *orgHistoryInput) (*httpapi.Output[AlarmEventList], error) {
		p, err := svc.OrganizationEvents(ctx, httpapi.Principal(ctx).Visibility(), in.OrganizationID,
			query("", in.StartTime, in.EndTime, in.EventType, in.Severity, in.Limit, in.Offset))
		if err != nil {
			return nil, err
		}
		return eventList(p), nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-organization-active-alarms", Method: http.MethodGet, Path: orgPath + "/active", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleActiveList), Summary: "Active alarms of an organisation",
		Description: "The organisation's open alarms as they stand (acknowledged, muted), most recently opened first, filtered " +
			"by severity; limit, offset and total as for the history. An organisation the caller may not see is 404.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *orgActiveInput) (*httpapi.Output[ActiveAlarmList], error) {
		p, err := svc.OrganizationActive(ctx, httpapi.Principal(ctx).Visibility(), in.OrganizationID,
			query("", time.Time{}, time.Time{}, nil, in.Severity, in.Limit, in.Offset))
		if err != nil {
			return nil, err
		}
		return activeList(p), nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-asset-alarms", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/alarms", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleEventList), Summary: "Alarm history of an asset",
		Description: "The asset's alarm events, with the query of the organisation's history." + pageDoc +
			" Alarms are raised on physical assets: a virtual asset id is 404.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *assetHistoryInput) (*httpapi.Output[AlarmEventList], error) {
		p, err := svc.AssetEvents(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, query("", in.StartTime, in.EndTime, in.EventType, in.Severity, in.Limit, in.Offset))
		if err != nil {
			return nil, err
		}
		return eventList(p), nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "list-asset-active-alarms", Method: http.MethodGet, Path: "/v1/assets/{asset_id}/alarms/active", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleActiveList), Summary: "Active alarms of an asset",
		Description: "The asset's open alarms, most recently opened first. A virtual asset id is 404.",
		Errors:      []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, read, func(ctx context.Context, in *assetActiveInput) (*httpapi.Output[ActiveAlarmList], error) {
		p, err := svc.AssetActive(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, query("", time.Time{}, time.Time{}, nil, in.Severity, in.Limit, in.Offset))
		if err != nil {
			return nil, err
		}
		return activeList(p), nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "acknowledge-alarm", Method: http.MethodPut, Path: "/v1/alarms/{alarm_key}/acknowledge", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleAcknowledge), Responses: httpapi.ResponseExample(http.StatusOK, exampleAcknowledged),
		Summary: "Acknowledge an alarm",
		Description: "Records alarm.acknowledged on the key's open alarm; later reads show it acknowledged. Acknowledging an " +
			"acknowledged alarm changes nothing and returns the first acknowledgement (safe to retry). 409 alarm_not_open " +
			"without an open alarm; 409 alarm_id_mismatch when alarm_id is given and the key has another alarm now." + notFound,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, func(ctx context.Context, in *acknowledgeInput) (*httpapi.Output[Acknowledgement], error) {
		var notes, alarmID *string
		if in.Body != nil {
			notes, alarmID = in.Body.Notes, in.Body.AlarmID
		}
		l, err := svc.Acknowledge(ctx, *httpapi.Principal(ctx), in.AlarmKey, notes, alarmID)
		if err != nil {
			return nil, err
		}
		var id int64
		if l.AckEventID != nil {
			id = *l.AckEventID
		}
		return &httpapi.Output[Acknowledgement]{Body: Acknowledgement{EventID: id, AlarmKey: l.Key.String(), AlarmID: l.AlarmID,
			Acknowledged: l.Acknowledged, AcknowledgedBy: deref(l.AcknowledgedBy), AcknowledgedAt: derefTime(l.AcknowledgedAt)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "mute-alarm", Method: http.MethodPut, Path: "/v1/alarms/{alarm_key}/mute", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleMute), Responses: httpapi.ResponseExample(http.StatusOK, exampleMuted),
		Summary: "Mute an alarm",
		Description: "Mutes the key (asset and rule) until duration_seconds from now or expires_at, at most 7 days, replacing a " +
			"mute in force, and records alarm.muted. A muted key is still evaluated, opens and resolves, and its events are " +
			"recorded and listed with muted true; its openings page no one, open no incident and notify no one. The mute " +
			"outlives the alarm it was set on until it ends (alarm.unmuted without a user). 409 alarm_never_opened when the key " +
			"never had an alarm; 409 alarm_id_mismatch as for acknowledge; 422 for a missing reason or a duration out of range." + notFound,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, func(ctx context.Context, in *muteInput) (*httpapi.Output[MuteResult], error) {
		l, e, err := svc.Mute(ctx, *httpapi.Principal(ctx), in.AlarmKey, alarms.MuteRequest{Reason: in.Body.Reason,
			DurationSeconds: in.Body.DurationSeconds, ExpiresAt: in.Body.ExpiresAt, AlarmID: in.Body.AlarmID})
		if err != nil {
			return nil, err
		}
		return &httpapi.Output[MuteResult]{Body: MuteResult{EventID: e.ID, AlarmKey: l.Key.String(), AlarmID: l.AlarmID, Muted: true,
			MuteReason: deref(l.MuteReason), MuteExpiresAt: derefTime(l.MuteExpiresAt), MutedBy: deref(l.MutedBy), MutedAt: derefTime(l.MutedAt)}}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "unmute-alarm", Method: http.MethodPut, Path: "/v1/alarms/{alarm_key}/unmute", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleUnmute), Responses: httpapi.ResponseExample(http.StatusOK, exampleUnmuted),
		Summary: "Unmute an alarm",
		Description: "Lifts the key's mute before it ends and records alarm.unmuted. An alarm open meanwhile is not paged " +
			"afterwards: it stays listed as active. 409 alarm_not_muted when no mute is in force; 409 alarm_id_mismatch as for acknowledge." + notFound,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, write, func(ctx context.Context, in *unmuteInput) (*httpapi.Output[UnmuteResult], error) {
		var notes, alarmID *string
		if in.Body != nil {
			notes, alarmID = in.Body.Notes, in.Body.AlarmID
		}
		l, e, err := svc.Unmute(ctx, *httpapi.Principal(ctx), in.AlarmKey, notes, alarmID)
		if err != nil {
			return nil, err
		}
		by := deref(e.UserEmail)
		if by == "" {
			by = deref(e.UserID)
		}
		return &httpapi.Output[UnmuteResult]{Body: UnmuteResult{EventID: e.ID, AlarmKey: l.Key.String(), AlarmID: l.AlarmID,
			UnmutedBy: by, UnmutedAt: e.Timestamp}}, nil
	})
}
