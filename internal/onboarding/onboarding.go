package onboarding

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"atcp/internal/markets/calendar"
)

// Onboarding is a workflow: the gates one asset passes to go live.
type Onboarding struct {
	ID             string // onboarding_id, a UUID
	OrganizationID string // the asset's
	AssetID        string
	TemplateID     string
	Status         OverallStatus
	StartedOn      calendar.Day
	TargetHCDate   *calendar.Day // target date of hot commissioning
	Notes          string
	CreatedAt      time.Time
	CreatedBy      string // the creator's name
	UpdatedAt      time.Time
	CancelledAt    *time.Time
	CancelReason   string
	CompletedAt    *time.Time
	Gates          []Gate // in order
}

// Gate is one step of a workflow.
type Gate struct {
	ID                string // gate_id, a UUID
	OnboardingID      string
	DefinitionID      string
	Order             int
	Status            GateStatus
	BlockedFrom       GateStatus // the status a blocked gate returns to; "" unless blocked
	BlockedBy         string     // the actor id that blocked it (an org writer may unblock its own block)
	Deadline          *calendar.Day
	AssigneeContactID string
	LastNote          string
	SubmittedAt       *time.Time
	SubmittedBy       string
	PassedAt          *time.Time
	PassedBy          string
	UpdatedAt         time.Time
	// Ready is computed (Onboarding.WithReadiness): every gate it depends on
	// is passed or waived.
	Ready bool
}

// Definition returns the gate's definition.
func (g Gate) Definition() (GateDefinition, bool) { return DefinitionByID(g.DefinitionID) }

// Overdue reports whether the gate is past its deadline at now: from 00:00
// Europe/Berlin of the day after the deadline, while not passed or waived.
func (g Gate) Overdue(now time.Time) bool {
	return g.Deadline != nil && !g.Status.Done() && !now.Before(g.Deadline.AddDays(1).Local(0, 0))
}

// WithReadiness returns ob with every gate's Ready computed from its
// definition's depends_on.
func (ob Onboarding) WithReadiness() Onboarding {
	status := map[string]GateStatus{}
	for _, g := range ob.Gates {
		status[g.DefinitionID] = g.Status
	}
	gates := slices.Clone(ob.Gates)
	for i := range gates {
		gates[i].Ready = true
		if d, ok := gates[i].Definition(); ok {
			for _, dep := range d.DependsOn {
				if !status[dep].Done() {
					gates[i].Ready = false
				}
			}
		}
	}
	ob.Gates = gates
	return ob
}

// Gate returns the workflow's gate with id.
func (ob Onboarding) Gate(id string) (Gate, bool) {
	i := slices.IndexFunc(ob.Gates, func(g Gate) bool { return g.ID == id })
	if i < 0 {
		return Gate{}, false
	}
	return ob.Gates[i], true
}

// BlockedGateCount counts the blocked gates.
func (ob Onboarding) BlockedGateCount() int {
	n := 0
	for _, g := range ob.Gates {
		if g.Status == GateBlocked {
			n++
		}
	}
	return n
}

// OverdueGateCount counts the gates overdue at now.
func (ob Onboarding) OverdueGateCount(now time.Time) int {
	n := 0
	for _, g := range ob.Gates {
		if g.Overdue(now) {
			n++
		}
	}
	return n
}

// NextDeadline is the earliest deadline of a gate not passed or waived.
func (ob Onboarding) NextDeadline() *calendar.Day {
	var next *calendar.Day
	for _, g := range ob.Gates {
		if g.Deadline != nil && !g.Status.Done() && (next == nil || g.Deadline.String() < next.String()) {
			d := *g.Deadline
			next = &d
		}
	}
	return next
}

// AuditEntry is one line of a workflow's append-only audit trail.
type AuditEntry struct {
	ID             string // entry_id, a UUID
	OrganizationID string // the onboarding's
	OnboardingID   string
	At             time.Time // platform clock
	Actor          Actor
	Action         string // such as gate.passed, onboarding.created
	Target         Target
	Changes        map[string][2]any // member: [old, new]
	RequestID      string
}

// Target is what an audit entry is about.
type Target struct {
	Type string // onboarding, gate, ...
	ID   string
}

// ValidID reports whether s is a UUID in the canonical form ids are
// issued in; anything else names nothing (404).
func ValidID(s string) bool {
	u, err := uuid.Parse(s)
	return err == nil && u.String() == s
}
