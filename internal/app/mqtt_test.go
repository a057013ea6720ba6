package app_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eclipse/paho.golang/paho"
	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/prometheus/client_golang/prometheus"

	"atcp/internal/adapters/mqtt"
	"atcp/internal/app"
	"atcp/internal/assets"
	"atcp/internal/telemetry/simulator"
	"atcp/internal/testkit/tcpproxy"
)

// mqttBroker is a broker for the whole-server MQTT tests. The platform
// reaches it through the proxy platform, the edge gateways through
// gateway, so that a test can take a gateway's network away alone.
type mqttBroker struct {
	addr              string // host:port of the broker itself
	platform, gateway *tcpproxy.Proxy
	// restart stops the broker and starts it again (the embedded one), or
	// drops every connection to it (an external one).
	restart func()
}

// forEachMQTTBroker runs test on an embedded mochi-mqtt broker and, when
// ATCP_TEST_MQTT_URL is set (CI: Debian's mosquitto), on that broker.
func forEachMQTTBroker(t *testing.T, test func(t *testing.T, b *mqttBroker)) {
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		test(t, embeddedMQTTBroker(t))
	})
	if raw := os.Getenv("ATCP_TEST_MQTT_URL"); raw != "" {
		t.Run("external", func(t *testing.T) {
			t.Parallel()
			u, err := mqtt.ParseBrokerURL(raw)
			if err != nil {
				t.Fatal(err)
			}
			b := &mqttBroker{addr: u.Host, platform: tcpproxy.New(t, u.Host), gateway: tcpproxy.New(t, u.Host)}
			b.restart = func() {
				b.platform.Cut()
				b.gateway.Cut()
				b.platform.Restore()
				b.gateway.Restore()
			}
			test(t, b)
		})
	}
}

func embeddedMQTTBroker(t *testing.T) *mqttBroker {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var server *mochi.Server
	start := func(l net.Listener) {
		server = mochi.New(&mochi.Options{Logger: slog.New(slog.DiscardHandler)})
		if err := server.AddHook(new(auth.AllowHook), nil); err != nil {
			t.Fatal(err)
		}
		if err := server.AddListener(listeners.NewNet("test", l)); err != nil {
			t.Fatal(err)
		}
		if err := server.Serve(); err != nil {
			t.Fatal(err)
		}
	}
	start(l)
	t.Cleanup(func() { server.Close() })
	b := &mqttBroker{addr: l.Addr().String()}
	b.platform, b.gateway = tcpproxy.New(t, b.addr), tcpproxy.New(t, b.addr)
	b.restart = func() {
		// No connection may be on its way in while mochi closes (its
		// Close races with a client being attached); the proxies'
		// connections go with the broker's.
		b.platform.Cut()
		b.gateway.Cut()
		server.Close()
		var l net.Listener
		eventually(t, 5*time.Second, "the broker's port is free again", func() bool {
			l, err = net.Listen("tcp", b.addr)
			return err == nil
		})
		b.platform.Restore()
		b.gateway.Restore()
		start(l)
	}
	return b
}

// clearStatus removes the asset's retained status at the end of the
// test, so that an external broker does not collect them.
func (b *mqttBroker) clearStatus(t *testing.T, assetID string) {
	t.Cleanup(func() {
		conn, err := net.Dial("tcp", b.addr)
		if err != nil {
			t.Error(err)
			return
		}
		c := paho.NewClient(paho.ClientConfig{Conn: conn, PacketTimeout: 5 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := c.Connect(ctx, &paho.Connect{ClientID: "atcp-test-" + assetID, CleanStart: true, KeepAlive: 30}); err != nil {
			t.Error(err)
			return
		}
		if _, err := c.Publish(ctx, &paho.Publish{Topic: assets.DefaultTopicPrefix(assetID) + "/status", QoS: 1, Retain: true}); err != nil {
			t.Error(err)
		}
		_ = c.Disconnect(&paho.Disconnect{})
	})
}

// edgeLog records the sequence numbers the asset's gateways executed, in
// the order they executed them.
type edgeLog struct {
	mu       sync.Mutex
	executed []uint64
}

func (l *edgeLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.executed)
}

// checkExecutedOnce: the gateways executed strictly increasing sequence
// numbers, so none twice.
func (l *edgeLog) checkExecutedOnce(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 1; i < len(l.executed); i++ {
		if l.executed[i] <= l.executed[i-1] {
			t.Fatalf("sequence %d executed after %d", l.executed[i], l.executed[i-1])
		}
	}
}

// startEdge runs an atcp edge gateway for the battery registered as a,
// through the broker's gateway proxy.
func (b *mqttBroker) startEdge(t *testing.T, a assets.Asset, log *edgeLog) *mqtt.Edge {
	t.Helper()
	e, err := mqtt.NewEdge(context.Background(), mqtt.EdgeOptions{
		URL: "mqtt://" + b.gateway.Addr(), Batteries: []simulator.Config{simulator.ConfigFromAsset(a)}, Seed: 1,
		OnCommand: func(_ string, seq uint64, err error) {
			if err == nil {
				log.mu.Lock()
				log.executed = append(log.executed, seq)
				log.mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEdge(e) })
	return e
}

func closeEdge(e *mqtt.Edge) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = e.Close(ctx) // its network may be cut, or it closed already: nothing to check
}

// eventually polls cond every 50 ms until it holds, failing the test
// after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting until %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mqttClockSpeed runs the platform clock fast enough that the schedule
// gate (6 minutes ahead) takes seconds; the MQTT adapter's deadlines
// (3 s) and staleness (5 s) are real time, and so is the state's
// staleness bound (5 s).
const mqttClockSpeed = 120

// mqttApp builds a server without demonstration data, its control loop
// on, the MQTT adapter connected to the broker, with the organisation
// "edge".
func mqttApp(t *testing.T, b *mqttBroker) *app.App {
	cfg := testConfig(t, "sqlite::memory:", t.TempDir())
	cfg.BootstrapClientID, cfg.BootstrapClientSecret = bootstrapClient, bootstrapSecret
	cfg.Demo, cfg.Simulate = false, true
	cfg.MQTTURL = "mqtt://" + b.platform.Addr()
	// A few minutes before 10:00 on a weekday of the replayed days: the
	// set-up takes a second or two, and the schedule's first target is
	// the first block start the gate still accepts.
	start := time.Date(2026, 2, 2, 9, 50, 0, 0, time.UTC)
	cfg.ClockStart, cfg.ClockSpeed = &start, mqttClockSpeed
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Directory.EnsureOrganization(context.Background(), "edge", "Edge GmbH"); err != nil {
		t.Fatal(err)
	}
	return a
}

// apiClient calls the server with one token (it lives 3,600 real
// seconds, however fast the platform clock runs).
type apiClient struct {
	t     *testing.T
	base  string
	token string
}

func (c apiClient) call(method, path, body string) (int, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (c apiClient) do(method, path, body string, status int, v any) {
	c.t.Helper()
	got, out := c.call(method, path, body)
	if got != status {
		c.t.Fatalf("%s %s: %d %s", method, path, got, out)
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			c.t.Fatalf("decode %s: %v", out, err)
		}
	}
}

// edgeState is what GET state shows of an edge battery.
type edgeState struct {
	at                      time.Time
	status, setpoint, power float64
	reported                bool
}

func (c apiClient) state(id string) edgeState {
	c.t.Helper()
	var st map[string][]struct {
		Timestamp time.Time `json:"timestamp"`
		Value     float64   `json:"value"`
	}
	c.do(http.MethodGet, "/v1/assets/"+id+"/state", "", http.StatusOK, &st)
	if len(st) == 0 {
		return edgeState{}
	}
	return edgeState{at: st["asset_status"][0].Timestamp, status: st["asset_status"][0].Value,
		setpoint: st["dispatch_setpoint"][0].Value, power: st["battery_power_actual_ac"][0].Value, reported: true}
}

type reportEntry struct {
	SetTime   time.Time `json:"set_time_utc"`
	Status    string    `json:"status"`
	Effective float64   `json:"effective_set_power_mw"`
	Message   *string   `json:"message"`
}

type activeAlarm struct {
	AlarmID string `json:"alarm_id"`
	RuleID  string `json:"rule_id"`
	Message string `json:"message"`
}

// activeAlarm returns the asset's open alarm of rule (zero when none).
func (c apiClient) activeAlarm(id, rule string) activeAlarm {
	c.t.Helper()
	var l struct {
		Alarms []activeAlarm `json:"alarms"`
	}
	c.do(http.MethodGet, "/v1/assets/"+id+"/alarms/active", "", http.StatusOK, &l)
	for _, a := range l.Alarms {
		if a.RuleID == rule {
			return a
		}
	}
	return activeAlarm{}
}

// alarmResolved reports whether the asset's history holds the
// alarm.resolved event of alarmID.
func (c apiClient) alarmResolved(id, alarmID string, now time.Time) bool {
	c.t.Helper()
	var l struct {
		Alarms []struct {
			AlarmID string `json:"alarm_id"`
		} `json:"alarms"`
	}
	c.do(http.MethodGet, fmt.Sprintf("/v1/assets/%s/alarms?event_type=alarm.resolved&start_time=%s&end_time=%s", id,
		now.Add(-24*time.Hour).Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339)), "", http.StatusOK, &l)
	return slices.ContainsFunc(l.Alarms, func(a struct {
		AlarmID string `json:"alarm_id"`
	}) bool {
		return a.AlarmID == alarmID
	})
}

// report returns the schedule dispatch report of the hour from first.
func (c apiClient) report(id string, first time.Time) []reportEntry {
	c.t.Helper()
	var r struct {
		Dispatches []reportEntry `json:"dispatches"`
	}
	c.do(http.MethodGet, fmt.Sprintf("/v1/assets/%s/reports/schedule/dispatches?start_time=%s&end_time=%s", id,
		first.Format(time.RFC3339), first.Add(time.Hour).Format(time.RFC3339)), "", http.StatusOK, &r)
	return r.Dispatches
}

// mqttAsset registers a 10 MW / 20 MWh battery with "adapter": "mqtt"
// through the API, under an id no earlier run used (an external broker
// keeps retained statuses), and returns its id and the battery its edge
// gateway runs: the same capacities (atcp edge --power-mw 10
// --energy-mwh 20).
func (c apiClient) mqttAsset(b *mqttBroker) (string, assets.Asset) {
	c.t.Helper()
	raw := make([]byte, 4)
	_, _ = rand.Read(raw)
	id := "edge-" + hex.EncodeToString(raw)
	b.clearStatus(c.t, id)
	var created map[string]any
	c.do(http.MethodPost, "/v1/assets", `{"asset_id":"`+id+`","asset_name":"Edge battery","asset_type":"standalone",
		"location":"Leipzig","organisation_id":"edge","usable_power_capacity_mw":10,"usable_energy_capacity_mwh":20,
		"control_enabled":true,"adapter":"mqtt"}`, http.StatusCreated, &created)
	if created["adapter"] != "mqtt" || created["adapter_topic_prefix"] != "atcp/"+id {
		c.t.Fatalf("created %v", created)
	}
	return id, assets.Asset{ID: id, UsablePowerCapacityMW: new(10.0), UsableEnergyCapacityMWh: new(20.0)}
}

// putSchedule uploads 3 MW of discharge, one target a minute for an
// hour, from the first block start the gate accepts, and returns that
// block start.
func (c apiClient) putSchedule(id string, clock func() time.Time) time.Time {
	c.t.Helper()
	for range 3 {
		first := clock().Add(7 * time.Minute).Truncate(15 * time.Minute).Add(15 * time.Minute)
		targets := make([]string, 60)
		for i := range targets {
			targets[i] = fmt.Sprintf(`{"delivery_time":%q,"bess_power_mw":3}`, first.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
		}
		status, body := c.call(http.MethodPut, "/v1/assets/"+id+"/dispatch/scheduled", `{"schedules":[`+strings.Join(targets, ",")+`]}`)
		switch {
		case status == http.StatusOK:
			return first
		case status == http.StatusConflict && strings.Contains(string(body), "gate_closed"):
			continue // a loaded machine: the next block
		default:
			c.t.Fatalf("PUT schedule: %d %s", status, body)
		}
	}
	c.t.Fatal("the schedule gate closed three times")
	return time.Time{}
}

// counter is the value of a counter metric of the server, summed over
// its labels.
func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// TestMQTTScheduleOnEdgeBattery (issue 11, item 4): a battery registered
// through the API with "adapter": "mqtt" runs behind an atcp edge gateway;
// a schedule uploaded through the API executes on it; when the gateway is
// killed (its last will) commands stop, due targets fail as
// asset_unreachable, its state turns not tradeable within seconds and
// TELEMETRY-001 opens on it (issue 12); a restarted gateway is steered
// again by itself, the alarm resolves, and no command is ever executed
// twice.
func TestMQTTScheduleOnEdgeBattery(t *testing.T) {
	forEachMQTTBroker(t, func(t *testing.T, b *mqttBroker) {
		began := time.Now()
		a := mqttApp(t, b)
		base := serve(t, a)
		c := apiClient{t: t, base: base, token: fetchToken(t, base)}
		id, battery := c.mqttAsset(b)
		first := c.putSchedule(id, a.Clock.Now)
		t.Logf("set-up %s; first target %s, platform clock %s", time.Since(began).Round(time.Millisecond),
			first.Format(time.TimeOnly), a.Clock.Now().Format(time.TimeOnly))

		log := &edgeLog{}
		edge := b.startEdge(t, battery, log)

		// The schedule executes on the edge battery.
		var st edgeState
		eventually(t, 30*time.Second, "the edge battery discharges 3 MW", func() bool {
			st = c.state(id)
			return st.reported && !st.at.Before(first) && st.status == 1 && st.setpoint == 3 && st.power == 3
		})
		var entries []reportEntry
		eventually(t, 10*time.Second, "the first target's outcome", func() bool {
			entries = c.report(id, first)
			return len(entries) > 0
		})
		if e := entries[0]; !e.SetTime.Equal(first) || e.Status != "full" || e.Effective != 3 {
			t.Fatalf("first target: %+v", e)
		}
		t.Logf("executing at %s (%d commands executed)", time.Since(began).Round(time.Millisecond), log.count())

		// The gateway is killed: its connection drops, the broker publishes
		// its last will.
		b.gateway.Cut()
		killed := time.Now()
		unreachable := func(e reportEntry) bool {
			return e.Status == "failed" && e.Message != nil && strings.Contains(*e.Message, "asset_unreachable")
		}
		eventually(t, 10*time.Second, "a due target fails as asset_unreachable", func() bool {
			return slices.ContainsFunc(c.report(id, first), unreachable)
		})
		// The adapter no longer publishes: the loop sends nothing to an
		// unreachable asset.
		published := counter(t, a.Server.Registry(), "atcp_mqtt_commands_published_total")
		executed := log.count()
		eventually(t, 10*time.Second, "the state shows the asset not tradeable", func() bool {
			st = c.state(id)
			return st.status == 0
		})
		stale := time.Since(killed)
		if got := counter(t, a.Server.Registry(), "atcp_mqtt_commands_published_total"); got != published {
			t.Fatalf("%v commands published while the gateway was offline", got-published)
		}
		if log.count() != executed {
			t.Fatal("the killed gateway executed commands")
		}
		// What it last reported stays as reported, with its instant.
		if st.setpoint != 3 || st.power != 3 || a.Clock.Now().Sub(st.at) < time.Duration(5*mqttClockSpeed)*time.Second {
			t.Fatalf("stale state: %+v at %v", st, a.Clock.Now())
		}
		t.Logf("not tradeable %s after the gateway was killed", stale.Round(time.Millisecond))
		// The alarm engine opens TELEMETRY-001 on it (issue 12).
		var alarm activeAlarm
		eventually(t, 10*time.Second, "TELEMETRY-001 opens", func() bool {
			alarm = c.activeAlarm(id, "TELEMETRY-001")
			return alarm.AlarmID != ""
		})
		t.Logf("TELEMETRY-001 open %s after the gateway was killed: %s", time.Since(killed).Round(time.Millisecond), alarm.Message)
		closeEdge(edge)

		// A gateway started again: control resumes by itself.
		b.gateway.Restore()
		restarted := time.Now()
		b.startEdge(t, battery, log)
		staleAt := st.at
		eventually(t, 15*time.Second, "the restarted edge battery discharges 3 MW", func() bool {
			st = c.state(id)
			return st.at.After(staleAt) && st.status == 1 && st.setpoint == 3 && st.power == 3
		})
		t.Logf("steered again %s after the restart", time.Since(restarted).Round(time.Millisecond))
		eventually(t, 10*time.Second, "TELEMETRY-001 resolves", func() bool {
			return c.activeAlarm(id, "TELEMETRY-001").AlarmID == "" && c.alarmResolved(id, alarm.AlarmID, a.Clock.Now())
		})
		if log.count() <= executed {
			t.Fatal("the restarted gateway executed nothing")
		}
		eventually(t, 10*time.Second, "a target after the restart executes in full", func() bool {
			entries = c.report(id, first)
			i := slices.IndexFunc(entries, unreachable)
			return i >= 0 && slices.ContainsFunc(entries[i:], func(e reportEntry) bool { return e.Status == "full" && e.Effective == 3 })
		})

		log.checkExecutedOnce(t)
		t.Logf("%d commands executed, %s in all", log.count(), time.Since(began).Round(time.Millisecond))
	})
}

// TestMQTTBrokerRestart (issue 11, item 4): the broker restarted while
// an immediate dispatch steers an edge battery; platform and gateway
// reconnect by themselves, control resumes, and no command is executed
// twice.
func TestMQTTBrokerRestart(t *testing.T) {
	forEachMQTTBroker(t, func(t *testing.T, b *mqttBroker) {
		a := mqttApp(t, b)
		base := serve(t, a)
		c := apiClient{t: t, base: base, token: fetchToken(t, base)}
		id, battery := c.mqttAsset(b)
		log := &edgeLog{}
		b.startEdge(t, battery, log)
		end := a.Clock.Now().Add(2 * time.Hour).Format(time.RFC3339)
		c.do(http.MethodPost, "/v1/assets/"+id+"/dispatch/immediate", `{"end_time":"`+end+`","set_power_mw":-4}`, http.StatusOK, nil)
		var st edgeState
		eventually(t, 15*time.Second, "the edge battery charges 4 MW", func() bool {
			st = c.state(id)
			return st.reported && st.status == 1 && st.setpoint == -4 && st.power == -4
		})

		b.restart()
		restarted, at, executed := time.Now(), a.Clock.Now(), log.count()
		eventually(t, 15*time.Second, "the edge battery is steered again", func() bool {
			st = c.state(id)
			return st.at.After(at) && st.status == 1 && st.setpoint == -4 && st.power == -4
		})
		t.Logf("steered again %s after the broker restart", time.Since(restarted).Round(time.Millisecond))
		if log.count() <= executed {
			t.Fatal("the gateway executed nothing after the broker restart")
		}
		log.checkExecutedOnce(t)
	})
}
