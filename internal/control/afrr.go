package control

import (
	"math"
	"time"

	"atcp/internal/markets/calendar"
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
