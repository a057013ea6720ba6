package contactshttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"atcp/internal/auth"
	"atcp/internal/events"
	"atcp/internal/events/mail"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/branding/brandinghttp"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/contacts/contactshttp"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/magic/magichttp"
	"atcp/internal/onboarding/notify"
	"atcp/internal/onboarding/onboardingtest"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// sessionsOnly checks magic-link sessions against the store, as the app
// does, and lets every other (minted) token through.
type sessionsOnly struct{ s *magic.SessionCheck }

func (c *sessionsOnly) InForce(ctx context.Context, p *auth.Principal) (bool, error) {
	if p.IsTaskSession() {
		return c.s.TaskSessionInForce(ctx, p)
	}
	return true, nil
}

// recorder keeps the ids of the events enqueued.
type recorder struct {
	*events.Outbox
	mu  sync.Mutex
	ids []events.Event
}

func (r *recorder) Enqueue(ctx context.Context, list []events.Event) error {
	for i := range list {
		if list[i].ID.String() == "00000000-0000-0000-0000-000000000000" {
			return errors.New("notify enqueued an event without id")
		}
	}
	if err := r.Outbox.Enqueue(ctx, list); err != nil {
		return err
	}
	r.mu.Lock()
	r.ids = append(r.ids, list...)
	r.mu.Unlock()
	return nil
}

func (r *recorder) events() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.ids...)
}

type env struct {
	*onboardingtest.Kit
	outbox   *recorder
	smtp     *smtpServer
	delivery *events.Deliverer
	brand    *branding.Service
	mailer   *notify.Mailer
	svc      *contacts.Service
	ob       string // bess-1's workflow (acme)
	betaOb   string // b-1's workflow (beta)
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	ctx := context.Background()
	check := &sessionsOnly{}
	k := onboardingtest.New(t, b, onboardingtest.Config{Assets: []onboardingtest.Asset{{ID: "bess-1", Org: "acme"}, {ID: "b-1", Org: "beta"}},
		Harness: []testkit.HarnessOption{func(o *httpapi.Options) { o.Credentials = check }}})
	check.s = magic.NewSessionCheck(b.OnboardingMagic(), k.Security)
	if _, err := b.Directory().EnsureUser(ctx, identity.User{ID: "u-acme", OrganizationID: "acme", Email: "acme@example.com",
		Status: identity.UserInvited, Enabled: true, CreatedAt: testkit.Start, UpdatedAt: testkit.Start}); err != nil {
		t.Fatal(err)
	}
	brand := branding.NewService(branding.Deps{Store: b.OnboardingBranding(), Organizations: b.Directory(), Clock: k.Clock})
	rec := &recorder{Outbox: events.NewOutbox(b.Events(), k.Clock, k.Security)}
	mailer := notify.New(notify.Deps{Outbox: rec, Branding: brand, Contacts: b.OnboardingContacts(), Assets: k.Assets,
		Organizations: b.Directory(), ConsoleURL: "https://console.example"})
	k.Core.SetNotifier(mailer)
	svc := contacts.NewService(contacts.Deps{Store: b.OnboardingContacts(), Core: k.Core, Users: b.Directory(), Branding: brand,
		Mailer: mailer, Deliveries: b.Events(), WireBranding: brandinghttp.Wire, Security: k.Security})
	m := magic.NewService(b.OnboardingMagic(), svc, k.Tokens, k.Clock, k.Security)
	svc.Install(m)
	contactshttp.Register(k.Server, svc, k.Security)
	magichttp.Register(k.Server, m, k.Security)

	srv := startSMTP(t)
	sender, err := mail.New(mail.Config{URL: "smtp://" + srv.addr, From: "Onboarding <onboarding@atcp.example>"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := events.NewDeliverer(events.DelivererOptions{Store: b.Events(), Clock: k.Security,
		Senders: map[string]events.Sender{events.ChannelEmail: sender}})
	if err != nil {
		t.Fatal(err)
	}
	return env{Kit: k, outbox: rec, smtp: srv, delivery: d, brand: brand, mailer: mailer, svc: svc,
		ob: k.Start("bess-1", nil).ID, betaOb: k.Start("b-1", nil).ID}
}

// contact adds a contact to e.ob and returns its id.
func (e env) contact(t *testing.T, name, email string, roles ...string) string {
	t.Helper()
	return e.Do("POST", "/v1/onboardings/"+e.ob+"/contacts", e.Acme, map[string]any{"name": name, "email": email, "roles": roles}).
		Expect(t, 201, "").Map(t)["contact_id"].(string)
}

// smtpServer keeps every message it accepts.
type smtpServer struct {
	addr string
	mu   sync.Mutex
	msgs []received
}

type received struct {
	to   []string
	data []byte
}

func startSMTP(t *testing.T) *smtpServer {
	t.Helper()
	s := &smtpServer{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	srv.Domain = "mx.test"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

func (s *smtpServer) received() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.msgs...)
}

type session struct {
	s  *smtpServer
	to []string
}

func (x *session) Mail(string, *smtp.MailOptions) error { return nil }

// Rcpt refuses the mailboxes of refused.example for good (550).
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if strings.HasSuffix(to, "@refused.example") {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	}
	x.to = append(x.to, to)
	return nil
}
func (x *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, received{to: x.to, data: data})
	x.s.mu.Unlock()
	return nil
}
func (x *session) Reset()        { x.to = nil }
func (x *session) Logout() error { return nil }

// message is a received mail, decoded: its header and its parts by media
// type.
type message struct {
	header netmail.Header
	parts  map[string]string
}

func parse(t *testing.T, data []byte) message {
	t.Helper()
	m, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out := message{header: m.Header, parts: map[string]string{}}
	walk(t, m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), m.Body, out.parts)
	return out
}

func walk(t *testing.T, contentType, encoding string, body io.Reader, parts map[string]string) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			walk(t, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, parts)
		}
	}
	if strings.EqualFold(encoding, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	parts[mt] = string(b)
}

var tokenPattern = regexp.MustCompile(`aml_[A-Za-z0-9_-]{43}`)
