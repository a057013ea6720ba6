package assets

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
)

func ptr[T any](v T) *T { return &v }

// validAsset is a fully populated asset that passes validation.
func validAsset() Asset {
	a := NewAsset("bess-1", "acme", "Battery one", "Leipzig", Standalone)
	a.Description = ptr("20 MWh lithium-ion")
	a.OptimizerOrgID = ptr("optico")
	a.ChargeEfficiency, a.DischargeEfficiency = ptr(0.95), ptr(1.0)
	a.Country, a.TSO = ptr("DE"), ptr(TSO50Hertz)
	a.MaxPosRampRateMWPerSec, a.MinNegRampRateMWPerSec = ptr(1.5), ptr(1.5)
	a.UsableEnergyCapacityMWh, a.UsablePowerCapacityMW = ptr(20.0), ptr(10.0)
	a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW, a.FCRPrequalifiedMW = 10, 8, 5
	a.TSOPoolID, a.IOAMiddle = ptr(int64(7)), ptr(255)
	a.Latitude, a.Longitude = ptr(51.34), ptr(12.37)
	a.GridConnectionPowerMW = ptr(12.0)
	a.IntegrationType = ptr(FullControl)
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

func TestValidate(t *testing.T) {
	long := func(n int) string { return strings.Repeat("ä", n) }
	cases := []struct {
		name   string
		mutate func(a *Asset)
		want   []string // offending locations; none when valid
	}{
		{"fully populated", func(*Asset) {}, nil},
		{"defaults only", func(a *Asset) { *a = NewAsset("x", "acme", "n", "l", GreyColocation) }, nil},
		{"id of one character", func(a *Asset) { a.ID = "b" }, nil},
		{"id of 64 characters", func(a *Asset) { a.ID = strings.Repeat("a", 64) }, nil},
		{"id with dot, dash, underscore", func(a *Asset) { a.ID = "DE.bess_01-a" }, nil},
		{"id of 65 characters", func(a *Asset) { a.ID = strings.Repeat("a", 65) }, []string{"asset_id"}},
		{"empty id", func(a *Asset) { a.ID = "" }, []string{"asset_id"}},
		{"id with colon", func(a *Asset) { a.ID = "bess:1" }, []string{"asset_id"}},
		{"id with slash", func(a *Asset) { a.ID = "bess/1" }, []string{"asset_id"}},
		{"id starting with dash", func(a *Asset) { a.ID = "-bess" }, []string{"asset_id"}},
		{"id with non-ASCII", func(a *Asset) { a.ID = "bäss" }, []string{"asset_id"}},
		{"empty organisation", func(a *Asset) { a.OrganizationID = "" }, []string{"organisation_id"}},
		{"organisation with space", func(a *Asset) { a.OrganizationID = "ac me" }, []string{"organisation_id"}},
		{"organisation too long", func(a *Asset) { a.OrganizationID = strings.Repeat("a", 65) }, []string{"organisation_id"}},
		{"name of 200 characters", func(a *Asset) { a.Name = long(200) }, nil},
		{"name of 201 characters", func(a *Asset) { a.Name = long(201) }, []string{"asset_name"}},
		{"blank name", func(a *Asset) { a.Name = "  " }, []string{"asset_name"}},
		{"name with newline", func(a *Asset) { a.Name = "a\nb" }, []string{"asset_name"}},
		{"name with NUL", func(a *Asset) { a.Name = "a\x00b" }, []string{"asset_name"}},
		{"name not UTF-8", func(a *Asset) { a.Name = "a\xffb" }, []string{"asset_name"}},
		{"unknown type", func(a *Asset) { a.Type = "hybrid" }, []string{"asset_type"}},
		{"description with line breaks", func(a *Asset) { a.Description = ptr("a\r\n\tb") }, nil},
		{"empty description", func(a *Asset) { a.Description = ptr("") }, nil},
		{"description too long", func(a *Asset) { a.Description = ptr(long(2001)) }, []string{"description"}},
		{"description with NUL", func(a *Asset) { a.Description = ptr("\x00") }, []string{"description"}},
		{"empty location", func(a *Asset) { a.Location = "" }, []string{"location"}},
		{"location too long", func(a *Asset) { a.Location = long(201) }, []string{"location"}},
		{"empty optimizer", func(a *Asset) { a.OptimizerOrgID = ptr("") }, []string{"optimizer_org_id"}},
		{"id with NUL", func(a *Asset) { a.ID = "bess\x00" }, []string{"asset_id"}},
		{"organisation with NUL", func(a *Asset) { a.OrganizationID = "ac\x00me" }, []string{"organisation_id"}},
		{"optimizer with a C1 control", func(a *Asset) { a.OptimizerOrgID = ptr("opt\u0085") }, []string{"optimizer_org_id"}},
		{"name with escape", func(a *Asset) { a.Name = "\x1b[2Jname" }, []string{"asset_name"}},
		{"location with DEL", func(a *Asset) { a.Location = "Leip\x7fzig" }, []string{"location"}},
		{"status reason with line breaks", func(a *Asset) { a.OperationalStatusReason = ptr("line\nline\t") }, nil},
		{"status reason with NUL", func(a *Asset) { a.OperationalStatusReason = ptr("a\x00") }, []string{"operational_status_reason"}},
		{"efficiency 1", func(a *Asset) { a.ChargeEfficiency = ptr(1.0) }, nil},
		{"efficiency just above 0", func(a *Asset) { a.ChargeEfficiency = ptr(1e-9) }, nil},
		{"efficiency 0", func(a *Asset) { a.ChargeEfficiency = ptr(0.0) }, []string{"charge_efficiency"}},
		{"efficiency above 1", func(a *Asset) { a.DischargeEfficiency = ptr(1.01) }, []string{"discharge_efficiency"}},
		{"efficiency NaN", func(a *Asset) { a.DischargeEfficiency = ptr(math.NaN()) }, []string{"discharge_efficiency"}},
		{"country lower case", func(a *Asset) { a.Country = ptr("de") }, []string{"country"}},
		{"country unassigned", func(a *Asset) { a.Country = ptr("XX") }, []string{"country"}},
		{"country alpha-3", func(a *Asset) { a.Country = ptr("DEU") }, []string{"country"}},
		{"country AT", func(a *Asset) { a.Country = ptr("AT") }, nil},
		{"unknown TSO", func(a *Asset) { a.TSO = ptr(TSO("50hz")) }, []string{"tso"}},
		{"each TSO", func(a *Asset) { a.TSO = ptr(TSOTransnetBW) }, nil},
		{"negative ramp", func(a *Asset) { a.MaxPosRampRateMWPerSec = ptr(-1.0) }, []string{"max_pos_ramp_rate_mw_per_sec"}},
		{"infinite ramp", func(a *Asset) { a.MinNegRampRateMWPerSec = ptr(math.Inf(1)) }, []string{"min_neg_ramp_rate_mw_per_sec"}},
		{"ramp above bound", func(a *Asset) { a.MinNegRampRateMWPerSec = ptr(10_001.0) }, []string{"min_neg_ramp_rate_mw_per_sec"}},
		{"zero energy", func(a *Asset) { a.UsableEnergyCapacityMWh = ptr(0.0) }, nil},
		{"energy above bound", func(a *Asset) { a.UsableEnergyCapacityMWh = ptr(100_001.0) }, []string{"usable_energy_capacity_mwh"}},
		{"negative power", func(a *Asset) { a.UsablePowerCapacityMW = ptr(-0.1) }, []string{"usable_power_capacity_mw"}},
		{"power lowered below prequalified", func(a *Asset) { a.UsablePowerCapacityMW = ptr(6.0) }, []string{
			"afrr_prequalified_capacity_pos_mw", "afrr_prequalified_capacity_neg_mw",
		}},
		{"power NaN", func(a *Asset) { a.UsablePowerCapacityMW = ptr(math.NaN()) }, []string{"usable_power_capacity_mw"}},
		{"prequalified equal to usable power", func(a *Asset) { a.FCRPrequalifiedMW = 10 }, nil},
		{"prequalified above usable power", func(a *Asset) { a.AFRRPrequalifiedNegMW = 10.5 }, []string{"afrr_prequalified_capacity_neg_mw"}},
		{"prequalified without usable power", func(a *Asset) { a.UsablePowerCapacityMW = nil; a.FCRPrequalifiedMW = 500 }, nil},
		{"prequalified negative", func(a *Asset) { a.AFRRPrequalifiedPosMW = -1 }, []string{"afrr_prequalified_capacity_pos_mw"}},
		{"prequalified above bound", func(a *Asset) { a.UsablePowerCapacityMW = nil; a.FCRPrequalifiedMW = 10_001 }, []string{"fcr_prequalified_capacity_mw"}},
		{"pool id 0", func(a *Asset) { a.TSOPoolID = ptr(int64(0)) }, nil},
		{"negative pool id", func(a *Asset) { a.TSOPoolID = ptr(int64(-1)) }, []string{"tso_pool_id"}},
		{"pool id above int32", func(a *Asset) { a.TSOPoolID = ptr(int64(math.MaxInt32) + 1) }, []string{"tso_pool_id"}},
		{"ioa 0", func(a *Asset) { a.IOAMiddle = ptr(0) }, nil},
		{"ioa 256", func(a *Asset) { a.IOAMiddle = ptr(256) }, []string{"ioa_middle"}},
		{"ioa negative", func(a *Asset) { a.IOAMiddle = ptr(-1) }, []string{"ioa_middle"}},
		{"latitude bounds", func(a *Asset) { a.Latitude, a.Longitude = ptr(-90.0), ptr(180.0) }, nil},
		{"latitude beyond", func(a *Asset) { a.Latitude = ptr(90.5) }, []string{"latitude"}},
		{"longitude beyond", func(a *Asset) { a.Longitude = ptr(-180.5) }, []string{"longitude"}},
		{"latitude alone", func(a *Asset) { a.Longitude = nil }, []string{"longitude"}},
		{"longitude alone", func(a *Asset) { a.Latitude = nil }, []string{"latitude"}},
		{"no coordinates", func(a *Asset) { a.Latitude, a.Longitude = nil, nil }, nil},
		{"negative grid connection", func(a *Asset) { a.GridConnectionPowerMW = ptr(-5.0) }, []string{"grid_connection_power_mw"}},
		{"green with grid import", func(a *Asset) { a.Type = GreenColocation; a.GridImportAllowed = ptr(true) }, []string{"grid_import_allowed"}},
		{"green without grid import", func(a *Asset) { a.Type = GreenColocation; a.GridImportAllowed = ptr(false) }, nil},
		{"grey with grid import", func(a *Asset) { a.Type = GreyColocation; a.GridImportAllowed = ptr(true) }, nil},
		{"unknown integration type", func(a *Asset) { a.IntegrationType = ptr(IntegrationType("partial")) }, []string{"asset_integration_type"}},
		{"unknown status", func(a *Asset) { a.OperationalStatus = "retired" }, []string{"asset_operational_status"}},
		{"empty status", func(a *Asset) { a.OperationalStatus = "" }, []string{"asset_operational_status"}},
		{"status reason too long", func(a *Asset) { a.OperationalStatusReason = ptr(long(501)) }, []string{"operational_status_reason"}},
		{"maintenance in 2000", func(a *Asset) { a.MaintenanceUntil = ptr(EarliestInstant) }, nil},
		{"maintenance at the end of 9999", func(a *Asset) { a.MaintenanceUntil = ptr(InstantsBefore.Add(-time.Microsecond)) }, nil},
		{"maintenance before 2000", func(a *Asset) { a.MaintenanceUntil = ptr(EarliestInstant.Add(-time.Microsecond)) }, []string{"maintenance_until"}},
		{"maintenance beyond 9999", func(a *Asset) { a.MaintenanceUntil = ptr(InstantsBefore) }, []string{"maintenance_until"}},
		{"every problem at once", func(a *Asset) {
			a.Name, a.Location, a.IOAMiddle, a.Country = "", "", ptr(300), ptr("Germany")
		}, []string{"asset_name", "location", "country", "ioa_middle"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := validAsset()
			c.mutate(&a)
			got := locations(t, a.Validate())
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("offending fields %v, want %v (%v)", got, c.want, a.Validate())
			}
		})
	}
}

func TestNewAssetDefaults(t *testing.T) {
	a := NewAsset("x", "acme", "n", "l", Standalone)
	if !a.TSOConnected || a.OperationalStatus != Onboarding || a.GridImportAllowed != nil ||
		a.FCREnabled || a.AFRREnabled || a.WholesaleEnabled || a.ControlEnabled || a.PVActive ||
		a.DisablePQCapacityCheck || a.StrictValidation || a.AFRRPrequalifiedPosMW != 0 || a.FCRPrequalifiedMW != 0 {
		t.Fatalf("defaults wrong: %+v", a)
	}
	g := NewAsset("x", "acme", "n", "l", GreenColocation)
	if g.GridImportAllowed == nil || *g.GridImportAllowed || g.GridImportZero() == nil || !*g.GridImportZero() {
		t.Fatalf("green co-location must default to no grid import: %+v", g)
	}
}

func TestDerivedFlags(t *testing.T) {
	a := validAsset()
	if !a.GridImportPermitted() || a.GridImportZero() != nil {
		t.Fatal("unset grid import must be permitted and its alias null")
	}
	a.ControlEnabled = true
	if !a.BESSControl() || a.PVControl() {
		t.Fatal("unset bess_control_enabled must follow control_enabled; unset pv control is not permitted")
	}
	a.BESSControlEnabled, a.PVControlEnabled = ptr(false), ptr(true)
	if a.BESSControl() || !a.PVControl() {
		t.Fatal("explicit control flags must win")
	}
	if a.ProductionCritical() {
		t.Fatal("an onboarding asset is not production critical")
	}
	a.OperationalStatus = Live
	if a.ProductionCritical() {
		t.Fatal("a live asset in no market is not production critical")
	}
	a.AFRREnabled = true
	if !a.ProductionCritical() {
		t.Fatal("a live aFRR asset is production critical")
	}
}

func TestParseEnums(t *testing.T) {
	for _, s := range []string{"standalone", "green_colocation", "grey_colocation"} {
		if v, err := ParseAssetType(s); err != nil || string(v) != s {
			t.Fatalf("ParseAssetType(%q) = %q, %v", s, v, err)
		}
	}
	for _, s := range []string{"50HZ", "TNNT", "AMP", "TNBW"} {
		if v, err := ParseTSO(s); err != nil || string(v) != s {
			t.Fatalf("ParseTSO(%q) = %q, %v", s, v, err)
		}
	}
	for _, s := range []string{"onboarding", "onboarding_testing", "live", "maintenance", "offboarded"} {
		if v, err := ParseOperationalStatus(s); err != nil || string(v) != s {
			t.Fatalf("ParseOperationalStatus(%q) = %q, %v", s, v, err)
		}
	}
	for _, s := range []string{"full_control", "monitoring_only"} {
		if v, err := ParseIntegrationType(s); err != nil || string(v) != s {
			t.Fatalf("ParseIntegrationType(%q) = %q, %v", s, v, err)
		}
	}
	for _, bad := range []string{"", "50hz", "Standalone", "LIVE", " full_control"} {
		_, e1 := ParseTSO(bad)
		_, e2 := ParseAssetType(bad)
		_, e3 := ParseOperationalStatus(bad)
		_, e4 := ParseIntegrationType(bad)
		if e1 == nil || e2 == nil || e3 == nil || e4 == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}
