package dispatch

import "testing"

func TestHeadroomClip(t *testing.T) {
	rated := Headroom{UpperMW: 10, LowerMW: -10, FCRBuffer: DefaultFCRBuffer}
	withFCR := rated
	withFCR.FCRReservedMW = 2 // holds back 2.5 MW each way
	withAFRR := rated
	withAFRR.AFRRReservedNegMW = 10 // demo-bess: all of its charging power
	limited := rated
	limited.UpperMW, limited.LowerMW = 4, -1
	unavailable := Headroom{FCRBuffer: DefaultFCRBuffer, FCRReservedMW: 1}
	tests := []struct {
		name        string
		h           Headroom
		target      float64
		want        float64
		wantClipped bool
	}{
		{"inside", rated, 5, 5, false},
		{"at the bound", rated, -10, -10, false},
		{"above rated", rated, 12, 10, true},
		{"FCR buffer discharge", withFCR, 9, 7.5, true},
		{"FCR buffer charge", withFCR, -9, -7.5, true},
		{"aFRR neg stops charging", withAFRR, -3, 0, true},
		{"aFRR neg leaves discharging", withAFRR, 6, 6, false},
		{"power limit", limited, -5, -1, true},
		{"power limit inside", limited, 3.5, 3.5, false},
		{"unavailable", unavailable, 2, 0, true},
		{"zero target", unavailable, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, clipped := tc.h.Clip(tc.target)
			if got != tc.want || clipped != tc.wantClipped {
				t.Fatalf("Clip(%v) = %v, %v; want %v, %v", tc.target, got, clipped, tc.want, tc.wantClipped)
			}
		})
	}
}
