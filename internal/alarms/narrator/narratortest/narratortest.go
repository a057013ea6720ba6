// Package narratortest serves an OpenAI-compatible chat-completions
// endpoint for the tests of what drafts fault messages. Only tests import
// it.
package narratortest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Serve answers every chat completion with the draft subject and body
// until the test ends; it returns the base URL of narrator.Config.
func Serve(tb testing.TB, subject, body string) string {
	content, err := json.Marshal(map[string]string{"subject": subject, "body": body})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(content)}}}})
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/v1"
}
