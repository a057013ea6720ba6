package telemetry

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every JSON field of Measurements is a point or a deprecated alias, so a
// measurement added to the struct cannot be forgotten in storage.
func TestPointsCoverMeasurements(t *testing.T) {
	typ := reflect.TypeFor[Measurements]()
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := cutComma(tag)
		if _, ok := PointIndex(name); !ok {
			t.Errorf("measurement %s has no point", name)
		}
	}
	if len(PointNames()) != len(pointIndex) {
		t.Fatal("point names repeat")
	}
}

func cutComma(s string) (string, string, bool) {
	for i := range s {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func TestValuesRoundTrip(t *testing.T) {
	ts := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)
	irr := 640.5
	m := Measurements{Timestamp: ts, AssetStatus: 1, FCRUpperLimit: 2.5, DispatchSetpoint: -3.25,
		AvailableDischargeEnergy: 7.5, AvailableSoCDischarge: 7.5, AvailableChargeEnergy: 3, AvailableSoCCharge: 3,
		Frequency: 49.987, LANConnectedDevice2: 1, PVIrradiance: &irr}
	values := m.Values(nil)
	if len(values) != len(PointNames()) {
		t.Fatalf("%d values for %d points", len(values), len(PointNames()))
	}
	i, _ := PointIndex("pv_power_dc_actual")
	if !math.IsNaN(values[i]) {
		t.Fatalf("absent PV point = %v, want NaN", values[i])
	}
	back := MeasurementsFromValues(ts, values)
	want, _ := json.Marshal(m)
	got, _ := json.Marshal(back)
	if string(want) != string(got) {
		t.Fatalf("round trip\n got %s\nwant %s", got, want)
	}
	if j, ok := PointIndex("available_soc_charge"); !ok || PointNames()[j] != "available_charge_energy" {
		t.Fatal("alias does not resolve to its point")
	}
}

func TestClearNegativeZeros(t *testing.T) {
	zero := math.Copysign(0, -1)
	m := Measurements{AFRRLowerLimit: zero, FCRLowerLimit: -2, PVIrradiance: &zero}
	m.ClearNegativeZeros()
	got, _ := json.Marshal(m)
	if strings.Contains(string(got), "-0") {
		t.Fatalf("negative zero left in %s", got)
	}
	if m.FCRLowerLimit != -2 {
		t.Fatalf("a negative value changed: %v", m.FCRLowerLimit)
	}
}

// Each point reads the field its name is the JSON name of, as a pointer
// exactly when it is a PV point.
func TestPointOffsetsAreTheirFields(t *testing.T) {
	typ := reflect.TypeFor[Measurements]()
	byName := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		name, _, _ := cutComma(typ.Field(i).Tag.Get("json"))
		byName[name] = typ.Field(i)
	}
	for _, p := range points {
		f, ok := byName[p.name]
		switch {
		case !ok:
			t.Errorf("point %s names no field", p.name)
		case f.Offset != p.off:
			t.Errorf("point %s reads offset %d, field %s is at %d", p.name, p.off, f.Name, f.Offset)
		case p.pv != (f.Type.Kind() == reflect.Pointer):
			t.Errorf("point %s: pv %v, field of type %s", p.name, p.pv, f.Type)
		}
	}
}

// The control loop and the alarm engine convert every asset's snapshot
// each second: the conversion allocates nothing but the PV values.
func TestValuesDoNotAllocate(t *testing.T) {
	m := Measurements{Timestamp: time.Now(), AssetStatus: 1, Frequency: 50}
	buf := make([]float64, 0, len(points))
	var back Measurements
	allocs := testing.AllocsPerRun(100, func() {
		buf = m.Values(buf[:0])
		back = MeasurementsFromValues(m.Timestamp, buf)
	})
	if allocs != 0 || back.Frequency != 50 {
		t.Fatalf("%v allocations per conversion (frequency %v)", allocs, back.Frequency)
	}
}
