// Package feasibility judges whether an asset can deliver everything it is
// committed to across markets at once: FCR (symmetric), aFRR (capacity and
// energy, per direction) and the scheduled wholesale power, per 15-minute
// period, against its usable power and usable energy. It is plain Go with
// no HTTP and no SQL; the bid engine (warnings, and 409 under
// strict_validation), scheduled dispatch (warnings) and planned state
// (the feasibility list) call it. The rules are in docs/feasibility.md.
//
// Power, per period and side:
//
//	discharge: FCR + aFRR pos + max(schedule, 0)  <= usable power
//	charge:    FCR + aFRR neg + max(-schedule, 0) <= usable power
//
// where aFRR of a side is the larger of its capacity commitment and its
// energy bids (energy bids cover the capacity obligation; beyond it they
// are activatable on their own) and schedule is the most the scheduled
// wholesale power asks of that side at any instant of the period.
//
// Energy, per tender block (4 hours; 3 or 5 on the clock-change days), in
// stored energy:
//
//	FCR x 0.25 h x (1/discharge_efficiency + charge_efficiency)
//	+ sum over the block's periods of aFRR pos x 0.25 h / discharge_efficiency
//	+ sum over the block's periods of aFRR neg x 0.25 h x charge_efficiency
//	<= usable energy
//
// The first term is FCR's 15-minute criterion in both directions, the
// others full activation of every aFRR period of the block. Since the
// state of charge at the block start is one figure, the discharge side
// (energy held above the minimum) and the charge side (room held below the
// maximum) must fit in the usable energy together.
package feasibility
