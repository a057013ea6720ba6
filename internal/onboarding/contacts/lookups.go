package contacts

import (
	"context"
	"slices"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/magic"
)

// The lookups other onboarding groups ask of the contacts (the task list,
// the task detail, the reminders), with plain types so that their
// interfaces are met by thin adapters.

// ContactViewer names a contact of a workflow and gives its language (""
// for the branding's default): the task detail's viewer. A deleted or
// unknown one is 404 contact_not_found.
func (s *Service) ContactViewer(ctx context.Context, organizationID, onboardingID, contactID string) (name, language string, err error) {
	if !onboarding.ValidID(contactID) {
		return "", "", contactNotFound(contactID)
	}
	c, err := s.d.Store.Contact(ctx, organizationID, onboardingID, contactID)
	return c.Name, c.Language, err
}

// UserTask is a workflow on which contacts carry a console user's id, and
// the roles they hold there.
type UserTask struct {
	OrganizationID string
	OnboardingID   string
	Roles          []onboarding.TaskRole
}

// TasksOfUser finds the workflows a console user is a contact on (the
// task list of GET /v1/onboarding-tasks), whatever their status.
func (s *Service) TasksOfUser(ctx context.Context, userID string) ([]UserTask, error) {
	if userID == "" {
		return []UserTask{}, nil
	}
	list, err := s.d.Store.ContactsOfUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := []UserTask{}
	index := map[string]int{}
	for _, c := range list {
		i, ok := index[c.OnboardingID]
		if !ok {
			i = len(out)
			index[c.OnboardingID] = i
			out = append(out, UserTask{OrganizationID: c.OrganizationID, OnboardingID: c.OnboardingID})
		}
		for _, r := range c.Roles {
			if !slices.Contains(out[i].Roles, r) {
				out[i].Roles = append(out[i].Roles, r)
			}
		}
	}
	return out, nil
}

// GateRecipient is a contact a gate's reminder goes to, addressed in Role
// (one of the roles asked, or the gate's owner role for its assignee).
type GateRecipient struct {
	Contact Contact
	Role    onboarding.TaskRole
}

// ForGate finds whom a gate's reminder goes to (docs/onboarding.md 5.J):
// the contacts holding one of roles with an active access link for it,
// and the gate's assignee, each once.
func (s *Service) ForGate(ctx context.Context, ob onboarding.Onboarding, g onboarding.Gate, roles []onboarding.TaskRole) ([]GateRecipient, error) {
	all, err := s.d.Store.Contacts(ctx, ob.OrganizationID, ob.ID)
	if err != nil {
		return nil, err
	}
	links, err := s.magic.ListLinks(ctx, ob.OrganizationID, ob.ID, magic.LinkFilter{Status: magic.LinkActive})
	if err != nil {
		return nil, err
	}
	out := []GateRecipient{}
	for _, c := range all {
		role := onboarding.TaskRole("")
		for _, r := range roles {
			if c.Holds(r) && slices.ContainsFunc(links, func(l magic.Link) bool { return l.ContactID == c.ID && l.Role == string(r) }) {
				role = r
				break
			}
		}
		if role == "" && c.ID == g.AssigneeContactID {
			def, _ := g.Definition()
			role = def.OwnerRole
			if !c.Holds(role) {
				role = c.Roles[0]
			}
		}
		if role != "" {
			out = append(out, GateRecipient{Contact: c, Role: role})
		}
	}
	return out, nil
}
