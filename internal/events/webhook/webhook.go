// Package webhook sends chat events to Slack-compatible incoming webhooks:
// a POST of {"text": subject, blank line, body} to the contact's webhook
// URL, with the event's idempotency key in the Idempotency-Key header. A
// 2xx answer is delivered; a 4xx other than 408 and 429 is a refusal no
// retry can change (the webhook was revoked, the payload refused), so the
// event is dead; anything else, or no answer, is retried.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"atcp/internal/events"
)

// DefaultTimeout bounds one webhook call, connection to last byte.
const DefaultTimeout = 10 * time.Second

// Bounds on what is read of an answer: an excerpt for last_error, and a
// little more drained so that the connection can be reused.
const (
	excerptBytes = 512
	drainBytes   = 64 << 10
)

// Sender posts chat events.
type Sender struct {
	client *http.Client
}

// New returns a sender whose calls time out after timeout (DefaultTimeout
// when 0). Redirects are not followed: a redirected POST would arrive
// elsewhere as a GET, so a 3xx is retried like any unexpected answer.
func New(timeout time.Duration) *Sender {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Sender{client: &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Text is the chat message of an event: the subject, a blank line and the
// body, or whichever of them is not empty.
func Text(e events.Event) string {
	switch {
	case e.Subject == "":
		return e.Body
	case e.Body == "":
		return e.Subject
	}
	return e.Subject + "\n\n" + e.Body
}

// Send implements events.Sender.
func (s *Sender) Send(ctx context.Context, e events.Event) error {
	body, err := json.Marshal(struct {
		Text string `json:"text"`
	}{Text(e)})
	if err != nil {
		return events.Permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.Recipient, bytes.NewReader(body))
	if err != nil {
		return events.Permanent(fmt.Errorf("webhook url: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", e.IdempotencyKey)
	req.Header.Set("User-Agent", "atcp")
	resp, err := s.client.Do(req)
	if err != nil {
		// The URL is the webhook's credential: the error names the host only.
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("post to %s: %w", req.URL.Host, err)
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, excerptBytes))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainBytes))
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	err = fmt.Errorf("webhook at %s answered %d: %s", req.URL.Host, code, strings.TrimSpace(strings.ToValidUTF8(string(excerpt), "")))
	if code >= 400 && code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests {
		return events.Permanent(err)
	}
	return err
}
