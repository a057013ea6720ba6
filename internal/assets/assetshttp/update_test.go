package assetshttp

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"atcp/internal/assets"
	"atcp/internal/errs"
)

var (
	created = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	later   = time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
)

func ptr[T any](v T) *T { return &v }

// validAsset is a fully populated asset that passes validation.
func validAsset() assets.Asset {
	a := assets.NewAsset("bess-1", "acme", "Battery one", "Leipzig", assets.Standalone)
	a.Description = ptr("20 MWh lithium-ion")
	a.OptimizerOrgID = ptr("optico")
	a.ChargeEfficiency, a.DischargeEfficiency = ptr(0.95), ptr(1.0)
	a.Country, a.TSO = ptr("DE"), ptr(assets.TSO50Hertz)
	a.MaxPosRampRateMWPerSec, a.MinNegRampRateMWPerSec = ptr(1.5), ptr(1.5)
	a.UsableEnergyCapacityMWh, a.UsablePowerCapacityMW = ptr(20.0), ptr(10.0)
	a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW, a.FCRPrequalifiedMW = 10, 8, 5
	a.TSOPoolID, a.IOAMiddle = ptr(int64(7)), ptr(255)
	a.Latitude, a.Longitude = ptr(51.34), ptr(12.37)
	a.GridConnectionPowerMW = ptr(12.0)
	a.IntegrationType = ptr(assets.FullControl)
	a.MaintenanceUntil = ptr(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	return a
}

// locations returns the field locations a validation error names.
func locations(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Invalid {
		t.Fatalf("want a 422 domain error, got %v", err)
	}
	out := []string{}
	for _, f := range e.Fields {
		out = append(out, f.Location)
	}
	return out
}

// decodeUpdate decodes a request body into the domain's update, as the
// handlers do.
func decodeUpdate(t *testing.T, body string) assets.Update {
	t.Helper()
	var w Update
	if err := json.Unmarshal([]byte(body), &w); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return w.update()
}

func TestOptionalAndNullableDecoding(t *testing.T) {
	u := decodeUpdate(t, `{"asset_name": "n", "description": null, "asset_type": null, "latitude": 1.5}`)
	if !u.AssetName.Present || u.AssetName.Null || u.AssetName.Value != "n" {
		t.Fatalf("asset_name %+v", u.AssetName)
	}
	if !u.Description.Present || !u.Description.Null {
		t.Fatalf("description %+v", u.Description)
	}
	if !u.AssetType.Present || !u.AssetType.Null {
		t.Fatalf("asset_type %+v", u.AssetType)
	}
	if !u.Latitude.Present || u.Latitude.Null || u.Latitude.Value != 1.5 {
		t.Fatalf("latitude %+v", u.Latitude)
	}
	if u.Location.Present || u.Longitude.Present {
		t.Fatal("absent fields marked present")
	}
	var bad Update
	if err := json.Unmarshal([]byte(`{"latitude": "north"}`), &bad); err == nil {
		t.Fatal("a string decoded as a number")
	}
}

func TestApply(t *testing.T) {
	base := func() assets.Asset {
		a := validAsset()
		a.CreatedAt, a.UpdatedAt = created, created
		a.OptimizerOrgName = ptr("Optico GmbH")
		return a
	}
	cases := []struct {
		name  string
		start func(a *assets.Asset) // adjusts the stored asset; nil keeps base
		body  string
		want  func(a *assets.Asset) // expected changes; nil with no errors means unchanged
		errs  []string              // offending locations
	}{
		{name: "empty body changes nothing", body: `{}`},
		{name: "same values change nothing", body: `{"asset_name": "Battery one", "asset_id": "bess-1", "organisation_id": "acme"}`},
		{name: "one field", body: `{"asset_name": "Renamed"}`, want: func(a *assets.Asset) { a.Name = "Renamed" }},
		{name: "several fields", body: `{"location": "Halle", "fcr_enabled": true, "tso": "TNNT", "ioa_middle": 3}`,
			want: func(a *assets.Asset) {
				a.Location, a.FCREnabled, a.TSO, a.IOAMiddle = "Halle", true, ptr(assets.TSOTenneT), ptr(3)
			}},
		{name: "null clears nullable fields", body: `{"description": null, "optimizer_org_id": null, "latitude": null, "longitude": null,
			"usable_power_capacity_mw": null, "maintenance_until": null, "asset_integration_type": null, "tso_pool_id": null}`,
			want: func(a *assets.Asset) {
				a.Description, a.OptimizerOrgID, a.OptimizerOrgName, a.Latitude, a.Longitude = nil, nil, nil, nil, nil
				a.UsablePowerCapacityMW, a.MaintenanceUntil, a.IntegrationType, a.TSOPoolID = nil, nil, nil, nil
			}},
		{name: "null on non-nullable fields", body: `{"asset_name": null, "asset_type": null, "location": null, "tso_connected": null,
			"fcr_prequalified_capacity_mw": null, "asset_operational_status": null, "strict_validation": null}`,
			errs: []string{"asset_name", "asset_type", "location", "fcr_prequalified_capacity_mw",
				"strict_validation", "tso_connected", "asset_operational_status"}},
		{name: "asset_id differs", body: `{"asset_id": "other"}`, errs: []string{"asset_id"}},
		{name: "asset_id null", body: `{"asset_id": null}`, errs: []string{"asset_id"}},
		{name: "organisation_id differs", body: `{"organisation_id": "beta"}`, errs: []string{"organisation_id"}},
		{name: "organisation_id null", body: `{"organisation_id": null}`, errs: []string{"organisation_id"}},
		{name: "organization_id alias unchanged", body: `{"organization_id": "acme"}`},
		{name: "both spellings unchanged", body: `{"organization_id": "acme", "organisation_id": "acme"}`},
		{name: "organization_id alias differs", body: `{"organization_id": "beta"}`, errs: []string{"organization_id"}},
		{name: "the two spellings differ", body: `{"organisation_id": "acme", "organization_id": "beta"}`, errs: []string{"organization_id"}},
		{name: "null against a value", body: `{"organisation_id": "acme", "organization_id": null}`, errs: []string{"organization_id"}},
		{name: "optimizer changed drops the old name", body: `{"optimizer_org_id": "beta"}`,
			want: func(a *assets.Asset) { a.OptimizerOrgID, a.OptimizerOrgName = ptr("beta"), nil }},
		{name: "usable power lowered below a prequalified capacity", body: `{"usable_power_capacity_mw": 9}`,
			errs: []string{"afrr_prequalified_capacity_pos_mw"}},
		{name: "usable power and prequalified lowered together", body: `{"usable_power_capacity_mw": 4, "afrr_prequalified_capacity_pos_mw": 4,
			"afrr_prequalified_capacity_neg_mw": 4, "fcr_prequalified_capacity_mw": 0}`,
			want: func(a *assets.Asset) {
				a.UsablePowerCapacityMW, a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW, a.FCRPrequalifiedMW = ptr(4.0), 4, 4, 0
			}},
		{name: "prequalified raised above usable power", body: `{"fcr_prequalified_capacity_mw": 10.5}`, errs: []string{"fcr_prequalified_capacity_mw"}},
		{name: "clearing usable power lifts the bound", body: `{"usable_power_capacity_mw": null, "fcr_prequalified_capacity_mw": 50}`,
			want: func(a *assets.Asset) { a.UsablePowerCapacityMW, a.FCRPrequalifiedMW = nil, 50 }},
		{name: "clearing one coordinate", body: `{"latitude": null}`, errs: []string{"latitude"}},
		{name: "every error named", body: `{"asset_name": "", "charge_efficiency": 0, "country": "de", "asset_id": "x", "location": null}`,
			errs: []string{"asset_id", "location", "asset_name", "charge_efficiency", "country"}},

		{name: "grid_import_zero sets the inverse", body: `{"grid_import_zero": true}`, want: func(a *assets.Asset) { a.GridImportAllowed = ptr(false) }},
		{name: "grid_import_zero false allows", body: `{"grid_import_zero": false}`, want: func(a *assets.Asset) { a.GridImportAllowed = ptr(true) }},
		{name: "grid_import_zero null clears", start: func(a *assets.Asset) { a.GridImportAllowed = ptr(true) }, body: `{"grid_import_zero": null}`,
			want: func(a *assets.Asset) { a.GridImportAllowed = nil }},
		{name: "both aliases agreeing", body: `{"grid_import_allowed": false, "grid_import_zero": true}`,
			want: func(a *assets.Asset) { a.GridImportAllowed = ptr(false) }},
		{name: "both aliases null", start: func(a *assets.Asset) { a.GridImportAllowed = ptr(true) }, body: `{"grid_import_allowed": null, "grid_import_zero": null}`,
			want: func(a *assets.Asset) { a.GridImportAllowed = nil }},
		{name: "aliases contradicting", body: `{"grid_import_allowed": true, "grid_import_zero": true}`, errs: []string{"grid_import_zero"}},
		{name: "aliases contradicting on null", body: `{"grid_import_allowed": null, "grid_import_zero": false}`, errs: []string{"grid_import_zero"}},

		{name: "becoming green co-located forbids grid import", body: `{"asset_type": "green_colocation"}`,
			want: func(a *assets.Asset) { a.Type, a.GridImportAllowed = assets.GreenColocation, ptr(false) }},
		{name: "green with grid import allowed already set", start: func(a *assets.Asset) { a.GridImportAllowed = ptr(true) },
			body: `{"asset_type": "green_colocation"}`, errs: []string{"grid_import_allowed"}},
		{name: "green asset asked to import", start: func(a *assets.Asset) { a.Type, a.GridImportAllowed = assets.GreenColocation, ptr(false) },
			body: `{"grid_import_zero": false}`, errs: []string{"grid_import_allowed"}},
		{name: "green asset cleared stays without import", start: func(a *assets.Asset) { a.Type, a.GridImportAllowed = assets.GreenColocation, ptr(false) },
			body: `{"grid_import_allowed": null}`},

		{name: "poc export limit accepted, not kept", body: `{"poc_export_limit_mw": 8}`},
		{name: "poc export limit null", body: `{"poc_export_limit_mw": null}`},
		{name: "poc export limit negative", body: `{"poc_export_limit_mw": -1}`, errs: []string{"poc_export_limit_mw"}},

		{name: "maintenance until normalised", body: `{"maintenance_until": "2026-03-01T02:00:00.1234567+02:00", "asset_operational_status": "maintenance"}`,
			want: func(a *assets.Asset) {
				a.MaintenanceUntil, a.OperationalStatus = ptr(time.Date(2026, 3, 1, 0, 0, 0, 123456000, time.UTC)), assets.Maintenance
			}},
		{name: "same instant in another zone changes nothing", body: `{"maintenance_until": "2026-03-01T01:00:00+01:00"}`},

		{name: "adapter changed keeps the prefix", body: `{"adapter": "mqtt"}`, want: func(a *assets.Asset) { a.Adapter = assets.AdapterMQTT }},
		{name: "prefix changed", body: `{"adapter_topic_prefix": "site/7"}`, want: func(a *assets.Asset) { a.AdapterTopicPrefix = "site/7" }},
		{name: "default prefix sent back changes nothing", body: `{"adapter": "simulator", "adapter_topic_prefix": "atcp/bess-1"}`},
		{name: "unknown adapter", body: `{"adapter": "modbus"}`, errs: []string{"adapter"}},
		{name: "adapter and prefix null", body: `{"adapter": null, "adapter_topic_prefix": null}`,
			errs: []string{"adapter", "adapter_topic_prefix"}},
		{name: "prefix with wildcard", body: `{"adapter_topic_prefix": "site/+"}`, errs: []string{"adapter_topic_prefix"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cur := base()
			if c.start != nil {
				c.start(&cur)
			}
			got, changed, err := decodeUpdate(t, c.body).Apply(cur, later)
			if changed != (c.want != nil) {
				t.Fatalf("changed = %v", changed)
			}
			if locs := locations(t, err); !slices.Equal(locs, c.errs) && len(locs)+len(c.errs) > 0 {
				t.Fatalf("offending fields %v, want %v (%v)", locs, c.errs, err)
			}
			if err != nil {
				if !reflect.DeepEqual(got, cur) {
					t.Fatal("a refused update returned a changed asset")
				}
				return
			}
			want := cur
			if c.want != nil {
				c.want(&want)
				want.UpdatedAt = later
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("merged\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	a, err := decodeUpdate(t, `{"asset_id": "g1", "asset_name": "Green", "asset_type": "green_colocation",
		"location": "Husum", "organisation_id": "acme", "poc_export_limit_mw": 3}`).Create(later)
	if err != nil {
		t.Fatal(err)
	}
	want := assets.NewAsset("g1", "acme", "Green", "Husum", assets.GreenColocation)
	want.CreatedAt, want.UpdatedAt = later, later
	if !reflect.DeepEqual(a, want) || a.Adapter != assets.AdapterSimulator || a.AdapterTopicPrefix != "atcp/g1" {
		t.Fatalf("created\n%+v\nwant\n%+v", a, want)
	}

	cases := []struct {
		name string
		body string
		errs []string
	}{
		{"required fields missing", `{"description": "x"}`,
			[]string{"asset_id", "asset_name", "asset_type", "location", "organisation_id"}},
		{"required field null", `{"asset_id": null, "asset_name": "n", "asset_type": "standalone", "location": "l", "organisation_id": "acme"}`,
			[]string{"asset_id"}},
		{"null on a defaulted field", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l", "organisation_id": "acme",
			"tso_connected": null}`, []string{"tso_connected"}},
		{"green asking for grid import", `{"asset_id": "a", "asset_name": "n", "asset_type": "green_colocation", "location": "l",
			"organisation_id": "acme", "grid_import_allowed": true}`, []string{"grid_import_allowed"}},
		{"contradicting aliases", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l",
			"organisation_id": "acme", "grid_import_allowed": true, "grid_import_zero": true}`, []string{"grid_import_zero"}},
		{"prequalified above usable", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l",
			"organisation_id": "acme", "usable_power_capacity_mw": 5, "afrr_prequalified_capacity_neg_mw": 6}`,
			[]string{"afrr_prequalified_capacity_neg_mw"}},
		{"bad id", `{"asset_id": "a:b", "asset_name": "n", "asset_type": "standalone", "location": "l", "organisation_id": "acme"}`,
			[]string{"asset_id"}},
		// The default prefix of a bad id is not reported: the id is.
		{"bad id with a wildcard", `{"asset_id": "a+b", "asset_name": "n", "asset_type": "standalone", "location": "l", "organisation_id": "acme"}`,
			[]string{"asset_id"}},
		{"adapter and prefix", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l", "organisation_id": "acme",
			"adapter": "mqtt", "adapter_topic_prefix": "plant/a"}`, nil},
		{"bad prefix", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l", "organisation_id": "acme",
			"adapter_topic_prefix": "$share/a"}`, []string{"adapter_topic_prefix"}},
		{"organization_id alias", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l", "organization_id": "acme"}`, nil},
		{"organisation under both spellings", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l",
			"organisation_id": "acme", "organization_id": "acme"}`, nil},
		{"the two spellings differ", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l",
			"organisation_id": "acme", "organization_id": "beta"}`, []string{"organization_id"}},
		{"alias null", `{"asset_id": "a", "asset_name": "n", "asset_type": "standalone", "location": "l", "organization_id": null}`,
			[]string{"organisation_id"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeUpdate(t, c.body).Create(later)
			if locs := locations(t, err); !slices.Equal(locs, c.errs) {
				t.Fatalf("offending fields %v, want %v (%v)", locs, c.errs, err)
			}
		})
	}
}

func TestApplyIsIdempotent(t *testing.T) {
	cur := validAsset()
	cur.CreatedAt, cur.UpdatedAt = created, created
	u := decodeUpdate(t, `{"asset_name": "Renamed", "grid_import_zero": true, "latitude": 50, "longitude": 10}`)
	once, changed, err := u.Apply(cur, later)
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	twice, changed, err := u.Apply(once, later.Add(time.Hour))
	if err != nil || changed || !reflect.DeepEqual(once, twice) {
		t.Fatalf("second application changed the asset: %+v, %v", twice, err)
	}
	// A change is a change even when the clock has not moved.
	if _, changed, _ := decodeUpdate(t, `{"asset_name": "Again"}`).Apply(once, later); !changed {
		t.Fatal("a change at the same instant was not reported")
	}
	var e *errs.Error
	if _, _, err := decodeUpdate(t, `{"asset_name": null}`).Apply(cur, later); !errors.As(err, &e) || e.Code != "validation_failed" {
		t.Fatalf("null name: %v", err)
	}
}
