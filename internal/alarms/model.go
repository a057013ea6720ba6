package alarms

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/markets/calendar"
)

// Severity is how urgent an alarm is. The values are ordered: INFO <
// WARNING < MAJOR < CRITICAL.
type Severity string

// The severities, least urgent first.
const (
	Info     Severity = "INFO"
	Warning  Severity = "WARNING"
	Major    Severity = "MAJOR"
	Critical Severity = "CRITICAL"
)

// Severities lists every severity, least urgent first.
var Severities = []Severity{Info, Warning, Major, Critical}

// Rank orders the severities (INFO 1 ... CRITICAL 4); 0 for an unknown
// value.
func (s Severity) Rank() int {
	for i, x := range Severities {
		if x == s {
			return i + 1
		}
	}
	return 0
}

// Valid reports whether s is one of the severities.
func (s Severity) Valid() bool { return s.Rank() > 0 }

// EventType is the kind of an alarm event (document 1, Enumerations).
type EventType string

// The alarm event types.
const (
	Opened       EventType = "alarm.opened"
	Resolved     EventType = "alarm.resolved"
	Acknowledged EventType = "alarm.acknowledged"
	Muted        EventType = "alarm.muted"
	Unmuted      EventType = "alarm.unmuted"
)

// EventTypes lists every event type.
var EventTypes = []EventType{Opened, Resolved, Acknowledged, Muted, Unmuted}

// Valid reports whether t is one of the event types.
func (t EventType) Valid() bool {
	for _, x := range EventTypes {
		if x == t {
			return true
		}
	}
	return false
}

// Key names an alarm: an asset and a rule. At most one lifecycle of a key
// is open at a time.
type Key struct {
	AssetID string
	RuleID  string
}

// String is the wire form asset_id:rule_id.
func (k Key) String() string { return k.AssetID + ":" + k.RuleID }

// ParseKey parses asset_id:rule_id. Asset ids never contain ':'
// (assets.AssetIDPattern), so the key splits at its only colon; the rule
// id is not checked against the catalogue here. A malformed key is
// errs.NotFound: it names no alarm.
func ParseKey(s string) (Key, error) {
	asset, rule, ok := strings.Cut(s, ":")
	if !ok || !assets.ValidID(asset) || rule == "" || strings.Contains(rule, ":") || len(rule) > 64 {
		return Key{}, errs.NotFoundf("alarm %q not found: an alarm key is asset_id:rule_id", s)
	}
	return Key{AssetID: asset, RuleID: rule}, nil
}

// Less orders keys by asset, then rule: the order rows are locked in.
func (k Key) Less(o Key) bool {
	if k.AssetID != o.AssetID {
		return k.AssetID < o.AssetID
	}
	return k.RuleID < o.RuleID
}

// Evidence is what a rule saw when an event was recorded: facts (short
// sentences with numbers), the instant of the measurements they come from
// and, for alarm.opened and alarm.resolved, how long the condition had
// held or been clear.
type Evidence struct {
	Facts            []string   `json:"facts"`
	MeasuredAt       *time.Time `json:"measured_at,omitempty"`
	SustainedSeconds int64      `json:"sustained_seconds"`
}

// Event is an alarm event: a record of the alarm history. Besides what
// happened it carries the lifecycle's state right after it (muted,
// acknowledged and their details).
type Event struct {
	ID             int64 // event_id, increasing in the order events are committed
	Type           EventType
	AlarmID        string
	Key            Key
	OrganizationID string
	AlarmType      string
	Severity       Severity
	Message        string
	Evidence       Evidence
	Timestamp      time.Time
	OpenedAt       time.Time
	ResolvedAt     *time.Time
	Muted          bool
	Acknowledged   bool
	AcknowledgedBy *string
	AcknowledgedAt *time.Time
	// UserID and UserEmail name who acted (acknowledge, mute, unmute);
	// nil for what the engine records.
	UserID        *string
	UserEmail     *string
	Notes         *string
	MuteReason    *string
	MuteExpiresAt *time.Time
}

// DatePartition is the Europe/Berlin calendar day of the event's
// timestamp (YYYY-MM-DD).
func (e Event) DatePartition() string { return DatePartition(e.Timestamp) }

// DatePartition is the Europe/Berlin calendar day of t (YYYY-MM-DD).
func DatePartition(t time.Time) string { return calendar.DayOf(t).String() }

// Lifecycle is the stored state of one alarm key: its current (or last)
// lifecycle and the key's mute. A new lifecycle of the key (a new
// alarm_id) starts unacknowledged; the mute belongs to the key and
// outlives the lifecycle it was set on until it expires or is lifted.
type Lifecycle struct {
	Key            Key
	OrganizationID string
	AlarmID        string
	Open           bool
	// Severity, AlarmType, Message and Evidence are those of the opening.
	Severity   Severity
	AlarmType  string
	Message    string
	Evidence   Evidence
	OpenedAt   time.Time
	ResolvedAt *time.Time

	Acknowledged   bool
	AcknowledgedBy *string
	AcknowledgedAt *time.Time
	// AckEventID is the event_id of the acknowledgement, returned again
	// to a repeated acknowledge.
	AckEventID *int64
	AckNotes   *string

	Muted         bool
	MuteReason    *string
	MuteExpiresAt *time.Time
	MutedBy       *string
	MutedAt       *time.Time

	UpdatedAt time.Time
}

// mutedAt reports whether the key's mute is in force at t.
func (l Lifecycle) mutedAt(t time.Time) bool {
	return l.Muted && (l.MuteExpiresAt == nil || l.MuteExpiresAt.After(t))
}

// Track is the stored state of a rule's condition on an asset: whether it
// held at the last evaluation that could tell, and since when it has been
// so. A track exists only while it matters: while the condition holds,
// and while it is clear but the key's lifecycle is still open. A new
// lease holder continues the sustain and clear timing from it.
type Track struct {
	Key            Key
	OrganizationID string
	Holding        bool
	Since          time.Time
}

// Actor is who acts on an alarm through the API.
type Actor struct {
	UserID string  // the token's subject: a user id or an integration's id
	Email  *string // people only
}

// ActorOf is the caller p as an Actor.
func ActorOf(p auth.Principal) Actor {
	a := Actor{UserID: p.Subject}
	if p.Email != "" {
		email := p.Email
		a.Email = &email
	}
	return a
}

// by is the name recorded as acknowledged_by: the e-mail of a person,
// the subject of an integration.
func (a Actor) by() string {
	if a.Email != nil {
		return *a.Email
	}
	return a.UserID
}

// NewAlarmID returns a UUIDv7 whose time is at, the platform instant the
// lifecycle opened, so that alarm ids sort by the platform's timeline.
func NewAlarmID(at time.Time) string {
	var u uuid.UUID
	if _, err := rand.Read(u[:]); err != nil {
		panic(fmt.Sprintf("alarms: no randomness: %v", err)) // crypto/rand does not fail on supported platforms
	}
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(at.UnixMilli()))
	copy(u[0:6], ms[2:8])
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u.String()
}
