package mqtt

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"atcp/internal/assets"
	"atcp/internal/clock"
	"atcp/internal/control"
	"atcp/internal/errs"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

// t0 is the platform second the tests start at: a replayed day, far from
// real time, as in the demo.
var t0 = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)

func f(v float64) *float64 { return &v }

// The loop's boundary is what this adapter implements.
var _ control.Adapter = (*Adapter)(nil)

func testAsset(id string) assets.Asset {
	return assets.Asset{ID: id, Adapter: assets.AdapterMQTT, AdapterTopicPrefix: assets.DefaultTopicPrefix(id),
		UsablePowerCapacityMW: f(10), UsableEnergyCapacityMWh: f(20)}
}

func bess(mw float64) telemetry.Command {
	return telemetry.Command{ControlMode: telemetry.BESSOnly, BESSPowerMW: mw}
}

// rig is an adapter steering one asset on a test broker, with or without
// an atcp edge gateway.
type rig struct {
	t  *testing.T
	b  *testBroker
	a  *Adapter
	id string

	mu       sync.Mutex
	executed []uint64
	refused  []error
}

func newRig(t *testing.T, b *testBroker, o Options) *rig {
	r := &rig{t: t, b: b, id: uniqueID(t)}
	clearRetained(t, b, r.id)
	o.URL = b.platformURL()
	a, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	r.a = a
	if err := a.Attach(context.Background(), testAsset(r.id), nil, t0); err != nil {
		t.Fatal(err)
	}
	return r
}

// startEdge runs the asset's gateway with atcp edge's physics.
func (r *rig) startEdge() *Edge {
	cfg := simulator.ConfigFromAsset(testAsset(r.id))
	e, err := NewEdge(context.Background(), EdgeOptions{
		URL: r.b.gatewayURL(), Batteries: []simulator.Config{cfg}, Seed: 1,
		OnCommand: func(_ string, seq uint64, err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if err == nil {
				r.executed = append(r.executed, seq)
			} else {
				r.refused = append(r.refused, err)
			}
		},
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return e
}

// step sends cmd for platform second at until the gateway's measurements
// of that second come back (a command sent while a connection is still
// coming up may be lost; the control loop sends one every second).
func (r *rig) step(at time.Time, cmd telemetry.Command) telemetry.Measurements {
	r.t.Helper()
	var m telemetry.Measurements
	var sent time.Time
	waitUntil(r.t, "the measurements of "+at.Format(time.TimeOnly), func() bool {
		if time.Since(sent) > 300*time.Millisecond {
			if r.a.Send(context.Background(), r.id, cmd, at) == nil {
				sent = time.Now()
			}
		}
		var err error
		m, err = r.a.Read(context.Background(), r.id)
		return err == nil && m.Timestamp.Equal(at)
	})
	return m
}

// checkNoCommandExecutedTwice: the gateway executed strictly increasing
// sequence numbers.
func (r *rig) checkNoCommandExecutedTwice() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.executed) == 0 {
		r.t.Fatal("no command executed")
	}
	for i := 1; i < len(r.executed); i++ {
		if r.executed[i] <= r.executed[i-1] {
			r.t.Fatalf("sequence %d executed after %d", r.executed[i], r.executed[i-1])
		}
	}
}

func TestCommandRoundTrip(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		r := newRig(t, b, Options{})
		ctx := context.Background()
		if _, err := r.a.Read(ctx, r.id); !errs.Is(err, errs.Unavailable) {
			t.Fatalf("read before the gateway connected: %v", err)
		}
		r.startEdge()
		waitUntil(t, "the gateway is online", func() bool { return r.a.Connected(r.id) })

		m := r.step(t0, bess(5))
		if m.DispatchSetpoint != 5 || m.ControlMode != 1 {
			t.Fatalf("first second: %+v", m)
		}
		full := m.AvailableDischargeEnergy
		if err := r.a.Advance(ctx, t0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		m = r.step(t0.Add(time.Second), bess(5))
		if m.BatteryPowerActualAC != 5 || !(m.AvailableDischargeEnergy < full) {
			t.Fatalf("the battery did not discharge 5 MW: %+v", m)
		}
		m = r.step(t0.Add(2*time.Second), telemetry.Command{ControlMode: telemetry.Passive})
		if m.DispatchSetpoint != 0 || m.ControlMode != 0 {
			t.Fatalf("passive: %+v", m)
		}
		r.checkNoCommandExecutedTwice()

		if _, err := r.a.Read(ctx, "nope"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("read of an unknown asset: %v", err)
		}
		if err := r.a.Send(ctx, "nope", bess(1), t0); !errs.Is(err, errs.NotFound) {
			t.Fatalf("send to an unknown asset: %v", err)
		}
		if err := r.a.Send(ctx, r.id, telemetry.Command{ControlMode: "fast"}, t0); !errs.Is(err, errs.Invalid) {
			t.Fatalf("invalid command: %v", err)
		}
		if err := r.a.Detach(ctx, r.id); err != nil {
			t.Fatal(err)
		}
		if r.a.Connected(r.id) {
			t.Fatal("a detached asset is connected")
		}
	})
}

func TestStaleCommandsRefusedByTheGateway(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		r := newRig(t, b, Options{})
		r.startEdge()
		waitUntil(t, "the gateway is online", func() bool { return r.a.Connected(r.id) })
		r.step(t0, bess(5))
		r.mu.Lock()
		last := r.executed[len(r.executed)-1]
		r.mu.Unlock()

		// A command past its deadline and one with an old sequence
		// number, both from a gateway's point of view otherwise valid.
		c := testClient(t, b)
		now := time.Now().UTC()
		for _, msg := range []CommandMessage{
			{Seq: last + 1000, At: t0.Add(time.Second), ExpiresAt: now.Add(-time.Second), Command: bess(-5)},
			{Seq: last, At: t0.Add(time.Second), ExpiresAt: now.Add(time.Minute), Command: bess(-5)},
		} {
			payload, err := EncodeCommand(msg)
			if err != nil {
				t.Fatal(err)
			}
			publish(t, c, "atcp/"+r.id+commandSuffix, false, payload)
		}
		waitUntil(t, "both commands are refused", func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return len(r.refused) == 2
		})
		r.mu.Lock()
		if !errors.Is(r.refused[0], ErrCommandExpired) || !errors.Is(r.refused[1], ErrCommandReplayed) {
			t.Errorf("refusals: %v", r.refused)
		}
		if n := len(r.executed); n != 1 {
			t.Errorf("%d commands executed, want 1", n)
		}
		r.mu.Unlock()
		m, err := r.a.Read(context.Background(), r.id)
		if err != nil || m.DispatchSetpoint != 5 {
			t.Fatalf("a refused command changed the battery: %+v %v", m, err)
		}
	})
}

func TestExpiredCommandNeverPublished(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		// A validity shorter than the way to the publisher: every command
		// is past its deadline when its turn comes.
		r := newRig(t, b, Options{CommandValidity: time.Nanosecond})
		r.startEdge()
		waitUntil(t, "the gateway is online", func() bool { return r.a.Connected(r.id) })
		for i := range 3 {
			if err := r.a.Send(context.Background(), r.id, bess(5), t0.Add(time.Duration(i)*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		dropped := func() float64 {
			return testutil.ToFloat64(r.a.dropped.WithLabelValues("expired")) + testutil.ToFloat64(r.a.dropped.WithLabelValues("superseded"))
		}
		waitUntil(t, "the commands are dropped", func() bool { return dropped() == 3 })
		if n := testutil.ToFloat64(r.a.sent); n != 0 {
			t.Fatalf("%v expired commands published", n)
		}
	})
}

func TestGatewayKilled(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		r := newRig(t, b, Options{})
		r.startEdge()
		waitUntil(t, "the gateway is online", func() bool { return r.a.Connected(r.id) })
		r.step(t0, bess(5))

		// The gateway's network goes: the broker publishes its last will.
		b.gateway.Cut()
		began := time.Now()
		waitUntil(t, "the gateway is offline", func() bool { return !r.a.Connected(r.id) })
		if d := time.Since(began); d > 5*time.Second {
			t.Errorf("offline after %s", d)
		}
		ctx := context.Background()
		if _, err := r.a.Read(ctx, r.id); !errs.Is(err, errs.Unavailable) {
			t.Fatalf("read of an offline asset: %v", err)
		}
		if err := r.a.Send(ctx, r.id, bess(1), t0.Add(time.Second)); !errs.Is(err, errs.Unavailable) {
			t.Fatalf("send to an offline asset: %v", err)
		}

		// It comes back: control resumes by itself.
		b.gateway.Restore()
		waitUntil(t, "the gateway is online again", func() bool { return r.a.Connected(r.id) })
		if m := r.step(t0.Add(2*time.Second), bess(3)); m.DispatchSetpoint != 3 {
			t.Fatalf("after reconnecting: %+v", m)
		}
		r.checkNoCommandExecutedTwice()
	})
}

func TestBrokerRestart(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		r := newRig(t, b, Options{})
		r.startEdge()
		waitUntil(t, "the gateway is online", func() bool { return r.a.Connected(r.id) })
		at := t0
		for range 3 {
			r.step(at, bess(5))
			at = at.Add(time.Second)
		}
		b.restart()
		for range 3 {
			if m := r.step(at, bess(-4)); m.DispatchSetpoint != -4 {
				t.Fatalf("after the restart: %+v", m)
			}
			at = at.Add(time.Second)
		}
		if m := r.step(at, bess(-4)); m.BatteryPowerActualAC != -4 {
			t.Fatalf("the battery does not charge after the restart: %+v", m)
		}
		r.checkNoCommandExecutedTwice()
	})
}

// validMeasurements is what atcp edge publishes for the test asset at t0.
func validMeasurements(t *testing.T, id string) []byte {
	b := simulator.NewBattery(simulator.ConfigFromAsset(testAsset(id)), 1, t0)
	b.SetCommand(bess(2))
	payload, err := EncodeMeasurements(b.Measurements(), 7)
	if err != nil {
		t.Fatal(err)
	}
	return payload
}

// withPoint returns payload with one member replaced (nil: removed).
func withPoint(t *testing.T, payload []byte, name string, value any) []byte {
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	if value == nil {
		delete(m, name)
	} else {
		m[name] = value
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInvalidMeasurementsRefusedAndCounted(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		real := clock.NewManual(time.Now())
		r := newRig(t, b, Options{Clock: real})
		gw := testClient(t, b)
		topic := "atcp/" + r.id + measurementsSuffix
		publish(t, gw, "atcp/"+r.id+statusSuffix, true, []byte(StatusOnline))
		// The retained status arrives once the adapter subscribed.
		waitUntil(t, "the gateway is online", func() bool { return r.a.Connected(r.id) })
		valid := validMeasurements(t, r.id)
		publish(t, gw, topic, false, valid)
		var m telemetry.Measurements
		waitUntil(t, "the valid measurement is read", func() bool {
			var err error
			m, err = r.a.Read(context.Background(), r.id)
			return err == nil
		})
		if !m.Timestamp.Equal(t0) || m.Frequency != 50 || m.DispatchSetpoint != 2 {
			t.Fatalf("read %+v", m)
		}

		invalid := map[string][][]byte{
			ReasonMalformed:  {[]byte("{"), []byte(`[1]`), withPoint(t, valid, "at", "06:00")},
			ReasonMissing:    {withPoint(t, valid, "frequency", nil)},
			ReasonNotANumber: {withPoint(t, valid, "asset_status", "1"), withPoint(t, valid, "soc_max", true)},
			ReasonOutOfRange: {
				withPoint(t, valid, "frequency", 70), withPoint(t, valid, "soc_min", -1),
				withPoint(t, valid, "battery_power_actual_ac", 101), withPoint(t, valid, "control_mode", 9),
			},
		}
		want := 0
		for _, payloads := range invalid {
			for _, p := range payloads {
				publish(t, gw, topic, false, p)
				want++
			}
		}
		publish(t, gw, "atcp/"+uniqueID(t)+measurementsSuffix, false, valid)
		want++
		refused := func(reason string) int { return int(testutil.ToFloat64(r.a.refused.WithLabelValues(reason))) }
		waitUntil(t, "every invalid measurement is refused", func() bool {
			n := 0
			for _, reason := range []string{ReasonMalformed, ReasonMissing, ReasonNotANumber, ReasonOutOfRange, ReasonUnknownAsset} {
				n += refused(reason)
			}
			return n == want
		})
		for reason, payloads := range invalid {
			if got := refused(reason); got != len(payloads) {
				t.Errorf("%s: %d refused, want %d", reason, got, len(payloads))
			}
		}
		if got := refused(ReasonUnknownAsset); got != 1 {
			t.Errorf("unknown asset: %d refused", got)
		}
		// Nothing refused was stored: the valid measurement is the latest.
		if got, err := r.a.Read(context.Background(), r.id); err != nil || got.Frequency != 50 || got.BatteryPowerActualAC == 101 {
			t.Fatalf("after the refusals: %+v %v", got, err)
		}

		// A gateway that goes silent without a will (its status stays
		// online) is stale after the staleness bound.
		real.Advance(DefaultStaleness + time.Second)
		if _, err := r.a.Read(context.Background(), r.id); !errs.Is(err, errs.Unavailable) || !strings.Contains(err.Error(), "no measurement") {
			t.Fatalf("read of a silent gateway: %v", err)
		}
		if !r.a.Connected(r.id) {
			t.Fatal("connected follows the status")
		}
		publish(t, gw, "atcp/"+r.id+statusSuffix, true, []byte(StatusOffline))
		waitUntil(t, "the gateway is offline", func() bool { return !r.a.Connected(r.id) })
	})
}

func TestAttachChecksThePrefix(t *testing.T) {
	b := embeddedBroker(t)
	a, err := New(context.Background(), Options{URL: b.platformURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	// Connected before the broker closes at cleanup (see restart).
	waitUntil(t, "the adapter is connected", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.up
	})
	ctx := context.Background()
	if err := a.Attach(ctx, testAsset("a/b"), nil, t0); err != nil {
		t.Fatal(err) // a deeper prefix is fine
	}
	if err := a.Attach(ctx, testAsset("a+"), nil, t0); !errs.Is(err, errs.Invalid) {
		t.Fatalf("wildcard prefix: %v", err)
	}
	// Re-attaching with a changed registration keeps one subscription.
	if err := a.Attach(ctx, testAsset("a/b"), nil, t0); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.filters["atcp/a/+/measurements"] != 1 || len(a.filters) != 2 {
		t.Fatalf("filters %v", a.filters)
	}
}

func TestSequenceNumbersIncreaseAcrossRestarts(t *testing.T) {
	now := time.Date(2026, 11, 23, 19, 0, 0, 0, time.UTC)
	first := &Adapter{}
	a, b := first.nextSeqLocked(now), first.nextSeqLocked(now)
	if a != uint64(now.UnixMicro()) || b != a+1 {
		t.Fatalf("%d %d", a, b)
	}
	// A restarted platform (a new adapter) a moment later continues above
	// the previous one, whatever the platform clock reads.
	restarted := &Adapter{}
	if c := restarted.nextSeqLocked(now.Add(time.Millisecond)); c <= b {
		t.Fatalf("after the restart %d, before %d", c, b)
	}
}

// TestAssetAttachedAfterItsGatewayCameOnline: the wildcard subscription
// delivered the retained status before the asset was attached; it is not
// delivered again.
func TestAssetAttachedAfterItsGatewayCameOnline(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		r := newRig(t, b, Options{})
		gw := testClient(t, b)
		publish(t, gw, "atcp/"+r.id+statusSuffix, true, []byte(StatusOnline))
		waitUntil(t, "the first asset is online", func() bool { return r.a.Connected(r.id) })

		later := uniqueID(t)
		clearRetained(t, b, later)
		publish(t, gw, "atcp/"+later+statusSuffix, true, []byte(StatusOnline))
		waitUntil(t, "the status arrived", func() bool {
			r.a.mu.Lock()
			defer r.a.mu.Unlock()
			return r.a.online["atcp/"+later]
		})
		if err := r.a.Attach(context.Background(), testAsset(later), nil, t0); err != nil {
			t.Fatal(err)
		}
		if !r.a.Connected(later) {
			t.Fatal("the asset attached later is not connected")
		}
	})
}

// latencyHistogram returns the count and sum of
// atcp_mqtt_command_to_measurement_seconds in reg.
func latencyHistogram(t *testing.T, reg *prometheus.Registry) (uint64, float64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "atcp_mqtt_command_to_measurement_seconds" {
			h := mf.GetMetric()[0].GetHistogram()
			return h.GetSampleCount(), h.GetSampleSum()
		}
	}
	t.Fatal("no atcp_mqtt_command_to_measurement_seconds")
	return 0, 0
}

func TestCommandToMeasurementLatency(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b *testBroker) {
		real := clock.NewManual(time.Now())
		reg := prometheus.NewRegistry()
		r := newRig(t, b, Options{Clock: real, Registerer: reg})
		gw := testClient(t, b)
		publish(t, gw, "atcp/"+r.id+statusSuffix, true, []byte(StatusOnline))
		waitUntil(t, "the gateway is online", func() bool { return r.a.Connected(r.id) })

		// Two commands published a second apart; the manual clock makes
		// their sequence numbers its microseconds.
		var seqs []uint64
		for i := range 2 {
			seqs = append(seqs, uint64(real.Now().UnixMicro()))
			if err := r.a.Send(context.Background(), r.id, bess(2), t0.Add(time.Duration(i)*time.Second)); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "the command is published", func() bool { return testutil.ToFloat64(r.a.sent) == float64(i+1) })
			real.Advance(time.Duration(1000-750*i) * time.Millisecond)
		}

		// The gateway reports the second command 250 ms after it went out;
		// it repeats that report, then one of the first command (skipped,
		// forgotten) and one without command_seq: one sample only.
		topic := "atcp/" + r.id + measurementsSuffix
		valid := validMeasurements(t, r.id)
		publish(t, gw, topic, false, withPoint(t, valid, "command_seq", seqs[1]))
		publish(t, gw, topic, false, withPoint(t, valid, "command_seq", seqs[1]))
		publish(t, gw, topic, false, withPoint(t, valid, "command_seq", seqs[0]))
		last := withPoint(t, withPoint(t, valid, "command_seq", nil), "at", t0.Add(time.Minute).Format(time.RFC3339))
		publish(t, gw, topic, false, last)
		waitUntil(t, "the last measurement is read", func() bool {
			m, err := r.a.Read(context.Background(), r.id)
			return err == nil && m.Timestamp.Equal(t0.Add(time.Minute))
		})
		if n, sum := latencyHistogram(t, reg); n != 1 || sum != 0.25 {
			t.Fatalf("%d samples, sum %v s; want one of 0.25 s", n, sum)
		}
	})
}
