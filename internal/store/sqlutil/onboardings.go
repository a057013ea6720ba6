package sqlutil

import (
	"encoding/json"
	"fmt"
	"strings"

	"atcp/internal/markets/calendar"
	"atcp/internal/onboarding"
)

// OnboardingColumns are the onboardings columns in the order of
// OnboardingValues and OnboardingScan.
var OnboardingColumns = []string{
	"onboarding_id", "organization_id", "asset_id", "template_id", "overall_status", "started_on", "target_hc_date", "notes",
	"created_at", "created_by", "updated_at", "cancelled_at", "cancel_reason", "completed_at",
}

// OnboardingList is OnboardingColumns comma-separated, each prefixed with
// alias and a dot (alias "" for none).
func OnboardingList(alias string) string { return columnList(alias, OnboardingColumns) }

func columnList(alias string, cols []string) string {
	if alias == "" {
		return strings.Join(cols, ", ")
	}
	return alias + "." + strings.Join(cols, ", "+alias+".")
}

func dayText(d *calendar.Day) any {
	if d == nil {
		return nil
	}
	return d.String()
}

func parseDay(s *string) (*calendar.Day, error) {
	if s == nil {
		return nil, nil
	}
	d, err := calendar.ParseDay(*s)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// OnboardingValues are ob's OnboardingColumns.
func OnboardingValues(ob onboarding.Onboarding, in Instants) []any {
	return []any{
		ob.ID, ob.OrganizationID, ob.AssetID, ob.TemplateID, string(ob.Status), ob.StartedOn.String(), dayText(ob.TargetHCDate), ob.Notes,
		in.Encode(&ob.CreatedAt), ob.CreatedBy, in.Encode(&ob.UpdatedAt), in.Encode(ob.CancelledAt), ob.CancelReason,
		in.Encode(ob.CompletedAt),
	}
}

// OnboardingScan returns the scan destinations of OnboardingColumns and
// the function building the workflow (without gates) after the scan.
func OnboardingScan(in Instants) ([]any, func() (onboarding.Onboarding, error)) {
	var ob onboarding.Onboarding
	var status, started string
	var target *string
	created, getCreated := in.Scan()
	updated, getUpdated := in.Scan()
	cancelled, getCancelled := in.Scan()
	completed, getCompleted := in.Scan()
	dest := []any{&ob.ID, &ob.OrganizationID, &ob.AssetID, &ob.TemplateID, &status, &started, &target, &ob.Notes,
		created, &ob.CreatedBy, updated, cancelled, &ob.CancelReason, completed}
	return dest, func() (onboarding.Onboarding, error) {
		var err error
		ob.Status = onboarding.OverallStatus(status)
		if ob.StartedOn, err = calendar.ParseDay(started); err != nil {
			return ob, err
		}
		if ob.TargetHCDate, err = parseDay(target); err != nil {
			return ob, err
		}
		ob.CreatedAt, ob.UpdatedAt = *getCreated(), *getUpdated()
		ob.CancelledAt, ob.CompletedAt = getCancelled(), getCompleted()
		return ob, nil
	}
}

// GateColumns are the onboarding_gates columns in the order of GateValues
// and GateScan (the RfI columns are the RfI store's).
var GateColumns = []string{
	"gate_id", "onboarding_id", "definition_id", "gate_order", "status", "blocked_from", "blocked_by", "deadline",
	"assignee_contact_id", "last_note", "submitted_at", "submitted_by", "passed_at", "passed_by", "updated_at",
}

// GateList is GateColumns comma-separated with alias.
func GateList(alias string) string { return columnList(alias, GateColumns) }

// GateValues are g's GateColumns.
func GateValues(g onboarding.Gate, in Instants) []any {
	return []any{
		g.ID, g.OnboardingID, g.DefinitionID, g.Order, string(g.Status), string(g.BlockedFrom), g.BlockedBy, dayText(g.Deadline),
		g.AssigneeContactID, g.LastNote, in.Encode(g.SubmittedAt), g.SubmittedBy, in.Encode(g.PassedAt), g.PassedBy,
		in.Encode(&g.UpdatedAt),
	}
}

// GateScan returns the scan destinations of GateColumns and the function
// building the gate after the scan.
func GateScan(in Instants) ([]any, func() (onboarding.Gate, error)) {
	var g onboarding.Gate
	var status, blockedFrom string
	var deadline *string
	submitted, getSubmitted := in.Scan()
	passed, getPassed := in.Scan()
	updated, getUpdated := in.Scan()
	dest := []any{&g.ID, &g.OnboardingID, &g.DefinitionID, &g.Order, &status, &blockedFrom, &g.BlockedBy, &deadline,
		&g.AssigneeContactID, &g.LastNote, submitted, &g.SubmittedBy, passed, &g.PassedBy, updated}
	return dest, func() (onboarding.Gate, error) {
		var err error
		g.Status, g.BlockedFrom = onboarding.GateStatus(status), onboarding.GateStatus(blockedFrom)
		if g.Deadline, err = parseDay(deadline); err != nil {
			return g, err
		}
		g.SubmittedAt, g.PassedAt, g.UpdatedAt = getSubmitted(), getPassed(), *getUpdated()
		return g, nil
	}
}

// AuditColumns are the onboarding_audit columns in the order of
// AuditValues and AuditScan.
var AuditColumns = []string{
	"organization_id", "entry_id", "onboarding_id", "at", "actor_kind", "actor_json", "action", "target_type", "target_id", "changes_json", "request_id",
}

// AuditList is AuditColumns comma-separated.
var AuditList = strings.Join(AuditColumns, ", ")

// auditActor is the stored form of an audit entry's actor.
type auditActor struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Role      string `json:"role,omitempty"`
	PreviewAs string `json:"preview_as,omitempty"`
}

// AuditValues are e's AuditColumns.
func AuditValues(e onboarding.AuditEntry, in Instants) ([]any, error) {
	actor, err := json.Marshal(auditActor{e.Actor.Kind, e.Actor.ID, e.Actor.Name, string(e.Actor.Role), string(e.Actor.PreviewAs)})
	if err != nil {
		return nil, err
	}
	changes, err := json.Marshal(e.Changes)
	if err != nil {
		return nil, fmt.Errorf("audit changes: %w", err)
	}
	return []any{e.OrganizationID, e.ID, e.OnboardingID, in.Encode(&e.At), e.Actor.Kind, string(actor), e.Action, e.Target.Type, e.Target.ID,
		string(changes), e.RequestID}, nil
}

// AuditScan returns the scan destinations of AuditColumns and the
// function building the entry after the scan.
func AuditScan(in Instants) ([]any, func() (onboarding.AuditEntry, error)) {
	var e onboarding.AuditEntry
	var kind, actor, changes string
	at, getAt := in.Scan()
	dest := []any{&e.OrganizationID, &e.ID, &e.OnboardingID, at, &kind, &actor, &e.Action, &e.Target.Type, &e.Target.ID, &changes, &e.RequestID}
	return dest, func() (onboarding.AuditEntry, error) {
		var a auditActor
		if err := json.Unmarshal([]byte(actor), &a); err != nil {
			return e, fmt.Errorf("audit actor: %w", err)
		}
		e.Actor = onboarding.Actor{Kind: a.Kind, ID: a.ID, Name: a.Name, Role: onboarding.TaskRole(a.Role), PreviewAs: onboarding.TaskRole(a.PreviewAs)}
		if err := json.Unmarshal([]byte(changes), &e.Changes); err != nil {
			return e, fmt.Errorf("audit changes: %w", err)
		}
		e.At = *getAt()
		return e, nil
	}
}
