package pools

import (
	"math"
	"time"

	"atcp/internal/telemetry"
)

// Reading is what the pool state knows of one member at one instant.
type Reading struct {
	AssetID string
	// Latest is the member's latest snapshot, nil when it never reported.
	Latest *telemetry.Measurements
	// Restricted: a full restriction (unavailability, a power limit
	// admitting no power, an empty energy window) is in force now; the
	// asset state then reports asset_status 0, and so does the pool.
	Restricted bool
	// The capacity the member holds now: the power of the SUCCESSFUL FCR
	// and aFRR capacity bids, its own and its virtual assets', whose
	// interval contains the instant (MW, magnitudes).
	FCRMW, AFRRPosMW, AFRRNegMW float64
}

// MemberState is one member's part of the pool state.
type MemberState struct {
	AssetID string
	// MeasuredAt is the instant of the latest snapshot, nil when the
	// member never reported.
	MeasuredAt *time.Time
	// Fresh: the snapshot is at most the staleness age old.
	Fresh bool
	// Available: fresh, reporting a non-zero, finite asset_status, and not
	// fully restricted: the member can deliver now.
	Available bool
	// The member's contributions to the sums (0 unless Fresh) and its
	// reservations (whatever its telemetry).
	PowerActualAC, OperatingPoint, FCRPowerActual, AFRRSetpoint, AFRRPowerActual float64
	FCRReservation, AFRRReservationPos, AFRRReservationNeg                       float64
}

// State is the pool state of document 1 at AsOf, with each member's part.
type State struct {
	PoolID string
	AsOf   time.Time
	// PoolStatus: the pool has members and every one is Available.
	PoolStatus bool
	// FCRPoolStatus: the pool holds FCR capacity now and every member
	// holding some is Available. AFRRPoolStatus likewise for aFRR
	// capacity in either direction.
	FCRPoolStatus, AFRRPoolStatus bool
	// Sums over the fresh members of battery_power_actual_ac,
	// dispatch_setpoint (the operating point the balancing activations
	// deviate from), fcr_power_actual, afrr_setpoint and
	// afrr_power_actual (MW, signed: positive discharges).
	PowerActualAC, OperatingPoint, FCRPowerActual, AFRRSetpoint, AFRRPowerActual float64
	// Sums over every member of the capacity held now (MW, magnitudes);
	// FCR is symmetric, so both of its directions carry the same sum.
	FCRReservationPos, FCRReservationNeg, AFRRReservationPos, AFRRReservationNeg float64
	Members                                                                      []MemberState
}

// Aggregate computes the state of pool poolID at now from its members'
// readings, in member order. A snapshot older than staleAfter is no
// longer a fact about the member: it is not Fresh and adds nothing to the
// measured sums (its reservations still count: they are the market's
// obligations, not measurements). staleAfter 0 never goes stale, as in
// the asset state. A value that is not a finite number adds nothing, and
// such an asset_status makes the member unavailable.
func Aggregate(poolID string, now time.Time, staleAfter time.Duration, readings []Reading) State {
	st := State{PoolID: poolID, AsOf: now, PoolStatus: len(readings) > 0, FCRPoolStatus: true, AFRRPoolStatus: true,
		Members: make([]MemberState, len(readings))}
	var fcrHeld, afrrHeld bool
	for i, r := range readings {
		m := MemberState{AssetID: r.AssetID, FCRReservation: r.FCRMW, AFRRReservationPos: r.AFRRPosMW, AFRRReservationNeg: r.AFRRNegMW}
		if r.Latest != nil {
			ts := r.Latest.Timestamp.UTC()
			m.MeasuredAt = &ts
			m.Fresh = staleAfter <= 0 || now.Sub(ts) <= staleAfter
		}
		if m.Fresh {
			x := r.Latest
			m.Available = finite(x.AssetStatus) != 0 && !r.Restricted
			m.PowerActualAC, m.OperatingPoint = finite(x.BatteryPowerActualAC), finite(x.DispatchSetpoint)
			m.FCRPowerActual, m.AFRRSetpoint, m.AFRRPowerActual = finite(x.FCRPowerActual), finite(x.AFRRSetpoint), finite(x.AFRRPowerActual)
		}
		st.PoolStatus = st.PoolStatus && m.Available
		if r.FCRMW > 0 {
			fcrHeld = true
			st.FCRPoolStatus = st.FCRPoolStatus && m.Available
		}
		if r.AFRRPosMW > 0 || r.AFRRNegMW > 0 {
			afrrHeld = true
			st.AFRRPoolStatus = st.AFRRPoolStatus && m.Available
		}
		st.PowerActualAC += m.PowerActualAC
		st.OperatingPoint += m.OperatingPoint
		st.FCRPowerActual += m.FCRPowerActual
		st.AFRRSetpoint += m.AFRRSetpoint
		st.AFRRPowerActual += m.AFRRPowerActual
		st.FCRReservationPos += r.FCRMW
		st.AFRRReservationPos += r.AFRRPosMW
		st.AFRRReservationNeg += r.AFRRNegMW
		st.Members[i] = m
	}
	st.FCRPoolStatus = st.FCRPoolStatus && fcrHeld
	st.AFRRPoolStatus = st.AFRRPoolStatus && afrrHeld
	st.FCRReservationNeg = st.FCRReservationPos
	for _, p := range []*float64{&st.PowerActualAC, &st.OperatingPoint, &st.FCRPowerActual, &st.AFRRSetpoint, &st.AFRRPowerActual,
		&st.FCRReservationPos, &st.FCRReservationNeg, &st.AFRRReservationPos, &st.AFRRReservationNeg} {
		*p = roundW(*p)
	}
	return st
}

// finite is x, or 0 when x is not a finite number (no JSON number carries
// it, and it is no reading).
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// roundW rounds a sum of MW to the watt, so that adding binary fractions
// shows no noise (0.1 + 0.2 is 0.3), and turns -0 into 0.
func roundW(x float64) float64 { return math.Round(x*1e6)/1e6 + 0 }
