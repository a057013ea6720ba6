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

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/events"
	"atcp/internal/events/mail"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/branding/brandinghttp"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/contacts/contactshttp"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/magic/magichttp"
	"atcp/internal/onboarding/notify"
	"atcp/internal/onboarding/onboardinghttp"
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
	h        *testkit.Harness
	b        store.Backend
	outbox   *recorder
	smtp     *smtpServer
	delivery *events.Deliverer
	brand    *branding.Service
	mailer   *notify.Mailer
	core     *onboarding.Service
	svc      *contacts.Service
	platform string
	acme     string // acme user u-acme, onboarding.read and write
	acmeRO   string
	beta     string
	none     string
	ob       string // bess-1's workflow (acme)
	betaOb   string // b-1's workflow (beta)
}

func setup(t *testing.T, b store.Backend) env {
	t.Helper()
	ctx := context.Background()
	check := &sessionsOnly{}
	h := testkit.NewHarness(t, b, func(o *httpapi.Options) { o.Credentials = check })
	check.s = magic.NewSessionCheck(b.OnboardingMagic(), h.Security)
	dir := identity.NewDirectory(b.Directory(), h.Clock, h.URL)
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(ctx, org, org+" GmbH"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Directory().EnsureUser(ctx, identity.User{ID: "u-acme", OrganizationID: "acme", Email: "acme@example.com",
		Status: identity.UserInvited, Enabled: true, CreatedAt: testkit.Start, UpdatedAt: testkit.Start}); err != nil {
		t.Fatal(err)
	}
	registry := assets.NewService(b.Assets(), h.Clock)
	for _, c := range []struct{ id, org string }{{"bess-1", "acme"}, {"b-1", "beta"}} {
		a := assets.NewAsset(c.id, c.org, "Battery "+c.id, "Cottbus", assets.Standalone)
		it := assets.FullControl
		a.IntegrationType, a.OperationalStatus = &it, assets.Onboarding
		if err := registry.EnsureAsset(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	core := onboarding.NewService(b.Onboardings(), registry, h.Clock)
	onboardinghttp.Register(h.Server, core, registry, h.Clock)
	brand := branding.NewService(branding.Deps{Store: b.OnboardingBranding(), Organizations: b.Directory(), Clock: h.Clock})
	rec := &recorder{Outbox: events.NewOutbox(b.Events(), h.Clock, h.Security)}
	mailer := notify.New(notify.Deps{Outbox: rec, Branding: brand, Contacts: b.OnboardingContacts(), Assets: registry,
		Organizations: b.Directory(), ConsoleURL: "https://console.example"})
	core.SetNotifier(mailer)
	svc := contacts.NewService(contacts.Deps{Store: b.OnboardingContacts(), Core: core, Users: b.Directory(), Branding: brand,
		Mailer: mailer, Deliveries: b.Events(), WireBranding: brandinghttp.Wire, Security: h.Security})
	m := magic.NewService(b.OnboardingMagic(), svc, h.Tokens, h.Clock, h.Security)
	svc.Install(m)
	contactshttp.Register(h.Server, svc, h.Security)
	magichttp.Register(h.Server, m, h.Security)

	srv := startSMTP(t)
	sender, err := mail.New(mail.Config{URL: "smtp://" + srv.addr, From: "Onboarding <onboarding@atcp.example>"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := events.NewDeliverer(events.DelivererOptions{Store: b.Events(), Clock: h.Security,
		Senders: map[string]events.Sender{events.ChannelEmail: sender}})
	if err != nil {
		t.Fatal(err)
	}
	user := func(sub, org string, scopes ...auth.Scope) string {
		return h.Token(auth.Principal{Subject: sub, OrganizationID: org, Email: sub + "@example.com", Scopes: auth.NewScopeSet(scopes...)})
	}
	e := env{h: h, b: b, outbox: rec, smtp: srv, delivery: d, brand: brand, mailer: mailer, core: core, svc: svc,
		platform: user("u-platform", auth.PlatformOrganization, auth.OnboardingRead, auth.OnboardingWrite),
		acme:     user("u-acme", "acme", auth.OnboardingRead, auth.OnboardingWrite),
		acmeRO:   user("u-acme-ro", "acme", auth.OnboardingRead),
		beta:     user("u-beta", "beta", auth.OnboardingRead, auth.OnboardingWrite),
		none:     user("u-none", "acme", auth.AssetRead),
	}
	e.ob = h.Do("POST", "/v1/onboardings", e.platform, map[string]any{"asset_id": "bess-1"}).Expect(t, 201, "").Map(t)["onboarding_id"].(string)
	e.betaOb = h.Do("POST", "/v1/onboardings", e.platform, map[string]any{"asset_id": "b-1"}).Expect(t, 201, "").Map(t)["onboarding_id"].(string)
	return e
}

// contact adds a contact to e.ob and returns its id.
func (e env) contact(t *testing.T, name, email string, roles ...string) string {
	t.Helper()
	return e.h.Do("POST", "/v1/onboardings/"+e.ob+"/contacts", e.acme, map[string]any{"name": name, "email": email, "roles": roles}).
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
