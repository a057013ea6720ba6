package incident

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "pd-token-secret-0123456789"

// fakePagerDuty serves the Events API v2 enqueue endpoint and the REST
// incidents list, checking the credentials each expects.
type fakePagerDuty struct {
	t *testing.T

	mu        sync.Mutex
	events    []map[string]any
	incidents map[string]string // incident_key -> the incident's JSON
	restError int               // non-zero: the REST API answers this status
	body      string            // non-empty: the REST API answers this body
	hang      chan struct{}     // non-nil: the REST API answers when it is closed
}

func (f *fakePagerDuty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v2/enqueue":
		var event map[string]any
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&event) != nil {
			http.Error(w, `{"status":"invalid event"}`, http.StatusBadRequest)
			return
		}
		if event["routing_key"] != testToken {
			http.Error(w, `{"status":"invalid routing key"}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.events = append(f.events, event)
		f.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"status":"success","message":"Event processed","dedup_key":"x"}`)
	case r.Method == http.MethodGet && r.URL.Path == "/incidents":
		if r.Header.Get("Authorization") != "Token token="+testToken || r.Header.Get("Accept") != "application/vnd.pagerduty+json;version=2" {
			http.Error(w, `{"error":{"message":"Unauthorized"}}`, http.StatusUnauthorized)
			return
		}
		f.mu.Lock()
		restError, body, hang, in := f.restError, f.body, f.hang, f.incidents[r.URL.Query().Get("incident_key")]
		f.mu.Unlock()
		if hang != nil {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		if restError != 0 {
			http.Error(w, `{"error":{"message":"boom"}}`, restError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if body != "" {
			_, _ = io.WriteString(w, body)
			return
		}
		list := "[]"
		if in != "" {
			list = "[" + in + "]"
		}
		_, _ = io.WriteString(w, `{"incidents":`+list+`,"limit":25,"offset":0,"more":false}`)
	default:
		f.t.Errorf("request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

func startFake(t *testing.T, token string) (*fakePagerDuty, *Client, *strings.Builder) {
	t.Helper()
	f := &fakePagerDuty{t: t, incidents: map[string]string{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	log := &strings.Builder{}
	c := New(Config{URL: srv.URL + "/", Token: token, Timeout: 500 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(log, nil))})
	t.Cleanup(func() {
		if strings.Contains(log.String(), testToken) {
			t.Errorf("the log shows the token: %s", log)
		}
	})
	return f, c, log
}

func TestOpenAndResolve(t *testing.T) {
	f, c, _ := startFake(t, testToken)
	ctx := context.Background()
	err := c.Open(ctx, Incident{
		DedupKey: "01963f6e-7b52-7000-8000-000000000001", Summary: "demo-bess: stale telemetry (TELEMETRY-001)",
		Severity: "MAJOR", Source: "demo-bess", Details: map[string]any{"alarm_key": "demo-bess:TELEMETRY-001", "facts": []string{"312 s"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve(ctx, "01963f6e-7b52-7000-8000-000000000001"); err != nil {
		t.Fatal(err)
	}
	if len(f.events) != 2 {
		t.Fatalf("events %v", f.events)
	}
	trigger, resolve := f.events[0], f.events[1]
	payload, _ := trigger["payload"].(map[string]any)
	details, _ := payload["custom_details"].(map[string]any)
	if trigger["event_action"] != "trigger" || trigger["dedup_key"] != "01963f6e-7b52-7000-8000-000000000001" ||
		payload["summary"] != "demo-bess: stale telemetry (TELEMETRY-001)" || payload["severity"] != "error" ||
		payload["source"] != "demo-bess" || details["alarm_key"] != "demo-bess:TELEMETRY-001" {
		t.Errorf("trigger %v", trigger)
	}
	if resolve["event_action"] != "resolve" || resolve["dedup_key"] != "01963f6e-7b52-7000-8000-000000000001" || resolve["payload"] != nil {
		t.Errorf("resolve %v", resolve)
	}
}

func TestOpenErrors(t *testing.T) {
	_, c, _ := startFake(t, "wrong-routing-key")
	ctx := context.Background()
	err := c.Open(ctx, Incident{DedupKey: "a", Summary: "s", Severity: "CRITICAL", Source: "demo-bess"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("wrong routing key: %v", err)
	}
	if err := c.Open(ctx, Incident{DedupKey: "a", Summary: " ", Source: "demo-bess"}); err == nil {
		t.Fatal("opened without a summary")
	}
	if err := c.Resolve(ctx, ""); err == nil {
		t.Fatal("resolved without a dedup key")
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	if err := New(Config{URL: srv.URL, Token: testToken}).Open(ctx, Incident{DedupKey: "a", Summary: "s", Source: "x"}); err == nil {
		t.Fatal("opened on an unreachable tool")
	}
}

func TestEventSeverity(t *testing.T) {
	for in, want := range map[string]string{"CRITICAL": "critical", "MAJOR": "error", "WARNING": "warning", "INFO": "info", "warning": "warning", "": "error", "FATAL": "error"} {
		if got := EventSeverity(in); got != want {
			t.Errorf("EventSeverity(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSummaryCut(t *testing.T) {
	f, c, _ := startFake(t, testToken)
	if err := c.Open(context.Background(), Incident{DedupKey: "a", Summary: strings.Repeat("ä", 2000), Severity: "INFO", Source: "x"}); err != nil {
		t.Fatal(err)
	}
	if s := f.events[0]["payload"].(map[string]any)["summary"].(string); len([]rune(s)) != 1024 {
		t.Fatalf("summary of %d characters", len([]rune(s)))
	}
}

func TestStatus(t *testing.T) {
	f, c, log := startFake(t, testToken)
	f.incidents["by-person"] = `{"id":"PT4KHLK","status":"acknowledged","html_url":"https://acme.pagerduty.com/incidents/PT4KHLK",
		"incident_key":"by-person","created_at":"2026-03-15T08:17:12Z",
		"acknowledgements":[{"at":"2026-03-15T08:21:40Z","acknowledger":{"id":"PXPGF42","type":"user_reference","summary":"Earline Greenholt"}}]}`
	f.incidents["by-agent"] = `{"id":"PQ1","status":"acknowledged","html_url":"https://acme.pagerduty.com/incidents/PQ1","created_at":"2026-03-15T08:17:12Z",
		"acknowledgements":[{"at":"2026-03-15T08:18:00Z","acknowledger":{"id":"PSVC","type":"service_reference","summary":"Auto-ack rule"}}]}`
	f.incidents["open"] = `{"id":"PQ2","status":"triggered","html_url":"https://acme.pagerduty.com/incidents/PQ2","created_at":"2026-03-15T08:17:12Z","acknowledgements":[]}`
	f.incidents["resolved"] = `{"id":"PQ3","status":"resolved","html_url":"https://acme.pagerduty.com/incidents/PQ3","created_at":"2026-03-15T08:17:12Z"}`
	at := func(s string) *time.Time {
		v, _ := time.Parse(time.RFC3339, s)
		return &v
	}
	started := at("2026-03-15T08:17:12Z")
	cases := []struct {
		key  string
		want Status
	}{
		{"by-person", Status{Found: true, IncidentID: "PT4KHLK", Status: "acknowledged", Acknowledged: true, AcknowledgedBy: "Earline Greenholt",
			AcknowledgedAt: at("2026-03-15T08:21:40Z"), StartedAt: started, URL: "https://acme.pagerduty.com/incidents/PT4KHLK"}},
		{"by-agent", Status{Found: true, IncidentID: "PQ1", Status: "acknowledged", Acknowledged: true, AcknowledgedBy: "Auto-ack rule",
			AcknowledgedByAgent: true, AcknowledgedAt: at("2026-03-15T08:18:00Z"), StartedAt: started, URL: "https://acme.pagerduty.com/incidents/PQ1"}},
		{"open", Status{Found: true, IncidentID: "PQ2", Status: "triggered", StartedAt: started, URL: "https://acme.pagerduty.com/incidents/PQ2"}},
		{"resolved", Status{Found: true, IncidentID: "PQ3", Status: "resolved", StartedAt: started, URL: "https://acme.pagerduty.com/incidents/PQ3"}},
		{"never-opened", Status{}},
		{"", Status{}},
	}
	for _, c2 := range cases {
		got, err := c.Status(context.Background(), c2.key)
		if err != nil || !equal(got, c2.want) {
			t.Errorf("Status(%q) = %+v, %v; want %+v", c2.key, got, err, c2.want)
		}
	}
	if log.Len() != 0 {
		t.Errorf("logged %s", log)
	}
}

func equal(a, b Status) bool {
	sameTime := func(x, y *time.Time) bool { return (x == nil) == (y == nil) && (x == nil || x.Equal(*y)) }
	if !sameTime(a.AcknowledgedAt, b.AcknowledgedAt) || !sameTime(a.StartedAt, b.StartedAt) {
		return false
	}
	a.AcknowledgedAt, a.StartedAt, b.AcknowledgedAt, b.StartedAt = nil, nil, nil, nil
	return a == b
}

// Whatever goes wrong, Status finds nothing and does not fail; the reason
// is logged at warn.
func TestStatusBestEffort(t *testing.T) {
	cases := []struct {
		name  string
		token string
		set   func(f *fakePagerDuty)
		log   string
	}{
		{"HTTP 500", testToken, func(f *fakePagerDuty) { f.restError = http.StatusInternalServerError }, "HTTP 500"},
		{"wrong token", "wrong-token", func(*fakePagerDuty) {}, "HTTP 401"},
		{"not JSON", testToken, func(f *fakePagerDuty) { f.body = "<html>maintenance</html>" }, "reading the answer"},
		{"bad time", testToken, func(f *fakePagerDuty) { f.body = `{"incidents":[{"id":"P","created_at":"yesterday"}]}` }, "reading the answer"},
		{"hangs past the timeout", testToken, func(f *fakePagerDuty) { f.hang = make(chan struct{}) }, "deadline exceeded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, client, log := startFake(t, c.token)
			f.incidents["k"] = `{"id":"P","status":"triggered"}`
			c.set(f)
			if f.hang != nil {
				defer close(f.hang)
			}
			began := time.Now()
			got, err := client.Status(context.Background(), "k")
			if err != nil || got != (Status{}) {
				t.Fatalf("Status = %+v, %v", got, err)
			}
			if took := time.Since(began); took > 2*time.Second {
				t.Fatalf("took %s", took)
			}
			if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), c.log) {
				t.Fatalf("log %q, want %q", log, c.log)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		var log strings.Builder
		c := New(Config{URL: srv.URL, Token: testToken, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if got, err := c.Status(context.Background(), "k"); err != nil || got.Found {
			t.Fatalf("Status = %+v, %v", got, err)
		}
		if !strings.Contains(log.String(), "incident status unavailable") || strings.Contains(log.String(), testToken) {
			t.Fatalf("log %s", log.String())
		}
	})
}

func TestNotConfigured(t *testing.T) {
	var log strings.Builder
	c := New(Config{Token: testToken, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ctx := context.Background()
	if c.Configured() {
		t.Fatal("configured without a URL")
	}
	if err := c.Open(ctx, Incident{DedupKey: "a", Summary: "s", Source: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Status(ctx, "a"); err != nil || got.Found {
		t.Fatalf("Status = %+v, %v", got, err)
	}
	if log.Len() != 0 {
		t.Fatalf("logged %s", log.String())
	}
}
