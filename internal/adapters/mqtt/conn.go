package mqtt

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"
)

// Connection timing. The first reconnection attempt is immediate, the
// next ones wait a random delay that grows from under a second to
// maxBackoff, so a fleet of gateways does not reconnect in step.
const (
	minBackoff     = 100 * time.Millisecond
	firstBackoff   = time.Second
	maxBackoff     = 30 * time.Second
	connectTimeout = 5 * time.Second
	packetTimeout  = 5 * time.Second
)

// ParseBrokerURL checks a broker URL: mqtt://host:port or mqtts://host:port
// (TLS); the port defaults to 1883 and 8883. The error never quotes the
// URL: it might carry credentials, which belong in their own settings.
func ParseBrokerURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "mqtt" && u.Scheme != "mqtts") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("broker URL must be mqtt://host:port or mqtts://host:port")
	}
	if u.User != nil {
		return nil, fmt.Errorf("broker URL must not carry credentials: set the username and password settings")
	}
	if u.Port() == "" {
		port := "1883"
		if u.Scheme == "mqtts" {
			port = "8883"
		}
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	return u, nil
}

// session describes one MQTT connection.
type session struct {
	url                *url.URL
	username, password string
	clientID           string
	keepAlive          uint16
	will               *paho.WillMessage
	onUp               func(*autopaho.ConnectionManager)
	onDown             func()
	// onPublish receives the client a message came on: a reply can go
	// out on it before connect has returned.
	onPublish func(c *paho.Client, topic string, payload []byte)
}

// connect starts a connection that autopaho keeps up until ctx ends. It
// does not wait for the broker: a broker down at start is retried.
func connect(ctx context.Context, s session) (*autopaho.ConnectionManager, error) {
	cfg := autopaho.ClientConfig{
		ServerUrls:                    []*url.URL{s.url},
		TlsCfg:                        &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.url.Hostname()},
		KeepAlive:                     s.keepAlive,
		CleanStartOnInitialConnection: true,
		// SessionExpiryInterval 0: the broker keeps no session, so no
		// command queued for a disconnected client outlives the
		// connection.
		ReconnectBackoff: autopaho.NewExponentialBackoff(minBackoff, maxBackoff, firstBackoff, 2),
		ConnectTimeout:   connectTimeout,
		ConnectUsername:  s.username,
		ConnectPassword:  []byte(s.password),
		WillMessage:      s.will,
		OnConnectionUp: func(cm *autopaho.ConnectionManager, _ *paho.Connack) {
			if s.onUp != nil {
				s.onUp(cm)
			}
		},
		OnConnectionDown: func() bool {
			if s.onDown != nil {
				s.onDown()
			}
			return true
		},
		ClientConfig: paho.ClientConfig{
			ClientID:      s.clientID,
			PacketTimeout: packetTimeout,
			OnPublishReceived: []func(paho.PublishReceived) (bool, error){func(pr paho.PublishReceived) (bool, error) {
				if s.onPublish != nil {
					s.onPublish(pr.Client, pr.Packet.Topic, pr.Packet.Payload)
				}
				return true, nil
			}},
		},
	}
	return autopaho.NewConnection(ctx, cfg)
}

// clientID returns prefix followed by random hex: two instances never
// take each other's session.
func clientID(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
