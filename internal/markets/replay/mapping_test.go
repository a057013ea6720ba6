package replay

import (
	"testing"
	"time"

	"atcp/internal/markets/calendar"
)

func day(s string) calendar.Day {
	d, err := calendar.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestSourceDay(t *testing.T) {
	for in, want := range map[string]string{
		"2026-02-01": "2026-02-01", // the replayed bidding day clears with its own data
		"2026-02-02": "2026-02-02",
		"2026-02-03": "2026-02-02",
		"2026-01-31": "2026-02-02",
		"2026-03-29": "2026-02-02",
		"2026-10-25": "2026-02-02",
		"2027-07-14": "2026-02-02",
	} {
		if got := SourceDay(day(in)); got.String() != want {
			t.Errorf("SourceDay(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestSourceQuarterHourOnClockChangeDays maps every period of the
// clock-change days explicitly.
func TestSourceQuarterHourOnClockChangeDays(t *testing.T) {
	cases := []struct {
		day     string
		periods int
		// want[i] is the source index of period i.
		want func(i int) int
		// used counts how often each source index is used.
		used func(idx int) int
	}{
		{"2026-02-03", 96, func(i int) int { return i }, func(int) int { return 1 }},
		{"2026-03-29", 92,
			// 00:00-02:00 CET are periods 0-7 (index 0-7); 03:00 CEST is
			// period 8 and replays 03:00 (index 12).
			func(i int) int {
				if i < 8 {
					return i
				}
				return i + 4
			},
			func(idx int) int {
				if idx >= 8 && idx < 12 {
					return 0 // the skipped 02:00-03:00 is not replayed
				}
				return 1
			}},
		{"2026-10-25", 100,
			// 00:00-03:00 CEST are periods 0-11; 02:00-03:00 CET repeats
			// as periods 12-15 and replays index 8-11 again.
			func(i int) int {
				if i < 12 {
					return i
				}
				return i - 4
			},
			func(idx int) int {
				if idx >= 8 && idx < 12 {
					return 2 // the repeated 02:00-03:00 replays 02:00-03:00 twice
				}
				return 1
			}},
	}
	for _, c := range cases {
		t.Run(c.day, func(t *testing.T) {
			periods := day(c.day).Periods()
			if len(periods) != c.periods {
				t.Fatalf("%d periods", len(periods))
			}
			used := map[int]int{}
			for i, p := range periods {
				q, err := SourceQuarterHour(p.Start)
				if err != nil {
					t.Fatal(err)
				}
				if q.Day != ReplayedDeliveryDay || q.Index != c.want(i) {
					t.Errorf("period %d (%s) -> %s, want index %d", i, p.Start.Format(time.RFC3339), q, c.want(i))
				}
				used[q.Index]++
			}
			for idx := range QuarterHoursPerDay {
				if used[idx] != c.used(idx) {
					t.Errorf("source index %d used %d times, want %d", idx, used[idx], c.used(idx))
				}
			}
		})
	}
	// The two 02:00 of the fall-back day, explicitly: CEST (00:00Z) and CET (01:00Z).
	for _, utc := range []time.Time{time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC)} {
		if q, _ := SourceQuarterHour(utc); q.Index != 8 {
			t.Errorf("%s -> %s, want 02:00", utc, q)
		}
	}
	if _, err := SourceQuarterHour(time.Date(2026, 2, 2, 0, 5, 0, 0, time.UTC)); err == nil {
		t.Error("an unaligned period start was mapped")
	}
}

func TestBlocksOnClockChangeDays(t *testing.T) {
	for _, c := range []struct {
		day   string
		hours [6]float64
	}{
		{"2026-02-03", [6]float64{4, 4, 4, 4, 4, 4}},
		{"2026-03-29", [6]float64{3, 4, 4, 4, 4, 4}}, // the 3-hour block replays 00-04
		{"2026-10-25", [6]float64{5, 4, 4, 4, 4, 4}},
	} {
		for i, b := range day(c.day).TenderBlocks() {
			d, block, err := BlockOf(b)
			if err != nil || d != day(c.day) || block != i {
				t.Fatalf("%s block %d: %v %d %v", c.day, i, d, block, err)
			}
			if src, sb := SourceBlock(d, block); src != ReplayedDeliveryDay || sb != i {
				t.Errorf("%s block %d -> %s block %d", c.day, i, src, sb)
			}
			if b.Duration().Hours() != c.hours[i] {
				t.Errorf("%s block %d lasts %v h", c.day, i, b.Duration().Hours())
			}
		}
	}
	first := day("2026-02-03").TenderBlocks()[0]
	for _, iv := range []calendar.Interval{
		{Start: first.Start, End: first.End.Add(-calendar.PeriodLength)},
		{Start: first.Start.Add(time.Hour), End: first.End.Add(time.Hour)},
	} {
		if _, _, err := BlockOf(iv); err == nil {
			t.Errorf("%v accepted as a tender block", iv)
		}
	}
}
