package faulthttp_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/restrictions"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

func (e env) notification(end time.Time, ids ...int64) map[string]any {
	return map[string]any{"language": "de", "subject": "Störung bess-1", "body": "Geprüfter Text.",
		"recipient_contact_ids": ids, "unavailability_end": end.UTC().Format(time.RFC3339Nano)}
}

func TestDeclare(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, "")
		h := e.h
		path := "/v1/alarms/" + e.key + "/declare-asset-fault"
		now := h.Clock.Now().UTC()
		end := now.Add(4 * time.Hour)
		// Agent with notification: 403; stale drafts; wrong alarm_id; unknown recipient.
		h.Do("POST", path, e.agent, map[string]any{"notification": e.notification(end, e.email)}).Expect(t, 403, "notification_not_permitted")
		h.Do("POST", path, e.human, map[string]any{"notification": e.notification(now.Add(30*time.Minute), e.email)}).Expect(t, 422, "stale_draft")
		h.Do("POST", path, e.human, map[string]any{"notification": e.notification(now.Add(8*time.Hour+5*time.Minute+time.Second), e.email)}).Expect(t, 422, "stale_draft")
		h.Do("POST", path, e.human, map[string]any{"alarm_id": "0195f0a2-7c4e-7a10-9b2e-3f1c5d6e7a8b", "notification": e.notification(end, e.email)}).Expect(t, 409, "alarm_id_mismatch")
		h.Do("POST", path, e.human, map[string]any{"notification": e.notification(end, e.mute)}).Expect(t, 422, "validation_failed")
		if iv, _ := b.Restrictions().ActiveAt(context.Background(), now); len(iv) != 0 || len(e.outbox.got) != 0 {
			t.Fatalf("a rejected declaration wrote %v %v", iv, e.outbox.got)
		}

		// Happy path: e-mail + chat to the first contact, chat to the second.
		var out map[string]any
		h.Do("POST", path, e.human, map[string]any{"alarm_id": e.alarmID, "notes": "Router",
			"notification": e.notification(end, e.email, e.chat, e.email)}).Expect(t, 200, "").JSON(t, &out)
		if out["already_declared"] != false || out["notification_status"] != "requested" || out["declared_by"] != "op@acme.example" ||
			len(out["notified"].([]any)) != 2 {
			t.Fatalf("declared %v", out)
		}
		if len(e.outbox.got) != 1 || len(e.outbox.got[0]) != 4 {
			t.Fatalf("events %+v", e.outbox.got)
		}
		channels := map[string]int{}
		for _, ev := range e.outbox.got[0][:3] {
			if ev.Type != "partner.fault_notification" || ev.Subject != "Störung bess-1" || ev.Body != "Geprüfter Text." {
				t.Fatalf("notification %+v", ev)
			}
			channels[ev.Channel]++
		}
		if channels["email"] != 1 || channels["chat"] != 2 || e.outbox.got[0][3].Type != "partner.fault_declared" {
			t.Fatalf("channels %v", channels)
		}
		iv, _ := b.Restrictions().ActiveAt(context.Background(), now)
		if len(iv) != 1 || iv[0].Reason != restrictions.Fault || !iv[0].End.Equal(end.Truncate(time.Microsecond)) || *iv[0].ReasonDescription != "Router" {
			t.Fatalf("unavailability %+v", iv)
		}

		// Repeat by the agent without notification: already declared, same window, same keys.
		h.Clock.Advance(time.Minute)
		h.Do("POST", path, e.agent, map[string]any{"notification": nil}).Expect(t, 200, "").JSON(t, &out)
		if out["already_declared"] != true || out["notification_status"] != "not_requested" || out["unavailability_end"] != end.Format(time.RFC3339Nano) && out["unavailability_end"] == nil {
			t.Fatalf("repeat %v", out)
		}
		if k1, k2 := e.outbox.got[0][3].IdempotencyKey, e.outbox.got[1][0].IdempotencyKey; k1 != k2 {
			t.Fatalf("keys %s %s", k1, k2)
		}
		if iv, _ := b.Restrictions().ActiveAt(context.Background(), h.Clock.Now()); len(iv) != 1 {
			t.Fatalf("a second window: %+v", iv)
		}
	})
}

// TestDeclareOutboxDown: the unavailability applies although the events
// were not accepted (failed), and a retry succeeds (requested).
func TestDeclareOutboxDown(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		e := setup(t, b, "")
		path := "/v1/alarms/" + e.key + "/declare-asset-fault"
		end := e.h.Clock.Now().Add(2 * time.Hour)
		e.outbox.fail = true
		var out map[string]any
		e.h.Do("POST", path, e.human, map[string]any{"notification": e.notification(end, e.email)}).Expect(t, 200, "").JSON(t, &out)
		if out["notification_status"] != "failed" {
			t.Fatalf("declared %v", out)
		}
		if iv, _ := b.Restrictions().ActiveAt(context.Background(), e.h.Clock.Now()); len(iv) != 1 {
			t.Fatalf("unavailability %+v", iv)
		}
		e.outbox.fail = false
		e.h.Do("POST", path, e.human, map[string]any{"notification": e.notification(end, e.email)}).Expect(t, 200, "").JSON(t, &out)
		if out["notification_status"] != "requested" || out["already_declared"] != true || len(e.outbox.got) != 1 {
			t.Fatalf("retry %v", out)
		}
	})
}
