package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"atcp/internal/errs"
)

// Event types. The partner.* events are document 1's (Events rule 3);
// the alarm.* types are the alarm history's event types, so that alarm
// events can travel on the bus too.
const (
	TypeFaultNotification = "partner.fault_notification"
	TypeFaultDeclared     = "partner.fault_declared"
	TypeAlarmOpened       = "alarm.opened"
	TypeAlarmResolved     = "alarm.resolved"
	TypeAlarmAcknowledged = "alarm.acknowledged"
	TypeAlarmMuted        = "alarm.muted"
	TypeAlarmUnmuted      = "alarm.unmuted"
	// The onboarding e-mails (docs/onboarding.md section 7).
	TypeOnboardingAccessLink  = "onboarding.access_link"
	TypeOnboardingReminder    = "onboarding.reminder"
	TypeOnboardingGateChanged = "onboarding.gate_changed"
	TypeOnboardingComment     = "onboarding.comment"
)

// Types lists every event type the outbox accepts. A type is also the
// tail of the event's NATS subject (atcp.events.<type>), so each one is
// made of dot-separated lower-case tokens.
var Types = []string{TypeFaultNotification, TypeFaultDeclared, TypeAlarmOpened, TypeAlarmResolved,
	TypeAlarmAcknowledged, TypeAlarmMuted, TypeAlarmUnmuted,
	TypeOnboardingAccessLink, TypeOnboardingReminder, TypeOnboardingGateChanged, TypeOnboardingComment}

// ClearsBodyOnSend reports whether an event's message is cleared from
// its outbox row once the channel took it: the access-link mail holds a
// raw link token, which must not outlive its delivery (docs/onboarding.md
// section 7). The rest of the row stays.
func ClearsBodyOnSend(eventType string) bool { return eventType == TypeOnboardingAccessLink }

// Channels: how an event reaches its recipient. An event of channel bus
// has no recipient of its own: it is only published to the event bus,
// where every event of the other channels is published as well.
const (
	ChannelEmail = "email"
	ChannelChat  = "chat"
	ChannelBus   = "bus"
)

// Limits of one event, far above a reviewed fault message, so that a
// runaway producer cannot fill the outbox or exceed NATS's default
// maximum payload (1 MiB) with one event.
const (
	MaxKeyLength     = 200
	MaxSubjectLength = 998 // the longest line RFC 5322 allows in a header
	MaxBodyBytes     = 64 << 10
	MaxPayloadBytes  = 64 << 10
	MaxRecipientLen  = 2048
)

// Event is one message of the outbox: what to send (Subject, Body,
// Payload) to whom (Channel, Recipient), and the key a receiver
// recognises a repeated delivery by.
type Event struct {
	// ID identifies the event; Outbox.Enqueue assigns a UUIDv7 when it
	// is zero.
	ID             uuid.UUID
	Type           string
	OrganizationID string
	// AssetID is empty for an event about an organisation as a whole.
	AssetID string
	// IdempotencyKey travels with every delivery of the event (and of
	// any event repeating it): 1 to 200 visible ASCII characters.
	IdempotencyKey string
	Channel        string
	// Recipient is an e-mail address (channel email) or a webhook URL
	// (channel chat); empty for the bus.
	Recipient string
	// Subject and Body are sent verbatim: the e-mail's subject and
	// plain-text body; the chat message is Subject, a blank line, Body.
	Subject, Body string
	// Payload is the event's data on the bus: a JSON object (or empty),
	// for the partner.* types the shapes of FaultNotification and
	// FaultDeclared.
	Payload json.RawMessage
	// CreatedAt is when the event happened, on the platform clock;
	// Outbox.Enqueue sets it when zero.
	CreatedAt time.Time
	// Mail, on channel email only, makes the message multipart: Body is
	// its plain-text part, Mail.HTML the HTML one; nil sends Body alone
	// with the configured sender. It is never published on the bus.
	Mail *Mail
}

// Mail is what a branded e-mail adds to an event's subject and body.
type Mail struct {
	HTML string `json:"html,omitempty"`
	// FromName replaces the configured sender's display name (the address
	// stays the configured one); "" keeps it.
	FromName string `json:"from_name,omitempty"`
	// ReplyTo is a bare address, "" for none.
	ReplyTo string `json:"reply_to,omitempty"`
	// BannerKey names an image in object storage that the sender attaches
	// inline as Content-ID "banner" (the HTML refers to cid:banner), of
	// BannerContentType; "" for none.
	BannerKey         string `json:"banner_key,omitempty"`
	BannerContentType string `json:"banner_content_type,omitempty"`
}

// Validate checks one event; prefix is put before each field location
// ("events[2].").
func (e Event) Validate(prefix string) error {
	var v errs.Validation
	e.validate(prefix, &v)
	return v.Err()
}

func (e Event) validate(prefix string, v *errs.Validation) {
	if !knownType(e.Type) {
		v.Add(prefix+"type", "must be one of "+strings.Join(Types, ", "), e.Type)
	}
	if e.OrganizationID == "" {
		v.Add(prefix+"organization_id", "is required", nil)
	}
	if !validKey(e.IdempotencyKey) {
		v.Add(prefix+"idempotency_key", fmt.Sprintf("must be 1 to %d visible ASCII characters", MaxKeyLength), e.IdempotencyKey)
	}
	switch e.Channel {
	case ChannelEmail:
		if !validAddress(e.Recipient) {
			v.Add(prefix+"recipient", "must be a bare e-mail address (name@example.com)", e.Recipient)
		}
	case ChannelChat:
		if !validWebhookURL(e.Recipient) {
			v.Add(prefix+"recipient", "must be an absolute http or https webhook URL", e.Recipient)
		}
	case ChannelBus:
		if e.Recipient != "" {
			v.Add(prefix+"recipient", "must be empty on the bus", e.Recipient)
		}
	default:
		v.Add(prefix+"channel", "must be email, chat or bus", e.Channel)
	}
	if e.Type == TypeFaultNotification && e.Channel != ChannelEmail && e.Channel != ChannelChat {
		v.Add(prefix+"channel", "a fault notification goes to a contact by email or chat", e.Channel)
	}
	if e.Channel == ChannelEmail || e.Channel == ChannelChat {
		if strings.TrimSpace(e.Subject) == "" && strings.TrimSpace(e.Body) == "" {
			v.Add(prefix+"body", "a message needs a subject or a body", nil)
		}
	}
	switch {
	case !utf8.ValidString(e.Subject) || strings.ContainsAny(e.Subject, "\r\n"):
		v.Add(prefix+"subject", "must be one line of UTF-8", nil)
	case len(e.Subject) > MaxSubjectLength:
		v.Add(prefix+"subject", fmt.Sprintf("must be at most %d bytes", MaxSubjectLength), nil)
	}
	switch {
	case !utf8.ValidString(e.Body):
		v.Add(prefix+"body", "must be UTF-8", nil)
	case len(e.Body) > MaxBodyBytes:
		v.Add(prefix+"body", fmt.Sprintf("must be at most %d bytes", MaxBodyBytes), nil)
	}
	if e.Mail != nil {
		e.Mail.validate(prefix, e.Channel, v)
	}
	if len(e.Payload) > 0 {
		trimmed := bytes.TrimSpace(e.Payload)
		switch {
		case len(e.Payload) > MaxPayloadBytes:
			v.Add(prefix+"payload", fmt.Sprintf("must be at most %d bytes", MaxPayloadBytes), nil)
		case !json.Valid(trimmed) || trimmed[0] != '{':
			v.Add(prefix+"payload", "must be a JSON object", nil)
		}
	}
}

func (m *Mail) validate(prefix, channel string, v *errs.Validation) {
	if channel != ChannelEmail {
		v.Add(prefix+"mail", "only an e-mail has mail parts", nil)
	}
	switch {
	case !utf8.ValidString(m.HTML):
		v.Add(prefix+"mail.html", "must be UTF-8", nil)
	case len(m.HTML) > MaxBodyBytes:
		v.Add(prefix+"mail.html", fmt.Sprintf("must be at most %d bytes", MaxBodyBytes), nil)
	}
	for _, f := range []struct{ loc, val string }{{"from_name", m.FromName}, {"banner_key", m.BannerKey}, {"banner_content_type", m.BannerContentType}} {
		if !utf8.ValidString(f.val) || strings.ContainsAny(f.val, "\r\n") || len(f.val) > MaxSubjectLength {
			v.Add(prefix+"mail."+f.loc, "must be one line of UTF-8", nil)
		}
	}
	if m.ReplyTo != "" && !validAddress(m.ReplyTo) {
		v.Add(prefix+"mail.reply_to", "must be a bare e-mail address", m.ReplyTo)
	}
	if (m.BannerKey == "") != (m.BannerContentType == "") {
		v.Add(prefix+"mail.banner_content_type", "is given with banner_key, and only then", m.BannerContentType)
	}
}

func knownType(t string) bool {
	for _, k := range Types {
		if t == k {
			return true
		}
	}
	return false
}

// validKey: visible ASCII fits every header it travels in (HTTP, SMTP,
// NATS) without encoding.
func validKey(k string) bool {
	if k == "" || len(k) > MaxKeyLength {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// validAddress accepts an address without display name or comments: the
// contact directory stores bare addresses, and one anything else would
// be sent to cannot hide in a name.
func validAddress(s string) bool {
	if s == "" || len(s) > MaxRecipientLen {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

func validWebhookURL(s string) bool {
	if s == "" || len(s) > MaxRecipientLen {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil && u.Fragment == ""
}

// FaultNotification is the data (Event.Payload) of a
// partner.fault_notification event: the reviewed message one contact
// receives on one channel (the envelope names the channel).
type FaultNotification struct {
	AlarmKey            string    `json:"alarm_key"`
	AlarmID             string    `json:"alarm_id"`
	ContactID           int64     `json:"contact_id"`
	Language            string    `json:"language"`
	Subject             string    `json:"subject"`
	Body                string    `json:"body"`
	UnavailabilityStart time.Time `json:"unavailability_start"`
	UnavailabilityEnd   time.Time `json:"unavailability_end"`
	DeclaredBy          string    `json:"declared_by"`
}

// FaultDeclared is the data of a partner.fault_declared event, the audit
// record of one declaration, emitted on every declaration (repeated ones
// included) on channel bus.
type FaultDeclared struct {
	AlarmKey            string            `json:"alarm_key"`
	AlarmID             string            `json:"alarm_id"`
	RuleID              string            `json:"rule_id"`
	DeclaredBy          string            `json:"declared_by"`
	UnavailabilityStart time.Time         `json:"unavailability_start"`
	UnavailabilityEnd   time.Time         `json:"unavailability_end"`
	AlreadyDeclared     bool              `json:"already_declared"`
	Notes               string            `json:"notes,omitempty"`
	Notified            []NotifiedContact `json:"notified"`
}

// NotifiedContact is one contact a declaration notified, with the
// channels of its partner.fault_notification events.
type NotifiedContact struct {
	ContactID int64    `json:"contact_id"`
	Channels  []string `json:"channels"`
}

// Envelope is the JSON document published for an event on the bus: the
// event's identity and routing, and its Payload as data. It leaves out
// the recipient: an e-mail address is personal data and a chat webhook
// URL is a credential, and neither belongs on a shared bus.
func Envelope(e Event) ([]byte, error) {
	data := e.Payload
	if len(bytes.TrimSpace(data)) == 0 {
		data = json.RawMessage(`{}`)
	}
	return json.Marshal(struct {
		EventID        uuid.UUID       `json:"event_id"`
		Type           string          `json:"type"`
		OccurredAt     time.Time       `json:"occurred_at"`
		OrganizationID string          `json:"organization_id"`
		AssetID        string          `json:"asset_id,omitempty"`
		IdempotencyKey string          `json:"idempotency_key"`
		Channel        string          `json:"channel"`
		Data           json.RawMessage `json:"data"`
	}{e.ID, e.Type, e.CreatedAt.UTC(), e.OrganizationID, e.AssetID, e.IdempotencyKey, e.Channel, data})
}
