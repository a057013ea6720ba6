package events

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestScheduleNext(t *testing.T) {
	id := uuid.MustParse("0190a8c4-7b1e-7000-8000-000000000001")
	s := Schedule{Base: 10 * time.Second, Cap: time.Minute, MaxAttempts: 6}
	for _, tc := range []struct {
		attempts int
		step     time.Duration // the wait before jitter; 0: no attempt left
	}{
		{0, 10 * time.Second}, // no attempt yet reads as the first
		{1, 10 * time.Second},
		{2, 20 * time.Second},
		{3, 40 * time.Second},
		{4, time.Minute}, // 80 s capped
		{5, time.Minute},
		{6, 0},
		{7, 0},
	} {
		wait, retry := s.Next(id, tc.attempts)
		if retry != (tc.step > 0) {
			t.Fatalf("attempt %d: retry %v, want %v", tc.attempts, retry, tc.step > 0)
		}
		if !retry {
			continue
		}
		// The jitter shortens the step by at most a quarter.
		if wait > tc.step || wait < tc.step*3/4 {
			t.Fatalf("attempt %d: wait %v outside [%v, %v]", tc.attempts, wait, tc.step*3/4, tc.step)
		}
		if again, _ := s.Next(id, tc.attempts); again != wait {
			t.Fatalf("attempt %d: %v then %v: the jitter is not deterministic", tc.attempts, wait, again)
		}
	}
}

// TestScheduleJitterSpreads: events failing together do not retry
// together, and a huge attempt count neither overflows nor exceeds the cap.
func TestScheduleJitterSpreads(t *testing.T) {
	s := DefaultSchedule
	waits := map[time.Duration]bool{}
	for range 50 {
		w, ok := s.Next(uuid.New(), 3)
		if !ok || w > time.Minute || w < 45*time.Second {
			t.Fatalf("third retry wait %v", w)
		}
		waits[w] = true
	}
	if len(waits) < 45 {
		t.Fatalf("50 events share only %d distinct waits", len(waits))
	}
	long := Schedule{Base: time.Second, Cap: time.Hour, MaxAttempts: 1000}
	for _, n := range []int{40, 62, 63, 64, 500} {
		if w, ok := long.Next(uuid.New(), n); !ok || w > time.Hour || w < 45*time.Minute {
			t.Fatalf("attempt %d: wait %v", n, w)
		}
	}
}
