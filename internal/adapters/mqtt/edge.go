package mqtt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"time"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"

	"atcp/internal/assets"
	"atcp/internal/clock"
	"atcp/internal/telemetry/simulator"
)

var assetID = regexp.MustCompile(assets.AssetIDPattern)

// edgeKeepAlive is a gateway's keep-alive (seconds): a gateway whose link
// dies silently is declared offline by its last will within one and a
// half of it.
const edgeKeepAlive = 5

// Why a gateway refuses a command.
var (
	ErrCommandExpired  = errors.New("command past its deadline")
	ErrCommandReplayed = errors.New("command sequence number not above the last executed")
)

// EdgeOptions configure an Edge.
type EdgeOptions struct {
	URL      string
	Username string
	Password string // a secret: never logged
	// Batteries are the simulated assets, each on topic prefix
	// atcp/<asset id>.
	Batteries []simulator.Config
	// Seed draws the simulator's noise (PV clouds, LTE signal).
	Seed   uint64
	Logger *slog.Logger
	// Clock is real time: command deadlines and the publication period.
	// Nil is clock.Real.
	Clock clock.Clock
	// Interval is the publication period of measurements when no command
	// arrives; 0 is one second.
	Interval time.Duration
	// OnCommand, if set, is told of every command received: err is nil
	// when it was executed, else why it was refused.
	OnCommand func(assetID string, seq uint64, err error)
}

// Edge runs simulated batteries as MQTT edge gateways, one connection
// (with its own last will) per battery.
type Edge struct {
	o       EdgeOptions
	stop    context.CancelFunc
	wg      sync.WaitGroup
	devices []*edgeDevice
}

// edgeDevice is one simulated gateway.
type edgeDevice struct {
	e      *Edge
	cfg    simulator.Config
	prefix string
	cm     *autopaho.ConnectionManager

	mu  sync.Mutex
	sim *simulator.Simulator
	// started: the battery exists from the first command's platform
	// second; before it the gateway knows no platform time and publishes
	// no measurements.
	started     bool
	lastSeq     uint64
	lastPublish time.Time // real time
}

// NewEdge connects every battery's gateway in the background and starts
// publishing. Close stops them.
func NewEdge(ctx context.Context, o EdgeOptions) (*Edge, error) {
	u, err := ParseBrokerURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("edge: %w", err)
	}
	if len(o.Batteries) == 0 {
		return nil, errors.New("edge: no battery to run")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	seen := map[string]bool{}
	for _, c := range o.Batteries {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("edge: asset %s: %w", c.AssetID, err)
		}
		if seen[c.AssetID] || !assetID.MatchString(c.AssetID) {
			return nil, fmt.Errorf("edge: asset id %q is repeated or not an asset id (%s)", c.AssetID, assets.AssetIDPattern)
		}
		seen[c.AssetID] = true
	}
	e := &Edge{o: o}
	ctx, e.stop = context.WithCancel(context.WithoutCancel(ctx))
	for _, c := range o.Batteries {
		d := &edgeDevice{e: e, cfg: c, prefix: assets.DefaultTopicPrefix(c.AssetID), sim: simulator.New(o.Seed)}
		d.cm, err = connect(ctx, session{
			url: u, username: o.Username, password: o.Password, clientID: clientID("atcp-edge-"),
			keepAlive: edgeKeepAlive,
			will:      &paho.WillMessage{Topic: d.prefix + statusSuffix, Payload: []byte(StatusOffline), QoS: 1, Retain: true},
			onUp:      d.connectionUp, onPublish: d.received,
		})
		if err != nil {
			e.stop()
			return nil, fmt.Errorf("edge: %w", err)
		}
		e.devices = append(e.devices, d)
		e.wg.Go(func() { d.tick(ctx) })
	}
	return e, nil
}

// Close publishes every gateway's status offline and disconnects.
func (e *Edge) Close(ctx context.Context) error {
	var errList []error
	for _, d := range e.devices {
		_, err := d.cm.Publish(ctx, &paho.Publish{Topic: d.prefix + statusSuffix, QoS: 1, Retain: true, Payload: []byte(StatusOffline)})
		if err != nil && !errors.Is(err, autopaho.ConnectionDownError) {
			errList = append(errList, fmt.Errorf("edge: asset %s: publish offline: %w", d.cfg.AssetID, err))
		}
	}
	e.stop()
	e.wg.Wait()
	for _, d := range e.devices {
		if err := d.cm.Disconnect(ctx); err != nil && !errors.Is(err, context.Canceled) {
			errList = append(errList, err)
		}
	}
	return errors.Join(errList...)
}

// connectionUp announces the gateway and subscribes to its commands; it
// must not block.
func (d *edgeDevice) connectionUp(cm *autopaho.ConnectionManager) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), packetTimeout)
		defer cancel()
		if _, err := cm.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: d.prefix + commandSuffix, QoS: 1}}}); err != nil {
			d.e.o.Logger.Warn("edge: subscribe to commands", "asset", d.cfg.AssetID, "error", err)
			return
		}
		if _, err := cm.Publish(ctx, &paho.Publish{Topic: d.prefix + statusSuffix, QoS: 1, Retain: true, Payload: []byte(StatusOnline)}); err != nil {
			d.e.o.Logger.Warn("edge: publish status", "asset", d.cfg.AssetID, "error", err)
			return
		}
		d.e.o.Logger.Info("edge: gateway online", "asset", d.cfg.AssetID)
	}()
}

func (d *edgeDevice) received(c *paho.Client, topic string, payload []byte) {
	if topic != d.prefix+commandSuffix {
		return
	}
	msg, err := ParseCommand(payload)
	var seq uint64
	if err == nil {
		seq = msg.Seq
		err = d.execute(c, msg)
	}
	if f := d.e.o.OnCommand; f != nil {
		f(d.cfg.AssetID, seq, err)
	}
}

// execute runs a fresh command: the physics steps to its platform second
// under it, and the measurements of that second go out at once.
func (d *edgeDevice) execute(c *paho.Client, msg CommandMessage) error {
	now := d.e.o.Clock.Now()
	d.mu.Lock()
	switch {
	case msg.Seq <= d.lastSeq:
		d.mu.Unlock()
		return ErrCommandReplayed
	case !now.Before(msg.ExpiresAt):
		d.mu.Unlock()
		return ErrCommandExpired
	}
	ctx := context.Background()
	if !d.started {
		if err := d.sim.Add(d.cfg, msg.At); err != nil {
			d.mu.Unlock()
			return err
		}
		d.started = true
	}
	if err := d.sim.Send(ctx, d.cfg.AssetID, msg.Command); err != nil {
		d.mu.Unlock()
		return err
	}
	d.lastSeq = msg.Seq
	d.sim.Tick(msg.At)
	payload, err := d.snapshotLocked(now)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	d.publish(c, payload)
	return nil
}

// snapshotLocked encodes the current measurements and notes when.
func (d *edgeDevice) snapshotLocked(now time.Time) ([]byte, error) {
	m, err := d.sim.Read(context.Background(), d.cfg.AssetID)
	if err != nil {
		return nil, err
	}
	d.lastPublish = now
	return EncodeMeasurements(m, d.lastSeq)
}

// publisher is what publish needs of a client or connection manager.
type publisher interface {
	Publish(context.Context, *paho.Publish) (*paho.PublishResponse, error)
}

// publish sends measurements with QoS 0: the next second's replace them.
func (d *edgeDevice) publish(p publisher, payload []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), packetTimeout)
	defer cancel()
	if _, err := p.Publish(ctx, &paho.Publish{Topic: d.prefix + measurementsSuffix, Payload: payload}); err != nil {
		d.e.o.Logger.Debug("edge: publish measurements", "asset", d.cfg.AssetID, "error", err)
	}
}

// tick publishes the latest measurements every interval in which no
// command brought new ones, so a gateway the platform does not steer
// still shows it is alive.
func (d *edgeDevice) tick(ctx context.Context) {
	t := time.NewTicker(d.e.o.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := d.e.o.Clock.Now()
		d.mu.Lock()
		var payload []byte
		if d.started && now.Sub(d.lastPublish) >= d.e.o.Interval {
			payload, _ = d.snapshotLocked(now)
		}
		d.mu.Unlock()
		if payload != nil {
			d.publish(d.cm, payload)
		}
	}
}
