// Package natsbus publishes events to NATS JetStream (ATCP_NATS_URL):
// every event, whatever its channel, as its envelope (events.Envelope) on
// the subject atcp.events.<type>, into a stream it creates when absent.
// The event's idempotency key is the message's Nats-Msg-Id, so JetStream
// drops a repeated publication within the stream's duplicate window, and
// a subscriber can recognise one after it.
package natsbus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"atcp/internal/events"
)

// Defaults of the stream atcp creates. An operator who wants other limits
// creates the stream (with these subjects) beforehand: an existing stream
// is used as it is.
const (
	DefaultStream        = "ATCP_EVENTS"
	DefaultSubjectPrefix = "atcp.events"
	// DefaultMaxAge keeps a month of events for subscribers that catch up.
	DefaultMaxAge = 30 * 24 * time.Hour
	// DuplicateWindow outlasts a delivery's claim (a deliverer that died
	// after publishing, before recording it, is retried when its claim
	// lapses) and the first retries, so such a repeat is dropped.
	DuplicateWindow = time.Hour
	// DefaultTimeout bounds connecting and each publication.
	DefaultTimeout = 5 * time.Second
)

// Config configures a Publisher.
type Config struct {
	URL string
	// Stream and SubjectPrefix default to DefaultStream and
	// DefaultSubjectPrefix; tests give each run its own.
	Stream        string
	SubjectPrefix string
	Timeout       time.Duration
	Logger        *slog.Logger
}

// Publisher publishes events; it is an events.Sender.
type Publisher struct {
	cfg Config
	nc  *nats.Conn
	js  jetstream.JetStream

	mu    sync.Mutex
	ready bool // the stream exists
}

// New connects to the server. It does not wait for it: while the server
// is away the connection keeps trying, and publications fail (and are
// retried by the outbox).
func New(cfg Config) (*Publisher, error) {
	if cfg.Stream == "" {
		cfg.Stream = DefaultStream
	}
	if cfg.SubjectPrefix == "" {
		cfg.SubjectPrefix = DefaultSubjectPrefix
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	log := cfg.Logger.With("component", "natsbus")
	nc, err := nats.Connect(cfg.URL, nats.Name("atcp"), nats.Timeout(cfg.Timeout),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from the event bus", "error", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) { log.Info("reconnected to the event bus", "server", c.ConnectedUrlRedacted()) }))
	if err != nil {
		return nil, fmt.Errorf("nats url: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &Publisher{cfg: cfg, nc: nc, js: js}, nil
}

// Subject is the subject events of type t are published on.
func (p *Publisher) Subject(t string) string { return p.cfg.SubjectPrefix + "." + t }

// Stream is the name of the stream the events go to.
func (p *Publisher) Stream() string { return p.cfg.Stream }

// Send implements events.Sender: it publishes e and waits for the
// stream's acknowledgement. A duplicate acknowledgement (the key was
// published within the window) counts as published.
func (p *Publisher) Send(ctx context.Context, e events.Event) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	if err := p.ensureStream(ctx); err != nil {
		return err
	}
	data, err := events.Envelope(e)
	if err != nil {
		return events.Permanent(err)
	}
	msg := nats.NewMsg(p.Subject(e.Type))
	msg.Data = data
	if _, err := p.js.PublishMsg(ctx, msg, jetstream.WithMsgID(e.IdempotencyKey), jetstream.WithExpectStream(p.cfg.Stream)); err != nil {
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			// No stream takes the subject (an operator deleted it): look
			// again, and create it, on the next attempt.
			p.mu.Lock()
			p.ready = false
			p.mu.Unlock()
		}
		return fmt.Errorf("publish to %s: %w", msg.Subject, err)
	}
	return nil
}

// ensureStream creates the stream when it does not exist, once per
// process until that succeeds, and again after it disappeared.
func (p *Publisher) ensureStream(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ready {
		return nil
	}
	_, err := p.js.Stream(ctx, p.cfg.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = p.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        p.cfg.Stream,
			Description: "atcp events (docs/events.md)",
			Subjects:    []string{p.cfg.SubjectPrefix + ".>"},
			Storage:     jetstream.FileStorage,
			MaxAge:      DefaultMaxAge,
			Duplicates:  DuplicateWindow,
		})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			err = nil // another instance created it meanwhile
		}
	}
	if err != nil {
		return fmt.Errorf("stream %s: %w", p.cfg.Stream, err)
	}
	p.ready = true
	return nil
}

// Close closes the connection. Publications wait for their
// acknowledgement, so nothing is left buffered.
func (p *Publisher) Close() { p.nc.Close() }
