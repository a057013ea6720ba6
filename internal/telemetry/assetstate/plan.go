package assetstate

import (
	"slices"
	"time"

	"atcp/internal/dispatch"
)

// Block is the delivery block of scheduled dispatch: power resets to 0 MW
// at each block start unless an event sits exactly there.
const Block = 15 * time.Minute

// SetPoint is one step of the scheduled power: from SetTime on, the
// schedule asks for PowerMW until the next step.
type SetPoint struct {
	SetTime time.Time
	PowerMW float64
}

// ScheduleSteps turns events into the explicit step function over
// [start, end): every event with set_time in the window, plus a
// {block start, 0 MW} reset at each block start inside the window that
// follows a block with events and has no event at that instant. events
// must reach back to scheduleFrom(start), so that a reset at the window's
// first block start is known.
func ScheduleSteps(events []dispatch.Event, start, end time.Time) []SetPoint {
	withEvents := map[time.Time]bool{}
	at := map[time.Time]bool{}
	var out []SetPoint
	for _, e := range events {
		t := e.SetTime.UTC()
		withEvents[t.Truncate(Block)] = true
		at[t] = true
		if !t.Before(start) && t.Before(end) {
			out = append(out, SetPoint{SetTime: t, PowerMW: e.SetPowerMW()})
		}
	}
	first := start.UTC().Truncate(Block)
	if first.Before(start) {
		first = first.Add(Block)
	}
	for b := first; b.Before(end); b = b.Add(Block) {
		if withEvents[b.Add(-Block)] && !at[b] {
			out = append(out, SetPoint{SetTime: b, PowerMW: 0})
		}
	}
	slices.SortStableFunc(out, func(a, b SetPoint) int { return a.SetTime.Compare(b.SetTime) })
	return out
}

// scheduleFrom is where ScheduleSteps needs events from for a window
// starting at start: the start of the block before start's block.
func scheduleFrom(start time.Time) time.Time {
	return start.UTC().Truncate(Block).Add(-Block)
}
