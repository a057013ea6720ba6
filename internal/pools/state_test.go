package pools

import (
	"math"
	"reflect"
	"testing"
	"time"

	"atcp/internal/telemetry"
)

func TestAggregate(t *testing.T) {
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	const stale = 5 * time.Second
	snap := func(age time.Duration, status, battery, dispatch, fcr, afrrSet, afrr float64) *telemetry.Measurements {
		return &telemetry.Measurements{Timestamp: now.Add(-age), AssetStatus: status, BatteryPowerActualAC: battery,
			DispatchSetpoint: dispatch, FCRPowerActual: fcr, AFRRSetpoint: afrrSet, AFRRPowerActual: afrr,
			PoCPowerActualAC: 99, DispatchPowerActual: 99} // neither is summed
	}
	type sums struct{ power, operating, fcrActual, afrrSet, afrrActual, fcrRes, afrrPos, afrrNeg float64 }
	type flags struct{ pool, fcr, afrr bool }
	for _, c := range []struct {
		name      string
		now       time.Time
		readings  []Reading
		flags     flags
		sums      sums
		available []bool
	}{
		{"no members", now, nil, flags{}, sums{}, []bool{}},
		{"two fresh members add up", now, []Reading{
			{AssetID: "a", Latest: snap(time.Second, 1, 4, 3, 0.5, 0.25, 0.5), FCRMW: 2},
			{AssetID: "b", Latest: snap(0, 1, -2, -1.5, -0.25, 1, 0.5), AFRRPosMW: 3, AFRRNegMW: 1},
		}, flags{true, true, true}, sums{2, 1.5, 0.25, 1.25, 1, 2, 3, 1}, []bool{true, true}},
		{"binary fractions show no noise", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, 0.1, 0, 0, 0, 0)}, {AssetID: "b", Latest: snap(0, 1, 0.2, 0, 0, 0, 0)},
		}, flags{pool: true}, sums{power: 0.3}, []bool{true, true}},
		{"a member that never reported adds 0 and the pool is not ready", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, 4, 4, 0, 0, 0)}, {AssetID: "new"},
		}, flags{}, sums{power: 4, operating: 4}, []bool{true, false}},
		{"a stale member adds no measurement but keeps its reservation", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, 4, 4, 0, 0, 0)}, {AssetID: "gone", Latest: snap(stale+time.Microsecond, 1, 7, 7, 1, 1, 1), FCRMW: 5},
		}, flags{}, sums{power: 4, operating: 4, fcrRes: 5}, []bool{true, false}},
		{"exactly the staleness age is still fresh", now, []Reading{
			{AssetID: "a", Latest: snap(stale, 1, 4, 0, 0, 0, 0)},
		}, flags{pool: true}, sums{power: 4}, []bool{true}},
		{"asset_status 0 counts its measurements but is not available", now, []Reading{
			{AssetID: "a", Latest: snap(0, 0, 4, 0, 0, 0, 0)},
		}, flags{}, sums{power: 4}, []bool{false}},
		{"a code other than 1 is tradeable", now, []Reading{
			{AssetID: "a", Latest: snap(0, 3, 4, 0, 0, 0, 0)},
		}, flags{pool: true}, sums{power: 4}, []bool{true}},
		{"fully restricted is not available", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, 0, 0, 0, 0, 0), Restricted: true},
		}, flags{}, sums{}, []bool{false}},
		{"FCR status looks only at the members holding FCR", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, 0, 0, 0, 0, 0), FCRMW: 2}, {AssetID: "b", Latest: snap(0, 0, 0, 0, 0, 0, 0), AFRRNegMW: 4},
		}, flags{fcr: true}, sums{fcrRes: 2, afrrNeg: 4}, []bool{true, false}},
		{"a holder of FCR that is unavailable", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, 0, 0, 0, 0, 0), FCRMW: 2}, {AssetID: "b", FCRMW: 1, AFRRPosMW: 1},
		}, flags{}, sums{fcrRes: 3, afrrPos: 1}, []bool{true, false}},
		{"no reservation: no FCR or aFRR status, however ready", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, 0, 0, 0, 0, 0)},
		}, flags{pool: true}, sums{}, []bool{true}},
		{"values that are not finite add nothing; such a status is unavailable", now, []Reading{
			{AssetID: "a", Latest: snap(0, math.NaN(), math.Inf(1), math.NaN(), math.Inf(-1), math.NaN(), 2)},
			{AssetID: "b", Latest: snap(0, math.Inf(1), 1, 0, 0, 0, 0)},
		}, flags{}, sums{power: 1, afrrActual: 2}, []bool{false, false}},
		{"opposite powers that cancel are 0, not -0", now, []Reading{
			{AssetID: "a", Latest: snap(0, 1, -0.1, 0, 0, 0, 0)}, {AssetID: "b", Latest: snap(0, 1, 0.1, 0, 0, 0, 0)},
		}, flags{pool: true}, sums{}, []bool{true, true}},
		// Ages are real durations: across the spring-forward jump
		// (02:00 CET to 03:00 CEST at 01:00Z) a snapshot stamped 01:59:59
		// CET is 3 s old at 03:00:02 CEST.
		{"across the spring-forward jump", time.Date(2026, 3, 29, 1, 0, 2, 0, time.UTC), []Reading{
			{AssetID: "a", Latest: &telemetry.Measurements{Timestamp: time.Date(2026, 3, 29, 0, 59, 59, 0, time.UTC), AssetStatus: 1, BatteryPowerActualAC: 1}},
		}, flags{pool: true}, sums{power: 1}, []bool{true}},
		// ... and at the second 02:00 of the fall-back day the first is an
		// hour old.
		{"across the fall-back repetition", time.Date(2026, 10, 25, 1, 0, 1, 0, time.UTC), []Reading{
			{AssetID: "a", Latest: &telemetry.Measurements{Timestamp: time.Date(2026, 10, 25, 0, 0, 1, 0, time.UTC), AssetStatus: 1, BatteryPowerActualAC: 1}},
		}, flags{}, sums{}, []bool{false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := Aggregate("p", c.now, stale, c.readings)
			if st.PoolID != "p" || !st.AsOf.Equal(c.now) || len(st.Members) != len(c.readings) {
				t.Fatalf("state %+v", st)
			}
			if got := (flags{st.PoolStatus, st.FCRPoolStatus, st.AFRRPoolStatus}); got != c.flags {
				t.Errorf("flags %+v, want %+v", got, c.flags)
			}
			got := sums{st.PowerActualAC, st.OperatingPoint, st.FCRPowerActual, st.AFRRSetpoint, st.AFRRPowerActual,
				st.FCRReservationPos, st.AFRRReservationPos, st.AFRRReservationNeg}
			if got != c.sums || st.FCRReservationNeg != st.FCRReservationPos {
				t.Errorf("sums %+v (FCR neg %v), want %+v", got, st.FCRReservationNeg, c.sums)
			}
			for _, x := range []float64{got.power, got.operating, got.fcrActual, got.afrrSet, got.afrrActual} {
				if math.Signbit(x) && x == 0 {
					t.Errorf("a sum is -0: %+v", got)
				}
			}
			available := make([]bool, len(st.Members))
			for i, m := range st.Members {
				available[i] = m.Available
				r := c.readings[i]
				if m.AssetID != r.AssetID || (m.MeasuredAt == nil) != (r.Latest == nil) ||
					m.FCRReservation != r.FCRMW || m.AFRRReservationPos != r.AFRRPosMW || m.AFRRReservationNeg != r.AFRRNegMW {
					t.Errorf("member %d: %+v", i, m)
				}
				if !m.Fresh && (m.PowerActualAC != 0 || m.OperatingPoint != 0 || m.AFRRPowerActual != 0) {
					t.Errorf("member %d is not fresh but contributes: %+v", i, m)
				}
			}
			if !reflect.DeepEqual(available, c.available) {
				t.Errorf("available %v, want %v", available, c.available)
			}
		})
	}
}

// A staleness age of 0 never goes stale, as in the asset state.
func TestAggregateWithoutStaleness(t *testing.T) {
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	st := Aggregate("p", now, 0, []Reading{{AssetID: "a", Latest: &telemetry.Measurements{Timestamp: now.Add(-24 * time.Hour), AssetStatus: 1, BatteryPowerActualAC: 2}}})
	if !st.PoolStatus || st.PowerActualAC != 2 || !st.Members[0].Fresh {
		t.Fatalf("%+v", st)
	}
}
