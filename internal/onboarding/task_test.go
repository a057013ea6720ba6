package onboarding_test

import (
	"context"
	"testing"
	"time"

	"atcp/internal/auth"
	"atcp/internal/onboarding"
)

type userRoles map[string][]onboarding.TaskRole

func (u userRoles) RolesOfUser(_ context.Context, _, _, userID string) ([]onboarding.TaskRole, error) {
	return u[userID], nil
}

func TestResolveTask(t *testing.T) {
	f := newFixture(t, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	ob := flow(t, f)
	f.svc.SetContactRoles(userRoles{"u-a": {onboarding.RoleEPC, onboarding.RoleAssetOwner}, "u-a2": {onboarding.RoleTSO}})
	session := func(id string, role onboarding.TaskRole) onboarding.Actor {
		return onboarding.Actor{Kind: onboarding.ActorContact, ID: "c-1", Name: "c-1", Role: role, OrganizationID: "acme",
			Task: &auth.TaskGrant{OnboardingID: id, ContactID: "c-1", Role: string(role), SessionID: "s-1"}}
	}
	preview := func(a onboarding.Actor, role onboarding.TaskRole) onboarding.Actor { a.PreviewAs = role; return a }
	integration := acme
	integration.Kind = onboarding.ActorIntegration
	const other = "0190a5c0-0000-7000-8000-000000000000"
	for _, c := range []struct {
		name     string
		actor    onboarding.Actor
		id, role string
		want     onboarding.TaskRole
		code     string
	}{
		{"session acts as its role", session(ob.ID, onboarding.RoleEMSProvider), ob.ID, "", onboarding.RoleEMSProvider, ""},
		{"session naming its own role", session(ob.ID, onboarding.RoleEMSProvider), ob.ID, "ems_provider", onboarding.RoleEMSProvider, ""},
		{"session naming another role", session(ob.ID, onboarding.RoleEMSProvider), ob.ID, "epc", "", "task_not_found"},
		{"session on another onboarding", session(other, onboarding.RoleEPC), ob.ID, "", "", "task_not_found"},
		{"user: first held role in document order", acme, ob.ID, "", onboarding.RoleAssetOwner, ""},
		{"user: a held role asked for", acme, ob.ID, "epc", onboarding.RoleEPC, ""},
		{"user: a role not held", acme, ob.ID, "tso", "", "task_not_found"},
		{"user without contact roles", beta, ob.ID, "", "", "task_not_found"},
		{"integration holds no contact role", integration, ob.ID, "", "", "task_not_found"},
		{"platform preview", preview(platform, onboarding.RoleEPC), ob.ID, "", onboarding.RoleEPC, ""},
		{"organisation preview", preview(acme2, onboarding.RoleEMSProvider), ob.ID, "", onboarding.RoleEMSProvider, ""},
		{"preview of another organisation", preview(beta, onboarding.RoleEPC), ob.ID, "", "", "task_not_found"},
		{"preview with another role asked", preview(platform, onboarding.RoleEPC), ob.ID, "tso", "", "task_not_found"},
		{"platform without preview holds no role", platform, ob.ID, "", "", "task_not_found"},
		{"role not a task role", acme, ob.ID, "platform", "", "validation_failed"},
		{"role unknown", acme, ob.ID, "owner", "", "validation_failed"},
		{"malformed id", acme, "nope", "", "", "task_not_found"},
		{"unknown id", platform, other, "", "", "task_not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			task, err := f.svc.ResolveTask(context.Background(), c.actor, c.id, c.role)
			if code(err) != c.code {
				t.Fatalf("error %v, want code %q", err, c.code)
			}
			if c.code != "" {
				return
			}
			if task.Role != c.want || task.Actor.Role != c.want || task.Onboarding.ID != ob.ID {
				t.Fatalf("task as %s (actor %s) on %s, want %s on %s", task.Role, task.Actor.Role, task.Onboarding.ID, c.want, ob.ID)
			}
			if task.Preview() != (c.actor.PreviewAs != "") {
				t.Fatalf("preview %v", task.Preview())
			}
		})
	}
}

func TestTaskWorks(t *testing.T) {
	rfi, _ := onboarding.DefinitionByID("fc_rfi")
	for _, c := range []struct {
		role        onboarding.TaskRole
		owns, works bool
	}{
		{onboarding.RoleAssetOwner, true, true}, {onboarding.RoleEPC, false, true}, {onboarding.RoleEMSProvider, false, true},
		{onboarding.RoleTSO, false, false},
	} {
		task := onboarding.Task{Role: c.role}
		if task.Owns(rfi) != c.owns || task.Works(rfi) != c.works {
			t.Errorf("%s: owns %v works %v, want %v %v", c.role, task.Owns(rfi), task.Works(rfi), c.owns, c.works)
		}
	}
}
