package contactshttp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"atcp/internal/events"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/notify"
	"atcp/internal/testkit"
)

// mails returns the recipients and types of the events enqueued since
// from.
func (e env) mails(from int) (to []string, types []string) {
	for _, ev := range e.outbox.events()[from:] {
		to, types = append(to, ev.Recipient), append(types, ev.Type)
	}
	return to, types
}

// TestGateMails: a gate submitted mails the reviewers (platform_onboarding
// contacts), changes requested and passed mail the owner role's contacts,
// other moves mail nobody; comments and reminders go as notify says.
func TestGateMails(t *testing.T) {
	e := setup(t, testkit.OpenSQLite(t))
	h := e.Harness
	e.contact(t, "Rita Review", "rita@platform.example", "platform_onboarding")
	owner := e.contact(t, "Otto Owner", "otto@owner.example", "asset_owner")
	e.contact(t, "Erika Muster", "erika@epc.example", "epc")
	ob := h.Do("GET", "/v1/onboardings/"+e.ob, e.Acme, nil).Expect(t, 200, "").Map(t)
	gates := map[string]string{}
	for _, g := range ob["gates"].([]any) {
		gm := g.(map[string]any)
		gates[gm["definition_id"].(string)] = gm["id"].(string)
	}
	rfi := "/v1/onboardings/" + e.ob + "/gates/" + gates["fc_rfi"]

	check := func(from int, wantTo []string, wantType string) {
		t.Helper()
		to, types := e.mails(from)
		slices.Sort(to)
		if !slices.Equal(to, wantTo) {
			t.Fatalf("mailed %v, want %v", to, wantTo)
		}
		for _, ty := range types {
			if ty != wantType {
				t.Fatalf("type %s, want %s", ty, wantType)
			}
		}
	}
	n := len(e.outbox.events())
	h.Do("POST", rfi+"/submit", e.Acme, nil).Expect(t, 200, "")
	check(n, []string{"rita@platform.example"}, events.TypeOnboardingGateChanged)
	n = len(e.outbox.events())
	h.Do("POST", rfi+"/request-changes", e.Platform, map[string]any{"note": "Please add the grid connection point."}).Expect(t, 200, "")
	check(n, []string{"otto@owner.example"}, events.TypeOnboardingGateChanged)
	if ev := e.outbox.events()[n]; !strings.Contains(ev.Body, "Please add the grid connection point.") || ev.Mail == nil || ev.Mail.HTML == "" {
		t.Fatalf("changes-requested mail %+v", ev)
	}
	n = len(e.outbox.events())
	h.Do("POST", rfi+"/block", e.Acme, map[string]any{"reason": "waiting"}).Expect(t, 200, "")
	h.Do("POST", rfi+"/unblock", e.Acme, nil).Expect(t, 200, "")
	check(n, nil, "")
	h.Do("POST", rfi+"/submit", e.Acme, nil).Expect(t, 200, "")
	n = len(e.outbox.events())
	h.Do("POST", rfi+"/pass", e.Platform, nil).Expect(t, 200, "")
	check(n, []string{"otto@owner.example"}, events.TypeOnboardingGateChanged)

	// Comments and reminders, as the comments and reminders group calls them.
	ctx := context.Background()
	get := func() onboarding.Onboarding {
		o, err := e.Core.Get(ctx, onboarding.SystemActor, e.ob)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	o := get()
	n = len(e.outbox.events())
	if err := e.mailer.Comment(ctx, o, notify.CommentMail{GateID: gates["fc_installation"], AuthorName: "Rita Review", Body: "Photos?"}); err != nil {
		t.Fatal(err)
	}
	check(n, []string{"erika@epc.example"}, events.TypeOnboardingComment)
	n = len(e.outbox.events())
	if err := e.mailer.Comment(ctx, o, notify.CommentMail{GateID: gates["fc_installation"], AuthorName: "Erika", FromExternal: true, Body: "Tomorrow."}); err != nil {
		t.Fatal(err)
	}
	check(n, []string{"rita@platform.example"}, events.TypeOnboardingComment)
	n = len(e.outbox.events())
	if err := e.mailer.Comment(ctx, o, notify.CommentMail{AuthorName: "Rita Review", Body: "Kick-off on Monday."}); err != nil {
		t.Fatal(err)
	}
	check(n, []string{"erika@epc.example", "otto@owner.example"}, events.TypeOnboardingComment)
	if err := e.mailer.Comment(ctx, o, notify.CommentMail{GateID: "nope", Body: "x"}); err == nil {
		t.Fatal("a comment on an unknown gate was mailed")
	}

	// The DPL gate (owner ems_provider) has no owner contact but its assignee.
	h.Do("PATCH", "/v1/onboardings/"+e.ob+"/contacts/"+owner, e.Acme, map[string]any{"roles": []string{"asset_owner", "epc"}}).Expect(t, 200, "")
	h.Do("PATCH", "/v1/onboardings/"+e.ob+"/gates/"+gates["fc_dpl"], e.Acme, map[string]any{"assignee_contact_id": owner}).Expect(t, 200, "")
	o = get()
	to, err := e.mailer.ReminderRecipients(ctx, o, gates["fc_dpl"])
	if err != nil || len(to) != 1 || to[0].ID != owner {
		t.Fatalf("reminder recipients %v, %v", to, err)
	}
	n = len(e.outbox.events())
	if err := e.mailer.Reminder(ctx, o, notify.ReminderMail{GateID: gates["fc_dpl"], Overdue: true}); err != nil {
		t.Fatal(err)
	}
	check(n, []string{"otto@owner.example"}, events.TypeOnboardingReminder)

	// As the comments group names roles, and the reminders group names
	// contacts and a message.
	n = len(e.outbox.events())
	if err := e.mailer.Comment(ctx, o, notify.CommentMail{AuthorName: "Rita", Body: "x", RecipientRoles: []onboarding.TaskRole{onboarding.RolePlatformOnboarding}}); err != nil {
		t.Fatal(err)
	}
	check(n, []string{"rita@platform.example"}, events.TypeOnboardingComment)
	n = len(e.outbox.events())
	if err := e.mailer.Reminder(ctx, o, notify.ReminderMail{GateID: gates["fc_installation"], ContactIDs: []string{owner, "gone"},
		Message: "Bitte Fotos hochladen.", By: "Rita"}); err != nil {
		t.Fatal(err)
	}
	check(n, []string{"otto@owner.example"}, events.TypeOnboardingReminder)
	if ev := e.outbox.events()[n]; !strings.Contains(ev.Body, "Bitte Fotos hochladen.") {
		t.Fatalf("manual reminder %q", ev.Body)
	}

	// Every mail reaches the SMTP server.
	if msgs := e.deliver(t, 0); len(msgs) != len(e.outbox.events()) {
		t.Fatalf("%d messages for %d events", len(msgs), len(e.outbox.events()))
	}
}
