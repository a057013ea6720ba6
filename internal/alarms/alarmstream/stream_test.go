package alarmstream_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"atcp/internal/alarms"
	"atcp/internal/alarms/alarmstream"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/identity"
	"atcp/internal/store"
	"atcp/internal/testkit"
)

// writer records alarm events straight into a store, as the engine does,
// opening and resolving one key per asset in turn.
type writer struct {
	t    testing.TB
	b    store.Backend
	mu   sync.Mutex
	open map[string]string // asset -> open alarm_id
	at   time.Time
}

func newWriter(t testing.TB, b store.Backend) *writer {
	t.Helper()
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	for _, org := range []string{"acme", "beta"} {
		if err := dir.EnsureOrganization(context.Background(), org, org); err != nil {
			t.Fatal(err)
		}
	}
	return &writer{t: t, b: b, open: map[string]string{}, at: testkit.Start}
}

// emit records the next event of asset (of org) and returns it.
func (w *writer) emit(org, asset string) alarms.Event {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.at = w.at.Add(time.Second)
	rule, _ := alarms.RuleByID("TELEMETRY-001")
	key := alarms.Key{AssetID: asset, RuleID: rule.ID}
	var d alarms.Decide
	if id, ok := w.open[asset]; ok {
		d = alarms.DecideResolve(id, "fresh telemetry again", alarms.Evidence{Facts: []string{"fresh"}}, w.at)
		delete(w.open, asset)
	} else {
		id := alarms.NewAlarmID(w.at)
		d = alarms.DecideOpen(alarms.Opening{Rule: rule, Key: key, OrganizationID: org, AlarmID: id, At: w.at,
			Evidence: alarms.Evidence{Facts: []string{"no telemetry for 60 s"}, SustainedSeconds: 60}})
		w.open[asset] = id
	}
	_, e, err := w.b.Alarms().Act(context.Background(), alarms.Update{Key: key, Visibility: auth.Visibility{All: true}, Decide: d})
	if err != nil || e == nil {
		w.t.Fatalf("emit %s: %v %v", asset, e, err)
	}
	return *e
}

// serve registers the stream on a harness over b and runs its hub until
// the test ends (or stop is called).
func serve(t testing.TB, b store.Backend, o alarmstream.Options) (h *testkit.Harness, stop func()) {
	t.Helper()
	h = testkit.NewHarness(t, b)
	o.Store = b.Alarms()
	if o.Poll == 0 {
		o.Poll = 20 * time.Millisecond
	}
	hub := alarmstream.NewHub(o)
	alarmstream.Register(h.Server, hub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(ctx)
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return h, stop
}

func dial(t testing.TB, h *testkit.Harness, token, query string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts := &websocket.DialOptions{}
	if token != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.URL, "http")+"/v1/alarms/stream"+query, opts)
	if c != nil {
		c.SetReadLimit(1 << 20)
		t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func mustDial(t testing.TB, h *testkit.Harness, token, query string) *websocket.Conn {
	t.Helper()
	c, _, err := dial(t, h, token, query)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// next reads one event within d.
func next(t testing.TB, c *websocket.Conn, d time.Duration) (map[string]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	typ, data, err := c.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageText {
		t.Fatalf("message type %v", typ)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

func id(m map[string]any) int64 { return int64(m["event_id"].(float64)) }

// expectIDs reads exactly the events want, in order, each within a second.
func expectIDs(t testing.TB, c *websocket.Conn, want ...int64) {
	t.Helper()
	for _, w := range want {
		m, err := next(t, c, time.Second)
		if err != nil {
			t.Fatalf("waiting for event %d: %v", w, err)
		}
		if id(m) != w {
			t.Fatalf("got event %d (%s), want %d", id(m), m["organization_id"], w)
		}
	}
}

func TestStreamLiveAndIsolated(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		w := newWriter(t, b)
		h, stop := serve(t, b, alarmstream.Options{})
		acme := mustDial(t, h, h.TokenFor("acme", auth.AlarmRead), "")
		admin := mustDial(t, h, h.AdminToken(), "")
		adminBeta := mustDial(t, h, h.AdminToken(), "?organization_id=beta")

		e1 := w.emit("acme", "b1")
		start := time.Now()
		m, err := next(t, acme, time.Second)
		if err != nil {
			t.Fatalf("no event within a second of being written: %v", err)
		}
		t.Logf("delivered in %v", time.Since(start))
		if id(m) != e1.ID || m["event_type"] != "alarm.opened" || m["alarm_key"] != "b1:TELEMETRY-001" ||
			m["organization_id"] != "acme" || m["alarm_id"] != e1.AlarmID || m["severity"] == "" || m["resolved_at"] != nil {
			t.Fatalf("event %v, wrote %+v", m, e1)
		}
		for _, k := range []string{"rule_id", "alarm_type", "message", "evidence", "timestamp", "opened_at", "date_partition",
			"muted", "acknowledged", "acknowledged_by", "acknowledged_at", "user_id", "user_email", "notes", "mute_reason", "mute_expires_at"} {
			if _, ok := m[k]; !ok {
				t.Errorf("event lacks %s: %v", k, m)
			}
		}

		// Another organisation's events never reach acme's stream.
		b1 := w.emit("beta", "c1")
		b2 := w.emit("beta", "c1")
		e2 := w.emit("acme", "b1")
		expectIDs(t, acme, e2.ID)
		expectIDs(t, admin, e1.ID, b1.ID, b2.ID, e2.ID)
		expectIDs(t, adminBeta, b1.ID, b2.ID)

		// The server shutting down closes with 1001 Going Away.
		admin.CloseNow()
		adminBeta.CloseNow()
		closed := make(chan error, 1)
		go func() {
			_, err := next(t, acme, 5*time.Second)
			closed <- err
		}()
		stop()
		err = <-closed
		if websocket.CloseStatus(err) != websocket.StatusGoingAway || !strings.Contains(err.Error(), "after="+strconv.FormatInt(e2.ID, 10)) {
			t.Fatalf("after shutdown: %v", err)
		}
	})
}

func TestStreamResumeWithoutGapsOrDuplicates(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		w := newWriter(t, b)
		h, _ := serve(t, b, alarmstream.Options{Batch: 3}) // replay in several pages
		var acme []int64
		for i := range 6 {
			acme = append(acme, w.emit("acme", "b"+strconv.Itoa(i%2)).ID)
			w.emit("beta", "c1")
		}
		after := acme[1]
		// Events keep being written while the client connects and replays.
		var wg sync.WaitGroup
		live := make(chan int64, 20)
		wg.Go(func() {
			for i := range 10 {
				live <- w.emit("acme", "b"+strconv.Itoa(i%3)).ID
				w.emit("beta", "c2")
				time.Sleep(5 * time.Millisecond)
			}
			close(live)
		})
		c := mustDial(t, h, h.TokenFor("acme", auth.AlarmRead), "?after="+strconv.FormatInt(after, 10))
		wg.Wait()
		want := acme[2:]
		for x := range live {
			want = append(want, x)
		}
		expectIDs(t, c, want...)
		if m, err := next(t, c, 300*time.Millisecond); err == nil {
			t.Fatalf("unexpected event %v", m)
		}
	})
}

func TestStreamAuthorization(t *testing.T) {
	testkit.ForEachBackend(t, func(t *testing.T, b store.Backend) {
		newWriter(t, b)
		h, _ := serve(t, b, alarmstream.Options{MaxPerCaller: 1})
		status := func(token, query string) int {
			_, resp, err := dial(t, h, token, query)
			if err == nil {
				t.Fatalf("%q: connected", query)
			}
			return resp.StatusCode
		}
		if got := status("", ""); got != http.StatusUnauthorized {
			t.Errorf("no token: %d", got)
		}
		if got := status(h.TokenFor("acme", auth.AssetRead), ""); got != http.StatusForbidden {
			t.Errorf("no alarm.read: %d", got)
		}
		if got := status(h.TokenFor("acme", auth.AlarmRead), "?organization_id=beta"); got != http.StatusForbidden {
			t.Errorf("another organisation: %d", got)
		}
		h.Do(http.MethodGet, "/v1/alarms/stream", h.TokenFor("acme", auth.AlarmRead), nil).Expect(t, http.StatusUpgradeRequired, "upgrade_required")
		h.Do(http.MethodGet, "/v1/alarms/stream?organization_id=beta", h.TokenFor("acme", auth.AlarmRead), nil).
			Expect(t, http.StatusForbidden, "organization_not_permitted")

		// A browser's token rides in the subprotocols; the server selects "bearer".
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.URL, "http")+"/v1/alarms/stream",
			&websocket.DialOptions{Subprotocols: []string{"bearer", h.TokenFor("acme", auth.AlarmRead)}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		if c.Subprotocol() != "bearer" {
			t.Errorf("subprotocol %q", c.Subprotocol())
		}
		// One stream per caller here: a second is 429.
		if got := status(h.TokenFor("acme", auth.AlarmRead), ""); got != http.StatusTooManyRequests {
			t.Errorf("beyond the caller's limit: %d", got)
		}
		c.Close(websocket.StatusNormalClosure, "")
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			c2, _, err := dial(t, h, h.TokenFor("acme", auth.AlarmRead), "")
			if err == nil {
				c2.CloseNow()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the closed stream's slot was not freed: %v", err)
			}
		}
	})
}

// TestStreamAcrossInstances: an event written through instance A reaches
// a subscriber on instance B, through the shared PostgreSQL store.
func TestStreamAcrossInstances(t *testing.T) {
	if testkit.PostgresURL() == "" {
		t.Skip("needs ATCP_TEST_DATABASE_URL")
	}
	bs := testkit.OpenPostgresInstances(t, 2)
	w := newWriter(t, bs[0])
	h, _ := serve(t, bs[1], alarmstream.Options{})
	c := mustDial(t, h, h.TokenFor("acme", auth.AlarmRead), "")
	e := w.emit("acme", "b1")
	expectIDs(t, c, e.ID)
}

// switchable answers whether tokens are in force as the test says.
type switchable struct{ revoked atomic.Bool }

func (s *switchable) InForce(context.Context, *auth.Principal) (bool, error) {
	return !s.revoked.Load(), nil
}

// TestStreamEndsWhenTheTokenIsRevoked: at the next ping after the token's
// credential is revoked, the stream closes with 1008 and says why.
func TestStreamEndsWhenTheTokenIsRevoked(t *testing.T) {
	b := testkit.OpenSQLite(t)
	creds := &switchable{}
	h, _ := serve(t, b, alarmstream.Options{Ping: 50 * time.Millisecond, Credentials: creds})
	c := mustDial(t, h, h.TokenFor("acme", auth.AlarmRead), "")
	closed := make(chan error, 1)
	go func() {
		_, err := next(t, c, 10*time.Second)
		closed <- err
	}()
	time.Sleep(300 * time.Millisecond) // several pings while in force
	select {
	case err := <-closed:
		t.Fatalf("closed while in force: %v", err)
	default:
	}
	creds.revoked.Store(true)
	err := <-closed
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "no longer in force") {
		t.Fatalf("after revocation: %v", err)
	}
}
