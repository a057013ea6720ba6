package nomination

import "testing"

func TestValidEIC(t *testing.T) {
	for _, tc := range []struct {
		eic  string
		want bool
	}{
		{"10YDE-VE-------2", true}, // 50Hertz
		{"10YDE-EON------1", true}, // TenneT
		{"10YDE-RWENET---I", true}, // Amprion
		{"10YDE-ENBW-----N", true}, // TransnetBW
		{"10YDE-VE-------3", false},
		{"10YDE-VE-------", false},
		{"10yde-ve-------2", false},
	} {
		if got := ValidEIC(tc.eic); got != tc.want {
			c, _ := EICCheck(tc.eic[:min(len(tc.eic), 15)])
			t.Errorf("ValidEIC(%q) = %v, want %v (check %q)", tc.eic, got, tc.want, c)
		}
	}
}
