package dispatch

import (
	"context"
	"time"

	"atcp/internal/telemetry"
)

// Immediate is an immediate dispatch: an unrestricted override of the
// asset's power from Start until End.
type Immediate struct {
	ID             string
	OrganizationID string
	AssetID        string
	Start          time.Time
	End            time.Time
	SetPowerMW     float64
	CreatedAt      time.Time
}

// Event is one stored scheduled-dispatch target. It takes effect at
// SetTime (whole seconds) and holds until the next event of the same
// delivery block; at each block start without an event the power resets
// to 0 MW.
type Event struct {
	OrganizationID string
	AssetID        string
	ControlMode    telemetry.ControlMode
	BESSPowerMW    *float64 // nil when the mode takes no battery target
	PoCPowerMW     *float64 // nil unless bess_and_poc or poc_only
	SetTime        time.Time
	DeliveryTime   time.Time // start of the 15-minute delivery block of SetTime
	CreatedAt      time.Time
	// RequestID is the id of the PUT request that stored the event and
	// SourceID the subject (user or integration) that sent it; the
	// schedule dispatch report carries both.
	RequestID string
	SourceID  string
}

// Status is the outcome of an executed schedule target (document 1,
// "schedule dispatch status").
type Status string

// The schedule dispatch statuses.
const (
	Full     Status = "full"
	Clipped  Status = "clipped"
	Rejected Status = "rejected"
	Failed   Status = "failed"
	Unknown  Status = "unknown"
)

// Outcome is one entry of the schedule dispatch report: what became of a
// target when its set_time came.
type Outcome struct {
	OrganizationID   string
	AssetID          string
	SetTime          time.Time
	DeliveryTime     time.Time
	ControlMode      telemetry.ControlMode
	RequestedPowerMW *float64 // the event's battery target
	PoCPowerMW       *float64 // the event's point-of-connection target
	EffectivePowerMW float64  // what the asset was commanded: see RequestedMW
	Status           Status
	Reason           string // why clipped, rejected, failed or unknown; empty when full
	EmittedAt        time.Time
	// RequestID and SourceID are those of the event the outcome is for;
	// the store fills them on read (RecordOutcomes ignores them).
	RequestID, SourceID string
}

// RequestedMW is the power the target asked for, in the terms of
// EffectivePowerMW (what the control loop commands and reports): the
// point-of-connection target in bess_and_poc and poc_only (it has
// priority), the battery target in bess_only, 0 MW in passive. nil when
// the target has no such value.
func (o Outcome) RequestedMW() *float64 {
	switch o.ControlMode {
	case telemetry.Passive:
		zero := 0.0
		return &zero
	case telemetry.BESSAndPoC, telemetry.PoCOnly:
		return o.PoCPowerMW
	}
	return o.RequestedPowerMW
}

// SetPowerMW is the power the event asks of the asset, in the terms the
// control loop executes it: the point-of-connection target in
// bess_and_poc and poc_only (it has priority), the battery target in
// bess_only, 0 MW in passive. Anticipated dispatch and planned state
// report it.
func (e Event) SetPowerMW() float64 {
	target := e.BESSPowerMW
	switch e.ControlMode {
	case telemetry.Passive:
		return 0
	case telemetry.BESSAndPoC, telemetry.PoCOnly:
		target = e.PoCPowerMW
	}
	if target == nil {
		return 0
	}
	return *target
}

// Plan is what the control loop reads from and reports to dispatch for
// every asset at once (it is not scoped to a caller).
type Plan interface {
	// ActiveImmediate returns every asset's immediate dispatch active at
	// at (start <= at < end).
	ActiveImmediate(ctx context.Context, at time.Time) ([]Immediate, error)
	// EventsBetween returns every asset's events with from < set_time <=
	// to, ordered by set_time.
	EventsBetween(ctx context.Context, from, to time.Time) ([]Event, error)
	// CurrentEvents returns, per asset, the latest event with set_time <=
	// at inside at's delivery block (the target in force; for a restart).
	CurrentEvents(ctx context.Context, at time.Time) ([]Event, error)
	// RecordOutcomes stores report entries (idempotent per asset and
	// set_time: a repeated entry replaces the earlier one).
	RecordOutcomes(ctx context.Context, outcomes []Outcome) error
}
