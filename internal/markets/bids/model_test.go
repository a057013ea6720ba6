package bids

import (
	"testing"

	"github.com/google/uuid"
)

// TestNewIDsAreTimeOrdered: bid ids are UUIDs of version 7, so ids made
// one after the other sort after each other (and share index pages).
func TestNewIDsAreTimeOrdered(t *testing.T) {
	prev := NewID()
	for range 1000 {
		id := NewID()
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 7 {
			t.Fatalf("id %s: version %d, %v", id, u.Version(), err)
		}
		if id <= prev {
			t.Fatalf("id %s made after %s sorts before it", id, prev)
		}
		prev = id
	}
}
