package simulator

import (
	"slices"

	"atcp/internal/errs"
	"atcp/internal/telemetry"
)

// FaultKind names a fault the simulator can be told to have (fault
// injection, docs/telemetry.md): what a real battery's failures look like
// to the platform, so that alarms and operators can be exercised.
type FaultKind string

// The fault kinds.
const (
	// CommunicationLoss: nothing gets through either way. Read and Send
	// fail as for an unreachable asset (errs.Unavailable); the battery goes
	// on under the last command it received.
	CommunicationLoss FaultKind = "communication_loss"
	// GridSwitchOpen: the grid switch is open. grid_switch_status is 0, no
	// power flows at the point of connection (battery and PV stand still)
	// and setpoints are not followed.
	GridSwitchOpen FaultKind = "grid_switch_open"
	// SoCDrift: the stored energy drifts away from the energy balance (a
	// failed current sensor miscounting), socDriftSharePerHour of the
	// usable capacity per hour toward the nearer end, past the window if
	// it lasts.
	SoCDrift FaultKind = "soc_drift"
	// SetpointIgnored: the battery holds its power whatever it is told:
	// setpoints, limits and balancing activations (only the SoC protection
	// still stops it at the window's ends).
	SetpointIgnored FaultKind = "setpoint_ignored"
	// AFRRUnderdelivery: the aFRR activation is delivered at
	// afrrDeliveredShare; the setpoint is reported in full.
	AFRRUnderdelivery FaultKind = "afrr_underdelivery"
)

// FaultKinds lists every kind.
var FaultKinds = []FaultKind{CommunicationLoss, GridSwitchOpen, SoCDrift, SetpointIgnored, AFRRUnderdelivery}

// Valid reports whether k is one of FaultKinds.
func (k FaultKind) Valid() bool { return slices.Contains(FaultKinds, k) }

// The faults' magnitudes.
const (
	// socDriftSharePerHour: 30 % of the usable capacity an hour shows in
	// minutes, and crosses a window's end within the hour from most states
	// of charge.
	socDriftSharePerHour = 0.3
	// afrrDeliveredShare is the share of the aFRR activation delivered
	// while AFRRUnderdelivery is active.
	afrrDeliveredShare = 0.5
)

// Faults are the faults one battery has now; the zero value is a healthy
// battery.
type Faults struct {
	CommunicationLoss bool
	GridSwitchOpen    bool
	SoCDrift          bool
	SetpointIgnored   bool
	AFRRUnderdelivery bool
}

// Add turns fault k on; an unknown kind changes nothing.
func (f *Faults) Add(k FaultKind) {
	switch k {
	case CommunicationLoss:
		f.CommunicationLoss = true
	case GridSwitchOpen:
		f.GridSwitchOpen = true
	case SoCDrift:
		f.SoCDrift = true
	case SetpointIgnored:
		f.SetpointIgnored = true
	case AFRRUnderdelivery:
		f.AFRRUnderdelivery = true
	}
}

// SetFaults replaces the faults the battery has. A SoC drift starting now
// heads for the nearer end of the usable capacity.
func (b *Battery) SetFaults(f Faults) {
	if f.SoCDrift && !b.faults.SoCDrift {
		b.driftSign = 1
		if b.socMWh >= b.cfg.EnergyCapacityMWh/2 {
			b.driftSign = -1
		}
	}
	b.faults = f
	b.updatePV()
	b.updateAvailability()
}

// SetFaults replaces the faults of a simulated asset; they act from the
// next Tick (communication loss at once).
func (s *Simulator) SetFaults(assetID string, f Faults) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.battery(assetID)
	if err != nil {
		return err
	}
	b.SetFaults(f)
	return nil
}

// reachable is the battery of assetID when its communications work;
// s.mu is held.
func (s *Simulator) reachable(assetID string) (*Battery, error) {
	b, err := s.battery(assetID)
	if err != nil {
		return nil, err
	}
	if b.faults.CommunicationLoss {
		return nil, errs.E(errs.Unavailable, telemetry.CodeAssetUnreachable, "asset %s: its communications are lost", assetID)
	}
	return b, nil
}
