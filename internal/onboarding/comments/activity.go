package comments

import (
	"context"
	"slices"
	"strings"

	"atcp/internal/onboarding"
)

// TaskName is how an author or actor is named to a task role: a user's
// name is their e-mail address (the token carries no display name), which
// the task side never sees; it gets the role (or the kind) instead.
func TaskName(name string, role onboarding.TaskRole, kind string) string {
	if !strings.Contains(name, "@") {
		return name
	}
	if role != "" {
		return string(role)
	}
	return kind
}

// VisibleActivity says what of the audit trail a task role sees
// (GET /v1/onboarding-tasks/{id}/activity, docs/onboarding.md #80): the
// entries about the gates it works on (and about their comments), and its
// own actions (a prequalification counts as its gate's); never an internal comment; the old values of changes made
// by another role are left out (null), and e-mail addresses (actor names,
// changed values) are replaced as TaskName does or by null.
func VisibleActivity(t onboarding.Task, e onboarding.AuditEntry) (onboarding.AuditEntry, bool) {
	gates := RoleGates(t)
	gateOf := func() string {
		if e.Target.Type == "gate" {
			return e.Target.ID
		}
		if g, ok := e.Changes["gate_id"]; ok {
			s, _ := g[1].(string)
			return s
		}
		if e.Target.Type == "prequalification" {
			// A prequalification is the work of the prequalification gate.
			for _, g := range t.Onboarding.Gates {
				if d, ok := g.Definition(); ok && d.Kind == onboarding.KindPrequalification {
					return g.ID
				}
			}
		}
		return ""
	}
	own := e.Actor.Kind == t.Actor.Kind && e.Actor.ID == t.Actor.ID && e.Actor.ID != ""
	if e.Target.Type == "comment" {
		if v, _ := e.Changes["visibility"][1].(string); v != string(Shared) {
			return onboarding.AuditEntry{}, false
		}
	}
	if !own && !slices.Contains(gates, gateOf()) {
		return onboarding.AuditEntry{}, false
	}
	sameRole := own || e.Actor.Role == t.Role
	changes := make(map[string][2]any, len(e.Changes))
	for k, v := range e.Changes {
		if !sameRole {
			v[0] = nil
		}
		for i := range v {
			if s, ok := v[i].(string); ok && strings.Contains(s, "@") {
				v[i] = nil
			}
		}
		changes[k] = v
	}
	e.Changes = changes
	e.Actor.Name = TaskName(e.Actor.Name, e.Actor.Role, e.Actor.Kind)
	return e, true
}

// Activity returns the audit entries the task's role sees
// (VisibleActivity), newest first, paged, and their total.
func (s *Service) Activity(ctx context.Context, t onboarding.Task, limit, offset int) ([]onboarding.AuditEntry, int, error) {
	var out []onboarding.AuditEntry
	// The filter is per entry and in Go: read the whole trail in pages.
	const chunk = 1000
	for from := 0; ; from += chunk {
		entries, total, err := s.core.AuditTrail(ctx, t.Actor, t.Onboarding.ID, onboarding.AuditFilter{Limit: chunk, Offset: from})
		if err != nil {
			return nil, 0, err
		}
		for _, e := range entries {
			if v, ok := VisibleActivity(t, e); ok {
				out = append(out, v)
			}
		}
		if from+chunk >= total {
			break
		}
	}
	total := len(out)
	lo := min(offset, total)
	hi := min(lo+limit, total)
	return append([]onboarding.AuditEntry{}, out[lo:hi]...), total, nil
}
