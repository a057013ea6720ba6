package natsbus_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"atcp/internal/clock"
	"atcp/internal/events"
	"atcp/internal/events/natsbus"
	"atcp/internal/identity"
	"atcp/internal/testkit"
)

// natsURL is the NATS server with JetStream the tests publish to: the one
// every machine of the project runs (and .ci/run starts when it stopped),
// or ATCP_TEST_NATS_URL.
func natsURL() string {
	if u := os.Getenv("ATCP_TEST_NATS_URL"); u != "" {
		return u
	}
	return "nats://127.0.0.1:4222"
}

// testBus is a publisher on a stream and subjects of this test's own,
// deleted at cleanup, and a JetStream client to read them with.
type testBus struct {
	*natsbus.Publisher
	js jetstream.JetStream
}

func newTestBus(t *testing.T) *testBus {
	t.Helper()
	tag := strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	p, err := natsbus.New(natsbus.Config{URL: natsURL(), Stream: "ATCP_TEST_" + tag, SubjectPrefix: "atcp.test." + tag + ".events"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	nc, err := nats.Connect(natsURL())
	if err != nil {
		t.Fatalf("NATS at %s (set ATCP_TEST_NATS_URL for another): %v", natsURL(), err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := js.DeleteStream(context.Background(), p.Stream()); err != nil && !strings.Contains(err.Error(), "not found") {
			t.Error(err)
		}
	})
	return &testBus{Publisher: p, js: js}
}

// messages reads every message of the bus's stream.
func (b *testBus) messages(t *testing.T) []*jetstream.RawStreamMsg {
	t.Helper()
	ctx := context.Background()
	s, err := b.js.Stream(ctx, b.Stream())
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func busEvents() []events.Event {
	created := time.Date(2026, 2, 1, 9, 12, 3, 0, time.UTC)
	return []events.Event{
		{ID: uuid.Must(uuid.NewV7()), Type: events.TypeFaultNotification, OrganizationID: "acme", AssetID: "demo-bess",
			IdempotencyKey: "fault:0190:7:email", Channel: events.ChannelEmail, Recipient: "netz@partner.example",
			Subject: "Störung", Body: "Text", Payload: json.RawMessage(`{"alarm_key":"demo-bess:COMMS-001","contact_id":7}`),
			CreatedAt: created},
		{ID: uuid.Must(uuid.NewV7()), Type: events.TypeFaultDeclared, OrganizationID: "acme", AssetID: "demo-bess",
			IdempotencyKey: "declared:0190", Channel: events.ChannelBus,
			Payload: json.RawMessage(`{"alarm_key":"demo-bess:COMMS-001","already_declared":false}`), CreatedAt: created},
	}
}

// TestPublish: the stream is created when absent; each event is its
// envelope on atcp.events.<type> with the idempotency key as Nats-Msg-Id;
// a repeated key is dropped by JetStream.
func TestPublish(t *testing.T) {
	b := newTestBus(t)
	ctx := context.Background()
	list := busEvents()
	for _, e := range list {
		if err := b.Send(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	again := list[0]
	again.ID = uuid.Must(uuid.NewV7()) // a repeated declaration: a new event, the same key
	if err := b.Send(ctx, again); err != nil {
		t.Fatal(err)
	}
	got := b.messages(t)
	if len(got) != 2 {
		t.Fatalf("stream holds %d messages, want 2 (the repeated key dropped)", len(got))
	}
	for i, m := range got {
		e := list[i]
		want, _ := events.Envelope(e)
		if m.Subject != b.Subject(e.Type) || !strings.HasSuffix(m.Subject, ".events."+e.Type) || string(m.Data) != string(want) ||
			m.Header.Get(jetstream.MsgIDHeader) != e.IdempotencyKey {
			t.Fatalf("message %d: %s %s %v", i, m.Subject, m.Data, m.Header)
		}
		if strings.Contains(string(m.Data), "partner.example") {
			t.Fatalf("message %d carries the recipient: %s", i, m.Data)
		}
	}
	s, err := b.js.Stream(ctx, b.Stream())
	if err != nil {
		t.Fatal(err)
	}
	if cfg := s.CachedInfo().Config; cfg.Duplicates != natsbus.DuplicateWindow || len(cfg.Subjects) != 1 ||
		cfg.Subjects[0] != b.Subject(">") {
		t.Fatalf("created stream %+v", cfg)
	}
}

// TestExistingStream: a stream an operator created is used as it is.
func TestExistingStream(t *testing.T) {
	b := newTestBus(t)
	ctx := context.Background()
	if _, err := b.js.CreateStream(ctx, jetstream.StreamConfig{Name: b.Stream(), Subjects: []string{b.Subject(">")},
		Storage: jetstream.MemoryStorage, MaxMsgs: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(ctx, busEvents()[1]); err != nil {
		t.Fatal(err)
	}
	s, _ := b.js.Stream(ctx, b.Stream())
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Storage != jetstream.MemoryStorage || info.Config.MaxMsgs != 1000 || info.State.Msgs != 1 {
		t.Fatalf("stream %+v %+v", info.Config, info.State)
	}
}

// TestStreamRecreated: a stream deleted under a running publisher is
// created again; the publication in between fails and is retried.
func TestStreamRecreated(t *testing.T) {
	b := newTestBus(t)
	ctx := context.Background()
	list := busEvents()
	if err := b.Send(ctx, list[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.js.DeleteStream(ctx, b.Stream()); err != nil {
		t.Fatal(err)
	}
	err := b.Send(ctx, list[1])
	if err == nil || events.IsPermanent(err) {
		t.Fatalf("publication without stream: %v", err)
	}
	if err := b.Send(ctx, list[1]); err != nil {
		t.Fatal(err)
	}
	if got := b.messages(t); len(got) != 1 || got[0].Subject != b.Subject(list[1].Type) {
		t.Fatalf("recreated stream holds %d messages", len(got))
	}
}

// TestUnreachable: a server that is not there neither stops New nor
// blocks a publication past its timeout; the failure is retried.
func TestUnreachable(t *testing.T) {
	p, err := natsbus.New(natsbus.Config{URL: "nats://127.0.0.1:1", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	err = p.Send(context.Background(), busEvents()[0])
	if err == nil || events.IsPermanent(err) || time.Since(start) > 5*time.Second {
		t.Fatalf("publication without server: %v after %v", err, time.Since(start))
	}
}

// recorder is a mail sender stand-in.
type recorder struct{ got []events.Event }

func (r *recorder) Send(_ context.Context, e events.Event) error {
	r.got = append(r.got, e)
	return nil
}

// TestOutboxToBus: through the outbox, every event reaches the bus once,
// the e-mail event its sender as well.
func TestOutboxToBus(t *testing.T) {
	b := newTestBus(t)
	st := testkit.OpenSQLite(t)
	ctx := context.Background()
	dir := identity.NewDirectory(st.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	if err := dir.EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	real := clock.NewManual(testkit.SecurityStart)
	list := busEvents()
	if err := events.NewOutbox(st.Events(), clock.NewManual(testkit.Start), real).Enqueue(ctx, list); err != nil {
		t.Fatal(err)
	}
	mail := &recorder{}
	d, err := events.NewDeliverer(events.DelivererOptions{Store: st.Events(), Clock: real, Bus: b,
		Senders: map[string]events.Sender{events.ChannelEmail: mail}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := d.Run(ctx); err != nil {
			t.Fatal(err)
		}
		real.Advance(time.Hour)
	}
	if got := b.messages(t); len(got) != 2 || got[0].Subject != b.Subject(events.TypeFaultNotification) ||
		got[1].Subject != b.Subject(events.TypeFaultDeclared) {
		t.Fatalf("bus got %d messages", len(got))
	}
	if len(mail.got) != 1 || mail.got[0].ID != list[0].ID {
		t.Fatalf("mail got %+v", mail.got)
	}
	for _, e := range list {
		if dl, _ := st.Events().Delivery(ctx, "acme", e.ID); dl.Status != events.StatusDelivered || dl.PublishedAt == nil {
			t.Fatalf("%s: %+v", e.Type, dl)
		}
	}
}
