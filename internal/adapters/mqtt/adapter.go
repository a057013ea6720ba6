package mqtt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"
	"github.com/prometheus/client_golang/prometheus"

	"atcp/internal/assets"
	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

// Defaults of Options.
const (
	DefaultStaleness       = 5 * time.Second
	DefaultCommandValidity = 3 * time.Second
	platformKeepAlive      = 10 // seconds
)

// Options configure an Adapter.
type Options struct {
	// URL is the broker: mqtt://host:port or mqtts://host:port.
	URL      string
	Username string
	Password string // a secret: never logged
	Logger   *slog.Logger
	// Registerer receives the adapter's metrics; nil registers none.
	Registerer prometheus.Registerer
	// Clock is real time: command deadlines, sequence numbers and
	// staleness follow the machine's clock whatever speed the platform
	// clock runs at. Nil is clock.Real.
	Clock clock.Clock
	// Staleness is how old (real time) the newest measurement of an asset
	// may be before Read reports it unavailable; 0 is DefaultStaleness.
	Staleness time.Duration
	// CommandValidity is how long (real time) after Send a command may
	// still be executed; 0 is DefaultCommandValidity.
	CommandValidity time.Duration
}

// Adapter steers assets behind MQTT edge gateways. It is safe for
// concurrent use.
type Adapter struct {
	log       *slog.Logger
	clock     clock.Clock
	staleness time.Duration
	validity  time.Duration
	cm        *autopaho.ConnectionManager
	stop      context.CancelFunc
	done      chan struct{}
	wake      chan struct{}

	mu       sync.Mutex
	up       bool
	byID     map[string]*device
	byPrefix map[string]*device
	filters  map[string]int // subscription filter → attached assets under it
	// online holds the prefixes whose gateway's status is online, attached
	// or not: a wildcard subscription delivers the retained status of an
	// asset attached later only once, when it is first subscribed.
	online  map[string]bool
	lastSeq uint64
	// queue holds the ids of assets with an unsent command, each once;
	// its length is bounded by the attached assets.
	queue []string

	refused *prometheus.CounterVec
	dropped *prometheus.CounterVec
	sent    prometheus.Counter
	latency prometheus.Histogram
}

// device is one attached asset.
type device struct {
	id, prefix string
	bounds     Bounds
	latest     telemetry.Measurements
	receivedAt time.Time // real time; zero: nothing received yet
	pending    *queued
	// unconfirmed are the latest commands published whose execution no
	// measurement has reported yet (by its command_seq), oldest first, at
	// most maxUnconfirmed: a command older than those is past its deadline.
	unconfirmed []published
}

// maxUnconfirmed bounds device.unconfirmed: a command is valid for
// DefaultCommandValidity and the loop sends one a second.
const maxUnconfirmed = 4

// published is a command handed to the broker, and when (real time).
type published struct {
	seq uint64
	at  time.Time
}

// queued is a command waiting for the publisher.
type queued struct {
	seq       uint64
	payload   []byte
	expiresAt time.Time
}

// New connects to the broker in the background (a broker that is down is
// retried with backoff; New does not wait for it) and starts publishing.
// Close stops both.
func New(ctx context.Context, o Options) (*Adapter, error) {
	u, err := ParseBrokerURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Staleness <= 0 {
		o.Staleness = DefaultStaleness
	}
	if o.CommandValidity <= 0 {
		o.CommandValidity = DefaultCommandValidity
	}
	a := &Adapter{
		log: o.Logger, clock: o.Clock, staleness: o.Staleness, validity: o.CommandValidity,
		done: make(chan struct{}), wake: make(chan struct{}, 1),
		byID: map[string]*device{}, byPrefix: map[string]*device{}, filters: map[string]int{}, online: map[string]bool{},
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "atcp_mqtt_measurements_refused_total", Help: "Measurement messages refused by the MQTT adapter, by reason.",
		}, []string{"reason"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "atcp_mqtt_commands_dropped_total",
			Help: "Commands the MQTT adapter did not publish: superseded by a newer one before sending, expired while waiting, or failed to publish.",
		}, []string{"reason"}),
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "atcp_mqtt_commands_published_total", Help: "Commands the MQTT adapter published.",
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "atcp_mqtt_command_to_measurement_seconds",
			Help:    "Real time from publishing a command to the first measurement reporting it executed (its command_seq).",
			Buckets: latencyBuckets,
		}),
	}
	if o.Registerer != nil {
		for _, c := range []prometheus.Collector{a.refused, a.dropped, a.sent, a.latency} {
			if err := o.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("mqtt: register metric: %w", err)
			}
		}
	}
	ctx, a.stop = context.WithCancel(context.WithoutCancel(ctx))
	a.cm, err = connect(ctx, session{
		url: u, username: o.Username, password: o.Password, clientID: clientID("atcp-platform-"),
		keepAlive: platformKeepAlive, onUp: a.connectionUp, onDown: a.connectionDown, onPublish: a.received,
	})
	if err != nil {
		a.stop()
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	go a.publish(ctx)
	return a, nil
}

// Close stops publishing and disconnects.
func (a *Adapter) Close(ctx context.Context) error {
	a.stop()
	<-a.done
	err := a.cm.Disconnect(ctx)
	if errors.Is(err, context.Canceled) {
		// Disconnect reports the cancellation Close itself caused.
		return nil
	}
	return err
}

// Attach starts steering asset a, or applies its changed registration (a
// new topic prefix, new rated power). The gateway holds the asset's
// physical state, so last and at are not needed here.
func (a *Adapter) Attach(ctx context.Context, as assets.Asset, _ *telemetry.Measurements, _ time.Time) error {
	prefix := as.AdapterTopicPrefix
	if msg := assets.CheckTopicPrefix(prefix); msg != "" {
		return errs.Invalidf("adapter_topic_prefix", prefix, "%s", msg)
	}
	bounds := BoundsFor(simulator.ConfigFromAsset(as))
	a.mu.Lock()
	if other := a.byPrefix[prefix]; other != nil && other.id != as.ID {
		a.mu.Unlock()
		return errs.Conflictf(CodeTopicPrefixTaken, "topic prefix %s is used by asset %s", prefix, other.id)
	}
	d := a.byID[as.ID]
	var subscribe []string
	switch {
	case d == nil:
		d = &device{id: as.ID, prefix: prefix}
		a.byID[as.ID] = d
		a.byPrefix[prefix] = d
		subscribe = a.addFiltersLocked(prefix)
	case d.prefix != prefix:
		a.removeFiltersLocked(d.prefix)
		delete(a.byPrefix, d.prefix)
		d.prefix, d.receivedAt, d.pending, d.unconfirmed = prefix, time.Time{}, nil, nil
		a.byPrefix[prefix] = d
		subscribe = a.addFiltersLocked(prefix)
	}
	d.bounds = bounds
	up := a.up
	a.mu.Unlock()
	// While the broker is down, connectionUp subscribes. A subscription
	// the broker refuses (its ACL) is not the asset's registration's
	// fault: it is logged and tried again on the next connection.
	if up && len(subscribe) > 0 {
		if err := a.subscribe(ctx, subscribe); err != nil {
			a.log.Warn("mqtt: subscribe", "asset", as.ID, "error", err)
		}
	}
	return nil
}

// addFiltersLocked counts prefix's subscriptions in and returns those that
// are new.
func (a *Adapter) addFiltersLocked(prefix string) []string {
	var added []string
	for _, f := range []string{filterFor(prefix, measurementsSuffix), filterFor(prefix, statusSuffix)} {
		if a.filters[f]++; a.filters[f] == 1 {
			added = append(added, f)
		}
	}
	return added
}

// removeFiltersLocked counts prefix's subscriptions out. A filter no asset
// needs any more stays subscribed until the next connection: what arrives
// on it is refused as an unknown asset.
func (a *Adapter) removeFiltersLocked(prefix string) {
	for _, f := range []string{filterFor(prefix, measurementsSuffix), filterFor(prefix, statusSuffix)} {
		if a.filters[f]--; a.filters[f] <= 0 {
			delete(a.filters, f)
		}
	}
}

func (a *Adapter) subscribe(ctx context.Context, filters []string) error {
	sub := &paho.Subscribe{}
	for _, f := range filters {
		sub.Subscriptions = append(sub.Subscriptions, paho.SubscribeOptions{Topic: f, QoS: 1})
	}
	_, err := a.cm.Subscribe(ctx, sub)
	return err
}

// Detach stops steering an asset; detaching an unknown asset is a no-op.
func (a *Adapter) Detach(_ context.Context, assetID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	d := a.byID[assetID]
	if d == nil {
		return nil
	}
	a.removeFiltersLocked(d.prefix)
	delete(a.byPrefix, d.prefix)
	delete(a.byID, assetID)
	return nil
}

// Send queues the asset's command for platform second at, replacing an
// unsent earlier one, and returns without waiting for the broker. It is
// refused (errs.Unavailable) while the broker connection is down or the
// gateway offline: a command nobody receives must not count as sent.
func (a *Adapter) Send(ctx context.Context, assetID string, cmd telemetry.Command, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := cmd.Validate(); err != nil {
		return err
	}
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.reachableLocked(assetID)
	if err != nil {
		return err
	}
	msg := CommandMessage{Seq: a.nextSeqLocked(now), At: at, ExpiresAt: now.Add(a.validity), Command: cmd}
	payload, err := EncodeCommand(msg)
	if err != nil {
		return err
	}
	if d.pending != nil {
		a.dropped.WithLabelValues("superseded").Inc()
	} else {
		a.queue = append(a.queue, assetID)
	}
	d.pending = &queued{seq: msg.Seq, payload: payload, expiresAt: msg.ExpiresAt}
	a.signal()
	return nil
}

// nextSeqLocked returns the next sequence number: microseconds of real
// time, one more than the previous when two fall in one microsecond, so
// increasing across restarts while the machine's clock does not step back.
func (a *Adapter) nextSeqLocked(now time.Time) uint64 {
	a.lastSeq = max(a.lastSeq+1, uint64(now.UnixMicro()))
	return a.lastSeq
}

func (a *Adapter) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Advance has nothing to do: the gateway owns its asset's physics.
func (a *Adapter) Advance(context.Context, time.Time) error { return nil }

// Read returns the asset's newest measurements, or errs.Unavailable when
// the broker connection is down, the gateway offline or its newest
// measurement older than the staleness bound.
func (a *Adapter) Read(ctx context.Context, assetID string) (telemetry.Measurements, error) {
	if err := ctx.Err(); err != nil {
		return telemetry.Measurements{}, err
	}
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.reachableLocked(assetID)
	if err != nil {
		return telemetry.Measurements{}, err
	}
	if d.receivedAt.IsZero() || now.Sub(d.receivedAt) > a.staleness {
		return telemetry.Measurements{}, errs.E(errs.Unavailable, telemetry.CodeAssetUnreachable,
			"asset %s: no measurement for %s", assetID, a.staleness)
	}
	return d.latest, nil
}

// reachableLocked returns the attached asset when its gateway is online
// on a connected broker.
func (a *Adapter) reachableLocked(assetID string) (*device, error) {
	d := a.byID[assetID]
	switch {
	case d == nil:
		return nil, errs.NotFoundf("asset %s is not attached to the MQTT adapter", assetID)
	case !a.up:
		return nil, errs.E(errs.Unavailable, telemetry.CodeAssetUnreachable, "asset %s: the MQTT broker is not connected", assetID)
	case !a.online[d.prefix]:
		return nil, errs.E(errs.Unavailable, telemetry.CodeAssetUnreachable, "asset %s: its gateway is offline", assetID)
	}
	return d, nil
}

// Connected reports whether the broker is connected and the asset's
// gateway online.
func (a *Adapter) Connected(assetID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err := a.reachableLocked(assetID)
	return err == nil
}

func (a *Adapter) connectionUp(cm *autopaho.ConnectionManager) {
	a.mu.Lock()
	a.up = true
	filters := make([]string, 0, len(a.filters))
	for f := range a.filters {
		filters = append(filters, f)
	}
	a.mu.Unlock()
	a.log.Info("mqtt: connected to the broker")
	a.signal()
	if len(filters) == 0 {
		return
	}
	// The callback must not block: subscribe in the background (the
	// retained statuses arrive then).
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), packetTimeout)
		defer cancel()
		if err := a.subscribe(ctx, filters); err != nil {
			a.log.Warn("mqtt: subscribe after connecting", "error", err)
		}
	}()
}

// connectionDown forgets every gateway's status: the retained statuses
// arrive again on the next connection, and a gateway that went away in
// between must not look online.
func (a *Adapter) connectionDown() {
	a.mu.Lock()
	a.up = false
	clear(a.online)
	a.mu.Unlock()
	a.log.Warn("mqtt: lost the broker connection; reconnecting")
}

// received handles a message on a subscribed topic.
func (a *Adapter) received(_ *paho.Client, topic string, payload []byte) {
	switch {
	case strings.HasSuffix(topic, statusSuffix):
		prefix := strings.TrimSuffix(topic, statusSuffix)
		a.mu.Lock()
		// Anything else, such as an empty retained message clearing the
		// status, is not online.
		if string(payload) == StatusOnline {
			a.online[prefix] = true
		} else {
			delete(a.online, prefix)
		}
		a.mu.Unlock()
	case strings.HasSuffix(topic, measurementsSuffix):
		a.measurement(strings.TrimSuffix(topic, measurementsSuffix), payload)
	}
}

func (a *Adapter) measurement(prefix string, payload []byte) {
	a.mu.Lock()
	d := a.byPrefix[prefix]
	var bounds Bounds
	if d != nil {
		bounds = d.bounds
	}
	a.mu.Unlock()
	if d == nil {
		a.refuse(prefix, "", refuse(ReasonUnknownAsset, "no attached asset has topic prefix %s", prefix))
		return
	}
	m, seq, refusal := parseMeasurements(payload, bounds)
	if refusal != nil {
		a.refuse(prefix, d.id, refusal)
		return
	}
	now := a.clock.Now()
	var sentAt time.Time
	a.mu.Lock()
	if a.byPrefix[prefix] == d {
		d.latest, d.receivedAt = m, now
		sentAt = d.confirmLocked(seq)
	}
	a.mu.Unlock()
	if !sentAt.IsZero() {
		a.latency.Observe(now.Sub(sentAt).Seconds())
	}
}

// confirmLocked forgets the published commands up to seq, the command the
// gateway reports it last executed, and returns when seq was published
// (zero if it was not, or was already reported: the gateway repeats it
// every second).
func (d *device) confirmLocked(seq uint64) time.Time {
	if seq == 0 {
		return time.Time{}
	}
	var at time.Time
	kept := d.unconfirmed[:0]
	for _, p := range d.unconfirmed {
		switch {
		case p.seq == seq:
			at = p.at
		case p.seq > seq:
			kept = append(kept, p)
		}
	}
	d.unconfirmed = kept
	return at
}

// latencyBuckets are the buckets of atcp_mqtt_command_to_measurement_seconds:
// from 1 ms to 5 s, each about 1.5 times the previous, fine enough to
// read a p99 from.
var latencyBuckets = []float64{0.001, 0.0015, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05,
	0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5}

func (a *Adapter) refuse(prefix, assetID string, r *Refusal) {
	a.refused.WithLabelValues(r.Reason).Inc()
	a.log.Debug("mqtt: measurement refused", "asset", assetID, "prefix", prefix, "reason", r.Reason, "detail", r.Detail)
}

// publishers is how many commands are in flight at once: each waits for
// its acknowledgement, so one would bound a fleet by the broker's round
// trip.
const publishers = 16

type outgoing struct {
	id, topic string
	q         *queued
}

// publish hands queued commands to the publishers while the broker is
// connected. A command past its deadline is dropped, never sent late:
// after an outage only commands still valid go out.
func (a *Adapter) publish(ctx context.Context) {
	work := make(chan outgoing)
	var wg sync.WaitGroup
	for range publishers {
		wg.Go(func() {
			for o := range work {
				a.send(ctx, o)
			}
		})
	}
	defer func() {
		close(work)
		wg.Wait()
		close(a.done)
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
		}
		for {
			o := a.next()
			if o.q == nil {
				break
			}
			select {
			case work <- o:
			case <-ctx.Done():
				return
			}
		}
	}
}

// send publishes one command with QoS 1 and a message expiry interval
// that ends with its deadline. Two commands of one asset may overtake
// each other here; the gateway then refuses the older by its sequence
// number.
func (a *Adapter) send(ctx context.Context, o outgoing) {
	left := o.q.expiresAt.Sub(a.clock.Now())
	if left <= 0 {
		a.dropped.WithLabelValues("expired").Inc()
		return
	}
	expiry := uint32(math.Ceil(left.Seconds()))
	a.published(o)
	pctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	_, err := a.cm.Publish(pctx, &paho.Publish{
		Topic: o.topic, QoS: 1, Payload: o.q.payload,
		Properties: &paho.PublishProperties{MessageExpiry: &expiry},
	})
	if err != nil {
		a.dropped.WithLabelValues("failed").Inc()
		a.log.Debug("mqtt: publish command", "topic", o.topic, "error", err)
		return
	}
	a.sent.Inc()
}

// published notes when a command goes to the broker, before its
// acknowledgement: the gateway may execute it and report that before the
// acknowledgement returns.
func (a *Adapter) published(o outgoing) {
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	d := a.byID[o.id]
	if d == nil {
		return
	}
	d.unconfirmed = append(d.unconfirmed, published{seq: o.q.seq, at: now})
	if n := len(d.unconfirmed); n > maxUnconfirmed {
		d.unconfirmed = slices.Delete(d.unconfirmed, 0, n-maxUnconfirmed)
	}
}

// next takes the oldest queued command while the broker is connected.
func (a *Adapter) next() outgoing {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.up && len(a.queue) > 0 {
		id := a.queue[0]
		a.queue = a.queue[1:]
		d := a.byID[id]
		if d == nil || d.pending == nil {
			continue // detached or moved to a new prefix
		}
		q := d.pending
		d.pending = nil
		return outgoing{id: id, topic: d.prefix + commandSuffix, q: q}
	}
	return outgoing{}
}
