package app_test

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/google/uuid"

	"atcp/internal/app"
	"atcp/internal/events"
)

// mailbox is an SMTP server (emersion/go-smtp) keeping the recipients of
// what it accepts.
type mailbox struct {
	mu sync.Mutex
	to []string
}

func (m *mailbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &mailboxSession{m: m}, nil }

func (m *mailbox) got() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.to...)
}

type mailboxSession struct {
	m  *mailbox
	to []string
}

func (s *mailboxSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *mailboxSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *mailboxSession) Data(r io.Reader) error {
	if _, err := io.ReadAll(r); err != nil {
		return err
	}
	s.m.mu.Lock()
	s.m.to = append(s.m.to, s.to...)
	s.m.mu.Unlock()
	return nil
}
func (s *mailboxSession) Reset()        { s.to = nil }
func (s *mailboxSession) Logout() error { return nil }

// TestEventDeliveryWired: the server's outbox is delivered by its worker,
// e-mail through ATCP_SMTP_URL and chat through the webhook, and an event
// for the bus, with no ATCP_NATS_URL, ends dead naming the setting.
func TestEventDeliveryWired(t *testing.T) {
	box := &mailbox{}
	srv := smtp.NewServer(box)
	srv.ErrorLog = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Close()
	var hookCalls sync.Map
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hookCalls.Store(r.Header.Get("Idempotency-Key"), true)
	}))
	defer hook.Close()

	cfg := testConfig(t, "sqlite::memory:", t.TempDir())
	cfg.Simulate = false
	cfg.SMTPURL, cfg.MailFrom = "smtp://"+l.Addr().String(), "leitwarte@atcp.example"
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, a)
	list := []events.Event{
		{ID: uuid.New(), Type: events.TypeFaultNotification, OrganizationID: "demo", AssetID: "demo-bess", IdempotencyKey: "k-mail",
			Channel: events.ChannelEmail, Recipient: "netz@partner.example", Subject: "Störung", Body: "Text"},
		{ID: uuid.New(), Type: events.TypeFaultNotification, OrganizationID: "demo", AssetID: "demo-bess", IdempotencyKey: "k-chat",
			Channel: events.ChannelChat, Recipient: hook.URL + "/hook", Subject: "Störung", Body: "Text"},
		{ID: uuid.New(), Type: events.TypeFaultDeclared, OrganizationID: "demo", AssetID: "demo-bess", IdempotencyKey: "k-bus",
			Channel: events.ChannelBus},
	}
	if err := a.Outbox.Enqueue(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for _, e := range list {
		for {
			d, err := a.Store.Events().Delivery(context.Background(), "demo", e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != events.StatusPending {
				want := events.StatusDelivered
				if e.Channel == events.ChannelBus {
					want = events.StatusDead
				}
				if d.Status != want || (want == events.StatusDead && !strings.Contains(d.LastError, "ATCP_NATS_URL")) {
					t.Fatalf("%s: %+v", e.Channel, d)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still pending: %+v", e.Channel, d)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if got := box.got(); len(got) != 1 || got[0] != "netz@partner.example" {
		t.Fatalf("mailbox got %v", got)
	}
	if _, ok := hookCalls.Load("k-chat"); !ok {
		t.Fatal("the webhook was not called")
	}
}
