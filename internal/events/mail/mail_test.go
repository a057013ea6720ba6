package mail_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/google/uuid"

	"atcp/internal/clock"
	"atcp/internal/events"
	"atcp/internal/events/mail"
	"atcp/internal/identity"
	"atcp/internal/testkit"
)

// received is one message the test server accepted.
type received struct {
	from string
	to   []string
	data []byte
	tls  bool
	user string
}

// mailServer is an SMTP server (emersion/go-smtp) run by the test: it
// keeps what it accepts and answers with the failures it is told to.
type mailServer struct {
	t    *testing.T
	srv  *smtp.Server
	addr string

	mu       sync.Mutex
	accepted []received
	// failData fails that many DATA commands with 451 before accepting.
	failData int
	// rejectRcpt refuses RCPT TO of these addresses with 550.
	rejectRcpt map[string]bool
	// user and password, when set, are required (AUTH PLAIN) before MAIL.
	user, password string
	authAttempts   int
}

type serverOptions struct {
	tls          *tls.Config // offered by STARTTLS, or spoken at once with implicit
	implicit     bool
	insecureAuth bool
}

func startServer(t *testing.T, o serverOptions) *mailServer {
	t.Helper()
	m := &mailServer{t: t, rejectRcpt: map[string]bool{}}
	m.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{m: m, c: c}, nil }))
	m.srv.Domain = "mx.test"
	m.srv.ReadTimeout, m.srv.WriteTimeout = 10*time.Second, 10*time.Second
	m.srv.TLSConfig = o.tls
	m.srv.AllowInsecureAuth = o.insecureAuth
	m.srv.ErrorLog = log.New(io.Discard, "", 0)
	var l net.Listener
	var err error
	if o.implicit {
		l, err = tls.Listen("tcp", "127.0.0.1:0", o.tls)
	} else {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	m.addr = l.Addr().String()
	go m.srv.Serve(l)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

func (m *mailServer) got() []received {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]received(nil), m.accepted...)
}

type session struct {
	m    *mailServer
	c    *smtp.Conn
	from string
	to   []string
	user string
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, password string) error {
		s.m.mu.Lock()
		defer s.m.mu.Unlock()
		s.m.authAttempts++
		if user != s.m.user || password != s.m.password {
			return errors.New("invalid credentials")
		}
		s.user = user
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.m.user != "" && s.user == "" {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.m.rejectRcpt[to] {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.m.failData > 0 {
		s.m.failData--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	_, isTLS := s.c.TLSConnectionState()
	s.m.accepted = append(s.m.accepted, received{from: s.from, to: s.to, data: data, tls: isTLS, user: s.user})
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

// testCA returns a server certificate for 127.0.0.1 and the pool that
// trusts it.
func testCA(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mx.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}

// A reviewed message as an operator might write it: umlauts, a long
// line, a line with a lone dot and one starting with "From ".
const (
	subject = "Störungsmeldung: Batteriespeicher „demo-bess“ – Kommunikationsverlust"
	body    = "Sehr geehrte Damen und Herren,\n\nder Batteriespeicher demo-bess ist seit 09:12 Uhr nicht erreichbar. " +
		"Die Nichtverfügbarkeit gilt bis 17:12 Uhr (Europe/Berlin); bitte prüfen Sie die Fernwirkstrecke und melden Sie sich bei der Leitwarte.\n" +
		".\nFrom the control room: 50 % Leistung = 5,0 MW.\n\nMit freundlichen Grüßen\nLeitwarte\n\nReferenz: demo-bess:COMMS-001"
)

func mailEvent(to string) events.Event {
	return events.Event{ID: uuid.Must(uuid.NewV7()), Type: events.TypeFaultNotification, OrganizationID: "acme",
		AssetID: "demo-bess", IdempotencyKey: "fault:0190a8c4:contact-7:email", Channel: events.ChannelEmail,
		Recipient: to, Subject: subject, Body: body}
}

// parsed is a received message decoded as a mail reader would.
type parsed struct {
	header  netmail.Header
	subject string
	body    string
}

func parse(t *testing.T, data []byte) parsed {
	t.Helper()
	msg, err := netmail.ReadMessage(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	subj, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = msg.Body
	switch enc := msg.Header.Get("Content-Transfer-Encoding"); strings.ToLower(enc) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "", "7bit", "8bit":
	default:
		t.Fatalf("unexpected transfer encoding %q", enc)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if ct := msg.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || !strings.Contains(strings.ToLower(ct), "utf-8") {
		t.Fatalf("content type %q", ct)
	}
	// SMTP carries lines ending in CRLF, the last one too: a reader sees
	// the body's line breaks as LF and no break after its last line.
	return parsed{header: msg.Header, subject: subj, body: strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")}
}

func sender(t *testing.T, url string, roots *x509.CertPool) *mail.Sender {
	t.Helper()
	var cfg *tls.Config
	if roots != nil {
		cfg = &tls.Config{RootCAs: roots}
	}
	s, err := mail.New(mail.Config{URL: url, From: "Leitwarte <leitwarte@atcp.example>", Timeout: 5 * time.Second, TLS: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// outbox is a SQLite outbox with a deliverer sending through s, on a
// manual machine clock.
type outbox struct {
	events.Store
	*events.Outbox
	d    *events.Deliverer
	real *clock.Manual
}

func newOutbox(t *testing.T, s events.Sender) *outbox {
	t.Helper()
	b := testkit.OpenSQLite(t)
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	if err := dir.EnsureOrganization(context.Background(), "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	o := &outbox{Store: b.Events(), real: clock.NewManual(testkit.SecurityStart)}
	o.Outbox = events.NewOutbox(b.Events(), clock.NewManual(testkit.Start), o.real)
	var err error
	if o.d, err = events.NewDeliverer(events.DelivererOptions{Store: b.Events(), Clock: o.real,
		Senders: map[string]events.Sender{events.ChannelEmail: s}}); err != nil {
		t.Fatal(err)
	}
	return o
}

func (o *outbox) run(t *testing.T) {
	t.Helper()
	if _, err := o.d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (o *outbox) status(t *testing.T, e events.Event) events.Delivery {
	t.Helper()
	d, err := o.Delivery(context.Background(), e.OrganizationID, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMailDeliveredVerbatim: through the outbox, each e-mail event is
// exactly one message to its recipient, subject and body verbatim, with a
// Message-ID and Idempotency-Key header that recognise a re-send.
func TestMailDeliveredVerbatim(t *testing.T) {
	srv := startServer(t, serverOptions{})
	s := sender(t, "smtp://"+srv.addr, nil)
	o := newOutbox(t, s)
	first, second := mailEvent("netz@partner.example"), mailEvent("bereitschaft@partner.example")
	second.IdempotencyKey = "fault:0190a8c4:contact-8:email"
	if err := o.Outbox.Enqueue(context.Background(), []events.Event{first, second}); err != nil {
		t.Fatal(err)
	}
	o.run(t)
	o.real.Advance(time.Hour)
	o.run(t)
	got := srv.got()
	if len(got) != 2 {
		t.Fatalf("server accepted %d messages, want 2", len(got))
	}
	for i, e := range []events.Event{first, second} {
		r := got[i]
		if r.from != "leitwarte@atcp.example" || len(r.to) != 1 || r.to[0] != e.Recipient || r.tls {
			t.Fatalf("message %d: envelope %q -> %q (tls %v)", i, r.from, r.to, r.tls)
		}
		p := parse(t, r.data)
		if p.subject != subject || p.body != body {
			t.Fatalf("message %d not verbatim:\nsubject %q\nbody %q", i, p.subject, p.body)
		}
		if want := "<" + s.MessageID(e.IdempotencyKey) + ">"; p.header.Get("Message-Id") != want {
			t.Fatalf("message %d: Message-ID %q, want %q", i, p.header.Get("Message-Id"), want)
		}
		if p.header.Get("Idempotency-Key") != e.IdempotencyKey || p.header.Get("To") != "<"+e.Recipient+">" ||
			!strings.Contains(p.header.Get("From"), "<leitwarte@atcp.example>") {
			t.Fatalf("message %d headers %v", i, p.header)
		}
		if d := o.status(t, e); d.Status != events.StatusDelivered || d.Attempts != 1 {
			t.Fatalf("event %d: %+v", i, d)
		}
	}
	if s.MessageID(first.IdempotencyKey) == s.MessageID(second.IdempotencyKey) ||
		!strings.HasSuffix(s.MessageID(first.IdempotencyKey), "@atcp.example") {
		t.Fatalf("message ids %s, %s", s.MessageID(first.IdempotencyKey), s.MessageID(second.IdempotencyKey))
	}
}

// TestMailRetries: a server that is down, then answers 451, gets the
// message on the third attempt, once; a recipient it refuses with 550
// ends the event as dead without a message.
func TestMailRetries(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there yet
	s := sender(t, "smtp://"+addr, nil)
	o := newOutbox(t, s)
	e := mailEvent("netz@partner.example")
	if err := o.Outbox.Enqueue(context.Background(), []events.Event{e}); err != nil {
		t.Fatal(err)
	}
	o.run(t)
	if d := o.status(t, e); d.Status != events.StatusPending || d.Attempts != 1 || !strings.Contains(d.LastError, "email: smtp") {
		t.Fatalf("server down: %+v", d)
	}

	srv := &mailServer{t: t, rejectRcpt: map[string]bool{"gone@partner.example": true}, failData: 1}
	srv.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{m: srv, c: c}, nil }))
	srv.srv.ErrorLog = log.New(io.Discard, "", 0)
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go srv.srv.Serve(l)
	defer srv.srv.Close()
	o.real.Advance(time.Hour)
	o.run(t)
	if d := o.status(t, e); d.Status != events.StatusPending || d.Attempts != 2 || !strings.Contains(d.LastError, "451") {
		t.Fatalf("after 451: %+v", d)
	}
	o.real.Advance(time.Hour)
	o.run(t)
	if d := o.status(t, e); d.Status != events.StatusDelivered || d.Attempts != 3 {
		t.Fatalf("after the retry: %+v", d)
	}
	if got := srv.got(); len(got) != 1 || parse(t, got[0].data).body != body {
		t.Fatalf("accepted %d messages, want 1 with the body verbatim", len(got))
	}

	gone := mailEvent("gone@partner.example")
	if err := o.Outbox.Enqueue(context.Background(), []events.Event{gone}); err != nil {
		t.Fatal(err)
	}
	o.run(t)
	if d := o.status(t, gone); d.Status != events.StatusDead || d.Attempts != 1 || !strings.Contains(d.LastError, "550") {
		t.Fatalf("refused recipient: %+v", d)
	}
	if len(srv.got()) != 1 {
		t.Fatal("a message to a refused recipient was accepted")
	}
}

// TestMailSTARTTLS: smtp:// upgrades with STARTTLS when the server offers
// it and authenticates over TLS only.
func TestMailSTARTTLS(t *testing.T) {
	cfg, roots := testCA(t)
	srv := startServer(t, serverOptions{tls: cfg})
	srv.user, srv.password = "atcp", "p@ss:wört"
	s := sender(t, "smtp://atcp:p%40ss%3Aw%C3%B6rt@"+srv.addr, roots)
	if err := s.Send(context.Background(), mailEvent("netz@partner.example")); err != nil {
		t.Fatal(err)
	}
	if got := srv.got(); len(got) != 1 || !got[0].tls || got[0].user != "atcp" {
		t.Fatalf("accepted %+v", got)
	}
	// An untrusted certificate is not accepted: no mail, a retry later.
	err := sender(t, "smtp://atcp:p%40ss%3Aw%C3%B6rt@"+srv.addr, x509.NewCertPool()).Send(context.Background(), mailEvent("x@partner.example"))
	if err == nil || events.IsPermanent(err) || len(srv.got()) != 1 {
		t.Fatalf("untrusted certificate: %v", err)
	}
}

// TestMailImplicitTLS: smtps:// speaks TLS from the first byte.
func TestMailImplicitTLS(t *testing.T) {
	cfg, roots := testCA(t)
	srv := startServer(t, serverOptions{tls: cfg, implicit: true})
	srv.user, srv.password = "atcp", "secret"
	if err := sender(t, "smtps://atcp:secret@"+srv.addr, roots).Send(context.Background(), mailEvent("netz@partner.example")); err != nil {
		t.Fatal(err)
	}
	if got := srv.got(); len(got) != 1 || !got[0].tls || got[0].user != "atcp" {
		t.Fatalf("accepted %+v", got)
	}
}

// TestMailNoPasswordInClear: without TLS, a server offering only PLAIN
// is not given the password.
func TestMailNoPasswordInClear(t *testing.T) {
	srv := startServer(t, serverOptions{insecureAuth: true})
	srv.user, srv.password = "atcp", "secret"
	err := sender(t, "smtp://atcp:secret@"+srv.addr, nil).Send(context.Background(), mailEvent("netz@partner.example"))
	if err == nil || !strings.Contains(err.Error(), "authentication mechanism") || len(srv.got()) != 0 {
		t.Fatalf("sent without TLS: %v", err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.authAttempts != 0 {
		t.Fatal("the password went over a plain connection")
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want mail.Server
		err  bool
	}{
		{"smtp://mail.example", mail.Server{Host: "mail.example", Port: 587}, false},
		{"smtp://u:p@mail.example:25", mail.Server{Host: "mail.example", Port: 25, User: "u", Password: "p"}, false},
		{"smtps://u%40x:p%2F@mail.example", mail.Server{Host: "mail.example", Port: 465, ImplicitTLS: true, User: "u@x", Password: "p/"}, false},
		{"smtps://[::1]:2465", mail.Server{Host: "::1", Port: 2465, ImplicitTLS: true}, false},
		{"smtp://mail.example/", mail.Server{Host: "mail.example", Port: 587}, false},
		{"http://mail.example", mail.Server{}, true},
		{"mail.example:25", mail.Server{}, true},
		{"smtp://", mail.Server{}, true},
		{"smtp://mail.example:0", mail.Server{}, true},
		{"smtp://mail.example:smtp", mail.Server{}, true},
		{"smtp://mail.example/path", mail.Server{}, true},
		{"smtp://u:secret@mail.example?x=1", mail.Server{}, true},
	} {
		got, err := mail.ParseURL(tc.url)
		if (err != nil) != tc.err || got != tc.want {
			t.Fatalf("%q: %+v, %v", tc.url, got, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Fatalf("%q: the error quotes the password: %v", tc.url, err)
		}
	}
	if _, err := mail.New(mail.Config{URL: "smtp://mail.example", From: "not an address"}); err == nil {
		t.Fatal("a From that is no address was accepted")
	}
}
