package mqtt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/eclipse/paho.golang/paho"
	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"

	"atcp/internal/testkit/tcpproxy"
)

// testBroker is a broker the code under test reaches through proxies:
// platform for the adapter, gateway for the edge, so that a test can take
// the gateway's network away alone.
type testBroker struct {
	platform, gateway *tcpproxy.Proxy
	direct            string // host:port of the broker itself
	// restart stops the broker and starts it again (the embedded one), or
	// drops every connection to it (an external one).
	restart func()
}

func (b *testBroker) platformURL() string { return "mqtt://" + b.platform.Addr() }
func (b *testBroker) gatewayURL() string  { return "mqtt://" + b.gateway.Addr() }

// forEachBroker runs test on the embedded mochi-mqtt broker and, when
// ATCP_TEST_MQTT_URL is set (CI: Debian's mosquitto), on that broker.
func forEachBroker(t *testing.T, test func(t *testing.T, b *testBroker)) {
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		test(t, embeddedBroker(t))
	})
	if u := os.Getenv("ATCP_TEST_MQTT_URL"); u != "" {
		t.Run("external", func(t *testing.T) {
			t.Parallel()
			test(t, externalBroker(t, u))
		})
	}
}

func embeddedBroker(t *testing.T) *testBroker {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
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
	b := &testBroker{direct: addr}
	b.platform, b.gateway = tcpproxy.New(t, addr), tcpproxy.New(t, addr)
	b.restart = func() {
		// No connection may be on its way in while mochi closes: its
		// Close races with a client being attached.
		b.platform.Cut()
		b.gateway.Cut()
		server.Close()
		// The same port again; the proxies' connections go with the
		// broker's, as they would with a restarted broker.
		var l net.Listener
		waitUntil(t, "the broker's port is free again", func() bool {
			l, err = net.Listen("tcp", addr)
			return err == nil
		})
		b.platform.Restore()
		b.gateway.Restore()
		start(l)
	}
	return b
}

func externalBroker(t *testing.T, rawURL string) *testBroker {
	u, err := ParseBrokerURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	b := &testBroker{direct: u.Host}
	b.platform, b.gateway = tcpproxy.New(t, u.Host), tcpproxy.New(t, u.Host)
	b.restart = func() {
		b.platform.Cut()
		b.gateway.Cut()
		b.platform.Restore()
		b.gateway.Restore()
	}
	return b
}

// testClient is a bare MQTT client that plays a gateway, disconnected at
// cleanup.
func testClient(t *testing.T, b *testBroker) *paho.Client {
	t.Helper()
	c := dialClient(t, b)
	t.Cleanup(func() { _ = c.Disconnect(&paho.Disconnect{}) })
	return c
}

func dialClient(t *testing.T, b *testBroker) *paho.Client {
	t.Helper()
	conn, err := net.Dial("tcp", b.direct)
	if err != nil {
		t.Fatal(err)
	}
	c := paho.NewClient(paho.ClientConfig{Conn: conn, PacketTimeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Connect(ctx, &paho.Connect{ClientID: clientID("atcp-test-"), CleanStart: true, KeepAlive: 30}); err != nil {
		t.Fatal(err)
	}
	return c
}

func publish(t *testing.T, c *paho.Client, topic string, retain bool, payload []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Publish(ctx, &paho.Publish{Topic: topic, QoS: 1, Retain: retain, Payload: payload}); err != nil {
		t.Fatal(err)
	}
}

// uniqueID is an asset id no earlier run used: an external broker keeps
// retained statuses between runs.
func uniqueID(t *testing.T) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "test-" + hex.EncodeToString(b)
}

// clearRetained removes the retained status of an asset at the end of the
// test, so an external broker does not collect them.
func clearRetained(t *testing.T, b *testBroker, assetID string) {
	t.Cleanup(func() {
		c := dialClient(t, b)
		publish(t, c, "atcp/"+assetID+statusSuffix, true, nil)
		_ = c.Disconnect(&paho.Disconnect{})
	})
}

// waitUntil polls cond until it holds, failing the test after 8 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
