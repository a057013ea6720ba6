package alarmstream

import (
	"encoding/json"
	"reflect"
	"time"

	"atcp/internal/alarms"
)

// Event is one message of the stream: an alarm event, in the shape of an
// item of the alarm lists (document 1, alarm event).
type Event struct {
	EventID        int64      `json:"event_id" doc:"Increases in the order events are recorded; resume after it with ?after=."`
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
	ResolvedAt     *time.Time `json:"resolved_at"`
	DatePartition  string     `json:"date_partition" format:"date"`
	Muted          bool       `json:"muted"`
	Acknowledged   bool       `json:"acknowledged"`
	AcknowledgedBy *string    `json:"acknowledged_by"`
	AcknowledgedAt *time.Time `json:"acknowledged_at"`
	UserID         *string    `json:"user_id"`
	UserEmail      *string    `json:"user_email"`
	Notes          *string    `json:"notes"`
	MuteReason     *string    `json:"mute_reason"`
	MuteExpiresAt  *time.Time `json:"mute_expires_at"`
}

// Evidence is what the rule saw.
type Evidence struct {
	Facts            []string   `json:"facts"`
	MeasuredAt       *time.Time `json:"measured_at,omitempty"`
	SustainedSeconds int64      `json:"sustained_seconds"`
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// EventOf is e's wire form.
func EventOf(e alarms.Event) Event {
	facts := e.Evidence.Facts
	if facts == nil {
		facts = []string{}
	}
	return Event{
		EventID: e.ID, EventType: string(e.Type), AlarmID: e.AlarmID, AlarmKey: e.Key.String(), AssetID: e.Key.AssetID,
		OrganizationID: e.OrganizationID, RuleID: e.Key.RuleID, AlarmType: e.AlarmType, Severity: string(e.Severity),
		Message:   e.Message,
		Evidence:  Evidence{Facts: facts, MeasuredAt: utc(e.Evidence.MeasuredAt), SustainedSeconds: e.Evidence.SustainedSeconds},
		Timestamp: e.Timestamp.UTC(), OpenedAt: e.OpenedAt.UTC(), ResolvedAt: utc(e.ResolvedAt), DatePartition: e.DatePartition(),
		Muted: e.Muted, Acknowledged: e.Acknowledged, AcknowledgedBy: e.AcknowledgedBy, AcknowledgedAt: utc(e.AcknowledgedAt),
		UserID: e.UserID, UserEmail: e.UserEmail, Notes: e.Notes, MuteReason: e.MuteReason, MuteExpiresAt: utc(e.MuteExpiresAt),
	}
}

// message is an event encoded once for every subscriber.
type message struct {
	id   int64
	org  string
	data []byte
}

func encode(e alarms.Event) (message, error) {
	data, err := json.Marshal(EventOf(e))
	return message{id: e.ID, org: e.OrganizationID, data: data}, err
}

var reflectEvent = reflect.TypeFor[Event]()
