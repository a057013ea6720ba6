package sqlutil

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"atcp/internal/alarms"
)

// Instants are a backend's encoding of instants: Encode turns an optional
// instant into a statement argument (nil stays NULL); Scan returns a
// scan destination for a nullable instant column and a function reading
// it, in UTC, after the scan.
type Instants struct {
	Encode func(*time.Time) any
	Scan   func() (dest any, get func() *time.Time)
}

// PostgresInstants are TIMESTAMPTZ values.
var PostgresInstants = Instants{
	Encode: func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return *t
	},
	Scan: func() (any, func() *time.Time) {
		var t *time.Time
		return &t, func() *time.Time { return UTCPtr(t) }
	},
}

// SQLiteInstants are INTEGER microseconds (Micros).
var SQLiteInstants = Instants{
	Encode: NullMicros,
	Scan: func() (any, func() *time.Time) {
		var us *int64
		return &us, func() *time.Time { return FromNullMicros(us) }
	},
}

// LifecycleColumns are the alarm_lifecycles columns in the order of
// LifecycleValues and LifecycleScan.
var LifecycleColumns = []string{
	"organization_id", "asset_id", "rule_id", "shard_hash", "alarm_id", "open", "severity", "alarm_type", "message",
	"evidence", "opened_at", "resolved_at", "acknowledged", "acknowledged_by", "acknowledged_at", "ack_event_id",
	"ack_notes", "muted", "mute_reason", "mute_expires_at", "muted_by", "muted_at", "updated_at",
}

// LifecycleList is LifecycleColumns comma-separated, for SELECT.
var LifecycleList = strings.Join(LifecycleColumns, ", ")

// evidenceJSON is text: SQLite's TEXT column takes no BLOB.
func evidenceJSON(e alarms.Evidence) (string, error) {
	if e.Facts == nil {
		e.Facts = []string{}
	}
	b, err := json.Marshal(e)
	return string(b), err
}

func parseEvidence(b []byte) (alarms.Evidence, error) {
	var e alarms.Evidence
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("alarm evidence: %w", err)
	}
	if e.MeasuredAt != nil {
		e.MeasuredAt = UTCPtr(e.MeasuredAt)
	}
	return e, nil
}

// LifecycleValues are l's values of LifecycleColumns.
func LifecycleValues(l alarms.Lifecycle, in Instants) ([]any, error) {
	ev, err := evidenceJSON(l.Evidence)
	if err != nil {
		return nil, err
	}
	return []any{
		l.OrganizationID, l.Key.AssetID, l.Key.RuleID, alarms.ShardHash(l.Key.AssetID), l.AlarmID, l.Open, string(l.Severity),
		l.AlarmType, l.Message, ev, in.Encode(&l.OpenedAt), in.Encode(l.ResolvedAt), l.Acknowledged, l.AcknowledgedBy,
		in.Encode(l.AcknowledgedAt), l.AckEventID, l.AckNotes, l.Muted, l.MuteReason, in.Encode(l.MuteExpiresAt),
		l.MutedBy, in.Encode(l.MutedAt), in.Encode(&l.UpdatedAt),
	}, nil
}

// LifecycleScan returns the scan destinations of a row selected as
// LifecycleList and a function building the lifecycle after the scan.
func LifecycleScan(in Instants) ([]any, func() (alarms.Lifecycle, error)) {
	var l alarms.Lifecycle
	var shard int64
	var severity string
	var evidence []byte
	opened, getOpened := in.Scan()
	resolved, getResolved := in.Scan()
	acked, getAcked := in.Scan()
	expires, getExpires := in.Scan()
	muted, getMuted := in.Scan()
	updated, getUpdated := in.Scan()
	dest := []any{&l.OrganizationID, &l.Key.AssetID, &l.Key.RuleID, &shard, &l.AlarmID, &l.Open, &severity, &l.AlarmType,
		&l.Message, &evidence, opened, resolved, &l.Acknowledged, &l.AcknowledgedBy, acked, &l.AckEventID, &l.AckNotes,
		&l.Muted, &l.MuteReason, expires, &l.MutedBy, muted, updated}
	return dest, func() (alarms.Lifecycle, error) {
		var err error
		l.Severity = alarms.Severity(severity)
		l.Evidence, err = parseEvidence(evidence)
		l.OpenedAt, l.ResolvedAt, l.AcknowledgedAt = *getOpened(), getResolved(), getAcked()
		l.MuteExpiresAt, l.MutedAt, l.UpdatedAt = getExpires(), getMuted(), *getUpdated()
		return l, err
	}
}

// EventColumns are the alarm_events columns an insert writes (event_id
// comes from the database), in the order of EventValues.
var EventColumns = []string{
	"organization_id", "asset_id", "rule_id", "alarm_id", "event_type", "alarm_type", "severity", "message", "evidence",
	"ts", "date_partition", "opened_at", "resolved_at", "muted", "acknowledged", "acknowledged_by", "acknowledged_at",
	"user_id", "user_email", "notes", "mute_reason", "mute_expires_at",
}

// EventList is event_id and EventColumns but date_partition (derived
// from ts) comma-separated, for SELECT.
var EventList = "event_id, " + strings.Replace(strings.Join(EventColumns, ", "), "date_partition, ", "", 1)

// EventValues are e's values of EventColumns.
func EventValues(e alarms.Event, in Instants) ([]any, error) {
	ev, err := evidenceJSON(e.Evidence)
	if err != nil {
		return nil, err
	}
	return []any{
		e.OrganizationID, e.Key.AssetID, e.Key.RuleID, e.AlarmID, string(e.Type), e.AlarmType, string(e.Severity), e.Message,
		ev, in.Encode(&e.Timestamp), e.DatePartition(), in.Encode(&e.OpenedAt), in.Encode(e.ResolvedAt), e.Muted,
		e.Acknowledged, e.AcknowledgedBy, in.Encode(e.AcknowledgedAt), e.UserID, e.UserEmail, e.Notes, e.MuteReason,
		in.Encode(e.MuteExpiresAt),
	}, nil
}

// EventScan returns the scan destinations of a row selected as EventList
// and a function building the event after the
// scan.
func EventScan(in Instants) ([]any, func() (alarms.Event, error)) {
	var e alarms.Event
	var typ, severity string
	var evidence []byte
	ts, getTS := in.Scan()
	opened, getOpened := in.Scan()
	resolved, getResolved := in.Scan()
	acked, getAcked := in.Scan()
	expires, getExpires := in.Scan()
	dest := []any{&e.ID, &e.OrganizationID, &e.Key.AssetID, &e.Key.RuleID, &e.AlarmID, &typ, &e.AlarmType, &severity,
		&e.Message, &evidence, ts, opened, resolved, &e.Muted, &e.Acknowledged, &e.AcknowledgedBy, acked,
		&e.UserID, &e.UserEmail, &e.Notes, &e.MuteReason, expires}
	return dest, func() (alarms.Event, error) {
		var err error
		e.Type, e.Severity = alarms.EventType(typ), alarms.Severity(severity)
		e.Evidence, err = parseEvidence(evidence)
		e.Timestamp, e.OpenedAt, e.ResolvedAt = *getTS(), *getOpened(), getResolved()
		e.AcknowledgedAt, e.MuteExpiresAt = getAcked(), getExpires()
		return e, err
	}
}

// Placeholders returns n placeholders made by mark (1-based), comma-separated.
func Placeholders(n, from int, mark func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = mark(from + i)
	}
	return strings.Join(parts, ", ")
}
