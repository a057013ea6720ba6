package onboarding_test

import (
	"testing"
	"time"

	"atcp/internal/onboarding"
)

func TestRateLimitWait(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	five := onboarding.RateLimit{Kind: "send", Max: 5, Window: time.Hour}
	one := onboarding.RateLimit{Kind: "test", Max: 1, Window: time.Minute}
	for _, c := range []struct {
		name  string
		limit onboarding.RateLimit
		marks []time.Time
		want  time.Duration
	}{
		{"no marks", five, nil, 0},
		{"fewer than max", five, []time.Time{ago(time.Minute), ago(2 * time.Minute), ago(3 * time.Minute), ago(4 * time.Minute)}, 0},
		{"max within the window: the oldest leaves first", five,
			[]time.Time{ago(time.Minute), ago(50 * time.Minute), ago(2 * time.Minute), ago(3 * time.Minute), ago(4 * time.Minute)}, 10 * time.Minute},
		{"more than max: until two have left", five,
			[]time.Time{ago(59 * time.Minute), ago(50 * time.Minute), ago(40 * time.Minute), ago(30 * time.Minute), ago(20 * time.Minute), ago(10 * time.Minute)},
			10 * time.Minute},
		{"a mark a window old has left", five,
			[]time.Time{ago(time.Hour), ago(time.Minute), ago(2 * time.Minute), ago(3 * time.Minute), ago(4 * time.Minute)}, 0},
		{"older marks are ignored", five,
			[]time.Time{ago(2 * time.Hour), ago(90 * time.Minute), ago(61 * time.Minute), ago(time.Minute), ago(2 * time.Minute)}, 0},
		{"one a minute, just now", one, []time.Time{now}, time.Minute},
		{"one a minute, 45 s ago", one, []time.Time{ago(45 * time.Second)}, 15 * time.Second},
		{"one a minute, a minute ago", one, []time.Time{ago(time.Minute)}, 0},
		{"a mark ahead of now (clock stepped back) counts", one, []time.Time{now.Add(time.Second)}, time.Minute + time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.limit.Wait(c.marks, now); got != c.want {
				t.Fatalf("Wait %s, want %s", got, c.want)
			}
		})
	}
}
