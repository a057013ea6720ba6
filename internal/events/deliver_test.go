package events_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// fakeSender records what it is given and answers with the errors queued
// in fail, one per call, then nil.
type fakeSender struct {
	mu   sync.Mutex
	got  []events.Event
	fail []error
	// blocked, when set, is told of every send, which then waits until
	// its context ends.
	blocked chan events.Event
}

func (f *fakeSender) Send(ctx context.Context, e events.Event) error {
	if f.blocked != nil {
		f.blocked <- e
		<-ctx.Done()
		return ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, e)
	if len(f.fail) > 0 {
		err := f.fail[0]
		f.fail = f.fail[1:]
		return err
	}
	return nil
}

func (f *fakeSender) sent() []events.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]events.Event(nil), f.got...)
}

type fixture struct {
	store    events.Store
	outbox   *events.Outbox
	platform *clock.Manual
	real     *clock.Manual
	mail     *fakeSender
	chat     *fakeSender
	bus      *fakeSender
}

func newFixture(t *testing.T, b store.Backend) *fixture {
	t.Helper()
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{store: b.Events(), platform: clock.NewManual(testkit.Start), real: clock.NewManual(testkit.SecurityStart),
		mail: &fakeSender{}, chat: &fakeSender{}, bus: &fakeSender{}}
	f.outbox = events.NewOutbox(f.store, f.platform, f.real)
	return f
}

func (f *fixture) deliverer(t *testing.T, o events.DelivererOptions) *events.Deliverer {
	t.Helper()
	o.Store, o.Clock = f.store, f.real
	if o.Senders == nil {
		o.Senders = map[string]events.Sender{events.ChannelEmail: f.mail, events.ChannelChat: f.chat}
	}
	d, err := events.NewDeliverer(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func notification(channel, recipient string) events.Event {
	return events.Event{Type: events.TypeFaultNotification, OrganizationID: "acme", AssetID: "a1",
		IdempotencyKey: "fault:" + uuid.NewString(), Channel: channel, Recipient: recipient,
		Subject: "Störung a1", Body: "Text\n\nGruß"}
}

func declared() events.Event {
	return events.Event{Type: events.TypeFaultDeclared, OrganizationID: "beta", AssetID: "b1",
		IdempotencyKey: "declared:" + uuid.NewString(), Channel: events.ChannelBus, Payload: []byte(`{"alarm_key":"b1:GRID-001"}`)}
}

func (f *fixture) enqueue(t *testing.T, list ...events.Event) []events.Event {
	t.Helper()
	for i := range list {
		list[i].ID = uuid.Must(uuid.NewV7())
	}
	if err := f.outbox.Enqueue(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	return list
}

func (f *fixture) delivery(t *testing.T, e events.Event) events.Delivery {
	t.Helper()
	d, err := f.store.Delivery(context.Background(), e.OrganizationID, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func run(t *testing.T, d *events.Deliverer, want int) {
	t.Helper()
	n, err := d.Run(context.Background())
	if err != nil || n != want {
		t.Fatalf("run attempted %d, %v; want %d", n, err, want)
	}
}

// TestOutboxEnqueue: the outbox stamps events on the platform clock, due
// on the machine's, and refuses an invalid batch whole.
func TestOutboxEnqueue(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := newFixture(t, b)
		ctx := context.Background()
		e := notification(events.ChannelEmail, "ops@acme.example")
		if err := f.outbox.Enqueue(ctx, []events.Event{e}); err != nil {
			t.Fatal(err)
		}
		got, err := f.store.Claim(ctx, uuid.New(), f.real.Now(), 10, time.Minute)
		if err != nil || len(got) != 1 {
			t.Fatal(got, err)
		}
		if got[0].ID.Version() != 7 || !got[0].CreatedAt.Equal(testkit.Start) || got[0].Status != events.StatusPending {
			t.Fatalf("enqueued %+v", got[0])
		}

		good, bad := notification(events.ChannelEmail, "ops@acme.example"), notification(events.ChannelChat, "not a url")
		good.ID, bad.ID = uuid.New(), uuid.New()
		err = f.outbox.Enqueue(ctx, []events.Event{good, bad})
		if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "events[1].recipient") {
			t.Fatalf("invalid batch: %v", err)
		}
		twice := notification(events.ChannelEmail, "ops@acme.example")
		twice.ID = good.ID
		if err := f.outbox.Enqueue(ctx, []events.Event{good, twice}); !errs.Is(err, errs.Invalid) {
			t.Fatalf("repeated id in a batch: %v", err)
		}
		if _, err := f.store.Delivery(ctx, "acme", good.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a refused batch left an event: %v", err)
		}
	})
}

// TestDeliverySendsOnce: each event goes once through its channel's
// sender and every event once to the bus; a later run sends nothing.
func TestDeliverySendsOnce(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := newFixture(t, b)
		list := f.enqueue(t, notification(events.ChannelEmail, "ops@acme.example"),
			notification(events.ChannelChat, "https://hooks.example/1"), declared())
		d := f.deliverer(t, events.DelivererOptions{Bus: f.bus})
		run(t, d, 3)
		if got := f.mail.sent(); len(got) != 1 || got[0].ID != list[0].ID || got[0].Subject != list[0].Subject ||
			got[0].Body != list[0].Body || got[0].IdempotencyKey != list[0].IdempotencyKey {
			t.Fatalf("mail sent %+v", got)
		}
		if got := f.chat.sent(); len(got) != 1 || got[0].ID != list[1].ID {
			t.Fatalf("chat sent %+v", got)
		}
		if got := f.bus.sent(); len(got) != 3 {
			t.Fatalf("bus got %d events, want all 3", len(got))
		}
		for i, e := range list {
			dl := f.delivery(t, e)
			if dl.Status != events.StatusDelivered || dl.Attempts != 1 || dl.PublishedAt == nil || dl.FinishedAt == nil ||
				!dl.FinishedAt.Equal(f.real.Now()) || (i < 2) != (dl.SentAt != nil) {
				t.Fatalf("event %d: %+v", i, dl)
			}
		}
		f.real.Advance(time.Hour)
		run(t, d, 0)
		if len(f.mail.sent()) != 1 || len(f.bus.sent()) != 3 {
			t.Fatal("a delivered event was sent again")
		}
	})
}

// TestDeliveryRetries: a failing sender is retried on the schedule, on the
// machine's clock; the part already done (the bus) is not repeated.
func TestDeliveryRetries(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := newFixture(t, b)
		e := f.enqueue(t, notification(events.ChannelEmail, "ops@acme.example"))[0]
		f.mail.fail = []error{errors.New("dial tcp: connection refused"), errors.New("451 try again later")}
		schedule := events.Schedule{Base: 10 * time.Second, Cap: time.Minute, MaxAttempts: 5}
		d := f.deliverer(t, events.DelivererOptions{Bus: f.bus, Schedule: schedule})
		for attempt := 1; attempt <= 2; attempt++ {
			run(t, d, 1)
			wait, _ := schedule.Next(e.ID, attempt)
			dl := f.delivery(t, e)
			if dl.Status != events.StatusPending || dl.Attempts != attempt || !dl.NextAttemptAt.Equal(f.real.Now().Add(wait)) ||
				!strings.HasPrefix(dl.LastError, "email: ") || dl.PublishedAt == nil || dl.SentAt != nil {
				t.Fatalf("after failed attempt %d: %+v", attempt, dl)
			}
			f.real.Advance(wait - time.Microsecond)
			run(t, d, 0)
			f.real.Advance(time.Microsecond)
		}
		// Platform time does not make an event due.
		f.platform.Advance(24 * time.Hour)
		run(t, d, 1)
		dl := f.delivery(t, e)
		if dl.Status != events.StatusDelivered || dl.Attempts != 3 || dl.LastError != "" || dl.SentAt == nil {
			t.Fatalf("after the third attempt: %+v", dl)
		}
		if len(f.mail.sent()) != 3 || len(f.bus.sent()) != 1 {
			t.Fatalf("mail tried %d times, bus %d; want 3 and 1", len(f.mail.sent()), len(f.bus.sent()))
		}
	})
}

// TestDeliveryDead: a permanent refusal, the last attempt, a channel
// without sender and a bus event without a bus end an event as dead, with
// an error saying why.
func TestDeliveryDead(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := newFixture(t, b)
		refused := f.enqueue(t, notification(events.ChannelChat, "https://hooks.example/gone"))[0]
		f.chat.fail = []error{events.Permanent(errors.New("webhook answered 404"))}
		d := f.deliverer(t, events.DelivererOptions{Schedule: events.Schedule{Base: time.Second, Cap: time.Second, MaxAttempts: 2}})
		run(t, d, 1)
		if dl := f.delivery(t, refused); dl.Status != events.StatusDead || dl.Attempts != 1 || dl.FinishedAt == nil ||
			dl.LastError != "chat: webhook answered 404" {
			t.Fatalf("refused: %+v", dl)
		}

		exhausted := f.enqueue(t, notification(events.ChannelEmail, "ops@acme.example"))[0]
		f.mail.fail = []error{errors.New("timeout"), errors.New("timeout again")}
		run(t, d, 1)
		f.real.Advance(time.Second)
		run(t, d, 1)
		if dl := f.delivery(t, exhausted); dl.Status != events.StatusDead || dl.Attempts != 2 || dl.LastError != "email: timeout again" {
			t.Fatalf("exhausted: %+v", dl)
		}

		bare := f.deliverer(t, events.DelivererOptions{Senders: map[string]events.Sender{}})
		list := f.enqueue(t, notification(events.ChannelEmail, "ops@acme.example"), declared())
		run(t, bare, 2)
		if dl := f.delivery(t, list[0]); dl.Status != events.StatusDead || !strings.Contains(dl.LastError, "ATCP_SMTP_URL") {
			t.Fatalf("email without sender: %+v", dl)
		}
		if dl := f.delivery(t, list[1]); dl.Status != events.StatusDead || !strings.Contains(dl.LastError, "ATCP_NATS_URL") {
			t.Fatalf("bus event without bus: %+v", dl)
		}
		run(t, d, 0)
	})
}

// TestDeliveryShutdown: an attempt cut off by shutdown is not counted,
// and the event (with the rest of its batch) is due again at once.
func TestDeliveryShutdown(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := newFixture(t, b)
		list := f.enqueue(t, notification(events.ChannelEmail, "a@acme.example"), notification(events.ChannelEmail, "b@acme.example"))
		f.mail.blocked = make(chan events.Event, 1)
		d := f.deliverer(t, events.DelivererOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := d.Run(ctx); done <- err }()
		<-f.mail.blocked // the first event is being sent
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			if dl := f.delivery(t, e); dl.Status != events.StatusPending || dl.Attempts != 0 || !dl.NextAttemptAt.Equal(f.real.Now()) {
				t.Fatalf("after shutdown: %+v", dl)
			}
		}
		f.mail.blocked = nil
		run(t, d, 2)
	})
}

// TestDeliveryBoundedRun: one run attempts at most MaxPerRun events; the
// rest wait for the next.
func TestDeliveryBoundedRun(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		f := newFixture(t, b)
		for i := range 7 {
			f.enqueue(t, notification(events.ChannelEmail, fmt.Sprintf("ops%d@acme.example", i)))
		}
		d := f.deliverer(t, events.DelivererOptions{Batch: 2, MaxPerRun: 5})
		run(t, d, 5)
		run(t, d, 2)
		run(t, d, 0)
		if len(f.mail.sent()) != 7 {
			t.Fatalf("sent %d", len(f.mail.sent()))
		}
	})
}

// TestDeliverersTogether: deliverers running at once (two instances on
// PostgreSQL) send each event exactly once.
func TestDeliverersTogether(t *testing.T) {
	check := func(t *testing.T, a, b store.Backend) {
		f := newFixture(t, a)
		const n = 60
		for i := range n {
			f.enqueue(t, notification(events.ChannelEmail, fmt.Sprintf("ops%d@acme.example", i)))
		}
		g := &fixture{store: b.Events(), real: f.real, mail: f.mail, chat: f.chat}
		var wg sync.WaitGroup
		for _, fx := range []*fixture{f, g, f, g} {
			d := fx.deliverer(t, events.DelivererOptions{Batch: 3, MaxPerRun: n})
			wg.Go(func() {
				if _, err := d.Run(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		seen := map[uuid.UUID]int{}
		for _, e := range f.mail.sent() {
			seen[e.ID]++
		}
		if len(seen) != n {
			t.Fatalf("sent %d distinct events, want %d", len(seen), n)
		}
		for id, c := range seen {
			if c != 1 {
				t.Fatalf("event %s sent %d times", id, c)
			}
		}
	}
	t.Run("sqlite-file", func(t *testing.T) { b := testkit.OpenSQLiteFile(t); check(t, b, b) })
	if testkit.PostgresURL() != "" {
		t.Run("postgres", func(t *testing.T) { two := testkit.OpenPostgresInstances(t, 2); check(t, two[0], two[1]) })
	}
}
