package alarms

import "time"

// Transition is what a step of a key's condition does to its lifecycle.
type Transition int8

// The transitions.
const (
	Stay Transition = iota
	Open
	Resolve
)

// StepResult is the outcome of Step.
type StepResult struct {
	// Track is the key's track afterwards; nil when none is needed (the
	// condition is clear and no lifecycle is open).
	Track *Track
	// Changed reports whether the stored track must be written (or, with
	// Track nil, deleted): only when the condition flips or the track
	// starts or ends, never while it stays as it is.
	Changed    bool
	Transition Transition
	// Lasted is how long the condition has held (Open) or been clear
	// (Resolve) at now.
	Lasted time.Duration
}

// Step is the sustain/clear hysteresis of one key: prev is its stored
// track (nil for none), open whether its lifecycle is open, o what the
// rule's evaluation tells now. A condition that has held for the rule's
// Sustain opens the lifecycle; one that has been clear for its
// ClearAfter resolves it; Unknown changes nothing. Durations are
// differences of platform instants, so clock changes of local time do not
// touch them.
func Step(r *Rule, key Key, org string, prev *Track, open bool, o Outcome, now time.Time) StepResult {
	switch o {
	case Holds:
		next := Track{Key: key, OrganizationID: org, Holding: true, Since: now}
		changed := true
		if prev != nil && prev.Holding {
			next.Since, changed = prev.Since, false
		}
		res := StepResult{Track: &next, Changed: changed, Lasted: now.Sub(next.Since)}
		if !open && res.Lasted >= r.Sustain {
			res.Transition = Open
		}
		return res
	case Clear:
		if !open {
			return StepResult{Changed: prev != nil}
		}
		next := Track{Key: key, OrganizationID: org, Since: now}
		changed := true
		if prev != nil && !prev.Holding {
			next.Since, changed = prev.Since, false
		}
		lasted := now.Sub(next.Since)
		if lasted >= r.ClearAfter {
			return StepResult{Changed: prev != nil, Transition: Resolve, Lasted: lasted}
		}
		return StepResult{Track: &next, Changed: changed, Lasted: lasted}
	}
	return StepResult{Track: prev}
}
