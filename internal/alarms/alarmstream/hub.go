package alarmstream

import (
	"atcp/internal/httpapi"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"atcp/internal/alarms"
	"atcp/internal/auth"
)

// Options configure a Hub; zero values take the defaults.
type Options struct {
	Store  alarms.Store
	Logger *slog.Logger
	// Poll is how often the poller asks the store for new events (200 ms).
	Poll time.Duration
	// Batch is the most events one store read returns (500).
	Batch int
	// Buffer is how many events may wait for one subscriber (256); past
	// it the subscriber is closed as too slow.
	Buffer int
	// MaxPerCaller is how many streams one caller (token subject) may hold
	// on this instance (10).
	MaxPerCaller int
	// Ping is how often an idle connection is pinged (30 s); a peer that
	// does not answer within WriteTimeout is closed.
	Ping time.Duration
	// WriteTimeout bounds one write or ping (10 s).
	WriteTimeout time.Duration
	// MaxLifetime closes a stream after this long (1 h, an access token's
	// lifetime), so that an expired token stops streaming; the client
	// reconnects with a fresh token and ?after=.
	MaxLifetime time.Duration
	// Credentials is asked at every ping whether the stream's token is
	// still in force (as every request's is), so that a revoked
	// credential, a deleted user or a withdrawn scope stops the stream
	// within one ping interval; nil: only MaxLifetime ends it.
	Credentials httpapi.CredentialChecker
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Poll, 200*time.Millisecond)
	def(&o.Ping, 30*time.Second)
	def(&o.WriteTimeout, 10*time.Second)
	def(&o.MaxLifetime, time.Hour)
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.Buffer <= 0 {
		o.Buffer = 256
	}
	if o.MaxPerCaller <= 0 {
		o.MaxPerCaller = 10
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Hub is an instance's one poller and its subscribers.
type Hub struct {
	o        Options
	ready    chan struct{} // closed once the cursor is known
	stopping chan struct{} // closed when Run ends: subscribers go away
	conns    sync.WaitGroup

	mu        sync.Mutex
	cursor    int64 // the largest event id fanned out
	stopped   bool
	subs      map[*subscriber]struct{}
	perCaller map[string]int
}

// NewHub returns a hub; Run polls and fans out.
func NewHub(o Options) *Hub {
	o.defaults()
	return &Hub{o: o, ready: make(chan struct{}), stopping: make(chan struct{}),
		subs: map[*subscriber]struct{}{}, perCaller: map[string]int{}}
}

// subscriber is one stream's place in the fan-out.
type subscriber struct {
	caller string
	vis    auth.Visibility
	org    string // "" for every visible organisation
	ch     chan message
	// dropped is closed when the buffer overflowed: the fan-out never
	// waits for a subscriber.
	dropped chan struct{}
}

func (s *subscriber) wants(m message) bool {
	return s.vis.Allows(m.org) && (s.org == "" || s.org == m.org)
}

var (
	errTooMany  = errors.New("too many streams")
	errStopping = errors.New("the stream is not running")
)

// subscribe adds a subscriber and returns the id the fan-out has reached:
// every event after it will be sent to the subscriber. It waits for the
// poller's first read of the store, at most until ctx ends.
func (h *Hub) subscribe(ctx context.Context, caller string, vis auth.Visibility, org string) (*subscriber, int64, error) {
	select {
	case <-h.ready:
	case <-h.stopping:
		return nil, 0, errStopping
	case <-ctx.Done():
		return nil, 0, errStopping
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return nil, 0, errStopping
	}
	if h.perCaller[caller] >= h.o.MaxPerCaller {
		return nil, 0, errTooMany
	}
	h.perCaller[caller]++
	s := &subscriber{caller: caller, vis: vis, org: org, ch: make(chan message, h.o.Buffer), dropped: make(chan struct{})}
	h.subs[s] = struct{}{}
	h.conns.Add(1)
	return s, h.cursor, nil
}

// unsubscribe removes s (if the fan-out has not dropped it) and frees its
// caller's slot.
func (h *Hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	delete(h.subs, s)
	if h.perCaller[s.caller]--; h.perCaller[s.caller] <= 0 {
		delete(h.perCaller, s.caller)
	}
	h.mu.Unlock()
	h.conns.Done()
}

// Subscribers is how many streams this instance serves.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Run polls the store until ctx ends, then closes every stream with
// StatusGoingAway and waits for them to end.
func (h *Hub) Run(ctx context.Context) {
	defer func() {
		h.mu.Lock()
		h.stopped = true
		h.mu.Unlock()
		close(h.stopping)
		h.conns.Wait()
	}()
	tick := time.NewTicker(h.o.Poll)
	defer tick.Stop()
	failing := false
	report := func(err error) {
		if err == nil {
			if failing {
				h.o.Logger.Info("alarm stream: the store answers again")
			}
			failing = false
			return
		}
		if !failing && ctx.Err() == nil {
			h.o.Logger.Warn("alarm stream: cannot read new alarm events; retrying", "error", err)
		}
		failing = true
	}
	started := false
	for {
		if !started {
			id, err := h.o.Store.LatestEventID(ctx)
			report(err)
			if err == nil {
				h.cursor, started = id, true
				close(h.ready)
			}
		} else {
			report(h.poll(ctx))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// poll fans out every event after the cursor, batch by batch.
func (h *Hub) poll(ctx context.Context) error {
	for {
		list, err := h.o.Store.EventsAfter(ctx, h.cursor, h.o.Batch)
		if err != nil || len(list) == 0 {
			return err
		}
		msgs := make([]message, 0, len(list))
		for _, e := range list {
			m, err := encode(e)
			if err != nil {
				return err
			}
			msgs = append(msgs, m)
		}
		h.fanOut(msgs)
		if len(list) < h.o.Batch {
			return nil
		}
	}
}

// fanOut hands msgs to every subscriber that may see them and moves the
// cursor past them, under one lock, so that subscribe's cursor and the
// messages a new subscriber gets meet exactly.
func (h *Hub) fanOut(msgs []message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		for _, m := range msgs {
			if !s.wants(m) {
				continue
			}
			select {
			case s.ch <- m:
			default:
				close(s.dropped)
				delete(h.subs, s)
			}
			if _, still := h.subs[s]; !still {
				break
			}
		}
	}
	h.cursor = msgs[len(msgs)-1].id
}
