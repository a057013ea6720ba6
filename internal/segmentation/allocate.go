package segmentation

import "math"

// Allocate splits a physical quantity total (MW or MWh, either sign) among
// the segments whose shares are given in ranking order. requested[i] is
// what segment i asks for or is entitled to (for disaggregating a state
// value, share*capacity; for splitting power, the segment's setpoint).
//
// The parts always add up to total:
//   - total covers the requests: every segment gets its request and any
//     surplus is split by share (no segment has priority on a surplus);
//   - shortfall (total below the sum of requests), Proportional: every
//     segment gives up shortfall*share, clamped at zero, and what a
//     clamped segment could not give up is shared by the others pro rata
//     to their shares;
//   - shortfall, Priority: segments are served in ranking order, each up
//     to its request, so the lowest-ranked lose first.
//
// A negative total (charging) is allocated as its magnitude and negated
// back; requests of the opposite sign count as zero. requested must have
// one entry per share; shares are as Validate accepts them.
func Allocate(mode Mode, shares []float64, total float64, requested []float64) []float64 {
	sign := 1.0
	if total < 0 {
		sign, total = -1, -total
	}
	req := make([]float64, len(shares))
	sumReq := 0.0
	for i := range shares {
		req[i] = math.Max(0, sign*requested[i])
		sumReq += req[i]
	}
	out := make([]float64, len(shares))
	switch {
	case total >= sumReq:
		surplus := total - sumReq
		for i, s := range shares {
			out[i] = req[i] + surplus*s
		}
	case mode == Priority:
		left := total
		for i := range shares {
			out[i] = math.Min(req[i], left)
			left -= out[i]
		}
	default:
		proportionalShortfall(out, shares, req, sumReq-total)
	}
	for i := range out {
		out[i] *= sign
	}
	return out
}

// proportionalShortfall removes shortfall from req pro rata to shares,
// never below zero: each round cuts the segments still above zero, and
// the cut a segment cannot take goes round again to the others.
func proportionalShortfall(out, shares, req []float64, shortfall float64) {
	copy(out, req)
	open := make([]bool, len(out))
	for i := range out {
		open[i] = out[i] > 0
	}
	for shortfall > 1e-12 {
		weight := 0.0
		for i, o := range open {
			if o {
				weight += shares[i]
			}
		}
		if weight == 0 {
			return
		}
		left := 0.0
		for i, o := range open {
			if !o {
				continue
			}
			cut := shortfall * shares[i] / weight
			if cut >= out[i] {
				left += cut - out[i]
				out[i], open[i] = 0, false
			} else {
				out[i] -= cut
			}
		}
		shortfall = left
	}
}

// Disaggregate splits a measured value of the physical asset (MW or MWh)
// among the segments by the design's mode, each entitled to its share of
// capacity (the physical capacity of the same unit): the state of a
// virtual asset is its part. The parts are in segment order.
func (s Segmentation) Disaggregate(value, capacity float64) []float64 {
	shares := s.Shares()
	entitled := make([]float64, len(shares))
	for i, share := range shares {
		entitled[i] = math.Copysign(share*capacity, value)
	}
	return Allocate(s.Mode, shares, value, entitled)
}
