package narrator

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atcp/internal/errs"
)

const testKey = "sk-test-secret-key-0123456789"

// fakeChat is an OpenAI-compatible chat-completions endpoint whose answer
// each test chooses.
type fakeChat struct {
	t      *testing.T
	answer func(w http.ResponseWriter, r *http.Request, body map[string]any)

	mu       sync.Mutex
	requests []map[string]any
	auth     []string
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.t.Errorf("request %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		f.t.Errorf("request body: %v", err)
	}
	f.mu.Lock()
	f.requests = append(f.requests, body)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	f.answer(w, r, body)
}

func (f *fakeChat) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// completion writes a chat completion whose message content is content.
func completion(w http.ResponseWriter, content, finish string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content},
		}},
	})
}

func draftJSON(subject, body string) string {
	b, _ := json.Marshal(map[string]string{"subject": subject, "body": body})
	return string(b)
}

const germanBody = "Sehr geehrte Damen und Herren,\n\n" +
	"seit 312 Sekunden empfangen wir keine Messwerte der Anlage Demo BESS (demo-bess). " +
	"Wir haben die Anlage bis zum 15.03.2026, 17:30 Uhr (MEZ) als nicht verfügbar gemeldet. " +
	"Bitte prüfen Sie die Kommunikation und schicken Sie 3 Techniker.\n\nMit freundlichen Grüßen"

const englishBody = "Dear Sir or Madam,\n\n" +
	"we have received no measurements from the asset Demo BESS (demo-bess) for 312 seconds. " +
	"We have declared the asset unavailable until 15 March 2026, 17:30 (CET). " +
	"Please check its communication and report back to us.\n\nKind regards"

func testRequest(lang string) Request {
	return Request{
		Language:   lang,
		Assessment: "Router vor Ort vermutlich ausgefallen",
		Evidence: Evidence{
			AssetID: "demo-bess", AssetName: "Demo BESS", TSO: "50Hertz",
			RuleID: "TELEMETRY-001", RuleName: "stale telemetry", Severity: "MAJOR",
			Facts:             []string{"last telemetry received 2026-03-15T08:12:00Z, 312 s ago"},
			SustainedSeconds:  312,
			ConcurrentRuleIDs: []string{"COMMS-001"},
			UnavailabilityEnd: testDeadline, UnavailabilityHours: 7.9986,
		},
		Signature: "Leitwarte Beispiel GmbH\n+49 30 1234567",
		Reference: Reference{
			AlarmKey: "demo-bess:TELEMETRY-001", AlarmID: "01963f6e-7b52-7000-8000-000000000001",
			DeepLink: "https://atcp.example/alarms/demo-bess:TELEMETRY-001",
		},
	}
}

// start serves f and returns a narrator on it with a 2 s timeout and a log
// that the test can read.
func start(t *testing.T, f *fakeChat, apiKey string) (*Narrator, *strings.Builder) {
	t.Helper()
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	var log strings.Builder
	n := New(Config{
		BaseURL: srv.URL + "/v1", Model: "test-model", APIKey: apiKey, Timeout: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &log}, nil)),
	})
	t.Cleanup(func() {
		if strings.Contains(log.String(), testKey) {
			t.Errorf("the log shows the API key: %s", log.String())
		}
	})
	return n, &log
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestDraftGerman(t *testing.T) {
	f := &fakeChat{answer: func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		completion(w, draftJSON("Störung Demo BESS (demo-bess): keine Messwerte", germanBody), "stop")
	}}
	n, _ := start(t, f, testKey)
	if !n.Configured() {
		t.Fatal("not configured")
	}
	d, err := n.Draft(context.Background(), testRequest("de"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Subject != "Störung Demo BESS (demo-bess): keine Messwerte" {
		t.Errorf("subject %q", d.Subject)
	}
	wantBody := germanBody + "\n\nLeitwarte Beispiel GmbH\n+49 30 1234567\n\n--\nReferenz\n" +
		"Alarm: demo-bess:TELEMETRY-001\nAlarm-ID: 01963f6e-7b52-7000-8000-000000000001\n" +
		"Link: https://atcp.example/alarms/demo-bess:TELEMETRY-001"
	if d.Body != wantBody {
		t.Errorf("body\n%s\nwant\n%s", d.Body, wantBody)
	}
	// The signature's and footer's numbers are not the model's.
	if !slices.Equal(d.UnverifiedNumbers, []string{"3"}) {
		t.Errorf("unverified %q", d.UnverifiedNumbers)
	}

	// The request: model, system prompt, the evidence as data, JSON asked for.
	req := f.requests[0]
	if req["model"] != "test-model" || f.auth[0] != "Bearer "+testKey {
		t.Errorf("model %v, authorization %q", req["model"], f.auth[0])
	}
	if rf, _ := req["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v", req["response_format"])
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages %v", msgs)
	}
	system, _ := msgs[0].(map[string]any)
	user, _ := msgs[1].(map[string]any)
	if system["role"] != "system" || !strings.Contains(system["content"].(string), `"Sie"`) ||
		!strings.Contains(system["content"].(string), `{"subject": "...", "body": "..."}`) {
		t.Errorf("system message %v", system)
	}
	var evidence map[string]any
	if user["role"] != "user" || json.Unmarshal([]byte(user["content"].(string)), &evidence) != nil {
		t.Fatalf("user message %v", user)
	}
	if evidence["asset_id"] != "demo-bess" || evidence["deadline_local"] != "15.03.2026, 17:30 Uhr (MEZ)" ||
		evidence["deadline_utc"] != "2026-03-15T16:30:00Z" || evidence["unavailability_hours"] != 8.0 ||
		evidence["sustained_minutes"] != 5.0 || evidence["operator_assessment"] != "Router vor Ort vermutlich ausgefallen" {
		t.Errorf("evidence %v", evidence)
	}
}

func TestDraftEnglish(t *testing.T) {
	f := &fakeChat{answer: func(w http.ResponseWriter, _ *http.Request, body map[string]any) {
		// A model that wraps the object in a code fence and words.
		completion(w, "Here is the draft:\n```json\n"+draftJSON("  Fault on Demo BESS (demo-bess)\n", englishBody+"\r\n")+"\n```", "stop")
	}}
	n, _ := start(t, f, "")
	req := testRequest("en")
	req.Signature = ""
	req.Reference.DeepLink = ""
	d, err := n.Draft(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := englishBody + "\n\n--\nReference\nAlarm: demo-bess:TELEMETRY-001\nAlarm ID: 01963f6e-7b52-7000-8000-000000000001"
	if d.Subject != "Fault on Demo BESS (demo-bess)" || d.Body != want || d.UnverifiedNumbers != nil {
		t.Errorf("draft %+v", d)
	}
	var evidence map[string]any
	msgs := f.requests[0]["messages"].([]any)
	_ = json.Unmarshal([]byte(msgs[1].(map[string]any)["content"].(string)), &evidence)
	if evidence["deadline_local"] != "15 March 2026, 17:30 (CET, German time)" {
		t.Errorf("deadline %v", evidence["deadline_local"])
	}
	if f.auth[0] != "" {
		t.Errorf("authorization %q without a key", f.auth[0])
	}
}

// The settings are ATCP_* only: an OPENAI_* variable of the process
// changes nothing.
func TestDraftIgnoresOpenAIVariables(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/elsewhere")
	f := &fakeChat{answer: func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		completion(w, draftJSON("Störung demo-bess", germanBody), "stop")
	}}
	n, _ := start(t, f, "")
	if _, err := n.Draft(context.Background(), testRequest("de")); err != nil {
		t.Fatal(err)
	}
	if f.auth[0] != "" {
		t.Fatalf("authorization %q", f.auth[0])
	}
}

// Without a deadline the draft still works, and no zero instant supports
// a number.
func TestDraftWithoutDeadline(t *testing.T) {
	f := &fakeChat{answer: func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		completion(w, draftJSON("Störung demo-bess", "Sehr geehrte Damen und Herren, bitte prüfen Sie die Anlage bis 1 Uhr."), "stop")
	}}
	n, _ := start(t, f, testKey)
	req := testRequest("de")
	req.Evidence.UnavailabilityEnd, req.Evidence.RuleID, req.Evidence.ConcurrentRuleIDs = time.Time{}, "TELEMETRY", nil
	d, err := n.Draft(context.Background(), req)
	if err != nil || !slices.Equal(d.UnverifiedNumbers, []string{"1"}) {
		t.Fatalf("%+v %v", d, err)
	}
	msgs := f.requests[0]["messages"].([]any)
	if user := msgs[1].(map[string]any)["content"].(string); strings.Contains(user, "deadline") {
		t.Fatalf("a deadline in %s", user)
	}
}

func TestDraftNotConfigured(t *testing.T) {
	n := New(Config{Model: "x", APIKey: testKey})
	if n.Configured() {
		t.Fatal("configured without a URL")
	}
	_, err := n.Draft(context.Background(), testRequest("de"))
	expectError(t, err, errs.Unavailable, CodeNotConfigured, "not configured")
}

func TestDraftLanguage(t *testing.T) {
	f := &fakeChat{answer: func(http.ResponseWriter, *http.Request, map[string]any) {}}
	n, _ := start(t, f, testKey)
	_, err := n.Draft(context.Background(), testRequest("fr"))
	expectError(t, err, errs.Invalid, "validation_failed", "validation failed")
	if f.calls() != 0 {
		t.Fatal("asked the model")
	}
}

func expectError(t *testing.T, err error, kind errs.Kind, code errs.Code, message string) {
	t.Helper()
	e, ok := err.(*errs.Error)
	if !ok || e.Kind != kind || e.Code != code || !strings.Contains(e.Message, message) {
		t.Fatalf("error %#v, want kind %d code %s with %q", err, kind, code, message)
	}
}

func TestDraftUnusable(t *testing.T) {
	long := strings.Repeat("x", MaxSubject+1)
	cases := []struct {
		name    string
		answer  func(w http.ResponseWriter)
		message string
	}{
		{"garbage", func(w http.ResponseWriter) { completion(w, "Ich kann Ihnen dabei leider nicht helfen.", "stop") }, "no JSON object"},
		{"broken JSON", func(w http.ResponseWriter) { completion(w, `{"subject": "a", "body": }`, "stop") }, "not a JSON object"},
		{"body not a string", func(w http.ResponseWriter) { completion(w, `{"subject": "a", "body": ["b"]}`, "stop") }, "not a JSON object"},
		{"no body", func(w http.ResponseWriter) { completion(w, `{"subject": "Störung"}`, "stop") }, "subject or body missing"},
		{"empty subject", func(w http.ResponseWriter) { completion(w, draftJSON(" ", germanBody), "stop") }, "empty subject"},
		{"subject too long", func(w http.ResponseWriter) { completion(w, draftJSON(long, germanBody), "stop") }, "subject longer than 200"},
		{"subject of two lines", func(w http.ResponseWriter) { completion(w, draftJSON("Störung\nBitte", germanBody), "stop") }, "single line"},
		{"empty body", func(w http.ResponseWriter) { completion(w, draftJSON("Störung", "\n "), "stop") }, "empty body"},
		{"body too long", func(w http.ResponseWriter) {
			completion(w, draftJSON("Störung", strings.Repeat("Bitte prüfen Sie die Anlage. ", 300)), "stop")
		}, "body longer than 8000"},
		{"control characters", func(w http.ResponseWriter) { completion(w, draftJSON("Störung", germanBody+"\x07"), "stop") }, "control characters"},
		{"English for German", func(w http.ResponseWriter) { completion(w, draftJSON("Fault", englishBody), "stop") }, "not written in German"},
		{"informal German", func(w http.ResponseWriter) {
			completion(w, draftJSON("Störung", "Hallo, bitte prüf doch mal, ob dein Router läuft. Danke dir!"), "stop")
		}, "formal address"},
		{"cut at the token limit", func(w http.ResponseWriter) { completion(w, draftJSON("Störung", germanBody), "length") }, "token limit"},
		{"no choices", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`)
		}, "no choices"},
		{"refusal", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`)
		}, "refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeChat{answer: func(w http.ResponseWriter, _ *http.Request, _ map[string]any) { c.answer(w) }}
			n, log := start(t, f, testKey)
			d, err := n.Draft(context.Background(), testRequest("de"))
			expectError(t, err, errs.BadGateway, CodeUnusable, c.message)
			if d.Subject != "" || d.Body != "" {
				t.Fatalf("a fallback text: %+v", d)
			}
			if !strings.Contains(log.String(), "fault-message draft unusable") {
				t.Fatalf("log %s", log)
			}
		})
	}
}

func TestDraftFailed(t *testing.T) {
	cases := []struct {
		name    string
		answer  func(w http.ResponseWriter)
		calls   int // one retry of a 5xx
		message string
	}{
		{"HTTP 500", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After-Ms", "10")
			http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, http.StatusInternalServerError)
		}, 2, "answered HTTP 500"},
		{"HTTP 401", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+testKey+`","type":"invalid_request_error","code":"invalid_api_key"}}`)
		}, 1, "answered HTTP 401"},
		{"not JSON", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		}, 1, "could not be reached or its answer read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeChat{answer: func(w http.ResponseWriter, _ *http.Request, _ map[string]any) { c.answer(w) }}
			n, log := start(t, f, testKey)
			_, err := n.Draft(context.Background(), testRequest("de"))
			expectError(t, err, errs.BadGateway, CodeFailed, c.message)
			if f.calls() != c.calls {
				t.Fatalf("%d calls, want %d", f.calls(), c.calls)
			}
			if !strings.Contains(log.String(), "fault-message draft failed") {
				t.Fatalf("log %s", log)
			}
		})
	}
}

func TestDraftTimeout(t *testing.T) {
	release := make(chan struct{})
	f := &fakeChat{answer: func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}}
	n, log := start(t, f, testKey)
	defer close(release)
	n.timeout = 300 * time.Millisecond
	began := time.Now()
	_, err := n.Draft(context.Background(), testRequest("de"))
	expectError(t, err, errs.BadGateway, CodeFailed, "did not answer within 300ms")
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("took %s", took)
	}
	if !strings.Contains(log.String(), "timed out") {
		t.Fatalf("log %s", log)
	}
}

func TestDraftUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	n := New(Config{BaseURL: url + "/v1", Timeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	_, err := n.Draft(context.Background(), testRequest("en"))
	expectError(t, err, errs.BadGateway, CodeFailed, "could not be reached")
}

// An endpoint that refuses response_format (400) gets the request once more
// without it.
func TestDraftWithoutResponseFormat(t *testing.T) {
	f := &fakeChat{answer: func(w http.ResponseWriter, _ *http.Request, body map[string]any) {
		if _, ok := body["response_format"]; ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"response_format is not supported","type":"invalid_request_error"}}`)
			return
		}
		completion(w, draftJSON("Störung demo-bess", germanBody), "stop")
	}}
	n, _ := start(t, f, testKey)
	if _, err := n.Draft(context.Background(), testRequest("de")); err != nil {
		t.Fatal(err)
	}
	if f.calls() != 2 {
		t.Fatalf("%d calls", f.calls())
	}
	if _, ok := f.requests[1]["temperature"]; ok {
		t.Fatal("temperature sent again")
	}
}
