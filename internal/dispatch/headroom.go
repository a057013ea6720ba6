package dispatch

import "math"

// DefaultFCRBuffer scales reserved FCR capacity when it is held back from
// wholesale delivery: a battery prequalified for FCR must keep 25 % more
// power than it offers, to restore its state of charge while activated
// (German TSOs' prequalification conditions for limited energy
// reservoirs). Configurable (ATCP_FCR_POWER_BUFFER).
const DefaultFCRBuffer = 1.25

// Headroom is what bounds a wholesale target at one instant. Bounds are
// signed MW (positive = discharge): UpperMW the most the asset may
// discharge and LowerMW the most it may charge (negative), from its rated
// power narrowed by active power limits, 0 and 0 under a full
// unavailability. Reservations are magnitudes.
type Headroom struct {
	UpperMW, LowerMW  float64
	FCRReservedMW     float64
	FCRBuffer         float64
	AFRRReservedPosMW float64
	AFRRReservedNegMW float64
}

// WholesaleBounds is the range a wholesale target is capped to: the
// available power per direction reduced by the reserved FCR capacity
// scaled by the buffer and by the reserved aFRR capacity of that
// direction. Neither bound crosses zero: reservations can stop a
// direction, never reverse it.
func (h Headroom) WholesaleBounds() (lower, upper float64) {
	fcr := h.FCRReservedMW * h.FCRBuffer
	upper = math.Max(0, h.UpperMW-fcr-h.AFRRReservedPosMW)
	lower = math.Min(0, h.LowerMW+fcr+h.AFRRReservedNegMW)
	return lower, upper
}

// Clip caps a wholesale target to the headroom and reports whether it
// had to be cut.
func (h Headroom) Clip(targetMW float64) (effectiveMW float64, clipped bool) {
	lower, upper := h.WholesaleBounds()
	effectiveMW = math.Min(upper, math.Max(lower, targetMW))
	return effectiveMW, effectiveMW != targetMW
}
