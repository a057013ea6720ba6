// Package mail sends e-mail events through an SMTP server with
// wneessen/go-mail: one message per event, to the event's recipient, with
// its subject and body verbatim: plain text, or, when the event carries
// mail parts (events.Mail), multipart with the HTML part, the sender's
// display name, Reply-To and an inline banner (Content-ID banner) read
// from object storage at delivery.
//
// The server is ATCP_SMTP_URL: smtp://user:pass@host:port submits in
// plain SMTP and upgrades with STARTTLS when the server offers it
// (opportunistic; port 587 by default), smtps://... speaks TLS from the
// first byte (implicit TLS; port 465 by default). Credentials are sent
// only over TLS or by a challenge mechanism (SCRAM, CRAM-MD5) that never
// reveals the password: a server offering only PLAIN or LOGIN without TLS
// is refused rather than handed the password in clear.
//
// A re-sent event is recognisable: its Message-ID is derived from the
// event's idempotency key (the same key, the same Message-ID), and the
// key itself travels in an Idempotency-Key header.
package mail

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"atcp/internal/events"
)

// DefaultTimeout bounds the connection and each command of one delivery.
const DefaultTimeout = 15 * time.Second

// Config configures a Sender.
type Config struct {
	// URL is the server: smtp://[user[:password]@]host[:port] or smtps://...
	URL string
	// From is the sender of every message: an address, optionally with a
	// display name ("atcp Leitwarte <leitwarte@example.com>").
	From string
	// Timeout bounds the connection and each SMTP command (DefaultTimeout
	// when 0).
	Timeout time.Duration
	// TLS, when set, verifies the server's certificate against its roots
	// instead of the system's (tests; a private CA). ServerName is set to
	// the URL's host when empty.
	TLS *tls.Config
	// Objects reads the inline banners of branded mails
	// (objstore.Store); nil: a mail naming a banner is sent without it.
	Objects Objects
}

// Objects reads an object: the first n bytes of key.
type Objects interface {
	Open(ctx context.Context, key string, n int64) (io.ReadCloser, error)
}

// MaxBannerBytes bounds the banner read into a mail (the branding's limit).
const MaxBannerBytes = 2 << 20

// Server is a parsed ATCP_SMTP_URL.
type Server struct {
	Host           string
	Port           int
	ImplicitTLS    bool
	User, Password string
}

// ParseURL reads an SMTP server URL. Its errors never quote the URL: it
// may hold a password.
func ParseURL(raw string) (Server, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Server{}, errors.New("not a URL: want smtp://user:pass@host:port or smtps://user:pass@host:port")
	}
	var s Server
	switch u.Scheme {
	case "smtp":
		s.Port = 587
	case "smtps":
		s.Port, s.ImplicitTLS = 465, true
	default:
		return Server{}, fmt.Errorf("scheme %q: want smtp:// (STARTTLS when offered) or smtps:// (implicit TLS)", u.Scheme)
	}
	s.Host = u.Hostname()
	if s.Host == "" {
		return Server{}, errors.New("no host: want smtp://user:pass@host:port")
	}
	if p := u.Port(); p != "" {
		if s.Port, err = strconv.Atoi(p); err != nil || s.Port < 1 || s.Port > 65535 {
			return Server{}, fmt.Errorf("port %q is not a port number", p)
		}
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return Server{}, errors.New("a path, query or fragment means nothing here: want smtp://user:pass@host:port")
	}
	if u.User != nil {
		s.User = u.User.Username()
		s.Password, _ = u.User.Password()
	}
	return s, nil
}

// ParseFrom checks a From setting and returns its address.
func ParseFrom(from string) (*netmail.Address, error) {
	a, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("%q is not an e-mail address (name@example.com or Name <name@example.com>)", from)
	}
	return a, nil
}

// Sender sends e-mail events.
type Sender struct {
	server  Server
	from    *netmail.Address
	domain  string // of From, the right-hand side of the Message-IDs
	timeout time.Duration
	tls     *tls.Config
	objects Objects
}

// New checks the configuration; it does not connect.
func New(c Config) (*Sender, error) {
	server, err := ParseURL(c.URL)
	if err != nil {
		return nil, fmt.Errorf("smtp url: %w", err)
	}
	from, err := ParseFrom(c.From)
	if err != nil {
		return nil, fmt.Errorf("mail from: %w", err)
	}
	s := &Sender{server: server, from: from, timeout: c.Timeout, tls: c.TLS, objects: c.Objects}
	s.domain = from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.tls == nil {
		s.tls = &tls.Config{}
	} else {
		s.tls = s.tls.Clone()
	}
	if s.tls.ServerName == "" {
		s.tls.ServerName = server.Host
	}
	s.tls.MinVersion = max(s.tls.MinVersion, tls.VersionTLS12)
	return s, nil
}

// MessageID is the Message-ID of the messages of an idempotency key,
// without angle brackets: a hash of the key (which may hold characters a
// Message-ID may not) at the sender's domain.
func (s *Sender) MessageID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + "@" + s.domain
}

// Send implements events.Sender. A message the server refuses with a
// permanent (5xx) reply to the recipient or the content is final; every
// other failure (no connection, a 4xx, a refused sender, authentication)
// is retried, as it may be the server's or its configuration's and pass.
func (s *Sender) Send(ctx context.Context, e events.Event) error {
	m := gomail.NewMsg()
	fromName := s.from.Name
	if e.Mail != nil && e.Mail.FromName != "" {
		fromName = e.Mail.FromName
	}
	if err := m.FromFormat(fromName, s.from.Address); err != nil {
		return fmt.Errorf("from: %w", err)
	}
	if err := m.To(e.Recipient); err != nil {
		return events.Permanent(fmt.Errorf("recipient: %w", err))
	}
	m.Subject(e.Subject)
	m.SetMessageIDWithValue(s.MessageID(e.IdempotencyKey))
	m.SetGenHeader("Idempotency-Key", e.IdempotencyKey)
	m.SetUserAgent("atcp")
	m.SetBodyString(gomail.TypeTextPlain, e.Body)
	if e.Mail != nil {
		if err := s.branded(ctx, m, *e.Mail); err != nil {
			return err
		}
	}

	opts := []gomail.Option{gomail.WithPort(s.server.Port), gomail.WithTimeout(s.timeout), gomail.WithTLSConfig(s.tls)}
	if s.server.ImplicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.server.User != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.server.User), gomail.WithPassword(s.server.Password))
	}
	c, err := gomail.NewClient(s.server.Host, opts...)
	if err != nil {
		return fmt.Errorf("smtp client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, m); err != nil {
		if m.IsDelivered() {
			// The server took the message; only the goodbye (RSET,
			// QUIT) failed. Sending again would duplicate it.
			return nil
		}
		err = fmt.Errorf("smtp %s:%d: %w", s.server.Host, s.server.Port, err)
		if refusedForGood(err) {
			return events.Permanent(err)
		}
		return err
	}
	return nil
}

// branded adds the HTML part, Reply-To and the inline banner.
func (s *Sender) branded(ctx context.Context, m *gomail.Msg, parts events.Mail) error {
	if parts.ReplyTo != "" {
		if err := m.ReplyTo(parts.ReplyTo); err != nil {
			return events.Permanent(fmt.Errorf("reply-to: %w", err))
		}
	}
	if parts.HTML != "" {
		m.AddAlternativeString(gomail.TypeTextHTML, parts.HTML)
	}
	if parts.BannerKey == "" || s.objects == nil {
		return nil
	}
	r, err := s.objects.Open(ctx, parts.BannerKey, MaxBannerBytes)
	if err != nil {
		// A banner replaced since the mail was rendered keeps its object
		// (banners are kept by hash); anything else is worth a retry.
		return fmt.Errorf("banner: %w", err)
	}
	defer r.Close()
	banner, err := io.ReadAll(io.LimitReader(r, MaxBannerBytes))
	if err != nil {
		return fmt.Errorf("banner: %w", err)
	}
	// RFC 2392: cid:banner in the HTML names the part of Content-ID <banner>.
	m.EmbedReadSeeker("banner", bytes.NewReader(banner), gomail.WithFileContentID("<banner>"),
		gomail.WithFileContentType(gomail.ContentType(parts.BannerContentType)))
	return nil
}

// refusedForGood: a 5xx reply to RCPT TO (no such mailbox) or to the
// message (content refused) will be given again to the same message.
func refusedForGood(err error) bool {
	var se *gomail.SendError
	if !errors.As(err, &se) || se.IsTemp() || se.ErrorCode() < 500 || se.ErrorCode() > 599 {
		return false
	}
	switch se.Reason {
	case gomail.ErrSMTPRcptTo, gomail.ErrSMTPData, gomail.ErrSMTPDataClose:
		return true
	}
	return false
}
