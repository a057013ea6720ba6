package segmentation

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAllocate(t *testing.T) {
	three := []float64{0.5, 0.3, 0.2}
	tests := []struct {
		name      string
		mode      Mode
		shares    []float64
		total     float64
		requested []float64
		want      []float64
	}{
		{"exact cover proportional", Proportional, three, 10, []float64{5, 3, 2}, []float64{5, 3, 2}},
		{"exact cover priority", Priority, three, 10, []float64{5, 3, 2}, []float64{5, 3, 2}},
		{"shortfall proportional: 2 MW cut 1/0.6/0.4", Proportional, three, 8, []float64{5, 3, 2}, []float64{4, 2.4, 1.6}},
		{"shortfall priority: lowest rank loses first", Priority, three, 8, []float64{5, 3, 2}, []float64{5, 3, 0}},
		{"deep shortfall priority", Priority, three, 6, []float64{5, 3, 2}, []float64{5, 1, 0}},
		{"deep shortfall proportional", Proportional, three, 6, []float64{5, 3, 2}, []float64{3, 1.8, 1.2}},
		{"clamp in priority", Priority, []float64{0.5, 0.5}, 6, []float64{1, 9}, []float64{1, 5}},
		{"state disaggregation: 12 of 20 MWh proportional", Proportional, three, 12, []float64{10, 6, 4}, []float64{6, 3.6, 2.4}},
		{"state disaggregation: 12 of 20 MWh priority", Priority, three, 12, []float64{10, 6, 4}, []float64{10, 2, 0}},
		{"clamped segment passes its cut on", Proportional, []float64{0.5, 0.5}, 6, []float64{1, 9}, []float64{0, 6}},
		{"surplus split by share in proportional", Proportional, []float64{0.5, 0.5}, 5, []float64{1, 2}, []float64{2, 3}},
		{"surplus split by share in priority", Priority, []float64{0.25, 0.75}, 7, []float64{1, 2}, []float64{2, 5}},
		{"charging proportional", Proportional, three, -8, []float64{-5, -3, -2}, []float64{-4, -2.4, -1.6}},
		{"charging priority", Priority, three, -8, []float64{-5, -3, -2}, []float64{-5, -3, 0}},
		{"opposite-sign request counts as zero", Proportional, []float64{0.5, 0.5}, -4, []float64{2, -5}, []float64{0, -4}},
		{"nothing available", Proportional, three, 0, []float64{5, 3, 2}, []float64{0, 0, 0}},
		{"nothing requested: split by share", Priority, three, 10, []float64{0, 0, 0}, []float64{5, 3, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Allocate(tc.mode, tc.shares, tc.total, tc.requested)
			for i := range tc.want {
				if !near(got[i], tc.want[i]) {
					t.Fatalf("Allocate = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// FuzzAllocate checks the invariants of both modes: the parts add up to
// the total, carry its sign, and no segment gets more than its request
// while there is a shortfall.
func FuzzAllocate(f *testing.F) {
	f.Add(0.3, 8.0, 5.0, 3.0, 2.0)
	f.Add(0.5, -6.0, -1.0, -9.0, 0.0)
	f.Fuzz(func(t *testing.T, share, total, r0, r1, r2 float64) {
		for _, x := range []float64{share, total, r0, r1, r2} {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e6 {
				return
			}
		}
		if share <= 0.01 || share >= 0.98 {
			return
		}
		shares := []float64{share, (1 - share) / 2, (1 - share) / 2}
		req := []float64{r0, r1, r2}
		for _, mode := range Modes {
			got := Allocate(mode, shares, total, req)
			sum, sumReq := 0.0, 0.0
			for i, g := range got {
				sum += g
				if g*total < 0 {
					t.Fatalf("%s: part %d = %v has the wrong sign for total %v", mode, i, g, total)
				}
				sumReq += math.Max(0, math.Copysign(1, total)*req[i])
			}
			if math.Abs(sum-total) > 1e-6*math.Max(1, math.Abs(total)) {
				t.Fatalf("%s: parts %v add up to %v, want %v", mode, got, sum, total)
			}
			if math.Abs(total) < sumReq {
				for i, g := range got {
					if math.Abs(g) > math.Max(0, math.Copysign(1, total)*req[i])+1e-6 {
						t.Fatalf("%s: part %d = %v exceeds its request %v in a shortfall", mode, i, g, req[i])
					}
				}
			}
		}
	})
}

func TestDisaggregate(t *testing.T) {
	seg := Segmentation{Segments: []Segment{{ID: "a", Share: 0.5}, {ID: "b", Share: 0.3}, {ID: "c", Share: 0.2}}}
	tests := []struct {
		mode            Mode
		value, capacity float64
		want            []float64
	}{
		{Proportional, 12, 20, []float64{6, 3.6, 2.4}},
		{Priority, 12, 20, []float64{10, 2, 0}},
		{Priority, -4, 10, []float64{-4, 0, 0}},
		{Proportional, -4, 10, []float64{-2, -1.2, -0.8}},
		{Priority, 20, 20, []float64{10, 6, 4}},
	}
	for _, tc := range tests {
		seg.Mode = tc.mode
		got := seg.Disaggregate(tc.value, tc.capacity)
		for i := range tc.want {
			if !near(got[i], tc.want[i]) {
				t.Errorf("%s Disaggregate(%v, %v) = %v, want %v", tc.mode, tc.value, tc.capacity, got, tc.want)
				break
			}
		}
	}
}
