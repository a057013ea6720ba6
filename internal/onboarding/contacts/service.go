package contacts

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"atcp/internal/clock"
	"atcp/internal/errs"
	"atcp/internal/events"
	"atcp/internal/identity"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/magic"
)

// Users finds the console user a contact names (identity.DirectoryStore).
type Users interface {
	UserByID(ctx context.Context, userID string) (identity.User, error)
}

// Brandings resolves an organisation's branding (branding.Service).
type Brandings interface {
	Resolve(ctx context.Context, orgID string) (branding.Branding, error)
}

// Deliveries reads an outbox event's delivery (events.Store).
type Deliveries interface {
	Delivery(ctx context.Context, organizationID string, id uuid.UUID) (events.Delivery, error)
}

// Mailer enqueues the e-mail of an access link inside the caller's
// transaction (package notify).
type Mailer interface {
	AccessLink(ctx context.Context, ob onboarding.Onboarding, m AccessLinkMail) error
}

// AccessLinkMail is one access-link e-mail: the raw token exists only
// here and in the rendered body of the outbox row.
type AccessLinkMail struct {
	Contact Contact
	Link    magic.Link
	Token   string
	Message string // the manager's personal note, "" when none
}

// Deps are what the service works with; all are required. The magic
// service comes with Install: it needs the service as its link targets.
type Deps struct {
	Store    Store
	Core     *onboarding.Service
	Users    Users
	Branding Brandings
	Mailer   Mailer
	// Deliveries reads the outbox (events.Store): the delivery status of
	// a link's mail.
	Deliveries Deliveries
	// WireBranding is the wire form of a branding the exchange answers
	// (brandinghttp.Wire).
	WireBranding func(branding.Branding) any
	// Security is the security clock the send limit runs on
	// (docs/authentication.md), not the platform clock of the records.
	Security clock.Clock
}

// Service runs the contacts and access links of onboardings.
type Service struct {
	d     Deps
	magic *magic.Service
}

var (
	_ onboarding.ContactRoles = (*Service)(nil)
	_ magic.LinkTargets       = (*Service)(nil)
	_ magic.Auditor           = (*Service)(nil)
)

// NewService returns the service; Install completes it.
func NewService(d Deps) *Service {
	if d.Store == nil || d.Core == nil || d.Users == nil || d.Branding == nil || d.Mailer == nil || d.Deliveries == nil || d.WireBranding == nil ||
		d.Security == nil {
		panic("contacts: NewService needs every dependency")
	}
	return &Service{d: d}
}

// Install runs links on m (whose LinkTargets is s) and makes the service
// the core's contact role lookup and assignee check and m's auditor, and
// revokes every link (ending its sessions) when a workflow is cancelled.
// Call it once, before serving.
func (s *Service) Install(m *magic.Service) {
	s.magic = m
	s.d.Core.SetContactRoles(s)
	s.d.Core.SetAssigneeCheck(s.CheckAssignee)
	s.magic.SetAuditor(s)
	s.d.Core.AddOnCancel(func(ctx context.Context, ob onboarding.Onboarding) error {
		_, err := s.magic.RevokeLinks(withActor(ctx, onboarding.SystemActor), ob.OrganizationID, ob.ID, magic.LinkFilter{}, RevokeCancelled)
		return err
	})
}

// Why links are revoked by this package.
const (
	RevokeCancelled      = "onboarding_cancelled"
	RevokeContactDeleted = "contact_deleted"
	RevokeRoleRemoved    = "role_removed"
	RevokeEmailChanged   = "email_changed"
)

func contactNotFound(id string) error {
	return errs.E(errs.NotFound, CodeContactNotFound, "the onboarding has no contact %q", id)
}

// contact reads a contact of ob; a malformed id is 404.
func (s *Service) contact(ctx context.Context, ob onboarding.Onboarding, id string) (Contact, error) {
	if !onboarding.ValidID(id) {
		return Contact{}, contactNotFound(id)
	}
	return s.d.Store.Contact(ctx, ob.OrganizationID, ob.ID, id)
}

// List returns a visible onboarding's contacts, those holding role when
// it is not "".
func (s *Service) List(ctx context.Context, actor onboarding.Actor, onboardingID, role string) ([]Contact, error) {
	var want onboarding.TaskRole
	if role != "" {
		r, err := onboarding.ParseTaskRole(role)
		if err != nil {
			return nil, errs.Invalidf("query.role", role, "must be a task role")
		}
		want = r
	}
	ob, err := s.d.Core.Get(ctx, actor, onboardingID)
	if err != nil {
		return nil, err
	}
	all, err := s.d.Store.Contacts(ctx, ob.OrganizationID, ob.ID)
	if err != nil || want == "" {
		return all, err
	}
	out := []Contact{}
	for _, c := range all {
		if c.Holds(want) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Get returns one contact of a visible onboarding.
func (s *Service) Get(ctx context.Context, actor onboarding.Actor, onboardingID, contactID string) (Contact, error) {
	ob, err := s.d.Core.Get(ctx, actor, onboardingID)
	if err != nil {
		return Contact{}, err
	}
	return s.contact(ctx, ob, contactID)
}

// checkUser refuses a user_id that names no user of the onboarding's
// organisation or the platform (422 body.user_id).
func (s *Service) checkUser(ctx context.Context, ob onboarding.Onboarding, userID string) error {
	if userID == "" {
		return nil
	}
	if !plainText(userID, false) {
		return errs.Invalidf("body.user_id", nil, "must be a user id")
	}
	u, err := s.d.Users.UserByID(ctx, userID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return err
	}
	if err != nil || (u.OrganizationID != ob.OrganizationID && u.OrganizationID != "platform") {
		return errs.Invalidf("body.user_id", userID, "is not a user of the asset's organisation or the platform")
	}
	return nil
}

// Create adds a contact to an open onboarding.
func (s *Service) Create(ctx context.Context, actor onboarding.Actor, onboardingID string, c Contact) (Contact, error) {
	err := s.d.Core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		if err := c.Validate(); err != nil {
			return err
		}
		if err := s.checkUser(ctx, ob, c.UserID); err != nil {
			return err
		}
		// Version 7: contacts created in the same instant list in order.
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		now := s.d.Core.Now()
		c.ID, c.OrganizationID, c.OnboardingID, c.CreatedAt, c.UpdatedAt = id.String(), ob.OrganizationID, ob.ID, now, now
		if err := s.d.Store.InsertContact(ctx, c); err != nil {
			return err
		}
		return s.d.Core.Audit(ctx, actor, ob, "contact.created", onboarding.Target{Type: "contact", ID: c.ID}, map[string][2]any{
			"name": {nil, c.Name}, "roles": {nil, c.RoleNames()},
		})
	})
	return c, err
}

// Patch changes a contact's members; nil leaves one as it is.
type Patch struct {
	Name, Email, Company, Phone, Language, UserID *string
	Roles                                         *[]onboarding.TaskRole
}

// Update changes a contact of an open onboarding. Removing a role revokes
// the contact's links of that role; changing the address revokes all its
// links (a new address is proven by a new link). Their sessions end.
func (s *Service) Update(ctx context.Context, actor onboarding.Actor, onboardingID, contactID string, p Patch) (Contact, error) {
	var out Contact
	err := s.d.Core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		old, err := s.contact(ctx, ob, contactID)
		if err != nil {
			return err
		}
		c := old
		set := func(dst *string, src *string) {
			if src != nil {
				*dst = *src
			}
		}
		set(&c.Name, p.Name)
		set(&c.Email, p.Email)
		set(&c.Company, p.Company)
		set(&c.Phone, p.Phone)
		set(&c.Language, p.Language)
		set(&c.UserID, p.UserID)
		if p.Roles != nil {
			c.Roles = *p.Roles
		}
		if err := c.Validate(); err != nil {
			return err
		}
		if c.UserID != old.UserID {
			if err := s.checkUser(ctx, ob, c.UserID); err != nil {
				return err
			}
		}
		changes := contactChanges(old, c)
		if len(changes) == 0 {
			out = old
			return nil
		}
		for _, g := range ob.Gates {
			def, _ := g.Definition()
			if g.AssigneeContactID == c.ID && !c.Holds(def.OwnerRole) && !slices.ContainsFunc(def.ContributorRoles, c.Holds) {
				return errs.Invalidf("body.roles", c.RoleNames(), "contact %s is the assignee of gate %s and must keep its owner or a contributor role", c.ID, g.DefinitionID)
			}
		}
		c.UpdatedAt = s.d.Core.Now()
		if err := s.d.Store.UpdateContact(ctx, c); err != nil {
			return err
		}
		if err := s.d.Core.Audit(ctx, actor, ob, "contact.updated", onboarding.Target{Type: "contact", ID: c.ID}, changes); err != nil {
			return err
		}
		ctx = withActor(ctx, actor)
		if c.Email != old.Email {
			if _, err := s.magic.RevokeLinks(ctx, ob.OrganizationID, ob.ID, magic.LinkFilter{ContactID: c.ID}, RevokeEmailChanged); err != nil {
				return err
			}
		} else {
			for _, r := range old.Roles {
				if c.Holds(r) {
					continue
				}
				if _, err := s.magic.RevokeLinks(ctx, ob.OrganizationID, ob.ID, magic.LinkFilter{ContactID: c.ID, Role: string(r)}, RevokeRoleRemoved); err != nil {
					return err
				}
			}
		}
		out = c
		return nil
	})
	return out, err
}

// contactChanges lists the members that differ, for the audit trail.
func contactChanges(a, b Contact) map[string][2]any {
	out := map[string][2]any{}
	for _, m := range []struct {
		name string
		a, b string
	}{{"name", a.Name, b.Name}, {"email", a.Email, b.Email}, {"company", a.Company, b.Company}, {"phone", a.Phone, b.Phone},
		{"language", a.Language, b.Language}, {"user_id", a.UserID, b.UserID}} {
		if m.a != m.b {
			out[m.name] = [2]any{m.a, m.b}
		}
	}
	if !slices.Equal(a.Roles, b.Roles) {
		out["roles"] = [2]any{a.RoleNames(), b.RoleNames()}
	}
	return out
}

// Delete removes a contact of an open onboarding: 409 contact_assigned
// while it is a gate's assignee; its links are revoked and its sessions
// ended. The row stays for the audit trail's names.
func (s *Service) Delete(ctx context.Context, actor onboarding.Actor, onboardingID, contactID string) error {
	return s.d.Core.Mutate(ctx, actor, onboardingID, func(ctx context.Context, ob onboarding.Onboarding) error {
		c, err := s.contact(ctx, ob, contactID)
		if err != nil {
			return err
		}
		for _, g := range ob.Gates {
			if g.AssigneeContactID == c.ID {
				return errs.Conflictf(CodeContactAssigned, "contact %s is the assignee of gate %s: assign another contact first", c.ID, g.DefinitionID)
			}
		}
		if err := s.d.Store.DeleteContact(ctx, ob.OrganizationID, ob.ID, c.ID, s.d.Core.Now()); err != nil {
			return err
		}
		if err := s.d.Core.Audit(ctx, actor, ob, "contact.deleted", onboarding.Target{Type: "contact", ID: c.ID}, map[string][2]any{
			"name": {c.Name, nil}, "roles": {c.RoleNames(), nil},
		}); err != nil {
			return err
		}
		_, err = s.magic.RevokeLinks(withActor(ctx, actor), ob.OrganizationID, ob.ID, magic.LinkFilter{ContactID: c.ID}, RevokeContactDeleted)
		return err
	})
}

// RolesOfUser implements onboarding.ContactRoles: the roles of the
// onboarding's contacts that carry the user's id.
func (s *Service) RolesOfUser(ctx context.Context, org, onboardingID, userID string) ([]onboarding.TaskRole, error) {
	all, err := s.d.Store.Contacts(ctx, org, onboardingID)
	if err != nil {
		return nil, err
	}
	var out []onboarding.TaskRole
	for _, c := range all {
		if c.UserID == userID && userID != "" {
			out = append(out, c.Roles...)
		}
	}
	return out, nil
}

// CheckAssignee refuses an assignee that is not a contact of ob holding
// def's owner or a contributor role (422 body.assignee_contact_id).
func (s *Service) CheckAssignee(ctx context.Context, ob onboarding.Onboarding, def onboarding.GateDefinition, contactID string) error {
	refuse := errs.Invalidf("assignee_contact_id", contactID,
		"must be a contact of the onboarding holding the gate's owner role %s or a contributor role", def.OwnerRole)
	if !onboarding.ValidID(contactID) {
		return refuse
	}
	c, err := s.d.Store.Contact(ctx, ob.OrganizationID, ob.ID, contactID)
	if errs.Is(err, errs.NotFound) {
		return refuse
	}
	if err != nil {
		return err
	}
	if !c.Holds(def.OwnerRole) && !slices.ContainsFunc(def.ContributorRoles, c.Holds) {
		return refuse
	}
	return nil
}

// Check implements magic.LinkTargets: the workflow is in_progress and the
// contact is there and holds the role.
func (s *Service) Check(ctx context.Context, org, onboardingID, contactID, role string) (magic.Target, bool, error) {
	ob, err := s.d.Core.Get(ctx, onboarding.SystemActor, onboardingID)
	if errs.Is(err, errs.NotFound) {
		return magic.Target{}, false, nil
	}
	if err != nil {
		return magic.Target{}, false, err
	}
	if ob.OrganizationID != org || ob.Status != onboarding.InProgress {
		return magic.Target{}, false, nil
	}
	c, err := s.contact(ctx, ob, contactID)
	if errs.Is(err, errs.NotFound) {
		return magic.Target{}, false, nil
	}
	if err != nil {
		return magic.Target{}, false, err
	}
	if !c.Holds(onboarding.TaskRole(role)) {
		return magic.Target{}, false, nil
	}
	b, err := s.d.Branding.Resolve(ctx, org)
	if err != nil {
		return magic.Target{}, false, err
	}
	return magic.Target{ContactName: c.Name, ContactEmail: c.Email, Language: c.Language, DefaultLanguage: b.Language(),
		Branding: s.d.WireBranding(b)}, true, nil
}

// TaskContacts is what a task caller sees of the other contacts.
type TaskContacts struct {
	Contacts     []Contact // name, company and roles only are shown
	SupportEmail string
}

// ForTask returns the contacts of the task's onboarding other than the
// caller's own contact, and the branding's support address.
func (s *Service) ForTask(ctx context.Context, t onboarding.Task) (TaskContacts, error) {
	all, err := s.d.Store.Contacts(ctx, t.Onboarding.OrganizationID, t.Onboarding.ID)
	if err != nil {
		return TaskContacts{}, err
	}
	out := TaskContacts{Contacts: []Contact{}}
	for _, c := range all {
		if t.Actor.Task != nil && c.ID == t.Actor.ID || t.Actor.Kind == onboarding.ActorUser && c.UserID == t.Actor.ID && !t.Preview() {
			continue
		}
		out.Contacts = append(out.Contacts, Contact{ID: c.ID, Name: c.Name, Company: c.Company, Roles: c.Roles})
	}
	b, err := s.d.Branding.Resolve(ctx, t.Onboarding.OrganizationID)
	if err != nil {
		return TaskContacts{}, err
	}
	out.SupportEmail = b.SupportEmail
	return out, nil
}

// actorKey carries the caller of a link change to the auditor.
type actorKey struct{}

func withActor(ctx context.Context, a onboarding.Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// MagicLinkEvent implements magic.Auditor: the entry's actor is the
// caller of this service when ctx carries it (issue, revoke, resend, the
// revocations of a contact change or a cancel), else the link's contact
// (exchange, refresh, logout). Tokens and hashes are never recorded.
func (s *Service) MagicLinkEvent(ctx context.Context, e magic.AuditEvent) error {
	actor, ok := ctx.Value(actorKey{}).(onboarding.Actor)
	if !ok {
		actor = onboarding.Actor{Kind: onboarding.ActorContact, ID: e.ContactID, Name: e.ContactID, Role: onboarding.TaskRole(e.Role),
			OrganizationID: e.OrganizationID}
	}
	target := onboarding.Target{Type: "access_link", ID: e.LinkID}
	changes := map[string][2]any{"contact_id": {nil, e.ContactID}, "role": {nil, e.Role}}
	if e.SessionID != "" {
		target = onboarding.Target{Type: "session", ID: e.SessionID}
		if e.LinkID != "" {
			changes["link_id"] = [2]any{nil, e.LinkID}
		}
	}
	if e.Reason != "" {
		changes["reason"] = [2]any{nil, e.Reason}
	}
	ob := onboarding.Onboarding{ID: e.OnboardingID, OrganizationID: e.OrganizationID}
	return s.d.Core.Audit(ctx, actor, ob, e.Action, target, changes)
}

// ResolveTask resolves the caller of a task endpoint (the core's rules).
func (s *Service) ResolveTask(ctx context.Context, actor onboarding.Actor, onboardingID, role string) (onboarding.Task, error) {
	return s.d.Core.ResolveTask(ctx, actor, onboardingID, role)
}
