package replay

import (
	"math"
	"slices"
	"sort"
)

// ActivationModel turns a quarter-hour's grid frequency statistics into
// the modelled German activated aFRR of each direction (average MW over
// the quarter-hour); both directions can be activated in one
// quarter-hour. No activated volumes were published for the replayed days
// (data/SOURCES.md sections 3 and 9), so the model is calibrated on the
// real German activation of 2024-02-04/05 (Calibrate).
type ActivationModel struct {
	// DeadbandPosHz: positive aFRR is activated in a quarter-hour whose
	// lowest frequency lies more than this below 50 Hz (the system was
	// short at some moment); DeadbandNegHz: negative aFRR when the highest
	// lies more than this above.
	DeadbandPosHz, DeadbandNegHz float64
	// Pos and Neg map an activated quarter-hour's strength (Strength) onto
	// its volume.
	Pos, Neg VolumeCurve
}

// VolumeCurve maps a strength (Hz) onto an activated volume (MW):
// StrengthHz ascending, MW non-decreasing, linear in between and constant
// beyond the ends.
type VolumeCurve struct {
	StrengthHz, MW []float64
}

// At reads the curve at strength s (0 MW for an empty curve).
func (c VolumeCurve) At(s float64) float64 {
	n := len(c.StrengthHz)
	switch {
	case n == 0:
		return 0
	case s <= c.StrengthHz[0]:
		return c.MW[0]
	case s >= c.StrengthHz[n-1]:
		return c.MW[n-1]
	}
	i := sort.SearchFloat64s(c.StrengthHz, s) // StrengthHz[i-1] < s <= StrengthHz[i]
	t := (s - c.StrengthHz[i-1]) / (c.StrengthHz[i] - c.StrengthHz[i-1])
	return c.MW[i-1] + t*(c.MW[i]-c.MW[i-1])
}

// Volumes is the modelled German activated aFRR of a quarter-hour, pos and
// neg (MW): 0 where the frequency stayed within the direction's deadband,
// else the direction's curve at the quarter-hour's strength.
func (m ActivationModel) Volumes(f Frequency) (posMW, negMW float64) {
	if activates(f, Pos, m.DeadbandPosHz) {
		posMW = m.Pos.At(Strength(f, Pos, m.DeadbandPosHz))
	}
	if activates(f, Neg, m.DeadbandNegHz) {
		negMW = m.Neg.At(Strength(f, Neg, m.DeadbandNegHz))
	}
	return posMW, negMW
}

// activates says whether the frequency left the deadband of dir.
func activates(f Frequency, dir Direction, deadbandHz float64) bool {
	if dir == Pos {
		return NominalHz-f.MinHz > deadbandHz
	}
	return f.MaxHz-NominalHz > deadbandHz
}

// Strength is how far, on average over the quarter-hour, the frequency
// lay beyond the deadband in the direction's sense (Hz): with the
// frequency taken as normal with the quarter-hour's mean and standard
// deviation, the expected shortfall below 50 Hz - deadband (pos) or excess
// above 50 Hz + deadband (neg). It grows as the mean moves that way and
// as the frequency spreads.
func Strength(f Frequency, dir Direction, deadbandHz float64) float64 {
	d := NominalHz - deadbandHz - f.MeanHz
	if dir == Neg {
		d = f.MeanHz - NominalHz - deadbandHz
	}
	if f.StdHz <= 0 {
		return max(d, 0)
	}
	z := d / f.StdHz
	return d*0.5*math.Erfc(-z/math.Sqrt2) + f.StdHz*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
}

// DeadbandStepHz is the half resolution of the frequency statistics
// (1 mHz): a fitted deadband lies midway between two observed deviations,
// or this far beyond the extreme ones.
const DeadbandStepHz = 0.0005

// Calibrate fits the activation model to the real activated volumes
// (activated, 2024) over the quarter-hours whose frequency statistics are
// freq (the replayed days). Per direction:
//
//   - the deadband is chosen so that the share of freq's quarter-hours
//     leaving it is the share of activated's quarter-hours with activation
//     of that direction (as near as the data allow);
//   - the quarter-hours leaving it are ranked by Strength, and the one at
//     rank quantile q gets the q-quantile (linear interpolation) of the
//     real non-zero volumes of that direction; quarter-hours of equal
//     strength share the mean of their quantiles.
//
// So more deviation never activates less, and the modelled volumes have
// the real distribution. The result does not depend on the order of
// either input.
func Calibrate(freq []Frequency, activated []Activation) ActivationModel {
	var realPos, realNeg []float64
	for _, a := range activated {
		if a.PosMW > 0 {
			realPos = append(realPos, a.PosMW)
		}
		if a.NegMW > 0 {
			realNeg = append(realNeg, a.NegMW)
		}
	}
	below := make([]float64, len(freq))
	above := make([]float64, len(freq))
	for i, f := range freq {
		below[i], above[i] = NominalHz-f.MinHz, f.MaxHz-NominalHz
	}
	n := float64(max(len(activated), 1))
	var m ActivationModel
	m.DeadbandPosHz = fitDeadband(below, float64(len(realPos))/n)
	m.DeadbandNegHz = fitDeadband(above, float64(len(realNeg))/n)
	m.Pos = fitCurve(freq, Pos, m.DeadbandPosHz, realPos)
	m.Neg = fitCurve(freq, Neg, m.DeadbandNegHz, realNeg)
	return m
}

// fitDeadband returns the deadband whose exceedance share over devs is
// nearest to share; of equally near ones, the smallest.
func fitDeadband(devs []float64, share float64) float64 {
	if len(devs) == 0 {
		return 0
	}
	vals := slices.Clone(devs)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	candidates := []float64{vals[0] - DeadbandStepHz}
	for i := 1; i < len(vals); i++ {
		candidates = append(candidates, (vals[i-1]+vals[i])/2)
	}
	candidates = append(candidates, vals[len(vals)-1]+DeadbandStepHz)
	best, bestErr := candidates[0], math.Inf(1)
	for _, c := range candidates {
		n := 0
		for _, d := range devs {
			if d > c {
				n++
			}
		}
		if e := math.Abs(float64(n)/float64(len(devs)) - share); e < bestErr {
			best, bestErr = c, e
		}
	}
	return best
}

// fitCurve maps the strengths of freq's quarter-hours leaving the
// deadband onto the quantiles of the real volumes.
func fitCurve(freq []Frequency, dir Direction, deadbandHz float64, real []float64) VolumeCurve {
	var s []float64
	for _, f := range freq {
		if activates(f, dir, deadbandHz) {
			s = append(s, Strength(f, dir, deadbandHz))
		}
	}
	slices.Sort(s)
	real = slices.Clone(real)
	slices.Sort(real)
	var c VolumeCurve
	for i := 0; i < len(s); {
		sum, j := 0.0, i
		for ; j < len(s) && s[j] == s[i]; j++ {
			q := 0.5
			if len(s) > 1 {
				q = float64(j) / float64(len(s)-1)
			}
			sum += quantile(real, q)
		}
		c.StrengthHz = append(c.StrengthHz, s[i])
		c.MW = append(c.MW, sum/float64(j-i))
		i = j
	}
	return c
}

// quantile reads the q-quantile (0..1) of ascending values.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}
