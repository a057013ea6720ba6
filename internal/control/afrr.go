package control

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"atcp/internal/markets/calendar"
	"atcp/internal/reporting/afrrreport"
)

// afrrSwing is the relative amplitude of the aFRR setpoint's swing
// around the quarter-hour's average activation.
const afrrSwing = 0.2

// AFRRSetpoint is the TSO's aFRR setpoint at t for an average activation
// of activatedMW (signed) in t's quarter-hour and the awards posMW and
// negMW: one slow sine swing of up to +-20 % around the average, whose
// mean over the quarter-hour is exactly the average, so that the energy
// delivered is the energy activated. The swing is narrowed so that it
// never leaves the award (clamping its peaks would lose energy); an
// average beyond the award is cut to the award.
func AFRRSetpoint(activatedMW, posMW, negMW float64, t time.Time) float64 {
	award := posMW
	if activatedMW < 0 {
		award = negMW
	}
	if activatedMW == 0 || award <= 0 {
		return 0
	}
	amplitude := math.Max(0, math.Min(afrrSwing, award/math.Abs(activatedMW)-1))
	sec := float64(t.Unix() % int64(calendar.PeriodLength/time.Second))
	mw := activatedMW * (1 + amplitude*math.Sin(2*math.Pi*sec/calendar.PeriodLength.Seconds()))
	return math.Max(-negMW, math.Min(posMW, mw))
}

// FilterAFRR is what the dispatcher sends of the asset's aFRR share
// setpointMW (signed, within the award) under in's restrictions, and why
// it sends less (an afrrreport filter reason and its details; "" when it
// sends it all): nothing under an unavailability or a full restriction,
// nothing in a direction whose energy is used up (at an energy limit's
// bound: energy_limited, else state_of_charge), at most a power limit's
// bound in its direction. The immediate dispatch, control and
// connectivity are the loop's (Decide, second).
func FilterAFRR(in Inputs, setpointMW float64) (mw float64, reason, details string) {
	switch {
	case setpointMW == 0:
		return 0, "", ""
	case in.Unavailable:
		return 0, afrrreport.ReasonUnavailable, "an unavailability is active"
	case in.FullyRestricted:
		return 0, afrrreport.ReasonUnavailable, "a full power or energy restriction is active"
	}
	if in.EnergyKnown {
		left, bound, side := in.AvailableDischargeMWh, in.MinEnergyMWh, "discharge"
		if setpointMW < 0 {
			left, bound, side = in.AvailableChargeMWh, in.MaxEnergyMWh, "charge"
		}
		if left <= 0 {
			if bound != nil {
				return 0, afrrreport.ReasonEnergyLimited, fmt.Sprintf("no energy left to %s within the energy limit (%s MWh)", side, strconv.FormatFloat(*bound, 'f', -1, 64))
			}
			return 0, afrrreport.ReasonStateOfCharge, fmt.Sprintf("no energy left to %s: the state of charge is at its bound", side)
		}
	}
	if setpointMW > 0 && in.MaxPowerMW != nil && setpointMW > *in.MaxPowerMW {
		mw := math.Max(0, *in.MaxPowerMW)
		return mw, afrrreport.ReasonPowerLimited, fmt.Sprintf("capped by the power limit's upper bound %s MW", strconv.FormatFloat(*in.MaxPowerMW, 'f', -1, 64))
	}
	if setpointMW < 0 && in.MinPowerMW != nil && setpointMW < *in.MinPowerMW {
		mw := math.Min(0, *in.MinPowerMW)
		return mw, afrrreport.ReasonPowerLimited, fmt.Sprintf("capped by the power limit's lower bound %s MW", strconv.FormatFloat(*in.MinPowerMW, 'f', -1, 64))
	}
	return setpointMW, "", ""
}
