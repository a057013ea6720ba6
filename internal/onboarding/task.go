package onboarding

import (
	"context"
	"slices"

	"atcp/internal/errs"
)

// CodeTaskNotFound: no such onboarding visible to the caller, or the caller
// does not hold the task role asked for (404; document 3).
const CodeTaskNotFound errs.Code = "task_not_found"

// ContactRoles tells which task roles a console user holds on an
// onboarding: the roles of the contacts that carry the user's id. The
// contacts group implements it; without one, a console user holds no task
// role and reaches task endpoints only in preview.
type ContactRoles interface {
	RolesOfUser(ctx context.Context, organizationID, onboardingID, userID string) ([]TaskRole, error)
}

// SetContactRoles installs the contact role lookup of ResolveTask.
func (s *Service) SetContactRoles(c ContactRoles) { s.contactRoles = c }

// Task is the resolved caller of a task endpoint
// (/v1/onboarding-tasks/{onboarding_id}/...): the onboarding, the one role
// the request acts as, and the actor to record, whose Role is that role.
type Task struct {
	Onboarding Onboarding
	Role       TaskRole
	Actor      Actor
}

// Preview reports whether a user views the task as Role through
// X-Onboarding-Preview-Role rather than holding it.
func (t Task) Preview() bool { return t.Actor.PreviewAs != "" }

// Owns reports whether the task's role owns def's gate.
func (t Task) Owns(def GateDefinition) bool { return def.OwnerRole == t.Role }

// Works reports whether the task's role owns or contributes to def's gate:
// the gates listed in task_gate_ids, whose fields, rows and documents it
// may see and change.
func (t Task) Works(def GateDefinition) bool {
	return t.Owns(def) || slices.Contains(def.ContributorRoles, t.Role)
}

// ResolveTask resolves the caller of a task endpoint on onboarding id
// (document 3, task detail; docs/onboarding.md 4.3):
//   - a magic-link session acts as its role on its onboarding only; a role
//     query naming another role is 404;
//   - a user with X-Onboarding-Preview-Role (actor.PreviewAs) of the
//     platform or of the asset's organisation acts as that role;
//   - another user acts as a role a contact carrying their user id holds:
//     roleQuery, or else the first of asset_owner, epc, ems_provider, tso.
//
// roleQuery is the `role` query ("" when absent): 422 when it is not a
// task role. Everything not visible or not held is one 404 task_not_found.
// Scopes are the endpoint's (httpapi.TaskOr); closed workflows are
// readable here, and Mutate refuses changing them.
func (s *Service) ResolveTask(ctx context.Context, actor Actor, id, roleQuery string) (Task, error) {
	var asked TaskRole
	if roleQuery != "" {
		r, err := ParseTaskRole(roleQuery)
		if err != nil || !slices.Contains(ExternalRoles, r) {
			return Task{}, errs.Invalidf("query.role", roleQuery, "must be one of asset_owner, epc, ems_provider, tso")
		}
		asked = r
	}
	missing := errs.E(errs.NotFound, CodeTaskNotFound, "no task on onboarding %q for this caller", id)
	if !ValidID(id) {
		return Task{}, missing
	}
	ob, err := s.store.Get(ctx, actor.Visibility(), id)
	if errs.KindOf(err) == errs.NotFound || (err == nil && !actor.CanSee(ob)) {
		return Task{}, missing
	}
	if err != nil {
		return Task{}, err
	}
	ob = ob.WithReadiness()
	var role TaskRole
	switch {
	case actor.Task != nil:
		role = actor.Role
	case actor.PreviewAs != "":
		role = actor.PreviewAs
	default:
		var held []TaskRole
		if s.contactRoles != nil && actor.Kind == ActorUser {
			if held, err = s.contactRoles.RolesOfUser(ctx, ob.OrganizationID, ob.ID, actor.ID); err != nil {
				return Task{}, err
			}
		}
		for _, r := range ExternalRoles {
			if slices.Contains(held, r) && (asked == "" || asked == r) {
				role = r
				break
			}
		}
	}
	if role == "" || (asked != "" && asked != role) {
		return Task{}, missing
	}
	a := actor
	a.Role = role
	return Task{Onboarding: ob, Role: role, Actor: a}, nil
}
