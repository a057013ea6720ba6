package mqtt

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"atcp/internal/telemetry"
	"atcp/internal/telemetry/simulator"
)

func TestEveryPointHasARange(t *testing.T) {
	names := telemetry.PointNames()
	for _, name := range names {
		if rules[name] == nil {
			t.Errorf("%s has no range", name)
		}
	}
	if len(rules) != len(names) {
		t.Errorf("%d ranges for %d points", len(rules), len(names))
	}
}

// TestSimulatorMeasurementsAreValid: what atcp edge publishes passes the
// platform's checks, PV asset or not, in every control situation.
func TestSimulatorMeasurementsAreValid(t *testing.T) {
	for _, pv := range []bool{false, true} {
		cfg := simulator.Config{
			AssetID: "b", EnergyCapacityMWh: 20, PowerCapacityMW: 10, ChargeEfficiency: 0.95, DischargeEfficiency: 0.95,
			RampUpMWPerSec: 2, RampDownMWPerSec: 2, GridImportAllowed: true, PVActive: pv, PVPeakMW: 4, LongitudeDeg: 10,
		}
		b := simulator.NewBattery(cfg, 1, time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC))
		poc := 3.0
		for i, cmd := range []telemetry.Command{
			bess(10), bess(-10), {ControlMode: telemetry.PoCOnly, PoCPowerMW: &poc},
			{ControlMode: telemetry.BESSOnly, FCRReservedMW: 2, AFRRReservedPosMW: 3, AFRRSetpointMW: 3},
			{ControlMode: telemetry.BESSOnly, Unavailable: true},
		} {
			b.SetCommand(cmd)
			for range 600 {
				b.Step(time.Second)
			}
			payload, err := EncodeMeasurements(b.Measurements(), uint64(i+1))
			if err != nil {
				t.Fatal(err)
			}
			m, refusal := ParseMeasurements(payload, BoundsFor(cfg))
			if refusal != nil {
				t.Fatalf("pv=%v command %d: %v", pv, i, refusal)
			}
			if want := b.Measurements(); !reflect.DeepEqual(m, want) {
				t.Fatalf("pv=%v command %d: round trip\n got %+v\nwant %+v", pv, i, m, want)
			}
		}
	}
}

func TestParseMeasurementsRefusals(t *testing.T) {
	bounds := BoundsFor(simulator.Config{PowerCapacityMW: 10, EnergyCapacityMWh: 20})
	valid := string(validMeasurements(t, "x"))
	if _, r := ParseMeasurements([]byte(valid), bounds); r != nil {
		t.Fatal(r)
	}
	set := func(name, value string) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(valid), &m); err != nil {
			t.Fatal(err)
		}
		if value == "" {
			delete(m, name)
		} else {
			m[name] = json.RawMessage(value)
		}
		out, _ := json.Marshal(m)
		return string(out)
	}
	for _, c := range []struct{ payload, reason string }{
		{"", ReasonMalformed}, {"null", ReasonMalformed}, {`"x"`, ReasonMalformed}, {valid + "{}", ReasonMalformed},
		{set("at", ""), ReasonMalformed}, {set("at", `"2026-02-01"`), ReasonMalformed}, {set("at", "1"), ReasonMalformed},
		{set("at", `"1999-12-31T23:59:59Z"`), ReasonMalformed}, {set("at", `"9999-12-31T23:59:59-01:00"`), ReasonMalformed},
		{set("soc_max", ""), ReasonMissing},
		{set("soc_max", "null"), ReasonNotANumber}, {set("soc_max", `"3"`), ReasonNotANumber}, {set("soc_max", "1e400"), ReasonNotANumber},
		{set("frequency", "44.9"), ReasonOutOfRange}, {set("frequency", "55.1"), ReasonOutOfRange},
		{set("asset_status", "2"), ReasonOutOfRange}, {set("control_mode", "1.5"), ReasonOutOfRange},
		{set("battery_power_actual_ac", "-100.5"), ReasonOutOfRange}, {set("available_charge_energy", "-0.1"), ReasonOutOfRange},
		{set("soc_max", "201"), ReasonOutOfRange}, {set("charge_throughput", "-1"), ReasonOutOfRange},
		{set("export_curtailment_dso", "101"), ReasonOutOfRange}, {set("lte_signal_device_1", "3"), ReasonOutOfRange},
	} {
		if _, r := ParseMeasurements([]byte(c.payload), bounds); r == nil || r.Reason != c.reason {
			t.Errorf("%.80s: refusal %v, want %s", c.payload, r, c.reason)
		}
	}
	// Within ten times the rated power; PV points of an asset without PV
	// and unknown members are ignored.
	m, r := ParseMeasurements([]byte(set("battery_power_actual_ac", "-100")), bounds)
	if r != nil || m.BatteryPowerActualAC != -100 {
		t.Fatalf("%v %v", m.BatteryPowerActualAC, r)
	}
	m, r = ParseMeasurements([]byte(set("pv_irradiance", "5000")), bounds)
	if r != nil || m.PVIrradiance != nil {
		t.Fatalf("PV point of a battery: %v %v", m.PVIrradiance, r)
	}
	if _, r = ParseMeasurements([]byte(set("pv_irradiance", "5000")), Bounds{PowerMW: 100, EnergyMWh: 200, PVActive: true}); r == nil || r.Reason != ReasonOutOfRange {
		t.Fatalf("PV point out of range: %v", r)
	}
	if _, r = ParseMeasurements([]byte(set("vendor_temperature", `"hot"`)), bounds); r != nil {
		t.Fatalf("unknown member: %v", r)
	}
}

func TestCommandRoundTripAndRefusals(t *testing.T) {
	lo, hi, poc := -4.0, 6.0, 2.5
	msg := CommandMessage{
		Seq: 1_763_900_000_000_001, At: t0, ExpiresAt: time.Date(2026, 11, 23, 18, 0, 3, 5e8, time.UTC),
		Command: telemetry.Command{
			ControlMode: telemetry.BESSAndPoC, BESSPowerMW: 3, PoCPowerMW: &poc, Dispatch15PowerMW: 1, FCRReservedMW: 1,
			AFRRReservedPosMW: 2, AFRRReservedNegMW: 2, AFRRSetpointMW: -1, MaxPowerMW: &hi, MinPowerMW: &lo, MinEnergyMWh: &lo,
		},
	}
	msg.Command.MinEnergyMWh = nil
	payload, err := EncodeCommand(msg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseCommand(payload)
	if err != nil || !reflect.DeepEqual(got, msg) {
		t.Fatalf("round trip: %+v %v\n%s", got, err, payload)
	}
	for _, member := range []string{`"seq":1763900000000001`, `"at":"2026-02-01T06:00:00Z"`, `"expires_at":"2026-11-23T18:00:03.5Z"`,
		`"control_mode":"bess_and_poc"`, `"min_energy_mwh":null`} {
		if !strings.Contains(string(payload), member) {
			t.Errorf("payload lacks %s: %s", member, payload)
		}
	}
	edit := func(from, to string) string { return strings.Replace(string(payload), from, to, 1) }
	for _, bad := range []string{
		"", "{}", string(payload) + " 1", edit(`"seq":1763900000000001`, `"seq":0`), edit(`"seq":1763900000000001`, `"seq":-1`),
		edit(`"at":`, `"when":`), edit(`"expires_at":`, `"expires":`), edit(`"control_mode":"bess_and_poc"`, `"control_mode":"turbo"`),
		edit(`"poc_power_mw":2.5`, `"poc_power_mw":null`), edit(`"unavailable":false`, `"unavailable":false,"ramp_mw":1`),
		edit(`"fcr_reserved_mw":1`, `"fcr_reserved_mw":-1`), edit(`"bess_power_mw":3`, `"bess_power_mw":"3"`),
		edit(`"at":"2026-02-01T06:00:00Z"`, `"at":"0000-01-01T00:00:00+01:00"`),
		edit(`"expires_at":"2026-11-23T18:00:03.5Z"`, `"expires_at":"9999-12-31T23:30:00-01:00"`),
	} {
		if _, err := ParseCommand([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestBrokerURLAndPrefixes(t *testing.T) {
	for in, want := range map[string]string{
		"mqtt://broker": "mqtt://broker:1883", "mqtts://broker": "mqtts://broker:8883", "mqtt://127.0.0.1:1884": "mqtt://127.0.0.1:1884",
		"mqtt://[::1]": "mqtt://[::1]:1883",
	} {
		if u, err := ParseBrokerURL(in); err != nil || u.String() != want {
			t.Errorf("%s: %v %v", in, u, err)
		}
	}
	for _, bad := range []string{"", "broker:1883", "tcp://broker", "http://broker", "mqtt://user:secret@broker", "mqtt://broker/x", "mqtt://broker?x=1", "mqtt://"} {
		_, err := ParseBrokerURL(bad)
		if err == nil {
			t.Errorf("accepted %q", bad)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("error quotes the password: %v", err)
		}
	}
	if f := filterFor("atcp/b1", measurementsSuffix); f != "atcp/+/measurements" {
		t.Error(f)
	}
	if f := filterFor("site", statusSuffix); f != "+/status" {
		t.Error(f)
	}
}

func FuzzParseMeasurements(f *testing.F) {
	valid := validMeasurements(&testing.T{}, "x")
	f.Add(valid)
	f.Add([]byte(`{"at":"2026-02-01T06:00:00Z","frequency":1e400}`))
	f.Add([]byte(`[]`))
	bounds := Bounds{PowerMW: 100, EnergyMWh: 200, PVActive: true}
	f.Fuzz(func(t *testing.T, payload []byte) {
		m, r := ParseMeasurements(payload, bounds)
		if r != nil {
			if !slices.Contains([]string{ReasonMalformed, ReasonMissing, ReasonNotANumber, ReasonOutOfRange}, r.Reason) {
				t.Fatalf("reason %q", r.Reason)
			}
			return
		}
		// Accepted values are in range and survive a round trip.
		for i, x := range m.Values(nil) {
			name := pointNames[i]
			if math.IsNaN(x) && pvPoints[name] {
				continue
			}
			if !rules[name](x, bounds) {
				t.Fatalf("%s = %v accepted", name, x)
			}
		}
		again, err := EncodeMeasurements(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		m2, r := ParseMeasurements(again, bounds)
		if r != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip: %v", r)
		}
	})
}

func FuzzParseCommand(f *testing.F) {
	payload, err := EncodeCommand(CommandMessage{Seq: 1, At: t0, ExpiresAt: t0.Add(time.Second), Command: bess(5)})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(payload)
	f.Add([]byte(`{"seq":18446744073709551615,"at":"2026-02-01T06:00:00Z","expires_at":"2026-02-01T06:00:00Z","command":{"control_mode":"passive"}}`))
	f.Add([]byte(`{"seq":1}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		msg, err := ParseCommand(payload)
		if err != nil {
			return
		}
		if msg.Seq == 0 || msg.Command.Validate() != nil {
			t.Fatalf("accepted %+v", msg)
		}
		again, err := EncodeCommand(msg)
		if err != nil {
			t.Fatal(err)
		}
		msg2, err := ParseCommand(again)
		if err != nil || !reflect.DeepEqual(msg, msg2) {
			t.Fatalf("round trip: %+v %v", msg2, err)
		}
	})
}
