package fault

import (
	"atcp/internal/textrule"
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"atcp/internal/alarms"
	"atcp/internal/auth"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/restrictions"
)

// Declaration is the body of declare-asset-fault.
type Declaration struct {
	AlarmID      *string
	Notes        *string
	Notification *Notification // nil: declare without notifying
}

// Notified is one contact a declaration notified and on which channels.
type Notified struct {
	Contact  contacts.Contact
	Channels []string
}

// Declared is the outcome of a declaration.
type Declared struct {
	AlarmKey            string
	AssetID             string
	DeclaredBy          string
	UnavailabilityStart time.Time
	UnavailabilityEnd   *time.Time
	AlreadyDeclared     bool
	Status              Status
	Notified            []Notified
}

// check validates a declaration before anything is read or written.
func (d Declaration) check(p auth.Principal) error {
	if d.Notification != nil && p.IsM2M {
		return errs.Forbiddenf(CodeNotificationNotPermitted,
			"a machine integration may declare a fault only with notification null: notifying contacts is for human operators")
	}
	var v errs.Validation
	if d.Notes != nil && len([]rune(*d.Notes)) > MaxNotes {
		v.Add("body.notes", "must be at most 2000 characters", nil)
	} else if d.Notes != nil {
		textrule.CheckText(&v, "body.notes", *d.Notes)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if d.Notification != nil {
		return d.Notification.Check()
	}
	return nil
}

// Declare declares the key's asset faulty (document 2, declare-asset-fault):
// everything is validated first; then (1) the record is inserted pending
// and (2) the fault unavailability applied, in one transaction; (3) the
// events are enqueued; (4) the record is finalised. An asset already under
// an active fault unavailability keeps it (AlreadyDeclared) and the events
// are enqueued again under the same idempotency keys.
func (s *Service) Declare(ctx context.Context, p auth.Principal, rawKey string, d Declaration) (Declared, error) {
	if err := d.check(p); err != nil {
		return Declared{}, err
	}
	v := p.Visibility()
	l, err := s.d.Alarms.Current(ctx, v, rawKey)
	if err != nil {
		return Declared{}, err
	}
	if d.AlarmID != nil && *d.AlarmID != l.AlarmID {
		return Declared{}, errs.Conflictf(alarms.CodeAlarmIDMismatch,
			"alarm_id %s is not the key's current alarm (%s): read the alarm again", *d.AlarmID, l.AlarmID)
	}
	a, err := s.d.Assets.Get(ctx, v, l.Key.AssetID)
	if err != nil {
		return Declared{}, err
	}
	now := s.d.Clock.Now().UTC().Truncate(time.Microsecond)
	end := now.Add(DefaultHold)
	var recipients []contacts.Contact
	if n := d.Notification; n != nil {
		if err := CheckDeadline(n.UnavailabilityEnd, now); err != nil {
			return Declared{}, err
		}
		directory, err := s.d.Directory.List(ctx, &p, a.ID)
		if err != nil {
			return Declared{}, err
		}
		if recipients, err = Recipients(directory, n.RecipientIDs); err != nil {
			return Declared{}, err
		}
		end = n.UnavailabilityEnd.UTC().Truncate(time.Microsecond)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Declared{}, err
	}
	by := Signature(p)
	rec := Record{
		ID: id.String(), OrganizationID: a.OrganizationID, AssetID: a.ID, AlarmKey: l.Key.String(), AlarmID: l.AlarmID,
		DeclaredBy: by, Status: Pending, Notes: d.Notes, CreatedAt: now, UpdatedAt: now,
	}
	if n := d.Notification; n != nil {
		rec.Language, rec.Subject, rec.Body = &n.Language, &n.Subject, &n.Body
		for _, c := range recipients {
			rec.RecipientIDs = append(rec.RecipientIDs, c.ID)
		}
	}
	want := restrictions.Interval{
		Kind: restrictions.Unavailability, OrganizationID: a.OrganizationID, AssetID: a.ID, Start: now, End: &end,
		Reason: restrictions.Fault, ReasonDescription: d.Notes, CreatedAt: now,
	}
	rec, err = s.d.Store.Declare(ctx, a.OrganizationID, a.ID, func(existing []restrictions.Interval) (restrictions.Change, Record, error) {
		c, w, already, err := PlanHold(existing, want, now)
		r := rec
		r.UnavailabilityStart, r.UnavailabilityEnd, r.AlreadyDeclared = w.Start, w.End, already
		return c, r, err
	})
	if err != nil {
		return Declared{}, err
	}
	out := Declared{
		AlarmKey: rec.AlarmKey, AssetID: rec.AssetID, DeclaredBy: by, UnavailabilityStart: rec.UnavailabilityStart,
		UnavailabilityEnd: rec.UnavailabilityEnd, AlreadyDeclared: rec.AlreadyDeclared, Notified: []Notified{},
	}
	for _, c := range recipients {
		out.Notified = append(out.Notified, Notified{Contact: c, Channels: Channels(c)})
	}
	list, err := Events(rec, l, out.Notified)
	if err == nil {
		err = s.d.Outbox.Enqueue(ctx, list)
	}
	out.Status = Final(d.Notification != nil, err)
	// The unavailability is committed whatever happens now; a failed
	// finalisation leaves the record pending and is the caller's 500.
	if ferr := s.d.Store.Finalise(ctx, rec.AssetID, rec.ID, out.Status, s.d.Clock.Now().UTC().Truncate(time.Microsecond)); ferr != nil {
		return Declared{}, ferr
	}
	return out, nil
}

// Events are the events of a declaration: one partner.fault_notification
// per notified contact and channel with the reviewed text verbatim, and
// one partner.fault_declared.
func Events(rec Record, l alarms.Lifecycle, notified []Notified) ([]events.Event, error) {
	end := rec.UnavailabilityStart
	if rec.UnavailabilityEnd != nil {
		end = *rec.UnavailabilityEnd
	}
	var list []events.Event
	audit := events.FaultDeclared{
		AlarmKey: rec.AlarmKey, AlarmID: rec.AlarmID, RuleID: l.Key.RuleID, DeclaredBy: rec.DeclaredBy,
		UnavailabilityStart: rec.UnavailabilityStart, UnavailabilityEnd: end, AlreadyDeclared: rec.AlreadyDeclared,
		Notified: []events.NotifiedContact{},
	}
	if rec.Notes != nil {
		audit.Notes = *rec.Notes
	}
	for _, n := range notified {
		audit.Notified = append(audit.Notified, events.NotifiedContact{ContactID: n.Contact.ID, Channels: n.Channels})
		for _, ch := range n.Channels {
			payload, err := json.Marshal(events.FaultNotification{
				AlarmKey: rec.AlarmKey, AlarmID: rec.AlarmID, ContactID: n.Contact.ID, Language: *rec.Language,
				Subject: *rec.Subject, Body: *rec.Body, UnavailabilityStart: rec.UnavailabilityStart,
				UnavailabilityEnd: end, DeclaredBy: rec.DeclaredBy,
			})
			if err != nil {
				return nil, err
			}
			recipient := n.Contact.Email
			if ch == events.ChannelChat {
				recipient = n.Contact.ChatWebhookURL
			}
			list = append(list, events.Event{
				Type: events.TypeFaultNotification, OrganizationID: rec.OrganizationID, AssetID: rec.AssetID,
				IdempotencyKey: NotificationKey(rec.AlarmKey, rec.UnavailabilityStart, n.Contact.ID, ch),
				Channel:        ch, Recipient: recipient, Subject: *rec.Subject, Body: *rec.Body, Payload: payload,
			})
		}
	}
	payload, err := json.Marshal(audit)
	if err != nil {
		return nil, err
	}
	return append(list, events.Event{
		Type: events.TypeFaultDeclared, OrganizationID: rec.OrganizationID, AssetID: rec.AssetID,
		IdempotencyKey: DeclaredKey(rec.AlarmKey, rec.UnavailabilityStart), Channel: events.ChannelBus, Payload: payload,
	}), nil
}
