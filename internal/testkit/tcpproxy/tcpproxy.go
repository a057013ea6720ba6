// Package tcpproxy is a TCP proxy for tests that take a server (the test
// database) away from the code under test and give it back. It depends on
// nothing of atcp, so that every package's tests may use it.
package tcpproxy

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP proxy on 127.0.0.1 in front of a server. Cut closes
// every open connection and refuses new ones (the server was stopped),
// Blackhole closes every open connection and accepts new ones without ever
// answering (the network lost the server), Restore forwards again.
type Proxy struct {
	t      testing.TB
	target string

	mu       sync.Mutex
	addr     string
	listener net.Listener
	conns    map[net.Conn]struct{}
	held     bool // accept but never forward
	closed   bool
}

// New starts a proxy to target (host:port), stopped at cleanup.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{t: t, target: target, conns: map[net.Conn]struct{}{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = l.Addr().String()
	p.serve(l)
	t.Cleanup(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.Cut()
	})
	return p
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.addr }

// URL returns databaseURL with its host replaced by the proxy's address.
func (p *Proxy) URL(databaseURL string) string {
	p.t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		p.listener.Close()
		p.listener = nil
	}
	p.dropLocked()
}

// Blackhole closes every connection and accepts new ones without
// forwarding or answering anything until Restore.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	p.held = true
	p.dropLocked()
	listening := p.listener != nil
	p.mu.Unlock()
	if !listening {
		p.listen()
	}
}

// Restore forwards new connections again; connections held by Blackhole
// are closed.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.held = false
	p.dropLocked()
	listening := p.listener != nil
	p.mu.Unlock()
	if !listening {
		p.listen()
	}
}

func (p *Proxy) dropLocked() {
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *Proxy) listen() {
	// The same port again: the code under test keeps its address.
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Errorf("proxy: listen again on %s: %v", p.addr, err)
		return
	}
	p.serve(l)
}

func (p *Proxy) serve(l net.Listener) {
	p.mu.Lock()
	p.listener = l
	p.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.handle(c)
		}
	}()
}

func (p *Proxy) handle(c net.Conn) {
	if !p.track(c) {
		c.Close()
		return
	}
	p.mu.Lock()
	held := p.held
	p.mu.Unlock()
	if held {
		return // closed by Restore or Cut
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(s) {
		c.Close()
		s.Close()
		return
	}
	go p.pipe(s, c)
	p.pipe(c, s)
}

// track registers c so that Cut can close it, unless the proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// pipe copies until either side ends, then closes both.
func (p *Proxy) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}
