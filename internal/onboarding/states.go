package onboarding

import (
	"fmt"
	"slices"

	"atcp/internal/errs"
)

// TaskRole is a role of document 1 a contact or user acts as on an onboarding.
type TaskRole string

// The task roles of document 1.
const (
	RoleAssetOwner         TaskRole = "asset_owner"
	RoleEPC                TaskRole = "epc"
	RoleEMSProvider        TaskRole = "ems_provider"
	RolePlatformOnboarding TaskRole = "platform_onboarding"
	RolePlatform           TaskRole = "platform"
	RoleTSO                TaskRole = "tso"
)

// TaskRoles lists every task role.
var TaskRoles = []TaskRole{RoleAssetOwner, RoleEPC, RoleEMSProvider, RolePlatformOnboarding, RolePlatform, RoleTSO}

// ExternalRoles are the roles an access link is issued for.
var ExternalRoles = []TaskRole{RoleAssetOwner, RoleEPC, RoleEMSProvider, RoleTSO}

// ParseTaskRole returns the task role named s.
func ParseTaskRole(s string) (TaskRole, error) {
	if r := TaskRole(s); slices.Contains(TaskRoles, r) {
		return r, nil
	}
	return "", fmt.Errorf("%q is not a task role (asset_owner, epc, ems_provider, platform_onboarding, platform, tso)", s)
}

// OverallStatus is the state of a workflow.
type OverallStatus string

// The workflow states; pending is not used for workflows (docs/onboarding.md section 3).
const (
	InProgress OverallStatus = "in_progress"
	Completed  OverallStatus = "completed"
	Cancelled  OverallStatus = "cancelled"
)

// OverallStatuses lists every workflow state.
var OverallStatuses = []OverallStatus{InProgress, Completed, Cancelled}

// ParseOverallStatus returns the workflow state named s.
func ParseOverallStatus(s string) (OverallStatus, error) {
	if o := OverallStatus(s); slices.Contains(OverallStatuses, o) {
		return o, nil
	}
	return "", fmt.Errorf("%q is not a workflow status (in_progress, completed, cancelled)", s)
}

// Closed reports whether the workflow is read-only.
func (o OverallStatus) Closed() bool { return o == Completed || o == Cancelled }

// GateStatus is the state of a gate.
type GateStatus string

// The gate states of docs/onboarding.md section 3.
const (
	GatePending          GateStatus = "pending"
	GateInProgress       GateStatus = "in_progress"
	GateSubmitted        GateStatus = "submitted"
	GateChangesRequested GateStatus = "changes_requested"
	GatePassed           GateStatus = "passed"
	GateWaived           GateStatus = "waived"
	GateBlocked          GateStatus = "blocked"
)

// GateStatuses lists every gate state.
var GateStatuses = []GateStatus{GatePending, GateInProgress, GateSubmitted, GateChangesRequested, GatePassed, GateWaived, GateBlocked}

// ParseGateStatus returns the gate state named s.
func ParseGateStatus(s string) (GateStatus, error) {
	if g := GateStatus(s); slices.Contains(GateStatuses, g) {
		return g, nil
	}
	return "", fmt.Errorf("%q is not a gate status", s)
}

// Done reports whether the gate counts as cleared for the gates depending on it.
func (g GateStatus) Done() bool { return g == GatePassed || g == GateWaived }

// Locked reports whether the gate's fields, DPL rows and documents are locked.
func (g GateStatus) Locked() bool { return g == GateSubmitted || g.Done() }

// Action is what moves a gate.
type Action string

// The gate actions; ActionTouch is the automatic first write.
const (
	ActionTouch          Action = "touch"
	ActionSubmit         Action = "submit"
	ActionRequestChanges Action = "request_changes"
	ActionPass           Action = "pass"
	ActionWaive          Action = "waive"
	ActionBlock          Action = "block"
	ActionUnblock        Action = "unblock"
	ActionReopen         Action = "reopen"
)

// Transition is the gate state machine of docs/onboarding.md section 3:
// the status action moves a gate in status from to, or 409
// gate_transition_not_allowed. blockedFrom is the status a blocked gate
// returns to on unblock. Who may act, readiness, requirements and the
// go-live exceptions are the service's; this is the table alone.
func Transition(from GateStatus, action Action, blockedFrom GateStatus) (GateStatus, error) {
	switch action {
	case ActionTouch:
		if from == GatePending {
			return GateInProgress, nil
		}
	case ActionSubmit:
		if from == GatePending || from == GateInProgress || from == GateChangesRequested {
			return GateSubmitted, nil
		}
	case ActionRequestChanges:
		if from == GateSubmitted {
			return GateChangesRequested, nil
		}
	case ActionPass:
		if from == GateSubmitted {
			return GatePassed, nil
		}
	case ActionWaive:
		if from != GatePassed && from != GateWaived && slices.Contains(GateStatuses, from) {
			return GateWaived, nil
		}
	case ActionBlock:
		if from != GatePassed && from != GateWaived && from != GateBlocked && slices.Contains(GateStatuses, from) {
			return GateBlocked, nil
		}
	case ActionUnblock:
		if from == GateBlocked {
			if blockedFrom == "" || blockedFrom == GateBlocked || !slices.Contains(GateStatuses, blockedFrom) {
				return "", fmt.Errorf("blocked gate remembers no valid state to return to (%q)", blockedFrom)
			}
			return blockedFrom, nil
		}
	case ActionReopen:
		if from.Done() {
			return GateInProgress, nil
		}
	default:
		return "", fmt.Errorf("unknown gate action %q", action)
	}
	return "", errs.Conflictf(CodeGateTransitionNotAllowed, "a gate in status %s cannot %s", from, action)
}
