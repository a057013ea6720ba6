package main

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/eclipse/paho.golang/paho"
	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"

	"atcp/internal/testkit"
)

func TestEdgeCommandFlags(t *testing.T) {
	env := func(string) (string, bool) { return "", false }
	for _, args := range [][]string{
		{"--asset", "b1"},                            // no broker
		{"--broker", "mqtt://127.0.0.1:1"},           // no asset
		{"--broker", "tcp://x", "--asset", "b1"},     // not an MQTT URL
		{"--broker", "mqtt://x", "--asset", "b1,b1"}, // repeated
		{"--broker", "mqtt://x", "--asset", "site/b1"},
		{"--broker", "mqtt://x", "--asset", "b1", "--efficiency", "0"},
		{"--broker", "mqtt://x", "--asset", "b1", "--log-level", "loud"},
		{"--broker", "mqtt://x", "--asset", "b1", "extra"},
		{"--nope"},
	} {
		var stderr testkit.LogBuffer
		if code := edge(context.Background(), args, env, &stderr); code != 2 {
			t.Errorf("%v: exit %d %s", args, code, stderr.String())
		}
	}
	var stderr testkit.LogBuffer
	if code := edge(context.Background(), []string{"--help"}, env, &stderr); code != 0 || !strings.Contains(stderr.String(), "ATCP_MQTT_PASSWORD") {
		t.Fatalf("--help: %d %s", code, stderr.String())
	}
}

// TestEdgeCommand runs atcp edge on an embedded broker: each gateway
// announces itself online and goes offline when the command stops.
func TestEdgeCommand(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := mochi.New(&mochi.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := server.AddHook(new(auth.AllowHook), nil); err != nil {
		t.Fatal(err)
	}
	if err := server.AddListener(listeners.NewNet("test", l)); err != nil {
		t.Fatal(err)
	}
	if err := server.Serve(); err != nil {
		t.Fatal(err)
	}
	defer server.Close()

	statuses := make(chan string, 16)
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	spy := paho.NewClient(paho.ClientConfig{Conn: conn, OnPublishReceived: []func(paho.PublishReceived) (bool, error){
		func(pr paho.PublishReceived) (bool, error) {
			statuses <- pr.Packet.Topic + " " + string(pr.Packet.Payload)
			return true, nil
		},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if _, err := spy.Connect(ctx, &paho.Connect{ClientID: "spy", CleanStart: true, KeepAlive: 30}); err != nil {
		t.Fatal(err)
	}
	defer spy.Disconnect(&paho.Disconnect{})
	if _, err := spy.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: "atcp/+/status", QoS: 1}}}); err != nil {
		t.Fatal(err)
	}

	env := func(name string) (string, bool) {
		if name == "ATCP_MQTT_URL" {
			return "mqtt://" + l.Addr().String(), true
		}
		return "", false
	}
	edgeCtx, stop := context.WithCancel(ctx)
	exit := make(chan int, 1)
	var stderr testkit.LogBuffer
	go func() { exit <- edge(edgeCtx, []string{"--asset", "b1,b2", "--power-mw", "5"}, env, &stderr) }()
	// expect waits until every wanted status was published (again).
	expect := func(want ...string) {
		t.Helper()
		got := map[string]bool{}
		for _, w := range want {
			for !got[w] {
				select {
				case s := <-statuses:
					got[s] = true
				case <-ctx.Done():
					t.Fatalf("statuses %v, want %v; log: %s", got, want, stderr.String())
				}
			}
		}
	}
	expect("atcp/b1/status online", "atcp/b2/status online")
	stop()
	expect("atcp/b1/status offline", "atcp/b2/status offline")
	if code := <-exit; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
