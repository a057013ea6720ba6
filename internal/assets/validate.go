package assets

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atcp/internal/errs"
	"atcp/internal/textrule"
)

// Validation ranges. The upper bounds of physical quantities are far above
// any single battery (the largest ones are a few GW) and exist to catch
// unit mistakes such as kW sent as MW; docs/assets.md lists them.
const (
	MaxNameLength           = 200
	MaxLocationLength       = 200
	MaxDescriptionLength    = 2000
	MaxStatusReasonLength   = 500
	MaxOrganizationIDLength = 64
	MaxPowerMW              = 10_000
	MaxEnergyMWh            = 100_000
	MaxRampRateMWPerSec     = 10_000
	MaxTSOPoolID            = math.MaxInt32
	MaxIOAMiddle            = 255 // one octet
)

// Instants such as maintenance_until lie in [EarliestInstant,
// InstantsBefore): an offset can move a four-digit year out of the range
// RFC 3339 (and so JSON) can express.
var (
	EarliestInstant = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	InstantsBefore  = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// AssetIDPattern is the shape of an asset id. It has no ':' because alarm
// keys are asset_id:rule_id, and no '/' or '%' so it is a plain path
// segment.
const AssetIDPattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`

var assetIDRE = regexp.MustCompile(AssetIDPattern)

// ValidID reports whether id has the shape of an asset id; an id that does
// not cannot name an asset.
func ValidID(id string) bool { return assetIDRE.MatchString(id) }

// Validate checks every field and the rules between them; the error (422)
// names each offending field by its name in document 1 (asset_name).
func (a Asset) Validate() error {
	var v errs.Validation
	a.validate(&v)
	return v.Err()
}

func (a Asset) validate(v *errs.Validation) {
	if !ValidID(a.ID) {
		v.Add("asset_id", "must match "+AssetIDPattern, a.ID)
	}
	identifier(v, "organisation_id", a.OrganizationID)
	line(v, "asset_name", a.Name, MaxNameLength)
	if !a.Type.Valid() {
		v.Add("asset_type", fmt.Sprintf("must be one of %v", AssetTypes), string(a.Type))
	}
	if a.Description != nil {
		text(v, "description", *a.Description, MaxDescriptionLength)
	}
	line(v, "location", a.Location, MaxLocationLength)
	if a.OptimizerOrgID != nil {
		identifier(v, "optimizer_org_id", *a.OptimizerOrgID)
	}

	efficiency(v, "charge_efficiency", a.ChargeEfficiency)
	efficiency(v, "discharge_efficiency", a.DischargeEfficiency)
	if a.Country != nil && !isCountry(*a.Country) {
		v.Add("country", "must be an ISO 3166-1 alpha-2 code in upper case, such as DE", *a.Country)
	}
	if a.TSO != nil && !a.TSO.Valid() {
		v.Add("tso", fmt.Sprintf("must be one of %v", TSOs), string(*a.TSO))
	}

	quantity(v, "max_pos_ramp_rate_mw_per_sec", a.MaxPosRampRateMWPerSec, MaxRampRateMWPerSec)
	quantity(v, "min_neg_ramp_rate_mw_per_sec", a.MinNegRampRateMWPerSec, MaxRampRateMWPerSec)
	quantity(v, "usable_energy_capacity_mwh", a.UsableEnergyCapacityMWh, MaxEnergyMWh)
	quantity(v, "usable_power_capacity_mw", a.UsablePowerCapacityMW, MaxPowerMW)
	quantity(v, "grid_connection_power_mw", a.GridConnectionPowerMW, MaxPowerMW)
	a.prequalified(v, "afrr_prequalified_capacity_pos_mw", a.AFRRPrequalifiedPosMW)
	a.prequalified(v, "afrr_prequalified_capacity_neg_mw", a.AFRRPrequalifiedNegMW)
	a.prequalified(v, "fcr_prequalified_capacity_mw", a.FCRPrequalifiedMW)

	if a.TSOPoolID != nil && (*a.TSOPoolID < 0 || *a.TSOPoolID > MaxTSOPoolID) {
		v.Add("tso_pool_id", fmt.Sprintf("must be between 0 and %d", MaxTSOPoolID), *a.TSOPoolID)
	}
	if a.IOAMiddle != nil && (*a.IOAMiddle < 0 || *a.IOAMiddle > MaxIOAMiddle) {
		v.Add("ioa_middle", fmt.Sprintf("must be between 0 and %d (one octet)", MaxIOAMiddle), *a.IOAMiddle)
	}

	coordinate(v, "latitude", a.Latitude, 90)
	coordinate(v, "longitude", a.Longitude, 180)
	// A coordinate alone places the asset nowhere.
	if (a.Latitude == nil) != (a.Longitude == nil) {
		missing := "latitude"
		if a.Longitude == nil {
			missing = "longitude"
		}
		v.Add(missing, "latitude and longitude are set together or not at all", nil)
	}

	if a.Type == GreenColocation && a.GridImportAllowed != nil && *a.GridImportAllowed {
		v.Add("grid_import_allowed", "a green co-located asset may not import from the grid", true)
	}
	if a.IntegrationType != nil && !a.IntegrationType.Valid() {
		v.Add("asset_integration_type", fmt.Sprintf("must be one of %v", IntegrationTypes), string(*a.IntegrationType))
	}
	if !a.OperationalStatus.Valid() {
		v.Add("asset_operational_status", fmt.Sprintf("must be one of %v", OperationalStatuses), string(a.OperationalStatus))
	}
	if a.OperationalStatusReason != nil {
		text(v, "operational_status_reason", *a.OperationalStatusReason, MaxStatusReasonLength)
	}
	if m := a.MaintenanceUntil; m != nil && (m.Before(EarliestInstant) || !m.Before(InstantsBefore)) {
		v.Add("maintenance_until", "must be an instant from the year 2000 to 9999 (UTC)", m.Format(time.RFC3339Nano))
	}
	a.validateAdapter(v)
}

// prequalified checks a prequalified capacity: a magnitude that the asset
// can actually deliver, so never above its usable power when that is known.
func (a Asset) prequalified(v *errs.Validation, loc string, mw float64) {
	if !quantity(v, loc, &mw, MaxPowerMW) || a.UsablePowerCapacityMW == nil {
		return
	}
	// An invalid usable power is reported on its own field.
	if usable := *a.UsablePowerCapacityMW; usable >= 0 && mw > usable {
		v.Add(loc, fmt.Sprintf("must not exceed usable_power_capacity_mw (%g MW)", usable), mw)
	}
}

// quantity checks an optional physical quantity in [0, limit] and reports
// whether it is acceptable.
func quantity(v *errs.Validation, loc string, x *float64, limit float64) bool {
	if x == nil {
		return true
	}
	if math.IsNaN(*x) || math.IsInf(*x, 0) || *x < 0 || *x > limit {
		v.Add(loc, fmt.Sprintf("must be a finite number between 0 and %g", limit), finiteOrNil(*x))
		return false
	}
	return true
}

func efficiency(v *errs.Validation, loc string, x *float64) {
	if x != nil && !(*x > 0 && *x <= 1) { // also false for NaN
		v.Add(loc, "must be greater than 0 and at most 1", finiteOrNil(*x))
	}
}

func coordinate(v *errs.Validation, loc string, x *float64, limit float64) {
	if x != nil && !(*x >= -limit && *x <= limit) {
		v.Add(loc, fmt.Sprintf("must be between %g and %g", -limit, limit), finiteOrNil(*x))
	}
}

// finiteOrNil keeps NaN and infinities, which JSON cannot carry, out of the
// error body.
func finiteOrNil(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// line checks a required single-line text: not blank, at most limit
// characters, no control characters.
func line(v *errs.Validation, loc, s string, limit int) {
	if strings.TrimSpace(s) == "" {
		v.Add(loc, "must not be empty", s)
		return
	}
	if textrule.CheckName(v, loc, s) && utf8.RuneCountInString(s) > limit {
		v.Add(loc, fmt.Sprintf("must be at most %d characters", limit), s)
	}
}

// text checks an optional free text: line breaks and tabs are allowed,
// other control characters (NUL among them) are not.
func text(v *errs.Validation, loc, s string, limit int) {
	if textrule.CheckText(v, loc, s) && utf8.RuneCountInString(s) > limit {
		v.Add(loc, fmt.Sprintf("must be at most %d characters", limit), s)
	}
}

// identifier checks the shape of an organisation id; whether it is
// registered is the store's check.
func identifier(v *errs.Validation, loc, s string) {
	if s == "" {
		v.Add(loc, "must not be empty", s)
		return
	}
	if textrule.CheckName(v, loc, s) && (len(s) > MaxOrganizationIDLength || strings.ContainsFunc(s, unicode.IsSpace)) {
		v.Add(loc, "is not an organisation id", s)
	}
}
