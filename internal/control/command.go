package control

import (
	"math"

	"atcp/internal/dispatch"
	"atcp/internal/markets/feasibility"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/telemetry"
)

// Target is a wholesale schedule target in force on an asset. The zero
// Target (no Mode) is "none": the asset stands at 0 MW in passive mode,
// as after a block start without an event.
type Target struct {
	Mode        telemetry.ControlMode
	BESSPowerMW *float64
	PoCPowerMW  *float64
}

// TargetOf is the target a schedule event sets.
func TargetOf(e dispatch.Event) Target {
	return Target{Mode: e.ControlMode, BESSPowerMW: e.BESSPowerMW, PoCPowerMW: e.PoCPowerMW}
}

// pocMode reports whether the target steers the point of connection.
func (t Target) pocMode() bool { return t.Mode == telemetry.BESSAndPoC || t.Mode == telemetry.PoCOnly }

// RequestedMW is the power the target asks for: the point-of-connection
// target in the PoC modes (it has priority), the battery target in
// bess_only, 0 in passive and for none.
func (t Target) RequestedMW() float64 {
	p := t.BESSPowerMW
	if t.pocMode() {
		p = t.PoCPowerMW
	}
	if p == nil || t.Mode == telemetry.Passive {
		return 0
	}
	return *p
}

// Inputs is everything that decides one asset's command at one second.
type Inputs struct {
	// RatedMW is the usable power capacity; GridConnectionMW the grid
	// connection power (0 when not recorded), which bounds what the asset
	// can deliver or draw whatever its battery could.
	RatedMW          float64
	GridConnectionMW float64
	// Immediate is the power of the active immediate dispatch, nil when
	// none is active.
	Immediate *float64
	// Target is the wholesale schedule target in force; NextMW the one
	// that will apply at the next block start (dispatch15_setpoint).
	Target Target
	NextMW float64

	// Restrictions active now. Power limits are signed bounds (upper =
	// most discharge, lower = most charge, negative); energy limits the
	// SoC window in MWh. FullyRestricted is restrictions.FullyRestrictedBy.
	MaxPowerMW, MinPowerMW     *float64
	MinEnergyMWh, MaxEnergyMWh *float64
	Unavailable                bool
	FullyRestricted            bool

	// Awards (MW magnitudes) and the TSO's signed aFRR activation.
	FCRReservedMW     float64
	AFRRReservedPosMW float64
	AFRRReservedNegMW float64
	AFRRSetpointMW    float64
	FCRBuffer         float64

	// The energy the battery can still deliver and still absorb, MWh on
	// the AC side: its last measured available_discharge_energy and
	// available_charge_energy (EnergyKnown false before the first
	// measurement). While FCR is reserved they keep its energy reserve in
	// the state of charge (ReserveBand).
	EnergyKnown           bool
	AvailableDischargeMWh float64
	AvailableChargeMWh    float64
}

// Decision is what Decide makes of Inputs.
type Decision struct {
	Command telemetry.Command
	// EffectiveMW is the wholesale target after the headroom rule: the
	// commanded battery power in bess_only, the commanded point-of-
	// connection power in the PoC modes, the immediate dispatch's power
	// while one is active.
	EffectiveMW float64
	Clipped     bool
	// Reason says why a target was clipped (empty otherwise).
	Reason string
	// Overridden is true while an immediate dispatch is active.
	Overridden bool
	// AFRRSetMW is the aFRR setpoint the command carries after FilterAFRR;
	// AFRRFilter and AFRRDetails say why it is less than the share (an
	// afrrreport filter reason; "" when it is not).
	AFRRSetMW               float64
	AFRRFilter, AFRRDetails string
}

// Headroom is the wholesale headroom of in: rated power (no more than
// the grid connection) narrowed by the power limits, nothing under
// unavailability or a full restriction, and the reservations.
func Headroom(in Inputs) dispatch.Headroom {
	available := in.availableMW()
	h := dispatch.Headroom{
		UpperMW: available, LowerMW: -available,
		FCRReservedMW: in.FCRReservedMW, FCRBuffer: in.FCRBuffer,
		AFRRReservedPosMW: in.AFRRReservedPosMW, AFRRReservedNegMW: in.AFRRReservedNegMW,
	}
	if in.Unavailable || in.FullyRestricted {
		h.UpperMW, h.LowerMW = 0, 0
		return h
	}
	if in.MaxPowerMW != nil {
		h.UpperMW = math.Min(h.UpperMW, *in.MaxPowerMW)
	}
	if in.MinPowerMW != nil {
		h.LowerMW = math.Max(h.LowerMW, *in.MinPowerMW)
	}
	return h
}

// availableMW is the most power the asset can move either way without
// restrictions: its usable power capacity, or its grid connection when
// that is smaller.
func (in Inputs) availableMW() float64 {
	if in.GridConnectionMW > 0 && in.GridConnectionMW < in.RatedMW {
		return in.GridConnectionMW
	}
	return in.RatedMW
}

// Clip reasons of the schedule dispatch report.
const (
	ReasonUnavailable    = "asset unavailable: clamped to 0 MW"
	ReasonPowerLimit     = "capped by an active power limit"
	ReasonRated          = "capped to the usable power capacity"
	ReasonGridConnection = "capped to the grid connection power"
	ReasonReserved       = "capped to the available power less reserved FCR (with the regulatory buffer) and aFRR capacity"
	ReasonFCRReserve     = "capped to keep the FCR energy reserve (FCR x 0.25 h each way) in the state of charge"
)

// stepHours is how long a decision holds: Decide runs every second.
const stepHours = 1.0 / 3600

// ReserveBand is the range of wholesale power that keeps the state of
// charge inside the FCR reserve band while FCR is awarded: at least FCR
// x 0.25 h of energy left to deliver (above the minimum) and to absorb
// (below the maximum) once this second's wholesale power has moved it.
// A side already at or beyond its edge gets 0 MW, the other side is free
// to bring it back. ok is false, and nothing is bounded, without an FCR
// award or a finite measurement of the energies.
func (in Inputs) ReserveBand() (lower, upper float64, ok bool) {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if in.FCRReservedMW <= 0 || !in.EnergyKnown || !finite(in.AvailableDischargeMWh) || !finite(in.AvailableChargeMWh) {
		return 0, 0, false
	}
	reserve := in.FCRReservedMW * feasibility.FCRReserveHours
	upper = math.Max(0, (in.AvailableDischargeMWh-reserve)/stepHours)
	lower = -math.Max(0, (in.AvailableChargeMWh-reserve)/stepHours)
	return lower, upper, true
}

// Decide builds the asset's complete command. An active immediate
// dispatch is an unrestricted override (document 2): bess_only at its
// power with no limits, unavailability, energy window, reservations or
// aFRR setpoint. Otherwise the schedule target is clipped by the headroom
// rule, and while FCR is awarded by the FCR reserve band (ReserveBand),
// and sent with the reservations, the aFRR setpoint (within the award),
// the limits, the unavailability and the energy window.
func Decide(in Inputs) Decision {
	share := math.Max(-in.AFRRReservedNegMW, math.Min(in.AFRRReservedPosMW, in.AFRRSetpointMW))
	if in.Immediate != nil {
		d := Decision{
			Command: telemetry.Command{
				ControlMode: telemetry.BESSOnly, BESSPowerMW: *in.Immediate, Dispatch15PowerMW: in.NextMW,
			},
			EffectiveMW: *in.Immediate,
			Overridden:  true,
		}
		if share != 0 {
			d.AFRRFilter, d.AFRRDetails = afrrreport.ReasonImmediateDispatch, "an immediate dispatch overrides every reserve"
		}
		return d
	}
	afrrSet, afrrFilter, afrrDetails := FilterAFRR(in, share)
	h := Headroom(in)
	cmd := telemetry.Command{
		ControlMode:       in.Target.Mode,
		Dispatch15PowerMW: in.NextMW,
		FCRReservedMW:     in.FCRReservedMW,
		AFRRReservedPosMW: in.AFRRReservedPosMW,
		AFRRReservedNegMW: in.AFRRReservedNegMW,
		AFRRSetpointMW:    afrrSet,
		MaxPowerMW:        in.MaxPowerMW,
		MinPowerMW:        in.MinPowerMW,
		Unavailable:       in.Unavailable,
		MinEnergyMWh:      in.MinEnergyMWh,
		MaxEnergyMWh:      in.MaxEnergyMWh,
	}
	if cmd.ControlMode == "" {
		cmd.ControlMode = telemetry.Passive
	}
	lower, upper, banded := in.ReserveBand()
	clip := func(mw float64) (effective float64, clipped, byBand bool) {
		effective, clipped = h.Clip(mw)
		if banded {
			if b := math.Min(upper, math.Max(lower, effective)); b != effective {
				return b, true, true
			}
		}
		return effective, clipped, false
	}
	d := Decision{AFRRSetMW: afrrSet, AFRRFilter: afrrFilter, AFRRDetails: afrrDetails}
	var byBand bool
	d.EffectiveMW, d.Clipped, byBand = clip(in.Target.RequestedMW())
	switch {
	case byBand:
		d.Reason = ReasonFCRReserve
	case d.Clipped:
		d.Reason = clipReason(in, h)
	}
	switch {
	case in.Target.pocMode():
		poc := d.EffectiveMW
		cmd.PoCPowerMW = &poc
		if in.Target.BESSPowerMW != nil {
			cmd.BESSPowerMW, _, _ = clip(*in.Target.BESSPowerMW)
		}
	case cmd.ControlMode == telemetry.BESSOnly:
		cmd.BESSPowerMW = d.EffectiveMW
	}
	d.Command = cmd
	return d
}

// clipReason names the tightest rule that cut the target: unavailability,
// the reservations, or on the side the target was cut a power limit, the
// grid connection or the rated power.
func clipReason(in Inputs, h dispatch.Headroom) string {
	if in.Unavailable || in.FullyRestricted {
		return ReasonUnavailable
	}
	requested := in.Target.RequestedMW()
	bare := h
	bare.FCRReservedMW, bare.AFRRReservedPosMW, bare.AFRRReservedNegMW = 0, 0, 0
	if _, clipped := bare.Clip(requested); !clipped {
		return ReasonReserved
	}
	available, reason := in.availableMW(), ReasonRated
	if available < in.RatedMW {
		reason = ReasonGridConnection
	}
	if requested > 0 && in.MaxPowerMW != nil && *in.MaxPowerMW < available ||
		requested < 0 && in.MinPowerMW != nil && *in.MinPowerMW > -available {
		return ReasonPowerLimit
	}
	return reason
}

// Outcome reasons of the schedule dispatch report.
const (
	ReasonImmediateActive = "immediate_dispatch_active"
	ReasonControlDisabled = "control_disabled"
	ReasonSendFailed      = "send_failed"
	ReasonNotControlled   = "asset_not_controlled"
	ReasonUnreachable     = "asset_unreachable"
	ReasonSkipped         = "not_executed: the control loop resumed after the event's time"
)

// Judge is the report status of a schedule event executed with decision
// d, as document 1 defines them: rejected while an immediate dispatch
// overrides the schedule or the asset is unavailable (a non-zero target
// held at 0 MW), failed when the battery may not be steered, its adapter
// cannot reach it (connected false: nothing was sent) or the command did
// not reach it, otherwise full or clipped by the headroom rule.
func Judge(d Decision, control, connected bool, sendErr error) (dispatch.Status, string) {
	switch {
	case d.Overridden:
		return dispatch.Rejected, ReasonImmediateActive
	case d.Clipped && d.Reason == ReasonUnavailable:
		return dispatch.Rejected, ReasonUnavailable
	case !control:
		return dispatch.Failed, ReasonControlDisabled
	case !connected:
		return dispatch.Failed, ReasonUnreachable
	case sendErr != nil:
		return dispatch.Failed, ReasonSendFailed + ": " + sendErr.Error()
	case d.Clipped:
		return dispatch.Clipped, d.Reason
	}
	return dispatch.Full, ""
}
