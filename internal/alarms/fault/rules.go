package fault

import (
	"atcp/internal/textrule"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/restrictions"
)

// Document 1, Limits: fault declaration window.
const (
	// DefaultHold is the unavailability of a declaration without
	// notification, and the deadline a draft quotes without an active hold.
	DefaultHold = 8 * time.Hour
	// MinLead and MaxLead bound a notification's unavailability_end from
	// now: (now+MinLead, now+MaxLead]. The 5 minutes over DefaultHold
	// leave an operator time to review a draft quoting now+8h.
	MinLead = 30 * time.Minute
	MaxLead = DefaultHold + 5*time.Minute
)

// Limits of a reviewed notification.
const (
	MaxRecipients = contacts.MaxPerAsset
	MaxSubject    = 200
	MaxBody       = 16000
	MaxNotes      = restrictions.MaxDescription
)

// Status is a fault-notification record's notification_status.
type Status string

// The statuses (document 1, state table "Asset fault declaration").
const (
	Pending      Status = "pending"
	Requested    Status = "requested"
	NotRequested Status = "not_requested"
	Failed       Status = "failed"
)

// Final is the status a pending record is finalised with: failed when
// the events were not accepted (the unavailability still applies and a
// retry is safe), else requested or, without notification, not_requested.
func Final(notification bool, enqueueErr error) Status {
	switch {
	case enqueueErr != nil:
		return Failed
	case notification:
		return Requested
	}
	return NotRequested
}

// Window is an unavailability's bounds; End nil is open-ended.
type Window struct {
	Start time.Time
	End   *time.Time
}

// ActiveHold returns the asset's fault unavailability active at now among
// its unavailability intervals, nil when there is none.
func ActiveHold(intervals []restrictions.Interval, now time.Time) *restrictions.Interval {
	for i := range intervals {
		iv := intervals[i]
		if iv.Kind == restrictions.Unavailability && iv.Reason == restrictions.Fault && iv.ActiveAt(now) {
			return &iv
		}
	}
	return nil
}

// Deadline is the end of the applicable hold: the active fault
// unavailability's, else now + DefaultHold; 422 open_ended_hold when the
// active one has no end.
func Deadline(active *Window, now time.Time) (time.Time, error) {
	if active == nil {
		return now.Add(DefaultHold), nil
	}
	if active.End == nil {
		return time.Time{}, errs.E(errs.Invalid, CodeOpenEndedHold,
			"the asset's active fault unavailability (from %s) has no end to quote: shorten it first", active.Start.Format(time.RFC3339))
	}
	return *active.End, nil
}

// CheckDeadline is the stale-draft check of a notification's
// unavailability_end.
func CheckDeadline(end, now time.Time) error {
	if end.After(now.Add(MinLead)) && !end.After(now.Add(MaxLead)) {
		return nil
	}
	e := errs.E(errs.Invalid, CodeStaleDraft,
		"unavailability_end %s must lie more than 30 minutes and at most 8 hours 5 minutes ahead: draft the message again",
		end.UTC().Format(time.RFC3339))
	e.Fields = []errs.FieldError{{Location: "body.notification.unavailability_end", Message: "stale draft", Value: end.UTC()}}
	return e
}

// Notification is a reviewed fault notification (document 1, Fault
// notification input).
type Notification struct {
	Language          string
	Subject, Body     string
	RecipientIDs      []int64
	UnavailabilityEnd time.Time
}

// Check validates the notification's own fields (not its recipients or
// its deadline, which depend on the directory and the clock).
func (n Notification) Check() error {
	const at = "body.notification."
	var v errs.Validation
	if n.Language != "de" && n.Language != "en" {
		v.Add(at+"language", "must be de or en", n.Language)
	}
	switch {
	case strings.TrimSpace(n.Subject) == "":
		v.Add(at+"subject", "is required", nil)
	case strings.ContainsAny(n.Subject, "\r\n"):
		v.Add(at+"subject", "must be one line", nil)
	case utf8.RuneCountInString(n.Subject) > MaxSubject:
		v.Add(at+"subject", fmt.Sprintf("must be at most %d characters", MaxSubject), nil)
	default:
		textrule.CheckName(&v, at+"subject", n.Subject)
	}
	switch {
	case strings.TrimSpace(n.Body) == "":
		v.Add(at+"body", "is required", nil)
	case utf8.RuneCountInString(n.Body) > MaxBody:
		v.Add(at+"body", fmt.Sprintf("must be at most %d characters", MaxBody), nil)
	default:
		textrule.CheckText(&v, at+"body", n.Body)
	}
	switch {
	case len(n.RecipientIDs) == 0:
		v.Add(at+"recipient_contact_ids", "must name at least one contact", nil)
	case len(n.RecipientIDs) > MaxRecipients:
		v.Add(at+"recipient_contact_ids", fmt.Sprintf("must name at most %d contacts", MaxRecipients), len(n.RecipientIDs))
	}
	if n.UnavailabilityEnd.IsZero() {
		v.Add(at+"unavailability_end", "is required", nil)
	}
	return v.Err()
}

// Recipients resolves the recipient ids in the asset's directory, in the
// order given, a repeated id once. Each must be a contact of the asset
// that is notifiable and has an e-mail address or a chat webhook (422
// naming each offending entry).
func Recipients(directory []contacts.Contact, ids []int64) ([]contacts.Contact, error) {
	var v errs.Validation
	var out []contacts.Contact
	seen := map[int64]bool{}
	for i, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		at := fmt.Sprintf("body.notification.recipient_contact_ids[%d]", i)
		j := slices.IndexFunc(directory, func(c contacts.Contact) bool { return c.ID == id })
		switch {
		case j < 0:
			v.Add(at, "is not a contact of the alarm's asset", id)
		case !directory[j].Reachable():
			v.Add(at, "has neither an e-mail address nor a chat webhook", id)
		case !directory[j].Notifiable:
			v.Add(at, "does not wish to receive fault notifications (notifiable false)", id)
		default:
			out = append(out, directory[j])
		}
	}
	return out, v.Err()
}

// keyTime is the window start as it appears in the idempotency keys.
func keyTime(t time.Time) string { return t.UTC().Format("20060102T150405.000000Z") }

// NotificationKey is the idempotency key of the partner.fault_notification
// to one contact on one channel: a repeated declaration under the same
// unavailability window repeats it, and the receiver drops the repeat.
func NotificationKey(alarmKey string, windowStart time.Time, contactID int64, channel string) string {
	return fmt.Sprintf("fault:%s:%s:%d:%s", alarmKey, keyTime(windowStart), contactID, channel)
}

// DeclaredKey is the idempotency key of the partner.fault_declared audit
// event of the declarations under one unavailability window.
func DeclaredKey(alarmKey string, windowStart time.Time) string {
	return fmt.Sprintf("fault:%s:%s:declared", alarmKey, keyTime(windowStart))
}

// Channels maps the contact directory's channels to the events'.
func Channels(c contacts.Contact) []string {
	var out []string
	for _, ch := range c.Channels() {
		switch ch {
		case contacts.ChannelEmail:
			out = append(out, events.ChannelEmail)
		case contacts.ChannelChat:
			out = append(out, events.ChannelChat)
		}
	}
	return out
}

// PlanHold decides the fault unavailability of a declaration at now among
// the asset's unavailability intervals: an active fault unavailability is
// kept (already declared: nothing written, its real bounds returned);
// otherwise want is inserted unless it overlaps another unavailability
// (409 overlapping_interval).
func PlanHold(existing []restrictions.Interval, want restrictions.Interval, now time.Time) (restrictions.Change, Window, bool, error) {
	if active := ActiveHold(existing, now); active != nil {
		return restrictions.Change{Op: restrictions.OpNone, Interval: *active}, Window{Start: active.Start, End: active.End}, true, nil
	}
	c, err := restrictions.PlanCreate(existing, want)
	if err != nil {
		return restrictions.Change{}, Window{}, false, err
	}
	return c, Window{Start: want.Start, End: want.End}, false, nil
}
