package alarmstream

import (
	"context"
	"testing"

	"atcp/internal/auth"
)

// TestSlowSubscriberDropped: a subscriber whose buffer is full is dropped
// (its stream closes, naming the after= to resume with) and never holds
// up the others.
func TestSlowSubscriberDropped(t *testing.T) {
	h := NewHub(Options{Buffer: 2})
	close(h.ready)
	ctx := context.Background()
	slow, _, err := h.subscribe(ctx, "a", auth.Visibility{OrganizationID: "acme"}, "")
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := h.subscribe(ctx, "b", auth.Visibility{All: true}, "beta")
	h.fanOut([]message{{id: 1, org: "acme"}, {id: 2, org: "acme"}, {id: 3, org: "beta"}})
	select {
	case <-slow.dropped:
		t.Fatal("dropped with a buffer not yet overflowing")
	default:
	}
	h.fanOut([]message{{id: 4, org: "acme"}})
	<-slow.dropped
	if len(other.ch) != 1 || h.Subscribers() != 1 || h.cursor != 4 {
		t.Fatalf("other got %d, %d subscribers, cursor %d", len(other.ch), h.Subscribers(), h.cursor)
	}
	h.unsubscribe(slow)
	h.unsubscribe(other)
	if len(h.perCaller) != 0 {
		t.Fatalf("slots held: %v", h.perCaller)
	}
}
