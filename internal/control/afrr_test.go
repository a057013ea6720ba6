package control

import (
	"math"
	"testing"
	"time"
)

func TestAFRRSetpointDeliversTheActivatedEnergy(t *testing.T) {
	start := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name                      string
		activated, pos, neg, mean float64
		swings                    bool
	}{
		{name: "well within the award", activated: 2, pos: 5, mean: 2, swings: true},
		// Activated at the full award: the swing may not clip at the
		// award, or the energy delivered falls short.
		{name: "full neg award", activated: -5, neg: 5, mean: -5},
		{name: "near the award", activated: 4.5, pos: 5, mean: 4.5, swings: true},
		{name: "beyond the award", activated: 6, pos: 5, mean: 5},
		{name: "no award in that direction", activated: -3, pos: 5},
		{name: "nothing activated", pos: 5, neg: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sum, lo, hi float64
			lo, hi = math.Inf(1), math.Inf(-1)
			for s := range 900 {
				mw := AFRRSetpoint(tc.activated, tc.pos, tc.neg, start.Add(time.Duration(s)*time.Second))
				if mw > tc.pos+1e-12 || mw < -tc.neg-1e-12 {
					t.Fatalf("second %d: %v outside the award [%v, %v]", s, mw, -tc.neg, tc.pos)
				}
				sum += mw
				lo, hi = math.Min(lo, mw), math.Max(hi, mw)
			}
			if math.Abs(sum/900-tc.mean) > 1e-9 {
				t.Fatalf("mean %v, want %v", sum/900, tc.mean)
			}
			if tc.swings != (hi-lo > 1e-9) {
				t.Fatalf("swing %v..%v", lo, hi)
			}
		})
	}
}
