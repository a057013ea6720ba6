package onboarding_test

import (
	"errors"
	"testing"

	"atcp/internal/errs"
	"atcp/internal/onboarding"
)

// TestTransition checks every (status, action) pair against the table of
// docs/onboarding.md section 3: the allowed moves, and 409
// gate_transition_not_allowed for every other.
func TestTransition(t *testing.T) {
	const (
		p  = onboarding.GatePending
		ip = onboarding.GateInProgress
		s  = onboarding.GateSubmitted
		cr = onboarding.GateChangesRequested
		ps = onboarding.GatePassed
		w  = onboarding.GateWaived
		b  = onboarding.GateBlocked
	)
	allowed := map[onboarding.Action]map[onboarding.GateStatus]onboarding.GateStatus{
		onboarding.ActionTouch:          {p: ip},
		onboarding.ActionSubmit:         {p: s, ip: s, cr: s},
		onboarding.ActionRequestChanges: {s: cr},
		onboarding.ActionPass:           {s: ps},
		onboarding.ActionWaive:          {p: w, ip: w, cr: w, s: w, b: w},
		onboarding.ActionBlock:          {p: b, ip: b, s: b, cr: b},
		onboarding.ActionUnblock:        {b: cr}, // back to blocked_from, here changes_requested
		onboarding.ActionReopen:         {ps: ip, w: ip},
	}
	for action, moves := range allowed {
		for _, from := range onboarding.GateStatuses {
			got, err := onboarding.Transition(from, action, cr)
			want, ok := moves[from]
			if ok {
				if err != nil || got != want {
					t.Errorf("%s from %s: %s, %v; want %s", action, from, got, err, want)
				}
				continue
			}
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != errs.Conflict || e.Code != "gate_transition_not_allowed" || got != "" {
				t.Errorf("%s from %s: %s, %v; want 409 gate_transition_not_allowed", action, from, got, err)
			}
		}
	}
	for _, from := range []onboarding.GateStatus{p, ip, s, cr} {
		if got, err := onboarding.Transition(b, onboarding.ActionUnblock, from); err != nil || got != from {
			t.Errorf("unblock to %s: %s, %v", from, got, err)
		}
	}
	for _, bad := range []onboarding.GateStatus{"", b, "nonsense"} {
		if _, err := onboarding.Transition(b, onboarding.ActionUnblock, bad); err == nil || errs.KindOf(err) != errs.Internal {
			t.Errorf("unblock remembering %q: %v", bad, err)
		}
	}
	if _, err := onboarding.Transition(p, "jump", ""); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("unknown action: %v", err)
	}
}

func TestGateStatusPredicates(t *testing.T) {
	for _, c := range []struct {
		s            onboarding.GateStatus
		done, locked bool
	}{
		{onboarding.GatePending, false, false}, {onboarding.GateInProgress, false, false},
		{onboarding.GateSubmitted, false, true}, {onboarding.GateChangesRequested, false, false},
		{onboarding.GatePassed, true, true}, {onboarding.GateWaived, true, true}, {onboarding.GateBlocked, false, false},
	} {
		if c.s.Done() != c.done || c.s.Locked() != c.locked {
			t.Errorf("%s: done %v locked %v", c.s, c.s.Done(), c.s.Locked())
		}
		if got, err := onboarding.ParseGateStatus(string(c.s)); err != nil || got != c.s {
			t.Errorf("parse %s: %v", c.s, err)
		}
	}
	if _, err := onboarding.ParseGateStatus("done"); err == nil {
		t.Error("parsed done")
	}
}

func TestParseTaskRole(t *testing.T) {
	for _, r := range []string{"asset_owner", "epc", "ems_provider", "platform_onboarding", "platform", "tso"} {
		if got, err := onboarding.ParseTaskRole(r); err != nil || string(got) != r {
			t.Errorf("%s: %v", r, err)
		}
	}
	for _, r := range []string{"", "EPC", "owner", "asset_owner "} {
		if _, err := onboarding.ParseTaskRole(r); err == nil {
			t.Errorf("%q parsed", r)
		}
	}
}
