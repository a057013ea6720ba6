package notify

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/identity"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/contacts"
	"atcp/internal/onboarding/mailtmpl"
)

// Outbox stores events in the transaction ctx carries (events.Outbox).
type Outbox interface {
	Enqueue(ctx context.Context, list []events.Event) error
}

// Deps are what the mailer needs; all are required.
type Deps struct {
	Outbox   Outbox
	Branding interface {
		Resolve(ctx context.Context, orgID string) (branding.Branding, error)
	}
	Contacts      contacts.Store
	Assets        onboarding.Assets
	Organizations interface {
		Organization(ctx context.Context, id string) (identity.Organization, error)
	}
	// ConsoleURL is the base of the links in the mails: the magic link
	// {ConsoleURL}/onboarding/magic#<token> and the task pages
	// {ConsoleURL}/onboarding/tasks/<onboarding_id>.
	ConsoleURL string
}

// Mailer enqueues the onboarding e-mails.
type Mailer struct{ d Deps }

var (
	_ onboarding.Notifier = (*Mailer)(nil)
	_ contacts.Mailer     = (*Mailer)(nil)
)

// New returns the mailer.
func New(d Deps) *Mailer {
	if d.Outbox == nil || d.Branding == nil || d.Contacts == nil || d.Assets == nil || d.Organizations == nil {
		panic("notify: New needs every dependency")
	}
	d.ConsoleURL = strings.TrimRight(d.ConsoleURL, "/")
	return &Mailer{d: d}
}

// common is what every mail of ob names, for a recipient.
func (m *Mailer) common(ctx context.Context, ob onboarding.Onboarding) (mailtmpl.Common, error) {
	b, err := m.d.Branding.Resolve(ctx, ob.OrganizationID)
	if err != nil {
		return mailtmpl.Common{}, err
	}
	c := mailtmpl.Common{Branding: b}
	a, err := m.d.Assets.Get(ctx, auth.Visibility{All: true}, ob.AssetID)
	switch {
	case err == nil:
		c.AssetName = a.Name
	case !errs.Is(err, errs.NotFound):
		return mailtmpl.Common{}, err
	default:
		c.AssetName = ob.AssetID
	}
	o, err := m.d.Organizations.Organization(ctx, ob.OrganizationID)
	switch {
	case err == nil:
		c.OrganizationName = o.Name
	case !errs.Is(err, errs.NotFound):
		return mailtmpl.Common{}, err
	default:
		c.OrganizationName = ob.OrganizationID
	}
	return c, nil
}

func (m *Mailer) taskURL(ob onboarding.Onboarding) string {
	if m.d.ConsoleURL == "" {
		return ""
	}
	return m.d.ConsoleURL + "/onboarding/tasks/" + ob.ID
}

// event is the outbox event of msg to c. Its idempotency key is unique
// per mail (a repeat of the same action is a new mail).
func event(ob onboarding.Onboarding, c contacts.Contact, msg mailtmpl.Message) (events.Event, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return events.Event{}, err
	}
	return events.Event{ID: id, Type: msg.Type, OrganizationID: ob.OrganizationID, AssetID: ob.AssetID,
		IdempotencyKey: msg.Type + ":" + id.String(), Channel: events.ChannelEmail, Recipient: c.Email,
		Subject: msg.Subject, Body: msg.Text,
		Mail: &events.Mail{HTML: msg.HTML, FromName: msg.FromName, ReplyTo: msg.ReplyTo, BannerKey: msg.BannerKey,
			BannerContentType: msg.BannerContentType}}, nil
}

// AccessLink implements contacts.Mailer: the mail with the link's raw
// token, in the link's language, else the contact's, else the
// branding's default. After sending, the outbox clears its body.
func (m *Mailer) AccessLink(ctx context.Context, ob onboarding.Onboarding, a contacts.AccessLinkMail) error {
	common, err := m.common(ctx, ob)
	if err != nil {
		return err
	}
	common.ContactName, common.Role, common.Language = a.Contact.Name, a.Link.Role, a.Link.Language
	if common.Language == "" {
		common.Language = a.Contact.Language
	}
	in := mailtmpl.AccessLink{Common: common, URL: m.d.ConsoleURL + "/onboarding/magic#" + a.Token, ExpiresAt: a.Link.ExpiresAt,
		Deadline: firstDeadline(ob, onboarding.TaskRole(a.Link.Role)), Note: a.Message, NoteBy: a.Link.CreatedBy}
	msg, err := mailtmpl.RenderAccessLink(in)
	if err != nil {
		return err
	}
	e, err := event(ob, a.Contact, msg)
	if err != nil {
		return err
	}
	// The link's delivery status finds its mail by this id.
	e.ID = contacts.MailEventID(a.Link)
	e.IdempotencyKey = msg.Type + ":" + e.ID.String()
	return m.d.Outbox.Enqueue(ctx, []events.Event{e})
}

// firstDeadline is the earliest deadline of the gates role owns that are
// not passed or waived, "" when none.
func firstDeadline(ob onboarding.Onboarding, role onboarding.TaskRole) string {
	out := ""
	for _, g := range ob.Gates {
		def, ok := g.Definition()
		if !ok || def.OwnerRole != role || g.Status.Done() || g.Deadline == nil {
			continue
		}
		if d := g.Deadline.String(); out == "" || d < out {
			out = d
		}
	}
	return out
}

// holding returns ob's contacts holding any of roles.
func (m *Mailer) holding(ctx context.Context, ob onboarding.Onboarding, roles ...onboarding.TaskRole) ([]contacts.Contact, error) {
	all, err := m.d.Contacts.Contacts(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, err
	}
	out := []contacts.Contact{}
	for _, c := range all {
		if slices.ContainsFunc(roles, c.Holds) {
			out = append(out, c)
		}
	}
	return out, nil
}

// roleFor is the role a recipient is addressed in: the first of roles it
// holds.
func roleFor(c contacts.Contact, roles ...onboarding.TaskRole) string {
	for _, r := range roles {
		if c.Holds(r) {
			return string(r)
		}
	}
	return ""
}

// send renders one mail per recipient with render and enqueues them all.
func (m *Mailer) send(ctx context.Context, ob onboarding.Onboarding, to []contacts.Contact, roles []onboarding.TaskRole,
	render func(c mailtmpl.Common) (mailtmpl.Message, error)) error {
	if len(to) == 0 {
		return nil
	}
	common, err := m.common(ctx, ob)
	if err != nil {
		return err
	}
	list := make([]events.Event, 0, len(to))
	for _, c := range to {
		cc := common
		cc.ContactName, cc.Language, cc.Role = c.Name, c.Language, roleFor(c, roles...)
		msg, err := render(cc)
		if err != nil {
			return err
		}
		e, err := event(ob, c, msg)
		if err != nil {
			return err
		}
		list = append(list, e)
	}
	return m.d.Outbox.Enqueue(ctx, list)
}

func title(g onboarding.Gate, lang string) string {
	def, ok := g.Definition()
	if !ok {
		return g.DefinitionID
	}
	if lang == branding.LanguageEN {
		return def.Title.EN
	}
	return def.Title.DE
}

// GateChanged implements onboarding.Notifier: submitted to the reviewers,
// changes requested and passed to the owner role's contacts; other moves
// send nothing.
func (m *Mailer) GateChanged(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate, action string, _ onboarding.Actor, note string) error {
	def, ok := g.Definition()
	if !ok {
		return fmt.Errorf("notify: gate %s has unknown definition %q", g.ID, g.DefinitionID)
	}
	var status string
	roles := []onboarding.TaskRole{def.OwnerRole}
	switch onboarding.Action(action) {
	case onboarding.ActionSubmit:
		status, roles = mailtmpl.GateSubmitted, []onboarding.TaskRole{onboarding.RolePlatformOnboarding}
	case onboarding.ActionRequestChanges:
		status = mailtmpl.GateChangesRequested
	case onboarding.ActionPass:
		status = mailtmpl.GatePassed
	default:
		return nil
	}
	to, err := m.holding(ctx, ob, roles...)
	if err != nil {
		return err
	}
	return m.send(ctx, ob, to, roles, func(c mailtmpl.Common) (mailtmpl.Message, error) {
		return mailtmpl.RenderGateChanged(mailtmpl.GateChanged{Common: c, GateTitle: title(g, languageOf(c)), Status: status, Note: note,
			TaskURL: m.taskURL(ob)})
	})
}

// languageOf is the language a mail to c is written in.
func languageOf(c mailtmpl.Common) string {
	if c.Language == branding.LanguageDE || c.Language == branding.LanguageEN {
		return c.Language
	}
	return c.Branding.Language()
}

// CommentMail is a new shared comment, for Comment.
type CommentMail struct {
	GateID string // "" for a comment on the whole onboarding
	// AuthorName is shown as the comment's author.
	AuthorName string
	// FromExternal is set when a contact in a magic-link session (or a
	// user acting in a task role) wrote it.
	FromExternal bool
	Body         string
	// RecipientRoles, when set, name the roles whose contacts are mailed
	// instead of the choice above.
	RecipientRoles []onboarding.TaskRole
}

// Comment mails a shared comment: see the package comment for who
// receives it. Call it inside the transaction that stores the comment.
func (m *Mailer) Comment(ctx context.Context, ob onboarding.Onboarding, c CommentMail) error {
	var g onboarding.Gate
	roles := []onboarding.TaskRole{onboarding.RolePlatformOnboarding}
	if c.GateID != "" {
		var ok bool
		if g, ok = ob.Gate(c.GateID); !ok {
			return errs.E(errs.NotFound, onboarding.CodeGateNotFound, "onboarding %s has no gate %q", ob.ID, c.GateID)
		}
	}
	switch {
	case len(c.RecipientRoles) > 0:
		roles = c.RecipientRoles
	case c.FromExternal:
	case c.GateID != "":
		def, _ := g.Definition()
		roles = []onboarding.TaskRole{def.OwnerRole}
	default:
		roles = onboarding.ExternalRoles
	}
	to, err := m.holding(ctx, ob, roles...)
	if err != nil {
		return err
	}
	return m.send(ctx, ob, to, roles, func(cc mailtmpl.Common) (mailtmpl.Message, error) {
		gateTitle := ""
		if c.GateID != "" {
			gateTitle = title(g, languageOf(cc))
		}
		return mailtmpl.RenderComment(mailtmpl.Comment{Common: cc, GateTitle: gateTitle, Author: c.AuthorName, Body: c.Body,
			TaskURL: m.taskURL(ob)})
	})
}

// ReminderMail is a reminder of a gate's deadline, for Reminder.
type ReminderMail struct {
	GateID  string
	Overdue bool // past the deadline, else before it
	// ContactIDs, when set, are the contacts mailed (the reminders
	// group's choice, contacts.Service.ForGate) instead of
	// ReminderRecipients; ids no longer of a contact are skipped.
	ContactIDs []string
	// Message is a manual reminder's note, quoted; By its author.
	Message, By string
}

// ReminderRecipients are the contacts a reminder of gate goes to: the
// owner role's contacts and the gate's assignee (no_recipients when none
// is for the caller to decide).
func (m *Mailer) ReminderRecipients(ctx context.Context, ob onboarding.Onboarding, gateID string) ([]contacts.Contact, error) {
	g, ok := ob.Gate(gateID)
	if !ok {
		return nil, errs.E(errs.NotFound, onboarding.CodeGateNotFound, "onboarding %s has no gate %q", ob.ID, gateID)
	}
	def, _ := g.Definition()
	all, err := m.d.Contacts.Contacts(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, err
	}
	out := []contacts.Contact{}
	for _, c := range all {
		if c.Holds(def.OwnerRole) || c.ID == g.AssigneeContactID {
			out = append(out, c)
		}
	}
	return out, nil
}

// Reminder mails a reminder of the gate's deadline to r.ContactIDs, else
// to ReminderRecipients.
// Call it inside the transaction that records the reminder.
func (m *Mailer) Reminder(ctx context.Context, ob onboarding.Onboarding, r ReminderMail) error {
	to, err := m.ReminderRecipients(ctx, ob, r.GateID)
	if err != nil {
		return err
	}
	if len(r.ContactIDs) > 0 {
		all, err := m.d.Contacts.Contacts(ctx, ob.OrganizationID, ob.ID)
		if err != nil {
			return err
		}
		to = slices.DeleteFunc(all, func(c contacts.Contact) bool { return !slices.Contains(r.ContactIDs, c.ID) })
	}
	g, _ := ob.Gate(r.GateID)
	def, _ := g.Definition()
	deadline := ""
	if g.Deadline != nil {
		deadline = g.Deadline.String()
	}
	roles := append([]onboarding.TaskRole{def.OwnerRole}, def.ContributorRoles...)
	return m.send(ctx, ob, to, roles, func(c mailtmpl.Common) (mailtmpl.Message, error) {
		return mailtmpl.RenderReminder(mailtmpl.Reminder{Common: c, GateTitle: title(g, languageOf(c)), Deadline: deadline,
			Overdue: r.Overdue, TaskURL: m.taskURL(ob), Note: r.Message, NoteBy: r.By})
	})
}
