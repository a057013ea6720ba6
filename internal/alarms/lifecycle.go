package alarms

import (
	"strings"
	"time"
	"unicode/utf8"

	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// Decide decides the change of one key on its current row, read and
// locked by the store (nil: the key has no row). It returns the row to
// store (nil: nothing changes) and the event recorded with it; an error
// aborts the whole write and is returned unchanged.
type Decide func(current *Lifecycle) (next *Lifecycle, event *Event, err error)

// Limits of the API's inputs.
const (
	MaxMute        = 7 * 24 * time.Hour
	MaxNotes       = 2000
	MaxMuteReason  = 500
	muteExpiryNote = "mute expired"
)

// eventOf is an event of type t at at carrying l's state.
func eventOf(l Lifecycle, t EventType, at time.Time) Event {
	return Event{
		Type: t, AlarmID: l.AlarmID, Key: l.Key, OrganizationID: l.OrganizationID, AlarmType: l.AlarmType,
		Severity: l.Severity, Message: l.Message, Evidence: l.Evidence, Timestamp: at, OpenedAt: l.OpenedAt,
		ResolvedAt: l.ResolvedAt, Muted: l.Muted, Acknowledged: l.Acknowledged, AcknowledgedBy: l.AcknowledgedBy,
		AcknowledgedAt: l.AcknowledgedAt, MuteReason: l.MuteReason, MuteExpiresAt: l.MuteExpiresAt,
	}
}

// Opening is what the engine knows when a key's condition has held long
// enough.
type Opening struct {
	Rule           *Rule
	Key            Key
	OrganizationID string
	Evidence       Evidence
	At             time.Time
	// AlarmID is the new lifecycle's id (NewAlarmID).
	AlarmID string
}

// OpenMessage is the message of an opened alarm.
func OpenMessage(r *Rule, assetID string, facts []string) string {
	msg := r.Name + " on " + assetID
	if len(facts) > 0 {
		msg += ": " + facts[0]
	}
	return msg
}

// DecideOpen opens a new lifecycle unless one is open already (another
// engine opened it: nothing is written). The new lifecycle is
// unacknowledged and keeps the key's mute while it is in force.
func DecideOpen(o Opening) Decide {
	return func(cur *Lifecycle) (*Lifecycle, *Event, error) {
		if cur != nil && cur.Open {
			return nil, nil, nil
		}
		next := Lifecycle{
			Key: o.Key, OrganizationID: o.OrganizationID, AlarmID: o.AlarmID, Open: true,
			Severity: o.Rule.Severity, AlarmType: o.Rule.AlarmType, Message: OpenMessage(o.Rule, o.Key.AssetID, o.Evidence.Facts),
			Evidence: o.Evidence, OpenedAt: o.At, UpdatedAt: o.At,
		}
		if cur != nil && cur.mutedAt(o.At) {
			next.Muted, next.MuteReason, next.MuteExpiresAt, next.MutedBy, next.MutedAt =
				true, cur.MuteReason, cur.MuteExpiresAt, cur.MutedBy, cur.MutedAt
		}
		ev := eventOf(next, Opened, o.At)
		return &next, &ev, nil
	}
}

// DecideResolve resolves the lifecycle alarmID when it is still the open
// one; message says why.
func DecideResolve(alarmID, message string, ev Evidence, at time.Time) Decide {
	return func(cur *Lifecycle) (*Lifecycle, *Event, error) {
		if cur == nil || !cur.Open || cur.AlarmID != alarmID {
			return nil, nil, nil
		}
		next := *cur
		next.Open, next.ResolvedAt, next.UpdatedAt = false, &at, at
		e := eventOf(next, Resolved, at)
		e.Message, e.Evidence = message, ev
		return &next, &e, nil
	}
}

// DecideMuteExpiry lifts a mute whose expiry has passed at at, recording
// alarm.unmuted without a user.
func DecideMuteExpiry(at time.Time) Decide {
	return func(cur *Lifecycle) (*Lifecycle, *Event, error) {
		if cur == nil || !cur.Muted || cur.mutedAt(at) {
			return nil, nil, nil
		}
		next := *cur
		unmute(&next, at)
		e := eventOf(next, Unmuted, at)
		note := muteExpiryNote
		e.Notes = &note
		return &next, &e, nil
	}
}

// At is l as seen at t: a mute that expired by t is lifted even before
// the engine records its expiry.
func (l Lifecycle) At(t time.Time) Lifecycle {
	if l.Muted && !l.mutedAt(t) {
		unmute(&l, l.UpdatedAt)
	}
	return l
}

func unmute(l *Lifecycle, at time.Time) {
	l.Muted, l.MuteReason, l.MuteExpiresAt, l.MutedBy, l.MutedAt, l.UpdatedAt = false, nil, nil, nil, nil, at
}

// checkAlarmID is the optimistic-concurrency check of the API: the
// caller's alarm_id must be the key's current one.
func checkAlarmID(cur *Lifecycle, expect *string) error {
	if expect != nil && (cur == nil || cur.AlarmID != *expect) {
		current := "none"
		if cur != nil {
			current = cur.AlarmID
		}
		return errs.Conflictf("alarm_id_mismatch", "alarm_id %s is not the key's current alarm (%s): read the alarm again", *expect, current)
	}
	return nil
}

func noOpenAlarm(key Key) error {
	return errs.Conflictf("alarm_not_open", "alarm %s has no open alarm", key)
}

// checkNotes validates optional notes.
func checkNotes(v *errs.Validation, notes *string) {
	if notes == nil {
		return
	}
	if utf8.RuneCountInString(*notes) > MaxNotes {
		v.Add("body.notes", "at most 2000 characters", nil)
	}
	textrule.CheckText(v, "body.notes", *notes)
}

// CheckAcknowledge validates an acknowledgement's notes.
func CheckAcknowledge(notes *string) error {
	var v errs.Validation
	checkNotes(&v, notes)
	return v.Err()
}

// DecideAcknowledge acknowledges the key's open lifecycle. Acknowledging
// an acknowledged lifecycle changes nothing (the caller reads the first
// acknowledgement back); without an open lifecycle it is 409
// alarm_not_open. The store sets AckEventID to the event's id.
func DecideAcknowledge(key Key, by Actor, notes, expect *string, at time.Time) Decide {
	return func(cur *Lifecycle) (*Lifecycle, *Event, error) {
		if err := checkAlarmID(cur, expect); err != nil {
			return nil, nil, err
		}
		if cur == nil || !cur.Open {
			return nil, nil, noOpenAlarm(key)
		}
		if cur.Acknowledged {
			return nil, nil, nil
		}
		next := *cur
		name := by.by()
		next.Acknowledged, next.AcknowledgedBy, next.AcknowledgedAt, next.AckNotes, next.UpdatedAt = true, &name, &at, notes, at
		e := eventOf(next, Acknowledged, at)
		e.UserID, e.UserEmail, e.Notes = &by.UserID, by.Email, notes
		return &next, &e, nil
	}
}

// MuteRequest is a mute as asked for: a reason and either a duration or
// an expiry instant, at most MaxMute ahead.
type MuteRequest struct {
	Reason          string
	DurationSeconds *int64
	ExpiresAt       *time.Time
	AlarmID         *string
}

// Expiry validates r at now and returns when the mute ends.
func (r MuteRequest) Expiry(now time.Time) (time.Time, error) {
	var v errs.Validation
	reason := strings.TrimSpace(r.Reason)
	switch {
	case reason == "":
		v.Add("body.reason", "required: say why the alarm is muted", r.Reason)
	case utf8.RuneCountInString(r.Reason) > MaxMuteReason:
		v.Add("body.reason", "at most 500 characters", nil)
	default:
		textrule.CheckText(&v, "body.reason", r.Reason)
	}
	var end time.Time
	switch {
	case (r.DurationSeconds == nil) == (r.ExpiresAt == nil):
		v.Add("body.duration_seconds", "give exactly one of duration_seconds and expires_at", r.DurationSeconds)
	case r.DurationSeconds != nil:
		if d := *r.DurationSeconds; d < 1 || d > int64(MaxMute/time.Second) {
			v.Add("body.duration_seconds", "must be 1 to 604800 (7 days)", d)
		} else {
			end = now.Add(time.Duration(d) * time.Second)
		}
	default:
		end = r.ExpiresAt.UTC().Truncate(time.Microsecond)
		if !end.After(now) || end.Sub(now) > MaxMute {
			v.Add("body.expires_at", "must lie in the future, at most 7 days ahead", r.ExpiresAt)
		}
	}
	return end, v.Err()
}

// DecideMute mutes the key until expires, replacing a mute in force. The
// key must have had a lifecycle (open or resolved; 409
// alarm_never_opened otherwise): a mute silences a known, noisy alarm.
func DecideMute(key Key, by Actor, reason string, expires time.Time, expect *string, at time.Time) Decide {
	return func(cur *Lifecycle) (*Lifecycle, *Event, error) {
		if err := checkAlarmID(cur, expect); err != nil {
			return nil, nil, err
		}
		if cur == nil {
			return nil, nil, errs.Conflictf("alarm_never_opened", "alarm %s has never been open: there is nothing to mute", key)
		}
		next := *cur
		name := by.by()
		next.Muted, next.MuteReason, next.MuteExpiresAt, next.MutedBy, next.MutedAt, next.UpdatedAt = true, &reason, &expires, &name, &at, at
		e := eventOf(next, Muted, at)
		e.UserID, e.UserEmail = &by.UserID, by.Email
		return &next, &e, nil
	}
}

// DecideUnmute lifts the key's mute; 409 alarm_not_muted when none is in
// force.
func DecideUnmute(key Key, by Actor, notes, expect *string, at time.Time) Decide {
	return func(cur *Lifecycle) (*Lifecycle, *Event, error) {
		if err := checkAlarmID(cur, expect); err != nil {
			return nil, nil, err
		}
		if cur == nil || !cur.mutedAt(at) {
			return nil, nil, errs.Conflictf("alarm_not_muted", "alarm %s is not muted", key)
		}
		next := *cur
		unmute(&next, at)
		e := eventOf(next, Unmuted, at)
		e.UserID, e.UserEmail, e.Notes = &by.UserID, by.Email, notes
		return &next, &e, nil
	}
}
