package incident

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultTimeout bounds each call: an incident read sits in an API
// request, and a slow tool must not hold it.
const DefaultTimeout = 3 * time.Second

// Config configures the client.
type Config struct {
	// URL is the tool's base URL; the Events API is {URL}/v2/enqueue and
	// the REST API {URL}/incidents. Empty: not configured.
	URL string
	// Token is the Events API routing key and the REST API token. It is
	// never logged.
	Token   string
	Timeout time.Duration // per call; zero: DefaultTimeout
	Logger  *slog.Logger  // why a status could not be read, at warn; nil: slog.Default()
}

// Client talks to the incident tool; safe for concurrent use.
type Client struct {
	base, token string
	timeout     time.Duration
	http        *http.Client
	log         *slog.Logger
}

// New returns a client; without a URL it opens nothing and finds nothing.
func New(cfg Config) *Client {
	c := &Client{base: strings.TrimRight(cfg.URL, "/"), token: cfg.Token, timeout: cfg.Timeout, log: cfg.Logger}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.http = &http.Client{} // each call bounded by its context
	return c
}

// Configured reports whether a tool is configured.
func (c *Client) Configured() bool { return c.base != "" }

// Incident is what Open pages.
type Incident struct {
	DedupKey string // the alarm's lifecycle id (alarm_id): one incident per lifecycle
	Summary  string // one line; cut at 1024 characters
	Severity string // the alarm's severity: CRITICAL, MAJOR, WARNING or INFO
	Source   string // the asset id
	Details  map[string]any
}

// Open triggers an incident (Events API v2, event_action trigger). The
// tool deduplicates by DedupKey, so opening twice is harmless. Without a
// configured tool it does nothing.
func (c *Client) Open(ctx context.Context, inc Incident) error {
	if !c.Configured() {
		return nil
	}
	if inc.DedupKey == "" || strings.TrimSpace(inc.Summary) == "" || inc.Source == "" {
		return errors.New("incident: open: dedup key, summary and source are required")
	}
	payload := map[string]any{
		"summary":  cut(strings.TrimSpace(inc.Summary), 1024),
		"severity": EventSeverity(inc.Severity),
		"source":   inc.Source,
	}
	if len(inc.Details) > 0 {
		payload["custom_details"] = inc.Details
	}
	return c.enqueue(ctx, "trigger", inc.DedupKey, payload)
}

// Resolve resolves the incident of dedupKey (event_action resolve); one
// already resolved or never opened is no error to the tool. Without a
// configured tool it does nothing.
func (c *Client) Resolve(ctx context.Context, dedupKey string) error {
	if !c.Configured() {
		return nil
	}
	if dedupKey == "" {
		return errors.New("incident: resolve: dedup key required")
	}
	return c.enqueue(ctx, "resolve", dedupKey, nil)
}

func (c *Client) enqueue(ctx context.Context, action, dedupKey string, payload map[string]any) error {
	event := map[string]any{"routing_key": c.token, "event_action": action, "dedup_key": dedupKey}
	if payload != nil {
		event["payload"] = payload
	}
	body, err := json.Marshal(event)
	if err != nil {
		return fmt.Errorf("incident: %s: %w", action, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v2/enqueue", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("incident: %s: %w", action, err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("incident: %s: %w", action, err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("incident: %s %s: HTTP %d: %s", action, dedupKey, res.StatusCode, bytes.TrimSpace(answer))
	}
	return nil
}

// EventSeverity maps an alarm severity to the Events API's: CRITICAL
// critical, MAJOR error, WARNING warning, INFO info; anything else error,
// so that an unknown severity still pages.
func EventSeverity(severity string) string {
	switch strings.ToUpper(severity) {
	case "CRITICAL":
		return "critical"
	case "MAJOR":
		return "error"
	case "WARNING":
		return "warning"
	case "INFO":
		return "info"
	}
	return "error"
}

// Status is an incident as the tool shows it.
type Status struct {
	Found               bool
	IncidentID          string
	Status              string // triggered, acknowledged or resolved
	Acknowledged        bool
	AcknowledgedBy      string // the acknowledger's name
	AcknowledgedByAgent bool   // acknowledged by a service or automation, not a person
	AcknowledgedAt      *time.Time
	StartedAt           *time.Time
	URL                 string // the incident's page in the tool
}

// Status reads the incident of dedupKey. Best effort: not configured, not
// found, unreachable, slow or an unexpected answer all give Found false,
// the reason logged at warn; the error is always nil.
func (c *Client) Status(ctx context.Context, dedupKey string) (Status, error) {
	if !c.Configured() || dedupKey == "" {
		return Status{}, nil
	}
	s, err := c.status(ctx, dedupKey)
	if err != nil {
		c.log.WarnContext(ctx, "incident status unavailable", "dedup_key", dedupKey, "error", err)
		return Status{}, nil
	}
	return s, nil
}

// incidentList is the REST API's answer, reduced to what Status shows.
type incidentList struct {
	Incidents []struct {
		ID               string     `json:"id"`
		Status           string     `json:"status"`
		HTMLURL          string     `json:"html_url"`
		CreatedAt        *time.Time `json:"created_at"`
		Acknowledgements []struct {
			At           *time.Time `json:"at"`
			Acknowledger struct {
				Type    string `json:"type"`
				Summary string `json:"summary"`
			} `json:"acknowledger"`
		} `json:"acknowledgements"`
	} `json:"incidents"`
}

func (c *Client) status(ctx context.Context, dedupKey string) (Status, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/incidents?incident_key="+url.QueryEscape(dedupKey), nil)
	if err != nil {
		return Status{}, err
	}
	req.Header.Set("Authorization", "Token token="+c.token)
	req.Header.Set("Accept", "application/vnd.pagerduty+json;version=2")
	res, err := c.http.Do(req)
	if err != nil {
		return Status{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Status{}, fmt.Errorf("HTTP %d", res.StatusCode)
	}
	var list incidentList
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&list); err != nil {
		return Status{}, fmt.Errorf("reading the answer: %w", err)
	}
	if len(list.Incidents) == 0 {
		return Status{}, nil // none opened: not production-critical, or not paged yet
	}
	in := list.Incidents[0]
	s := Status{
		Found: true, IncidentID: in.ID, Status: in.Status, URL: in.HTMLURL, StartedAt: in.CreatedAt,
		Acknowledged: in.Status == "acknowledged" || len(in.Acknowledgements) > 0,
	}
	if len(in.Acknowledgements) > 0 {
		a := in.Acknowledgements[0]
		s.AcknowledgedBy = a.Acknowledger.Summary
		s.AcknowledgedByAgent = a.Acknowledger.Type != "user_reference" && a.Acknowledger.Type != "user"
		s.AcknowledgedAt = a.At
	}
	return s, nil
}

// cut shortens s to n characters.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
