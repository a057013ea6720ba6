package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// outboxNow is a stand-in for the machine's clock, months away from the
// platform's testkit.Start, so that an instant on the wrong clock shows.
var outboxNow = testkit.SecurityStart

func testEvent(org, channel, recipient string, created time.Duration) events.Event {
	return events.Event{ID: uuid.Must(uuid.NewV7()), Type: events.TypeFaultNotification, OrganizationID: org,
		AssetID: "a1", IdempotencyKey: "fault:" + uuid.NewString(), Channel: channel, Recipient: recipient,
		Subject: "Störung Batterie a1", Body: "Sehr geehrte Damen und Herren,\n\nZeile zwei.",
		Payload: json.RawMessage(`{"alarm_key":"a1:COMMS-001","contact_id":7}`), CreatedAt: testkit.Start.Add(created)}
}

func sameEvent(t *testing.T, got events.Delivery, want events.Event) {
	t.Helper()
	g := got.Event
	if g.ID != want.ID || g.Type != want.Type || g.OrganizationID != want.OrganizationID || g.AssetID != want.AssetID ||
		g.IdempotencyKey != want.IdempotencyKey || g.Channel != want.Channel || g.Recipient != want.Recipient ||
		g.Subject != want.Subject || g.Body != want.Body || string(g.Payload) != string(want.Payload) ||
		!g.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("stored event\n %+v\nwant\n %+v", g, want)
	}
}

// TestEventOutbox: an event round-trips; a claim hides it from other
// claims until settled, released or lapsed; a settlement under a lost
// claim changes nothing; the parts of a delivery are remembered across
// attempts; delivered and dead events are never claimed again.
func TestEventOutbox(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx, s := context.Background(), b.Events()
		mail := testEvent("acme", events.ChannelEmail, "ops@acme.example", 0)
		chat := testEvent("acme", events.ChannelChat, "https://chat.example/hook/1", time.Second)
		bus := events.Event{ID: uuid.Must(uuid.NewV7()), Type: events.TypeFaultDeclared, OrganizationID: "beta",
			IdempotencyKey: "declared:1", Channel: events.ChannelBus, CreatedAt: testkit.Start.Add(2 * time.Second)}
		if err := s.Enqueue(ctx, []events.Event{mail, chat, bus}, outboxNow); err != nil {
			t.Fatal(err)
		}
		d, err := s.Delivery(ctx, "acme", mail.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameEvent(t, d, mail)
		if d.Status != events.StatusPending || d.Attempts != 0 || !d.NextAttemptAt.Equal(outboxNow) || d.LastError != "" ||
			d.SentAt != nil || d.PublishedAt != nil || d.FinishedAt != nil {
			t.Fatalf("new delivery state %+v", d)
		}
		if d, _ := s.Delivery(ctx, "beta", bus.ID); d.AssetID != "" || d.Payload != nil || d.Recipient != "" {
			t.Fatalf("bus event without asset and payload: %+v", d)
		}
		if _, err := s.Delivery(ctx, "beta", mail.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another organisation's event: %v", err)
		}

		// Nothing is due before its time.
		if got, err := s.Claim(ctx, uuid.New(), outboxNow.Add(-time.Microsecond), 10, time.Minute); err != nil || len(got) != 0 {
			t.Fatalf("claim before due: %v, %v", got, err)
		}
		first := uuid.New()
		got, err := s.Claim(ctx, first, outboxNow, 2, time.Minute)
		if err != nil || len(got) != 2 {
			t.Fatalf("claim 2: %d, %v", len(got), err)
		}
		claimed := map[uuid.UUID]events.Delivery{got[0].ID: got[0], got[1].ID: got[1]}
		if _, ok := claimed[mail.ID]; !ok {
			t.Fatalf("claimed %v, not the first due", claimed)
		}
		sameEvent(t, claimed[mail.ID], mail)
		if d := claimed[mail.ID]; !d.NextAttemptAt.Equal(outboxNow.Add(time.Minute)) {
			t.Fatalf("claimed event due again at %v, want at the claim's end", d.NextAttemptAt)
		}
		// A second claimer gets only the third event, and nothing more
		// while the claims hold.
		second := uuid.New()
		got, err = s.Claim(ctx, second, outboxNow.Add(time.Second), 10, time.Minute)
		if err != nil || len(got) != 1 || claimed[got[0].ID].ID != uuid.Nil {
			t.Fatalf("second claim: %v, %v", got, err)
		}
		if got, _ := s.Claim(ctx, uuid.New(), outboxNow.Add(59*time.Second), 10, time.Minute); len(got) != 0 {
			t.Fatalf("claimed events held by others: %v", got)
		}

		// A settlement under another claim is ignored.
		retryAt := outboxNow.Add(20 * time.Second)
		fail := events.Outcome{OrganizationID: "acme", EventID: mail.ID, Claim: second, Published: true,
			Status: events.StatusPending, NextAttemptAt: retryAt, Error: "email: 451 try later", At: outboxNow.Add(2 * time.Second)}
		if ok, err := s.Settle(ctx, fail); ok || err != nil {
			t.Fatalf("settle under another claim: %v, %v", ok, err)
		}
		fail.Claim = first
		if ok, err := s.Settle(ctx, fail); !ok || err != nil {
			t.Fatalf("settle: %v, %v", ok, err)
		}
		d, _ = s.Delivery(ctx, "acme", mail.ID)
		if d.Status != events.StatusPending || d.Attempts != 1 || !d.NextAttemptAt.Equal(retryAt) || d.LastError != fail.Error ||
			d.PublishedAt == nil || !d.PublishedAt.Equal(fail.At) || d.SentAt != nil || d.FinishedAt != nil {
			t.Fatalf("after a failed attempt: %+v", d)
		}
		if ok, _ := s.Settle(ctx, fail); ok {
			t.Fatal("settled twice under one claim")
		}

		// The retry is due at its time; the bus part is not done again.
		got, _ = s.Claim(ctx, first, retryAt, 10, time.Minute)
		if len(got) != 1 || got[0].ID != mail.ID || got[0].PublishedAt == nil || got[0].Attempts != 1 {
			t.Fatalf("retry claim: %+v", got)
		}
		done := events.Outcome{OrganizationID: "acme", EventID: mail.ID, Claim: first, Sent: true, Status: events.StatusDelivered,
			At: retryAt.Add(time.Second)}
		if ok, err := s.Settle(ctx, done); !ok || err != nil {
			t.Fatal(ok, err)
		}
		d, _ = s.Delivery(ctx, "acme", mail.ID)
		if d.Status != events.StatusDelivered || d.Attempts != 2 || d.LastError != "" || d.SentAt == nil || !d.SentAt.Equal(done.At) ||
			!d.PublishedAt.Equal(fail.At) || d.FinishedAt == nil || !d.FinishedAt.Equal(done.At) {
			t.Fatalf("delivered: %+v", d)
		}

		// Released events are due at once, their attempts uncounted; a
		// dead event is never claimed again.
		if err := s.Release(ctx, second, outboxNow.Add(3*time.Second)); err != nil {
			t.Fatal(err)
		}
		other := chat.ID
		if claimed[chat.ID].ID == uuid.Nil {
			other = bus.ID
		}
		got, _ = s.Claim(ctx, second, outboxNow.Add(3*time.Second), 10, time.Minute)
		if len(got) != 1 || got[0].Attempts != 0 {
			t.Fatalf("after release: %+v", got)
		}
		if ok, _ := s.Settle(ctx, events.Outcome{OrganizationID: got[0].OrganizationID, EventID: got[0].ID, Claim: second,
			Status: events.StatusDead, Error: "chat: 404", At: outboxNow.Add(4 * time.Second)}); !ok {
			t.Fatal("dead not settled")
		}
		// The first claim's other event lapses after its hold and is due again.
		got, _ = s.Claim(ctx, uuid.New(), outboxNow.Add(time.Hour), 10, time.Minute)
		if len(got) != 1 || got[0].ID != other {
			t.Fatalf("after the holds lapsed: %+v, want only %s", got, other)
		}
	})
}

// TestEventOutboxEnqueueAllOrNothing: a batch one of whose events cannot
// be stored stores none.
func TestEventOutboxEnqueueAllOrNothing(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		withAssetOrganizations(t, b)
		ctx, s := context.Background(), b.Events()
		stored := testEvent("acme", events.ChannelEmail, "ops@acme.example", 0)
		if err := s.Enqueue(ctx, []events.Event{stored}, outboxNow); err != nil {
			t.Fatal(err)
		}
		fresh := testEvent("acme", events.ChannelEmail, "ops@acme.example", 0)
		for name, batch := range map[string][]events.Event{
			"repeated id":          {fresh, stored},
			"unknown organisation": {fresh, testEvent("nobody", events.ChannelEmail, "ops@acme.example", 0)},
		} {
			if err := s.Enqueue(ctx, batch, outboxNow); err == nil {
				t.Fatalf("%s: stored", name)
			}
			if _, err := s.Delivery(ctx, "acme", fresh.ID); !errs.Is(err, errs.NotFound) {
				t.Fatalf("%s: the batch's first event was kept: %v", name, err)
			}
		}
		// The same idempotency key again is a new event: receivers dedupe.
		again := testEvent("acme", events.ChannelEmail, "ops@acme.example", 0)
		again.IdempotencyKey = stored.IdempotencyKey
		if err := s.Enqueue(ctx, []events.Event{again}, outboxNow); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Claim(ctx, uuid.New(), outboxNow, 10, time.Minute); len(got) != 2 {
			t.Fatalf("claimed %d, want both events of one key", len(got))
		}
	})
}

// TestEventOutboxConcurrentClaims: deliverers claiming together (two
// instances on PostgreSQL) never take one event twice, and between them
// take every event.
func TestEventOutboxConcurrentClaims(t *testing.T) {
	run := func(t *testing.T, a, b store.Backend) {
		withAssetOrganizations(t, a)
		ctx := context.Background()
		const n = 150
		list := make([]events.Event, n)
		for i := range list {
			list[i] = testEvent([]string{"acme", "beta"}[i%2], events.ChannelEmail, fmt.Sprintf("ops%d@acme.example", i), 0)
		}
		if err := a.Events().Enqueue(ctx, list, outboxNow); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		seen := map[uuid.UUID]int{}
		var wg sync.WaitGroup
		for w, s := range []events.Store{a.Events(), b.Events(), a.Events(), b.Events()} {
			wg.Go(func() {
				for {
					got, err := s.Claim(ctx, uuid.New(), outboxNow, 1+w, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, d := range got {
						seen[d.ID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != n {
			t.Fatalf("claimed %d distinct events, want %d", len(seen), n)
		}
		for id, c := range seen {
			if c != 1 {
				t.Fatalf("event %s claimed %d times", id, c)
			}
		}
	}
	t.Run("sqlite-file", func(t *testing.T) { b := testkit.OpenSQLiteFile(t); run(t, b, b) })
	t.Run("sqlite-memory", func(t *testing.T) { b := testkit.OpenSQLite(t); run(t, b, b) })
	if testkit.PostgresURL() != "" {
		t.Run("postgres", func(t *testing.T) { two := testkit.OpenPostgresInstances(t, 2); run(t, two[0], two[1]) })
	}
}
