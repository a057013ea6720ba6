package app

import (
	"context"
	"encoding/json"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding/brandinghttp"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/contacts/contactshttp"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/onboarding/dplsvc/dplhttp"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/magic/magichttp"
	"atcp/internal/onboarding/notify"
	"atcp/internal/onboarding/reminders"
	"atcp/internal/onboarding/tasks"
)

// onboardingPeople wires the people of onboarding (docs/onboarding.md 5.G,
// 5.H and 7): the onboarding e-mails through the outbox, the contacts
// (the core's contact roles and assignee check, the magic links' targets
// and audit trail, the revocations of a cancel), the access-link and
// contact endpoints and the magic-link exchange, refresh and logout. The
// links in the mails lead to the console at the base URL.
func (a *App) onboardingPeople() onboardingPeople {
	mailer := notify.New(notify.Deps{Outbox: a.Outbox, Branding: a.Branding, Contacts: a.Store.OnboardingContacts(),
		Assets: a.Assets, Organizations: a.Store.Directory(), ConsoleURL: a.baseURL})
	a.Onboarding.SetNotifier(mailer)
	svc := contacts.NewService(contacts.Deps{Store: a.Store.OnboardingContacts(), Core: a.Onboarding, Users: a.Store.Directory(),
		Branding: a.Branding, Mailer: mailer, Deliveries: a.Store.Events(), WireBranding: brandinghttp.Wire, Security: a.Security})
	m := magic.NewService(a.Store.OnboardingMagic(), svc, a.Tokens, a.Clock, a.Security)
	svc.Install(m)
	a.OnboardingMailer = mailer
	contactshttp.Register(a.Server, svc, a.Security)
	magichttp.Register(a.Server, m, a.Security)
	return onboardingPeople{contacts: svc, mailer: mailer}
}

// onboardingPeople are the contacts and the mailer the other onboarding
// groups reach through their own interfaces (the adapters below).
type onboardingPeople struct {
	contacts *contacts.Service
	mailer   *notify.Mailer
}

// commentNotifier mails a new comment (comments.Notifier).
type commentNotifier struct{ m *notify.Mailer }

func (n commentNotifier) Comment(ctx context.Context, ob onboarding.Onboarding, c comments.CommentMail) error {
	if c.Visibility != comments.Shared {
		return nil
	}
	return n.m.Comment(ctx, ob, notify.CommentMail{GateID: c.GateID, AuthorName: c.AuthorName, Body: c.Body, RecipientRoles: c.RecipientRoles})
}

// reminderRecipients finds whom a gate's reminder goes to (reminders.Recipients).
type reminderRecipients struct{ c *contacts.Service }

func (r reminderRecipients) ForGate(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate, roles []onboarding.TaskRole) ([]reminders.Recipient, error) {
	found, err := r.c.ForGate(ctx, ob, g, roles)
	if err != nil {
		return nil, err
	}
	out := make([]reminders.Recipient, len(found))
	for i, f := range found {
		out[i] = reminders.Recipient{Role: f.Role, ContactID: f.Contact.ID, Name: f.Contact.Name}
	}
	return out, nil
}

// reminderSender mails a reminder to its recipients (reminders.Sender).
type reminderSender struct{ m *notify.Mailer }

func (s reminderSender) Reminder(ctx context.Context, ob onboarding.Onboarding, r reminders.ReminderMail) error {
	ids := make([]string, 0, len(r.Recipients))
	for _, rc := range r.Recipients {
		if rc.ContactID != "" {
			ids = append(ids, rc.ContactID)
		}
	}
	return s.m.Reminder(ctx, ob, notify.ReminderMail{GateID: r.GateID, Overdue: r.Kind == reminders.Overdue, ContactIDs: ids, Message: r.Message})
}

// userTasks lists the workflows a console user is a contact on (tasks.UserTasks).
type userTasks struct{ c *contacts.Service }

func (u userTasks) TasksOfUser(ctx context.Context, userID string) ([]tasks.UserTask, error) {
	found, err := u.c.TasksOfUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]tasks.UserTask, len(found))
	for i, f := range found {
		out[i] = tasks.UserTask{OrganizationID: f.OrganizationID, OnboardingID: f.OnboardingID, Roles: f.Roles}
	}
	return out, nil
}

// latestTests gives the task detail the latest communication test
// (tasks.CommunicationTests).
type latestTests struct{ dpl *dplsvc.Service }

func (l latestTests) Latest(ctx context.Context, organizationID, onboardingID string) (json.RawMessage, error) {
	t, err := l.dpl.LatestTest(ctx, organizationID, onboardingID)
	if err != nil || t == nil {
		return nil, err
	}
	return json.Marshal(dplhttp.ToTest(*t))
}
