package alarms

import (
	"testing"
	"time"
)

// run feeds outcomes, one a second from start, through Step as the
// engine does (the lifecycle opens and resolves with the transitions),
// and returns the transitions with the second each happened at.
func run(r *Rule, start time.Time, outcomes []Outcome) (opens, resolves []int, last *Track, open bool) {
	key := Key{AssetID: "b1", RuleID: r.ID}
	var track *Track
	for i, o := range outcomes {
		res := Step(r, key, "acme", track, open, o, start.Add(time.Duration(i)*time.Second))
		track = res.Track
		switch res.Transition {
		case Open:
			opens = append(opens, i)
			open = true
		case Resolve:
			resolves = append(resolves, i)
			open = false
		}
	}
	return opens, resolves, track, open
}

func repeat(o Outcome, n int) []Outcome {
	out := make([]Outcome, n)
	for i := range out {
		out[i] = o
	}
	return out
}

func cat(parts ...[]Outcome) []Outcome {
	var out []Outcome
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestStepHysteresis(t *testing.T) {
	r := &Rule{ID: "X-1", Sustain: 10 * time.Second, ClearAfter: 5 * time.Second}
	cases := []struct {
		name             string
		outcomes         []Outcome
		opens, resolves  []int
		open, trackAfter bool
	}{
		{"held for the sustain time opens", repeat(Holds, 11), []int{10}, nil, true, true},
		{"held one second short does not", repeat(Holds, 10), nil, nil, false, true},
		{"a clear second restarts the sustain", cat(repeat(Holds, 8), []Outcome{Clear}, repeat(Holds, 10)), nil, nil, false, true},
		{"unknown neither restarts nor counts down", cat(repeat(Holds, 5), repeat(Unknown, 3), repeat(Holds, 3)), []int{10}, nil, true, true},
		{"clear for the clear time resolves", cat(repeat(Holds, 11), repeat(Clear, 6)), []int{10}, []int{16}, false, false},
		{"a holding second restarts the clear time", cat(repeat(Holds, 11), repeat(Clear, 4), []Outcome{Holds}, repeat(Clear, 5)), []int{10}, nil, true, true},
		{"unknown keeps an open alarm open", cat(repeat(Holds, 11), repeat(Unknown, 100)), []int{10}, nil, true, true},
		{"flapping reopens after the sustain again", cat(repeat(Holds, 11), repeat(Clear, 6), repeat(Holds, 11)), []int{10, 27}, []int{16}, true, true},
		{"never holding keeps no track", repeat(Clear, 30), nil, nil, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opens, resolves, track, open := run(r, t0, c.outcomes)
			if !equalInts(opens, c.opens) || !equalInts(resolves, c.resolves) || open != c.open || (track != nil) != c.trackAfter {
				t.Fatalf("opens %v resolves %v open %v track %+v; want %v %v %v track %v", opens, resolves, open, track,
					c.opens, c.resolves, c.open, c.trackAfter)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStepZeroTimes(t *testing.T) {
	r := &Rule{ID: "X-0"}
	opens, resolves, _, _ := run(r, t0, []Outcome{Holds, Clear, Holds})
	if !equalInts(opens, []int{0, 2}) || !equalInts(resolves, []int{1}) {
		t.Fatalf("opens %v resolves %v", opens, resolves)
	}
}

func TestStepWritesOnlyChanges(t *testing.T) {
	r := &Rule{ID: "X-1", Sustain: 3 * time.Second, ClearAfter: 3 * time.Second}
	key := Key{AssetID: "b1", RuleID: r.ID}
	var track *Track
	open := false
	var writes []bool
	for i, o := range cat(repeat(Holds, 6), repeat(Clear, 5)) {
		res := Step(r, key, "acme", track, open, o, t0.Add(time.Duration(i)*time.Second))
		writes = append(writes, res.Changed)
		track = res.Track
		open = open && res.Transition != Resolve || res.Transition == Open
	}
	// Written when it starts holding, when it turns clear and when the
	// lifecycle resolves (the track is dropped).
	want := []bool{true, false, false, false, false, false, true, false, false, true, false}
	for i := range want {
		if writes[i] != want[i] {
			t.Fatalf("writes %v, want %v", writes, want)
		}
	}
}

// TestStepAcrossClockChanges: sustain and clear times are spans of the
// platform's UTC timeline, the same on the days Europe/Berlin changes
// its clocks; the events' date_partition is the Berlin day.
func TestStepAcrossClockChanges(t *testing.T) {
	r := &Rule{ID: "X-1", Sustain: 10 * time.Second, ClearAfter: 30 * time.Second}
	cases := []struct {
		name  string
		start time.Time // the condition starts holding
	}{
		// 2026-03-29 01:00 UTC: 02:00 CET becomes 03:00 CEST.
		{"spring forward", time.Date(2026, 3, 29, 0, 59, 55, 0, time.UTC)},
		// 2026-10-25 01:00 UTC: 03:00 CEST becomes 02:00 CET.
		{"fall back", time.Date(2026, 10, 25, 0, 59, 55, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opens, resolves, _, _ := run(r, c.start, cat(repeat(Holds, 11), repeat(Clear, 31)))
			if !equalInts(opens, []int{10}) || !equalInts(resolves, []int{41}) {
				t.Fatalf("opens %v resolves %v: want 10 s after it started holding and 30 s after it cleared (41)", opens, resolves)
			}
		})
	}
	partitions := []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 3, 28, 22, 59, 59, 0, time.UTC), "2026-03-28"}, // 23:59:59 CET
		{time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC), "2026-03-29"},   // 00:00 CET
		{time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC), "2026-03-29"},   // 03:30 CEST
		{time.Date(2026, 3, 29, 21, 59, 59, 0, time.UTC), "2026-03-29"}, // 23:59:59 CEST
		{time.Date(2026, 3, 29, 22, 0, 0, 0, time.UTC), "2026-03-30"},   // the 23-hour day is over
		{time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC), "2026-10-25"},  // 00:00 CEST
		{time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), "2026-10-25"},  // 02:30 CEST
		{time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC), "2026-10-25"},  // 02:30 CET, the second time
		{time.Date(2026, 10, 25, 22, 59, 59, 0, time.UTC), "2026-10-25"},
		{time.Date(2026, 10, 25, 23, 0, 0, 0, time.UTC), "2026-10-26"}, // the 25-hour day is over
	}
	for _, p := range partitions {
		if got := (Event{Timestamp: p.at}).DatePartition(); got != p.want {
			t.Errorf("date_partition of %s: %s, want %s", p.at, got, p.want)
		}
	}
}
