package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"atcp/internal/clock"
	"atcp/internal/events"
	"atcp/internal/events/webhook"
	"atcp/internal/identity"
	"atcp/internal/testkit"
)

// hook is a chat service stand-in answering with the statuses queued in
// answers (then 200) and recording every call.
type hook struct {
	mu      sync.Mutex
	answers []int
	calls   []call
}

type call struct {
	method, contentType, key string
	text                     string
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Text string `json:"text"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.calls = append(h.calls, call{r.Method, r.Header.Get("Content-Type"), r.Header.Get("Idempotency-Key"), body.Text})
	status := http.StatusOK
	if len(h.answers) > 0 {
		status, h.answers = h.answers[0], h.answers[1:]
	}
	h.mu.Unlock()
	w.WriteHeader(status)
	io.WriteString(w, "answer "+http.StatusText(status))
}

func (h *hook) got() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]call(nil), h.calls...)
}

func chatEvent(url string) events.Event {
	return events.Event{ID: uuid.New(), Type: events.TypeFaultNotification, OrganizationID: "acme", AssetID: "a1",
		IdempotencyKey: "fault:0190:7:chat", Channel: events.ChannelChat, Recipient: url,
		Subject: "Störung Batterie a1", Body: "Sehr geehrte Damen und Herren,\n\n\"Zeile\" zwei – ok."}
}

// TestSendClassifies: 2xx delivers; 4xx but 408 and 429 are permanent;
// 5xx, 408, 429 and 3xx are retried; the message is Slack's {"text"}.
func TestSendClassifies(t *testing.T) {
	for _, tc := range []struct {
		status          int
		ok, permanent   bool
		followsRedirect bool
	}{
		{200, true, false, false},
		{204, true, false, false},
		{400, false, true, false},
		{403, false, true, false},
		{404, false, true, false},
		{410, false, true, false},
		{408, false, false, false},
		{429, false, false, false},
		{500, false, false, false},
		{503, false, false, false},
		{302, false, false, false},
	} {
		h := &hook{answers: []int{tc.status}}
		srv := httptest.NewServer(h)
		e := chatEvent(srv.URL + "/services/T1/B2/secret")
		err := webhook.New(0).Send(context.Background(), e)
		srv.Close()
		if (err == nil) != tc.ok || events.IsPermanent(err) != tc.permanent {
			t.Fatalf("%d: error %v (permanent %v)", tc.status, err, events.IsPermanent(err))
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Fatalf("%d: the error reveals the webhook URL: %v", tc.status, err)
		}
		c := h.got()
		if len(c) != 1 || c[0].method != http.MethodPost || c[0].contentType != "application/json" || c[0].key != e.IdempotencyKey ||
			c[0].text != e.Subject+"\n\n"+e.Body {
			t.Fatalf("%d: calls %+v", tc.status, c)
		}
	}
}

// TestSendBoundsAndTimesOut: a huge answer is read only in part, a slow
// hook times out (retried), an unreachable one is retried, and neither
// error names the URL's path.
func TestSendBoundsAndTimesOut(t *testing.T) {
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("x", 1<<16))
		for range 1 << 8 { // 16 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer huge.Close()
	err := webhook.New(0).Send(context.Background(), chatEvent(huge.URL+"/secret"))
	if !events.IsPermanent(err) || len(err.Error()) > 1024 {
		t.Fatalf("huge answer: permanent %v, %d bytes of error", events.IsPermanent(err), len(err.Error()))
	}

	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	start := time.Now()
	err = webhook.New(200*time.Millisecond).Send(context.Background(), chatEvent(slow.URL+"/secret"))
	if err == nil || events.IsPermanent(err) || time.Since(start) > 5*time.Second || strings.Contains(err.Error(), "secret") {
		t.Fatalf("slow hook: %v after %v", err, time.Since(start))
	}

	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL + "/secret"
	gone.Close()
	if err := webhook.New(0).Send(context.Background(), chatEvent(url)); err == nil || events.IsPermanent(err) ||
		strings.Contains(err.Error(), "secret") {
		t.Fatalf("unreachable hook: %v", err)
	}
}

// TestWebhookDelivery: through the outbox, a hook answering 500 gets the
// message again, with the same Idempotency-Key, until it accepts it; one
// answering 400 ends the event as dead after one call.
func TestWebhookDelivery(t *testing.T) {
	b := testkit.OpenSQLite(t)
	ctx := context.Background()
	dir := identity.NewDirectory(b.Directory(), clock.NewManual(testkit.Start), "http://atcp.test")
	if err := dir.EnsureOrganization(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	real := clock.NewManual(testkit.SecurityStart)
	flaky, refusing := &hook{answers: []int{500, 503}}, &hook{answers: []int{400}}
	fs, rs := httptest.NewServer(flaky), httptest.NewServer(refusing)
	defer fs.Close()
	defer rs.Close()
	retried, refused := chatEvent(fs.URL+"/hook"), chatEvent(rs.URL+"/hook")
	refused.IdempotencyKey = "fault:0190:8:chat"
	if err := events.NewOutbox(b.Events(), clock.NewManual(testkit.Start), real).Enqueue(ctx, []events.Event{retried, refused}); err != nil {
		t.Fatal(err)
	}
	d, err := events.NewDeliverer(events.DelivererOptions{Store: b.Events(), Clock: real,
		Senders: map[string]events.Sender{events.ChannelChat: webhook.New(0)}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := d.Run(ctx); err != nil {
			t.Fatal(err)
		}
		real.Advance(time.Hour)
	}
	if c := flaky.got(); len(c) != 3 || c[0].key != retried.IdempotencyKey || c[1].key != c[0].key || c[2].key != c[0].key ||
		c[2].text != c[0].text {
		t.Fatalf("flaky hook got %+v", c)
	}
	if dl, _ := b.Events().Delivery(ctx, "acme", retried.ID); dl.Status != events.StatusDelivered || dl.Attempts != 3 {
		t.Fatalf("retried: %+v", dl)
	}
	if c := refusing.got(); len(c) != 1 {
		t.Fatalf("refusing hook called %d times", len(c))
	}
	if dl, _ := b.Events().Delivery(ctx, "acme", refused.ID); dl.Status != events.StatusDead || !strings.Contains(dl.LastError, "400") {
		t.Fatalf("refused: %+v", dl)
	}
}
