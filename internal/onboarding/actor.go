package onboarding

import (
	"context"
	"errors"
	"fmt"

	"atcp/internal/auth"
	"atcp/internal/errs"
)

// The kinds of actor an audit entry names.
const (
	ActorUser        = "user"
	ActorIntegration = "integration"
	ActorContact     = "contact"
	ActorSystem      = "system"
)

// Actor is who acts on an onboarding: a platform or organisation user or
// integration, a contact in a magic-link session, or the system (jobs).
type Actor struct {
	Kind      string
	ID        string // user id, integration id, contact id; "" for the system
	Name      string // for the audit trail and the *_by_name members
	Role      TaskRole
	PreviewAs TaskRole // a user viewing a task as that role (X-Onboarding-Preview-Role)

	OrganizationID string
	// Task is set for a magic-link session: it reaches only OnboardingID.
	Task *auth.TaskGrant
}

// SystemActor acts for background jobs.
var SystemActor = Actor{Kind: ActorSystem, Name: "system", OrganizationID: auth.PlatformOrganization}

// ActorFrom returns the actor of an authenticated caller; previewRole is
// the X-Onboarding-Preview-Role header ("" when absent), 422 when it is not
// a task role. A magic-link session cannot preview.
func ActorFrom(p *auth.Principal, previewRole string) (Actor, error) {
	if p == nil {
		return Actor{}, errors.New("onboarding: no authenticated caller")
	}
	a := Actor{ID: p.Subject, OrganizationID: p.OrganizationID, Name: p.Email}
	switch {
	case p.Task != nil:
		role, err := ParseTaskRole(p.Task.Role)
		if err != nil {
			// The session's token is atcp's own: a bad role is a bug.
			return Actor{}, fmt.Errorf("onboarding: session %s: %w", p.Task.SessionID, err)
		}
		grant := *p.Task
		a.Kind, a.ID, a.Role, a.Task = ActorContact, p.Task.ContactID, role, &grant
	case p.IsM2M:
		a.Kind = ActorIntegration
	default:
		a.Kind = ActorUser
	}
	if a.Name == "" {
		a.Name = a.ID
	}
	if a.Task == nil && p.IsPlatformAdmin() {
		a.Role = RolePlatformOnboarding
	}
	if previewRole != "" {
		if a.Task != nil {
			return Actor{}, errs.Invalidf("header.X-Onboarding-Preview-Role", previewRole, "a magic-link session cannot preview another role")
		}
		role, err := ParseTaskRole(previewRole)
		if err != nil {
			return Actor{}, errs.Invalidf("header.X-Onboarding-Preview-Role", previewRole, "%s", err.Error())
		}
		a.PreviewAs = role
	}
	return a, nil
}

// Platform reports whether the actor is of the platform organisation (and
// not a magic-link session, which acts only as its task role).
func (a Actor) Platform() bool { return a.Task == nil && a.OrganizationID == auth.PlatformOrganization }

// Visibility is the organisation filter of the actor's store reads. A
// magic-link session sees its onboarding's organisation; CanSee narrows it
// to the one onboarding.
func (a Actor) Visibility() auth.Visibility {
	return auth.Visibility{All: a.Platform(), OrganizationID: a.OrganizationID}
}

// CanSee reports whether the actor may see ob: the platform, the asset's
// organisation, or the session of that onboarding.
func (a Actor) CanSee(ob Onboarding) bool {
	if a.Task != nil {
		return a.Task.OnboardingID == ob.ID && a.OrganizationID == ob.OrganizationID
	}
	return a.Platform() || a.OrganizationID == ob.OrganizationID
}

// RequirePlatform refuses an action reserved to the platform (403
// platform_only); the onboarding is visible to the caller, so this
// reveals nothing.
func (a Actor) RequirePlatform(what string) error {
	if a.Platform() {
		return nil
	}
	return errs.Forbiddenf(CodePlatformOnly, "only the platform's onboarding managers may %s", what)
}

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request id the audit entries of
// the request record; the HTTP handlers set it.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id ctx carries, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func notFound(id string) error {
	return errs.E(errs.NotFound, CodeOnboardingNotFound, "no onboarding %q", id)
}
