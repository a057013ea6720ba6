package events

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/errs"
)

func validEvent() Event {
	return Event{ID: uuid.New(), Type: TypeFaultNotification, OrganizationID: "acme", AssetID: "a1",
		IdempotencyKey: "fault:0190:7:email", Channel: ChannelEmail, Recipient: "ops@acme.example",
		Subject: "Störung", Body: "Text", Payload: json.RawMessage(`{"contact_id": 7}`)}
}

func TestEventValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(e *Event)
		field  string // "" when valid
	}{
		{"valid email", func(e *Event) {}, ""},
		{"valid chat", func(e *Event) { e.Channel, e.Recipient = ChannelChat, "https://hooks.example/T1/B2" }, ""},
		{"valid plain http chat", func(e *Event) { e.Channel, e.Recipient = ChannelChat, "http://127.0.0.1:8099/hook" }, ""},
		{"valid bus", func(e *Event) {
			e.Type, e.Channel, e.Recipient, e.Subject, e.Body = TypeFaultDeclared, ChannelBus, "", "", ""
		}, ""},
		{"alarm event on the bus", func(e *Event) { e.Type, e.Channel, e.Recipient = TypeAlarmOpened, ChannelBus, "" }, ""},
		{"no asset", func(e *Event) { e.AssetID = "" }, ""},
		{"no payload", func(e *Event) { e.Payload = nil }, ""},
		{"body only", func(e *Event) { e.Subject = "" }, ""},
		{"unknown type", func(e *Event) { e.Type = "partner.other" }, "type"},
		{"no organisation", func(e *Event) { e.OrganizationID = "" }, "organization_id"},
		{"no key", func(e *Event) { e.IdempotencyKey = "" }, "idempotency_key"},
		{"key with a space", func(e *Event) { e.IdempotencyKey = "a b" }, "idempotency_key"},
		{"key with a line break", func(e *Event) { e.IdempotencyKey = "a\r\nBcc: x@y" }, "idempotency_key"},
		{"non-ASCII key", func(e *Event) { e.IdempotencyKey = "störung" }, "idempotency_key"},
		{"key too long", func(e *Event) { e.IdempotencyKey = strings.Repeat("k", MaxKeyLength+1) }, "idempotency_key"},
		{"unknown channel", func(e *Event) { e.Channel = "sms" }, "channel"},
		{"email without recipient", func(e *Event) { e.Recipient = "" }, "recipient"},
		{"email with display name", func(e *Event) { e.Recipient = "Ops <ops@acme.example>" }, "recipient"},
		{"two addresses", func(e *Event) { e.Recipient = "ops@acme.example, boss@acme.example" }, "recipient"},
		{"not an address", func(e *Event) { e.Recipient = "ops" }, "recipient"},
		{"chat to an address", func(e *Event) { e.Channel = ChannelChat }, "recipient"},
		{"chat to ftp", func(e *Event) { e.Channel, e.Recipient = ChannelChat, "ftp://hooks.example/x" }, "recipient"},
		{"chat relative", func(e *Event) { e.Channel, e.Recipient = ChannelChat, "/hook" }, "recipient"},
		{"chat with credentials", func(e *Event) { e.Channel, e.Recipient = ChannelChat, "https://u:p@hooks.example/x" }, "recipient"},
		{"bus with recipient", func(e *Event) { e.Type, e.Channel = TypeFaultDeclared, ChannelBus }, "recipient"},
		{"fault notification on the bus", func(e *Event) { e.Channel, e.Recipient = ChannelBus, "" }, "channel"},
		{"empty message", func(e *Event) { e.Subject, e.Body = " ", "\n" }, "body"},
		{"two-line subject", func(e *Event) { e.Subject = "one\r\nBcc: x@y" }, "subject"},
		{"subject too long", func(e *Event) { e.Subject = strings.Repeat("s", MaxSubjectLength+1) }, "subject"},
		{"invalid UTF-8 body", func(e *Event) { e.Body = "\xff" }, "body"},
		{"body too long", func(e *Event) { e.Body = strings.Repeat("b", MaxBodyBytes+1) }, "body"},
		{"payload not JSON", func(e *Event) { e.Payload = json.RawMessage(`{"a":`) }, "payload"},
		{"payload an array", func(e *Event) { e.Payload = json.RawMessage(`[1]`) }, "payload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := validEvent()
			tc.change(&e)
			err := e.Validate("events[0].")
			if tc.field == "" {
				if err != nil {
					t.Fatalf("valid event refused: %v", err)
				}
				return
			}
			var de *errs.Error
			if !errs.Is(err, errs.Invalid) || !errors.As(err, &de) {
				t.Fatalf("want a validation error on %s, got %v", tc.field, err)
			}
			for _, f := range de.Fields {
				if f.Location == "events[0]."+tc.field {
					return
				}
			}
			t.Fatalf("want a field error on events[0].%s, got %+v", tc.field, de.Fields)
		})
	}
}

// TestEnvelope: the bus document carries the event's identity, routing
// and data, never its recipient.
func TestEnvelope(t *testing.T) {
	e := validEvent()
	e.CreatedAt = time.Date(2026, 2, 1, 9, 12, 3, 0, time.FixedZone("CET", 3600))
	e.Channel, e.Recipient = ChannelChat, "https://hooks.example/T1/secret"
	b, err := Envelope(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event_id":"` + e.ID.String() + `","type":"partner.fault_notification","occurred_at":"2026-02-01T08:12:03Z",` +
		`"organization_id":"acme","asset_id":"a1","idempotency_key":"fault:0190:7:email","channel":"chat","data":{"contact_id":7}}`
	if string(b) != want {
		t.Fatalf("envelope\n %s\nwant\n %s", b, want)
	}
	e.Payload, e.AssetID = nil, ""
	b, _ = Envelope(e)
	if strings.Contains(string(b), "asset_id") || !strings.HasSuffix(string(b), `"data":{}}`) {
		t.Fatalf("envelope without asset and payload: %s", b)
	}
}
