package rfi_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
	"atcp/internal/onboarding/rfi"
)

func ptr[T any](v T) *T { return &v }

// defs is one field of every type, editable by the EPC.
var defs = []rfi.Field{
	{Key: "s", Type: rfi.String, EditableBy: []string{rfi.EPC}, Constraints: rfi.Constraints{MaxLength: 5, Pattern: `[a-z]+`}},
	{Key: "s200", Type: rfi.String, EditableBy: []string{rfi.EPC}},
	{Key: "t", Type: rfi.Text, EditableBy: []string{rfi.EPC}},
	{Key: "i", Type: rfi.Integer, EditableBy: []string{rfi.EPC}, Constraints: rfi.Constraints{Min: ptr(-2.0), Max: ptr(10.0)}},
	{Key: "n", Type: rfi.Number, Required: true, EditableBy: []string{rfi.EPC}, Constraints: rfi.Constraints{Min: ptr(0.1), Max: ptr(1000.0), Decimals: ptr(2), Unit: "MW"}},
	{Key: "b", Type: rfi.Boolean, Required: true, EditableBy: []string{rfi.EPC}},
	{Key: "d", Type: rfi.Date, EditableBy: []string{rfi.EPC}, Constraints: rfi.Constraints{MinDate: "2020-01-01", MaxDate: "2030-12-31"}},
	{Key: "e", Type: rfi.Enum, EditableBy: []string{rfi.EPC}, Constraints: rfi.Constraints{Options: []rfi.Option{{Value: "x"}, {Value: "y"}}}},
	{Key: "m", Type: rfi.MultiEnum, EditableBy: []string{rfi.EPC}, Constraints: rfi.Constraints{Options: []rfi.Option{{Value: "x"}, {Value: "y"}, {Value: "z"}}, MinItems: 1, MaxItems: 2}},
	{Key: "mail", Type: rfi.Email, EditableBy: []string{rfi.EPC}},
	{Key: "tel", Type: rfi.Phone, EditableBy: []string{rfi.EPC}},
	{Key: "u", Type: rfi.URL, EditableBy: []string{rfi.EPC}},
	{Key: "c", Type: rfi.Coordinates, Required: true, EditableBy: []string{rfi.EPC}},
	{Key: "owner_only", Type: rfi.String, EditableBy: []string{rfi.AssetOwner}},
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		key, value string
		code       errs.Code // "" valid
	}{
		{"s", `"abc"`, ""},
		{"s", `"abcdef"`, rfi.CodeConstraint},
		{"s", `"ABC"`, rfi.CodeConstraint},
		{"s", `"a\u0000"`, rfi.CodeConstraint},
		{"s", `5`, rfi.CodeWrongType},
		{"s200", `"` + strings.Repeat("ä", 200) + `"`, ""},
		{"s200", `"` + strings.Repeat("ä", 201) + `"`, rfi.CodeConstraint},
		{"s200", `"line\nbreak"`, rfi.CodeConstraint},
		{"t", `"line\nbreak\ttab"`, ""},
		{"t", `"` + strings.Repeat("x", 4001) + `"`, rfi.CodeConstraint},
		{"i", `7`, ""},
		{"i", `-2`, ""},
		{"i", `-3`, rfi.CodeConstraint},
		{"i", `11`, rfi.CodeConstraint},
		{"i", `7.0`, rfi.CodeWrongType},
		{"i", `7e0`, rfi.CodeWrongType},
		{"i", `"7"`, rfi.CodeWrongType},
		{"i", `99999999999999999999999`, rfi.CodeWrongType},
		{"n", `12.5`, ""},
		{"n", `12.50`, ""},
		{"n", `1e2`, ""},
		{"n", `12.345`, rfi.CodeConstraint},
		{"n", `0.05`, rfi.CodeConstraint},
		{"n", `1000.01`, rfi.CodeConstraint},
		{"n", `1e400`, rfi.CodeConstraint},
		{"n", `"12"`, rfi.CodeWrongType},
		{"n", `true`, rfi.CodeWrongType},
		{"b", `true`, ""},
		{"b", `false`, ""},
		{"b", `"true"`, rfi.CodeWrongType},
		{"b", `1`, rfi.CodeWrongType},
		{"d", `"2026-03-29"`, ""},
		{"d", `"2026-02-30"`, rfi.CodeWrongType},
		{"d", `"2026-3-29"`, rfi.CodeWrongType},
		{"d", `"2026-03-29T00:00:00Z"`, rfi.CodeWrongType},
		{"d", `"2019-12-31"`, rfi.CodeConstraint},
		{"d", `"2031-01-01"`, rfi.CodeConstraint},
		{"e", `"x"`, ""},
		{"e", `"X"`, rfi.CodeConstraint},
		{"e", `["x"]`, rfi.CodeWrongType},
		{"m", `["x","z"]`, ""},
		{"m", `[]`, rfi.CodeConstraint},
		{"m", `["x","y","z"]`, rfi.CodeConstraint},
		{"m", `["x","x"]`, rfi.CodeConstraint},
		{"m", `["w"]`, rfi.CodeConstraint},
		{"m", `"x"`, rfi.CodeWrongType},
		{"m", `[1]`, rfi.CodeWrongType},
		{"mail", `"ops@example.com"`, ""},
		{"mail", `"Ops <ops@example.com>"`, rfi.CodeConstraint},
		{"mail", `"not an address"`, rfi.CodeConstraint},
		{"tel", `"+4930123456"`, ""},
		{"tel", `"030123456"`, rfi.CodeConstraint},
		{"tel", `"+49 30 123456"`, rfi.CodeConstraint},
		{"tel", `"+0123"`, rfi.CodeConstraint},
		{"tel", `"+1234567890123456"`, rfi.CodeConstraint},
		{"u", `"https://example.com/a.pdf"`, ""},
		{"u", `"http://example.com/a.pdf"`, rfi.CodeConstraint},
		{"u", `"https://user:pw@example.com/"`, rfi.CodeConstraint},
		{"u", `"https:///path"`, rfi.CodeConstraint},
		{"u", `"javascript:alert(1)"`, rfi.CodeConstraint},
		{"u", `"https://example.com/a b"`, rfi.CodeConstraint},
		{"c", `{"latitude":52.41,"longitude":13.07}`, ""},
		{"c", `{"latitude":-90,"longitude":180}`, ""},
		{"c", `{"latitude":90.1,"longitude":13}`, rfi.CodeConstraint},
		{"c", `{"latitude":52,"longitude":-180.5}`, rfi.CodeConstraint},
		{"c", `{"latitude":52}`, rfi.CodeWrongType},
		{"c", `{"latitude":52,"longitude":13,"altitude":40}`, rfi.CodeWrongType},
		{"c", `{"latitude":"52","longitude":13}`, rfi.CodeWrongType},
		{"c", `[52,13]`, rfi.CodeWrongType},
		// null clears any editable field, required or not.
		{"n", `null`, ""},
		{"c", `null`, ""},
		{"owner_only", `"x"`, rfi.CodeFieldNotEditable},
		{"owner_only", `null`, rfi.CodeFieldNotEditable},
		{"nope", `"x"`, rfi.CodeUnknownField},
	} {
		got := rfi.Validate(defs, map[string]json.RawMessage{c.key: json.RawMessage(c.value)}, rfi.EPC)
		switch {
		case c.code == "" && len(got) != 0:
			t.Errorf("%s=%s: %+v, want valid", c.key, c.value, got)
		case c.code != "" && (len(got) != 1 || got[0].Code != c.code || got[0].Location != "body.fields."+c.key):
			t.Errorf("%s=%s: %+v, want %s at body.fields.%s", c.key, c.value, got, c.code, c.key)
		}
	}
}

func TestValidateReportsEveryKeyInOrder(t *testing.T) {
	got := rfi.Validate(defs, map[string]json.RawMessage{
		"s": json.RawMessage(`"ok"`), "n": json.RawMessage(`"x"`), "b": json.RawMessage(`2`), "owner_only": json.RawMessage(`"x"`),
	}, rfi.EPC)
	var locs []string
	for _, fe := range got {
		locs = append(locs, fe.Location)
	}
	if want := []string{"body.fields.b", "body.fields.n", "body.fields.owner_only"}; !slices.Equal(locs, want) {
		t.Fatalf("locations %v, want %v", locs, want)
	}
	// Mixed failures are validation_failed; only not-editable ones are field_not_editable.
	if e := rfi.Err(got).(*errs.Error); e.Kind != errs.Invalid || e.Code != errs.CodeValidationFailed || len(e.Fields) != 3 {
		t.Fatalf("mixed: %+v", e)
	}
	only := rfi.Validate(defs, map[string]json.RawMessage{"owner_only": json.RawMessage(`"x"`)}, rfi.EPC)
	if e := rfi.Err(only).(*errs.Error); e.Kind != errs.Invalid || e.Code != "field_not_editable" || e.Fields[0].Location != "body.fields.owner_only" {
		t.Fatalf("not editable: %+v", e)
	}
	if rfi.Err(nil) != nil {
		t.Fatal("no errors must be nil")
	}
}

func TestMissing(t *testing.T) {
	got := rfi.Missing(defs, map[string]json.RawMessage{"n": json.RawMessage(`5`), "c": json.RawMessage(`null`)})
	if want := []string{"b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("missing %v, want %v", got, want)
	}
}

var lowerSnake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestCatalogue: the built-in RfI gates are well formed, and a complete
// valid set of values validates, is complete and patches a new asset into
// one the registry accepts.
func TestCatalogue(t *testing.T) {
	if rfi.GateFields("fc_dpl") != nil {
		t.Fatal("a gate without fields has fields")
	}
	for _, gate := range []string{"fc_rfi", "mon_rfi"} {
		fields := rfi.GateFields(gate)
		if len(fields) < 20 {
			t.Fatalf("%s: %d fields", gate, len(fields))
		}
		seen := map[string]bool{}
		for _, f := range fields {
			if !lowerSnake.MatchString(f.Key) || seen[f.Key] {
				t.Fatalf("%s: key %q not lower_snake or repeated", gate, f.Key)
			}
			seen[f.Key] = true
			if f.Label.De == "" || f.Label.En == "" || !slices.Contains(rfi.Types, f.Type) || len(f.EditableBy) == 0 {
				t.Fatalf("%s: %+v", gate, f)
			}
			for _, r := range f.EditableBy {
				if !slices.Contains(rfi.Roles, r) {
					t.Fatalf("%s.%s: role %q", gate, f.Key, r)
				}
			}
			if !f.Editable(rfi.PlatformOnboarding) {
				t.Fatalf("%s.%s: the onboarding manager cannot edit it", gate, f.Key)
			}
			if f.AssetField != "" && !slices.Contains(rfi.AssetMembers, f.AssetField) {
				t.Fatalf("%s.%s: asset field %q", gate, f.Key, f.AssetField)
			}
			if (f.Type == rfi.Enum || f.Type == rfi.MultiEnum) && len(f.Constraints.Options) == 0 {
				t.Fatalf("%s.%s: no options", gate, f.Key)
			}
		}
		for _, key := range []string{"usable_power_capacity_mw", "tso", "site_coordinates", "market_location_id", "ems_vendor", "site_contact_phone", "commissioning_date"} {
			if !seen[key] {
				t.Fatalf("%s lacks %s", gate, key)
			}
		}
		if f, _ := rfi.Find(fields, "ems_vendor"); !f.Editable(rfi.EMSProvider) || f.Editable(rfi.EPC) {
			t.Fatalf("ems_vendor editable by %v", f.EditableBy)
		}
		values := complete(t, fields)
		if fes := rfi.Validate(fields, values, rfi.PlatformOnboarding); len(fes) != 0 {
			t.Fatalf("%s: complete values refused: %+v", gate, fes)
		}
		if m := rfi.Missing(fields, values); len(m) != 0 {
			t.Fatalf("%s: missing %v", gate, m)
		}
		u, err := rfi.AssetPatch(fields, values)
		if err != nil {
			t.Fatal(err)
		}
		a := assets.NewAsset("bess", "acme", "Battery", "Kiel", assets.Standalone)
		next, changed, err := u.Apply(a, time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC))
		if err != nil || !changed {
			t.Fatalf("%s: patch refused by the registry: %v", gate, err)
		}
		if *next.UsablePowerCapacityMW != 10 || *next.UsableEnergyCapacityMWh != 20 || *next.TSO != assets.TSOAmprion ||
			*next.Latitude != 52.41 || *next.Longitude != 13.07 || next.Type != assets.GreyColocation || *next.GridConnectionPowerMW != 12 {
			t.Fatalf("%s: patched %+v", gate, next)
		}
		// A null or absent value leaves the asset's member alone.
		values["usable_power_capacity_mw"] = json.RawMessage(`null`)
		delete(values, "tso")
		if u, _ := rfi.AssetPatch(fields, values); u.UsablePowerCapacityMW.Present || u.TSO.Present {
			t.Fatalf("%s: null or absent values patched: %+v", gate, u)
		}
	}
}

// complete returns a valid value for every field of the catalogue.
func complete(t *testing.T, fields []rfi.Field) map[string]json.RawMessage {
	t.Helper()
	special := map[string]string{
		"asset_type": `"grey_colocation"`, "usable_power_capacity_mw": `10`, "usable_energy_capacity_mwh": `20`,
		"grid_connection_power_mw": `12`, "charge_efficiency": `0.95`, "discharge_efficiency": `0.95`, "voltage_level_kv": `20`,
		"tso": `"amprion"`, "market_location_id": `"50123456789"`, "metering_point_id": `"DE0001234567890123456789012345678"`,
		"site_coordinates": `{"latitude":52.41,"longitude":13.07}`, "commissioning_date": `"2026-05-04"`,
		"max_pos_ramp_rate_mw_per_sec": `2`, "min_neg_ramp_rate_mw_per_sec": `2`,
	}
	out := map[string]json.RawMessage{}
	for _, f := range fields {
		v, ok := special[f.Key]
		if !ok {
			switch f.Type {
			case rfi.String, rfi.Text:
				v = `"Example"`
			case rfi.Boolean:
				v = `true`
			case rfi.Enum:
				v = `"` + f.Constraints.Options[0].Value + `"`
			case rfi.MultiEnum:
				v = `["` + f.Constraints.Options[0].Value + `"]`
			case rfi.Email:
				v = `"site@example.com"`
			case rfi.Phone:
				v = `"+4930123456"`
			case rfi.URL:
				v = `"https://example.com/manual.pdf"`
			default:
				t.Fatalf("no example for %s (%s)", f.Key, f.Type)
			}
		}
		out[f.Key] = json.RawMessage(v)
	}
	return out
}

func TestLabel(t *testing.T) {
	l := rfi.Label{De: "Leistung", En: "Power"}
	if l.In("de") != "Leistung" || l.In("en") != "Power" || l.In("fr") != "Power" {
		t.Fatal(l)
	}
}

// FuzzValidate: any key, value and role give errors at body.fields.<key>
// with a known code, never a panic; a value valid once stays valid.
func FuzzValidate(f *testing.F) {
	for _, s := range []struct{ key, value, role string }{
		{"n", `12.5`, rfi.EPC}, {"c", `{"latitude":1,"longitude":2}`, rfi.EPC}, {"m", `["x","x"]`, rfi.EPC},
		{"d", `"2026-02-30"`, rfi.EPC}, {"u", `"https://[::1]/"`, rfi.EPC}, {"i", `-0`, rfi.EPC}, {"s", `"\ud800"`, rfi.EPC},
		{"owner_only", `1`, rfi.AssetOwner}, {"x", `{`, rfi.TSO}, {"n", `1e999999999`, rfi.EPC}, {"n", `"1"`, rfi.EPC},
	} {
		f.Add(s.key, s.value, s.role)
	}
	fields := append(slices.Clone(defs), rfi.GateFields("fc_rfi")...)
	codes := []errs.Code{rfi.CodeFieldNotEditable, rfi.CodeUnknownField, rfi.CodeWrongType, rfi.CodeConstraint}
	f.Fuzz(func(t *testing.T, key, value, role string) {
		values := map[string]json.RawMessage{key: json.RawMessage(value)}
		got := rfi.Validate(fields, values, role)
		for _, fe := range got {
			if fe.Location != "body.fields."+key || !slices.Contains(codes, fe.Code) || fe.Message == "" {
				t.Fatalf("%q=%q as %q: %+v", key, value, role, fe)
			}
		}
		if len(got) == 0 {
			if again := rfi.Validate(fields, values, role); len(again) != 0 {
				t.Fatalf("not deterministic: %+v", again)
			}
			if _, err := rfi.AssetPatch(fields, values); err != nil && json.Valid([]byte(value)) {
				t.Fatalf("a valid value does not patch: %v", err)
			}
		}
	})
}
