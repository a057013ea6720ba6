package assetstate

import (
	"math"
	"testing"

	"atcp/internal/segmentation"
	"atcp/internal/telemetry"
)

func design(mode segmentation.Mode, shares ...float64) segmentation.Segmentation {
	d := segmentation.Segmentation{Mode: mode, Status: segmentation.Active}
	for i, s := range shares {
		d.Segments = append(d.Segments, segmentation.Segment{ID: string(rune('a' + i)), Share: s})
	}
	return d
}

// parts is every segment's value of name.
func parts(d segmentation.Segmentation, powerMW, energyMWh float64, name string, v float64) []float64 {
	out := make([]float64, len(d.Segments))
	for i := range d.Segments {
		out[i] = Split{Design: d, Index: i, PowerMW: powerMW, EnergyMWh: energyMWh}.Value(name, v)
	}
	return out
}

func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// TestSplitValue: each class of measurement, both modes, both signs, a
// battery of 10 MW and 20 MWh split 0.5 / 0.3 / 0.2.
func TestSplitValue(t *testing.T) {
	prop := design(segmentation.Proportional, 0.5, 0.3, 0.2)
	prio := design(segmentation.Priority, 0.5, 0.3, 0.2)
	tests := []struct {
		name  string
		d     segmentation.Segmentation
		point string
		value float64
		want  []float64
	}{
		{"power proportional", prop, "battery_power_actual_ac", 8, []float64{4, 2.4, 1.6}},
		{"power priority", prio, "battery_power_actual_ac", 8, []float64{5, 3, 0}},
		{"charging priority", prio, "dispatch_power_actual", -6, []float64{-5, -1, 0}},
		{"power above capacity", prio, "poc_power_actual_ac", 12, []float64{6, 3.6, 2.4}},
		{"headroom priority", prio, "available_power_discharge", 4, []float64{4, 0, 0}},
		{"energy priority", prio, "available_discharge_energy", 12, []float64{10, 2, 0}},
		{"energy alias", prio, "available_soc_discharge", 12, []float64{10, 2, 0}},
		{"energy proportional", prop, "available_charge_energy", 12, []float64{6, 3.6, 2.4}},
		{"reservation limit by share", prio, "afrr_lower_limit", -5, []float64{-2.5, -1.5, -1}},
		{"soc window by share", prio, "soc_min", 2, []float64{1, 0.6, 0.4}},
		{"counter by share", prio, "discharge_throughput", 100, []float64{50, 30, 20}},
		{"status unchanged", prio, "asset_status", 1, []float64{1, 1, 1}},
		{"frequency unchanged", prop, "frequency", 49.98, []float64{49.98, 49.98, 49.98}},
		{"percent unchanged", prop, "export_curtailment_dso", 40, []float64{40, 40, 40}},
		{"cycles unchanged", prop, "actual_battery_cycles", 3.5, []float64{3.5, 3.5, 3.5}},
		{"irradiance unchanged", prop, "pv_irradiance", 800, []float64{800, 800, 800}},
		{"pv power", prop, "pv_power_dc_actual", 5, []float64{2.5, 1.5, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parts(tc.d, 10, 20, tc.point, tc.value); !near(got, tc.want) {
				t.Fatalf("%s = %v: got %v, want %v", tc.point, tc.value, got, tc.want)
			}
		})
	}
	if got := (Split{Design: prop}).Value("soc_max", math.NaN()); !math.IsNaN(got) {
		t.Fatalf("NaN became %v", got)
	}
	// Without recorded capacities every allocated value is split by share.
	if got := parts(prio, 0, 0, "battery_power_actual_ac", 10); !near(got, []float64{5, 3, 2}) {
		t.Fatalf("no capacity: %v", got)
	}
}

// TestSplitAddsUp: for every measurement that is not passed through, the
// parts of the segments add up to the physical value.
func TestSplitAddsUp(t *testing.T) {
	for _, d := range []segmentation.Segmentation{design(segmentation.Proportional, 0.25, 0.75), design(segmentation.Priority, 0.6, 0.3, 0.1)} {
		for _, name := range telemetry.PointNames() {
			if scalings[name] == unchanged {
				continue
			}
			for _, v := range []float64{-13, -7.5, -0.2, 0, 0.3, 4, 9.99, 25} {
				sum := 0.0
				for _, p := range parts(d, 10, 20, name, v) {
					sum += p
				}
				if math.Abs(sum-v) > 1e-9 {
					t.Errorf("%s %s %v: parts add up to %v", d.Mode, name, v, sum)
				}
			}
		}
	}
}

// TestEveryMeasurementClassified keeps the classification in step with
// the measurements: every name is known to telemetry.
func TestEveryMeasurementClassified(t *testing.T) {
	for name := range scalings {
		if _, ok := telemetry.PointIndex(name); !ok {
			t.Errorf("classified %q is not a measurement", name)
		}
	}
	for name := range pvPoints {
		if _, ok := telemetry.PointIndex(name); !ok {
			t.Errorf("PV point %q is not a measurement", name)
		}
	}
}
