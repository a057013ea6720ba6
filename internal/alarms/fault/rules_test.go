package fault

import (
	"errors"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/contacts"
	"atcp/internal/errs"
	"atcp/internal/restrictions"
)

var now = time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC) // the night Europe/Berlin springs forward

func code(err error) errs.Code {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestCheckDeadline(t *testing.T) {
	for _, c := range []struct {
		lead time.Duration
		ok   bool
	}{{30 * time.Minute, false}, {30*time.Minute + time.Microsecond, true}, {8 * time.Hour, true},
		{MaxLead, true}, {MaxLead + time.Microsecond, false}, {-time.Hour, false}} {
		err := CheckDeadline(now.Add(c.lead), now)
		if (err == nil) != c.ok || (err != nil && code(err) != CodeStaleDraft) {
			t.Errorf("lead %s: %v", c.lead, err)
		}
	}
}

func TestRecipients(t *testing.T) {
	dir := []contacts.Contact{{ID: 1, Email: "a@x.example", Notifiable: true}, {ID: 2, Notifiable: true, Phone: "1"},
		{ID: 3, ChatWebhookURL: "https://h.example/x", Notifiable: false}, {ID: 4, ChatWebhookURL: "https://h.example/y", Notifiable: true}}
	for _, c := range []struct {
		ids  []int64
		want int
		ok   bool
	}{{[]int64{1, 4, 1}, 2, true}, {[]int64{2}, 0, false}, {[]int64{3}, 0, false}, {[]int64{9}, 0, false}} {
		got, err := Recipients(dir, c.ids)
		if (err == nil) != c.ok || (c.ok && len(got) != c.want) {
			t.Errorf("%v: %v %v", c.ids, got, err)
		}
	}
}

func TestKeysAndStatus(t *testing.T) {
	start := now
	if a, b := NotificationKey("b-1:COMMS-001", start, 7, "email"), NotificationKey("b-1:COMMS-001", start, 7, "chat"); a == b {
		t.Fatal("channels share a key")
	}
	if NotificationKey("b-1:COMMS-001", start, 7, "email") != "fault:b-1:COMMS-001:20260329T003000.000000Z:7:email" {
		t.Fatal(NotificationKey("b-1:COMMS-001", start, 7, "email"))
	}
	if DeclaredKey("k", start) == DeclaredKey("k", start.Add(time.Second)) {
		t.Fatal("windows share a key")
	}
	for _, c := range []struct {
		notify bool
		err    error
		want   Status
	}{{true, nil, Requested}, {false, nil, NotRequested}, {true, errors.New("x"), Failed}, {false, errors.New("x"), Failed}} {
		if got := Final(c.notify, c.err); got != c.want {
			t.Errorf("%v %v: %s", c.notify, c.err, got)
		}
	}
}

func TestPlanHold(t *testing.T) {
	end := now.Add(time.Hour)
	want := restrictions.Interval{Kind: restrictions.Unavailability, Start: now, End: &end, Reason: restrictions.Fault}
	oldEnd := now.Add(2 * time.Hour)
	fault := restrictions.Interval{Kind: restrictions.Unavailability, Start: now.Add(-time.Hour), End: &oldEnd, Reason: restrictions.Fault}
	maint := fault
	maint.Reason = restrictions.Maintenance
	c, w, already, err := PlanHold(nil, want, now)
	if err != nil || already || c.Op != restrictions.OpInsert || !w.Start.Equal(now) {
		t.Fatalf("fresh: %v %v %v %v", c, w, already, err)
	}
	c, w, already, err = PlanHold([]restrictions.Interval{fault}, want, now)
	if err != nil || !already || c.Op != restrictions.OpNone || !w.End.Equal(oldEnd) {
		t.Fatalf("already: %v %v %v %v", c, w, already, err)
	}
	if _, _, _, err = PlanHold([]restrictions.Interval{maint}, want, now); code(err) != restrictions.CodeOverlappingInterval {
		t.Fatalf("overlap: %v", err)
	}
	if _, err := Deadline(&Window{Start: now}, now); code(err) != CodeOpenEndedHold {
		t.Fatalf("open-ended: %v", err)
	}
}

func TestDeclarationChecks(t *testing.T) {
	good := Notification{Language: "de", Subject: "Störung Cottbus 2", Body: "Sehr geehrte Frau Schmidt,\n\tdie Anlage ist gestört.",
		RecipientIDs: []int64{1}, UnavailabilityEnd: now.Add(time.Hour)}
	with := func(f func(*Notification)) *Notification { n := good; f(&n); return &n }
	person := auth.Principal{Subject: "u1", OrganizationID: "demo"}
	agent := auth.Principal{Subject: "agent", OrganizationID: "demo", IsM2M: true}
	for _, tc := range []struct {
		name  string
		by    auth.Principal
		d     Declaration
		code  errs.Code
		field string
	}{
		{"a person's notification", person, Declaration{Notification: &good}, "", ""},
		{"an agent without notification", agent, Declaration{Notes: new("trip")}, "", ""},
		{"an agent with a notification", agent, Declaration{Notification: &good}, CodeNotificationNotPermitted, ""},
		{"NUL in the notes", person, Declaration{Notes: new("trip\x00")}, errs.CodeValidationFailed, "body.notes"},
		{"tabs and line breaks in the notes", person, Declaration{Notes: new("a\tb\r\nc")}, "", ""},
		{"NUL in the body", person, Declaration{Notification: with(func(n *Notification) { n.Body = "x\x00" })}, errs.CodeValidationFailed, "body.notification.body"},
		{"a control character in the subject", person, Declaration{Notification: with(func(n *Notification) { n.Subject = "a\x1bb" })}, errs.CodeValidationFailed, "body.notification.subject"},
		{"two lines of subject", person, Declaration{Notification: with(func(n *Notification) { n.Subject = "a\nb" })}, errs.CodeValidationFailed, "body.notification.subject"},
		{"no recipient", person, Declaration{Notification: with(func(n *Notification) { n.RecipientIDs = nil })}, errs.CodeValidationFailed, "body.notification.recipient_contact_ids"},
		{"French", person, Declaration{Notification: with(func(n *Notification) { n.Language = "fr" })}, errs.CodeValidationFailed, "body.notification.language"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.d.check(tc.by)
			if code(err) != tc.code {
				t.Fatalf("code %q (%v), want %q", code(err), err, tc.code)
			}
			var e *errs.Error
			if tc.field != "" && (!errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Location != tc.field) {
				t.Fatalf("fields of %v, want one at %s", err, tc.field)
			}
		})
	}
}
