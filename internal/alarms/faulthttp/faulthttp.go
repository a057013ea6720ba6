// Package faulthttp serves the fault declaration of an alarm under
// /v1/alarms/{alarm_key}: fault-evidence, fault-message-draft,
// declare-asset-fault and incident (docs/fault-declaration.md).
package faulthttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/alarms/fault"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
)

// FaultRecipient is a contact of the evidence.
type FaultRecipient struct {
	ContactID   int64   `json:"contact_id"`
	Name        string  `json:"name"`
	Role        *string `json:"role"`
	Company     *string `json:"company"`
	Email       *string `json:"email"`
	Phone       *string `json:"phone"`
	HasSlack    bool    `json:"has_slack" doc:"The contact has a chat webhook."`
	IsEmergency bool    `json:"is_emergency" doc:"Pre-selected in the operator console."`
	Notifiable  bool    `json:"notifiable"`
}

// FaultHold is an active fault unavailability.
type FaultHold struct {
	StartTime time.Time  `json:"start_time"`
	EndTime   *time.Time `json:"end_time" doc:"Null: open-ended."`
}

// FaultEvidence is document 1's fault evidence.
type FaultEvidence struct {
	AlarmKey            string           `json:"alarm_key"`
	AlarmID             string           `json:"alarm_id" doc:"The open alarm's id: send it back as alarm_id when declaring."`
	AssetID             string           `json:"asset_id"`
	AssetName           string           `json:"asset_name"`
	TSO                 *string          `json:"tso"`
	RuleID              string           `json:"rule_id"`
	RuleName            string           `json:"rule_name"`
	Severity            string           `json:"severity"`
	Facts               []string         `json:"facts" nullable:"false"`
	DeepLink            string           `json:"deep_link" doc:"This evidence on the API."`
	SustainedSeconds    int64            `json:"sustained_seconds"`
	ConcurrentRuleIDs   []string         `json:"concurrent_alarm_rule_ids" nullable:"false" doc:"Rules of the asset's other open alarms."`
	UnavailabilityHours float64          `json:"unavailability_hours" doc:"Hours from now to the applicable hold's end (the active fault unavailability's, else now + 8 h); 0 for an open-ended hold."`
	ActiveFaultHold     *FaultHold       `json:"active_fault_hold"`
	Recipients          []FaultRecipient `json:"recipients" nullable:"false"`
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// TransformSchema admits the null that a missing active_fault_hold is.
func (FaultEvidence) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	return httpapi.NullableRefs(s, "active_fault_hold")
}

func toEvidence(e fault.Evidence) FaultEvidence {
	out := FaultEvidence{
		AlarmKey: e.AlarmKey, AlarmID: e.AlarmID, AssetID: e.AssetID, AssetName: e.AssetName, TSO: opt(e.TSO),
		RuleID: e.RuleID, RuleName: e.RuleName, Severity: string(e.Severity), Facts: e.Facts, DeepLink: e.DeepLink,
		SustainedSeconds: e.SustainedSeconds, ConcurrentRuleIDs: e.ConcurrentRuleIDs,
		UnavailabilityHours: e.UnavailabilityHours, Recipients: []FaultRecipient{},
	}
	if e.ActiveHold != nil {
		out.ActiveFaultHold = &FaultHold{StartTime: e.ActiveHold.Start, EndTime: e.ActiveHold.End}
	}
	for _, c := range e.Recipients {
		out.Recipients = append(out.Recipients, FaultRecipient{
			ContactID: c.ID, Name: c.Name, Role: opt(c.Role), Company: opt(c.Company), Email: opt(c.Email),
			Phone: opt(c.Phone), HasSlack: c.ChatWebhookURL != "", IsEmergency: c.IsEmergency, Notifiable: c.Notifiable,
		})
	}
	return out
}

// FaultMessageDraftRequest is the body of fault-message-draft.
type FaultMessageDraftRequest struct {
	Language   string `json:"language" enum:"de,en" doc:"de (formal address) or en."`
	Assessment string `json:"assessment,omitempty" required:"false" maxLength:"2000" doc:"The operator's own words, quoted as such."`
}

// FaultMessageDraft is a fault-message draft for review.
type FaultMessageDraft struct {
	Language          string    `json:"language"`
	Subject           string    `json:"subject"`
	Body              string    `json:"body" doc:"Plain text, signature and reference footer appended."`
	UnavailabilityEnd time.Time `json:"unavailability_end" doc:"The deadline the draft quotes: send it back as notification.unavailability_end."`
	UnverifiedNumbers []string  `json:"unverified_numbers" nullable:"false" doc:"Numbers of the draft absent from the evidence; advisory."`
}

// IncidentStatus is document 1's incident status.
type IncidentStatus struct {
	Found               bool       `json:"found"`
	IncidentID          *string    `json:"incident_id"`
	Status              *string    `json:"status"`
	Acknowledged        bool       `json:"acknowledged"`
	AcknowledgedBy      *string    `json:"acknowledged_by"`
	AcknowledgedByAgent bool       `json:"acknowledged_by_agent"`
	AcknowledgedAt      *time.Time `json:"acknowledged_at"`
	StartedAt           *time.Time `json:"started_at"`
	URL                 *string    `json:"url"`
}

// FaultNotification is a reviewed fault notification.
type FaultNotification struct {
	Language            string    `json:"language" enum:"de,en"`
	Subject             string    `json:"subject" minLength:"1" maxLength:"200"`
	Body                string    `json:"body" minLength:"1" maxLength:"16000"`
	RecipientContactIDs []int64   `json:"recipient_contact_ids" minItems:"1" maxItems:"50" doc:"Contacts of the alarm's asset with an e-mail address and/or a chat webhook, notifiable."`
	UnavailabilityEnd   time.Time `json:"unavailability_end" doc:"The draft's unavailability_end: more than 30 minutes and at most 8 h 5 min ahead, else 422 stale_draft."`
}

// DeclareFaultRequest is the body of declare-asset-fault.
type DeclareFaultRequest struct {
	AlarmID      *string           `json:"alarm_id,omitempty" required:"false" maxLength:"64" doc:"The reviewed alarm's id; 409 alarm_id_mismatch when it is not the key's current alarm."`
	Notes        *string           `json:"notes,omitempty" required:"false" maxLength:"2000" doc:"Recorded on the unavailability as reason_description."`
	Notification MaybeNotification `json:"notification" doc:"The reviewed message, or null to declare without notifying (the only choice of a machine integration)."`
}

// MaybeNotification is a notification or null (huma takes no nullable
// object field).
type MaybeNotification struct {
	Value *FaultNotification
}

// UnmarshalJSON reads null as no notification.
func (m *MaybeNotification) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		m.Value = nil
		return nil
	}
	m.Value = new(FaultNotification)
	return json.Unmarshal(b, m.Value)
}

// Schema is the notification's object schema, admitting null.
func (MaybeNotification) Schema(r huma.Registry) *huma.Schema {
	ref := r.Schema(reflect.TypeFor[FaultNotification](), true, "")
	return &huma.Schema{AnyOf: []*huma.Schema{ref, {Type: "null"}}}
}

// NotifiedContact is one notified contact.
type NotifiedContact struct {
	ContactID int64    `json:"contact_id"`
	Name      string   `json:"name"`
	Channels  []string `json:"channels" nullable:"false" doc:"email and/or chat."`
}

// FaultDeclaration is the response of declare-asset-fault.
type FaultDeclaration struct {
	AlarmKey            string            `json:"alarm_key"`
	AssetID             string            `json:"asset_id"`
	DeclaredBy          string            `json:"declared_by"`
	UnavailabilityStart time.Time         `json:"unavailability_start"`
	UnavailabilityEnd   *time.Time        `json:"unavailability_end" doc:"Null only when an open-ended fault unavailability was already active."`
	AlreadyDeclared     bool              `json:"already_declared"`
	NotificationStatus  string            `json:"notification_status" enum:"requested,not_requested,failed"`
	Notified            []NotifiedContact `json:"notified" nullable:"false"`
}

type keyPath struct {
	AlarmKey string `path:"alarm_key" maxLength:"130" doc:"asset_id:rule_id"`
}

type draftInput struct {
	AlarmKey string `path:"alarm_key" maxLength:"130" doc:"asset_id:rule_id"`
	Body     FaultMessageDraftRequest
}

type declareInput struct {
	AlarmKey string `path:"alarm_key" maxLength:"130" doc:"asset_id:rule_id"`
	Body     DeclareFaultRequest
}

type evidenceOutput struct{ Body FaultEvidence }
type draftOutput struct{ Body FaultMessageDraft }
type incidentOutput struct{ Body IncidentStatus }
type declaredOutput struct{ Body FaultDeclaration }

// Register adds the fault endpoints to s.
func Register(s *httpapi.Server, svc *fault.Service) {
	tags := []string{s.Tag("Alarms", "The alarm history, acknowledgements, mutes and fault declaration.")}
	const base = "/v1/alarms/{alarm_key}"
	httpapi.Register(s, huma.Operation{
		OperationID: "get-fault-evidence", Method: http.MethodGet, Path: base + "/fault-evidence", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleEvidence),
		Summary:   "Assemble the fault evidence of an open alarm",
		Description: "Without acting and without a language model. 404 when the key is unknown, of another organisation " +
			"or has no open alarm (a resolved alarm has no evidence to declare on).",
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.AlarmWrite), func(ctx context.Context, in *keyPath) (*evidenceOutput, error) {
		e, err := svc.Evidence(ctx, *httpapi.Principal(ctx), in.AlarmKey)
		if err != nil {
			return nil, err
		}
		return &evidenceOutput{Body: toEvidence(e)}, nil
	})
	httpapi.Register(s, huma.Operation{
		OperationID: "draft-fault-message", Method: http.MethodPost, Path: base + "/fault-message-draft", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleDraftRequest), Responses: httpapi.ResponseExample(http.StatusOK, exampleDraft),
		Summary: "Draft the fault message of an open alarm for review",
		Description: "Takes tens of seconds. The draft quotes the applicable hold's deadline, returned as unavailability_end. " +
			"404 as fault-evidence; 422 open_ended_hold when the active fault unavailability has no end; " +
			"503 narrator_not_configured; 502 narrator_failed or narrator_unusable (no fallback text).",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusBadGateway, http.StatusServiceUnavailable},
	}, httpapi.Scopes(auth.AlarmWrite), func(ctx context.Context, in *draftInput) (*draftOutput, error) {
		d, err := svc.Draft(ctx, *httpapi.Principal(ctx), in.AlarmKey, fault.DraftRequest{Language: in.Body.Language, Assessment: in.Body.Assessment})
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &draftOutput{Body: FaultMessageDraft{Language: d.Language, Subject: d.Subject, Body: d.Body,
			UnavailabilityEnd: d.UnavailabilityEnd, UnverifiedNumbers: d.UnverifiedNumbers}}, nil
	})
	httpapi.Register(s, huma.Operation{
		OperationID: "declare-asset-fault", Method: http.MethodPost, Path: base + "/declare-asset-fault", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleDeclare), Responses: httpapi.ResponseExample(http.StatusOK, exampleDeclared),
		Summary: "Declare the alarm's asset faulty and notify its contacts",
		Description: "Validated before anything is written. Then, in one transaction, a fault-notification record (pending) and the " +
			"unavailability with reason fault (until notification.unavailability_end, or 8 h without notification); then the " +
			"partner.fault_notification events (one per contact and channel, the reviewed text verbatim) and the " +
			"partner.fault_declared event; then the record's status. Under an active fault unavailability: already_declared " +
			"true, its real bounds, the events emitted again with the same idempotency keys. 403 notification_not_permitted " +
			"for a machine integration sending a notification; 409 alarm_id_mismatch; 409 overlapping_interval when another " +
			"unavailability overlaps; 422 stale_draft; 404 for a key unknown, of another organisation or without alarm.",
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AlarmWrite), func(ctx context.Context, in *declareInput) (*declaredOutput, error) {
		d := fault.Declaration{AlarmID: in.Body.AlarmID, Notes: in.Body.Notes}
		if n := in.Body.Notification.Value; n != nil {
			d.Notification = &fault.Notification{Language: n.Language, Subject: n.Subject, Body: n.Body,
				RecipientIDs: n.RecipientContactIDs, UnavailabilityEnd: n.UnavailabilityEnd}
		}
		out, err := svc.Declare(ctx, *httpapi.Principal(ctx), in.AlarmKey, d)
		if err != nil {
			return nil, err
		}
		body := FaultDeclaration{AlarmKey: out.AlarmKey, AssetID: out.AssetID, DeclaredBy: out.DeclaredBy,
			UnavailabilityStart: out.UnavailabilityStart, UnavailabilityEnd: out.UnavailabilityEnd,
			AlreadyDeclared: out.AlreadyDeclared, NotificationStatus: string(out.Status), Notified: []NotifiedContact{}}
		for _, n := range out.Notified {
			body.Notified = append(body.Notified, NotifiedContact{ContactID: n.Contact.ID, Name: n.Contact.Name, Channels: n.Channels})
		}
		return &declaredOutput{Body: body}, nil
	})
	httpapi.Register(s, huma.Operation{
		OperationID: "get-alarm-incident", Method: http.MethodGet, Path: base + "/incident", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleIncident),
		Summary:   "Read the incident of the alarm's current lifecycle",
		Description: "Best effort: found false when the key has no alarm, no incident was opened (not production-critical, " +
			"not a paging rule, muted) or the incident tool is not configured or unreachable. 404 for a key unknown or of another organisation.",
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.AlarmRead), func(ctx context.Context, in *keyPath) (*incidentOutput, error) {
		st, err := svc.Incident(ctx, *httpapi.Principal(ctx), in.AlarmKey)
		if err != nil {
			return nil, err
		}
		return &incidentOutput{Body: IncidentStatus{Found: st.Found, IncidentID: opt(st.IncidentID), Status: opt(st.Status),
			Acknowledged: st.Acknowledged, AcknowledgedBy: opt(st.AcknowledgedBy), AcknowledgedByAgent: st.AcknowledgedByAgent,
			AcknowledgedAt: st.AcknowledgedAt, StartedAt: st.StartedAt, URL: opt(st.URL)}}, nil
	})
}
