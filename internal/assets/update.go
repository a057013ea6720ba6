package assets

import (
	"reflect"
	"time"

	"atcp/internal/errs"
)

// Update is a create or partial update: every writable field of document 1
// with its presence. Optional fields cannot be null (422); Nullable fields
// are cleared by null. Errors name the fields by their names in document 1
// (asset_name); the edge that decoded the request places them in it.
type Update struct {
	AssetID        Optional[string]
	OrganisationID Optional[string]
	// OrganizationID is the alias of OrganisationID in the spelling of
	// every other resource.
	OrganizationID Optional[string]

	AssetName   Optional[string]
	AssetType   Optional[AssetType]
	Description Nullable[string]
	Location    Optional[string]

	OptimizerOrgID Nullable[string]

	ChargeEfficiency    Nullable[float64]
	DischargeEfficiency Nullable[float64]
	Country             Nullable[string]
	TSO                 Nullable[TSO]

	MaxPosRampRateMWPerSec  Nullable[float64]
	MinNegRampRateMWPerSec  Nullable[float64]
	UsableEnergyCapacityMWh Nullable[float64]
	UsablePowerCapacityMW   Nullable[float64]

	AFRRPrequalifiedPosMW Optional[float64]
	AFRRPrequalifiedNegMW Optional[float64]
	FCRPrequalifiedMW     Optional[float64]

	TSOPoolID Nullable[int64]
	IOAMiddle Nullable[int]

	Latitude  Nullable[float64]
	Longitude Nullable[float64]

	DisablePQCapacityCheck Optional[bool]
	StrictValidation       Optional[bool]
	TSOConnected           Optional[bool]
	FCREnabled             Optional[bool]
	AFRREnabled            Optional[bool]
	WholesaleEnabled       Optional[bool]
	ControlEnabled         Optional[bool]
	PVActive               Optional[bool]

	GridConnectionPowerMW Nullable[float64]
	BESSPriority          Nullable[bool]
	POCExportLimitMW      Nullable[float64] // validated, then dropped: not persisted yet
	GridImportZero        Nullable[bool]    // deprecated inverse of GridImportAllowed
	GridImportAllowed     Nullable[bool]
	BESSControlEnabled    Nullable[bool]
	PVControlEnabled      Nullable[bool]

	IntegrationType         Nullable[IntegrationType]
	OperationalStatus       Optional[OperationalStatus]
	OperationalStatusReason Nullable[string]
	MaintenanceUntil        Nullable[time.Time]

	Adapter            Optional[AdapterName]
	AdapterTopicPrefix Optional[string]
}

// Organisation is the organisation u names: organisation_id (document 1's
// spelling) or its alias organization_id (every other resource's). Both
// may be sent when they agree; different values (a null against a value
// included) are 422 at organization_id.
func (u Update) Organisation() (Optional[string], error) {
	a, b := u.OrganisationID, u.OrganizationID
	switch {
	case !b.Present:
		return a, nil
	case !a.Present:
		return b, nil
	case a.Null != b.Null || a.Value != b.Value:
		return a, errs.Invalidf("organization_id", b.sent(), "alias of organisation_id: both given with different values")
	}
	return a, nil
}

// Create builds a new asset from a create request: the required fields
// (asset_id, asset_name, asset_type, location, organisation_id or its
// alias), every default for what is absent, then validation of the whole.
func (u Update) Create(now time.Time) (Asset, error) {
	org, err := u.Organisation()
	if err != nil {
		return Asset{}, err
	}
	var v errs.Validation
	for _, f := range []struct {
		loc     string
		present bool
	}{
		{"asset_id", u.AssetID.given()}, {"asset_name", u.AssetName.given()},
		{"asset_type", u.AssetType.given()}, {"location", u.Location.given()},
		{"organisation_id", org.given()},
	} {
		if !f.present {
			v.Add(f.loc, "is required and must not be null", nil)
		}
	}
	if err := v.Err(); err != nil {
		return Asset{}, err
	}
	a := Asset{
		ID: u.AssetID.Value, OrganizationID: org.Value, TSOConnected: true, OperationalStatus: Onboarding,
		Adapter: AdapterSimulator, AdapterTopicPrefix: DefaultTopicPrefix(u.AssetID.Value),
	}
	u.merge(&a, &v)
	a.normalize()
	a.validate(&v)
	if err := v.Err(); err != nil {
		return Asset{}, err
	}
	a.CreatedAt, a.UpdatedAt = now, now
	return a, nil
}

// Apply merges u into cur: only fields present in u change, null clears a
// nullable field and is rejected for any other. asset_id and
// organisation_id may be sent only with their current values. The merged
// asset is validated as a whole, so a change that breaks a rule between
// fields (usable power below a prequalified capacity) is refused. changed
// reports whether any value differs; when none does the asset is returned
// as it was, updated_at included.
func (u Update) Apply(cur Asset, now time.Time) (next Asset, changed bool, err error) {
	org, err := u.Organisation()
	if err != nil {
		return cur, false, err
	}
	var v errs.Validation
	if u.AssetID.Present && (u.AssetID.Null || u.AssetID.Value != cur.ID) {
		v.Add("asset_id", "asset ids cannot be changed; it must equal the id in the path", u.AssetID.sent())
	}
	if org.Present && (org.Null || org.Value != cur.OrganizationID) {
		loc := "organisation_id"
		if !u.OrganisationID.Present {
			loc = "organization_id"
		}
		v.Add(loc, "the organisation of an asset cannot be changed or cleared", org.sent())
	}
	next = cur
	u.merge(&next, &v)
	next.normalize()
	next.validate(&v)
	if err := v.Err(); err != nil {
		return cur, false, err
	}
	if sameContent(cur, next) {
		return cur, false, nil
	}
	next.UpdatedAt = now
	return next, true, nil
}

// merge copies the present fields of u into a, recording nulls sent for
// fields that cannot be null and a contradicting grid import alias.
func (u Update) merge(a *Asset, v *errs.Validation) {
	assign(v, "asset_name", u.AssetName, &a.Name)
	assign(v, "asset_type", u.AssetType, &a.Type)
	assignNullable(u.Description, &a.Description)
	assign(v, "location", u.Location, &a.Location)
	if u.OptimizerOrgID.Present {
		a.OptimizerOrgID, a.OptimizerOrgName = u.OptimizerOrgID.value(), nil
	}
	assignNullable(u.ChargeEfficiency, &a.ChargeEfficiency)
	assignNullable(u.DischargeEfficiency, &a.DischargeEfficiency)
	assignNullable(u.Country, &a.Country)
	assignNullable(u.TSO, &a.TSO)
	assignNullable(u.MaxPosRampRateMWPerSec, &a.MaxPosRampRateMWPerSec)
	assignNullable(u.MinNegRampRateMWPerSec, &a.MinNegRampRateMWPerSec)
	assignNullable(u.UsableEnergyCapacityMWh, &a.UsableEnergyCapacityMWh)
	assignNullable(u.UsablePowerCapacityMW, &a.UsablePowerCapacityMW)
	assign(v, "afrr_prequalified_capacity_pos_mw", u.AFRRPrequalifiedPosMW, &a.AFRRPrequalifiedPosMW)
	assign(v, "afrr_prequalified_capacity_neg_mw", u.AFRRPrequalifiedNegMW, &a.AFRRPrequalifiedNegMW)
	assign(v, "fcr_prequalified_capacity_mw", u.FCRPrequalifiedMW, &a.FCRPrequalifiedMW)
	assignNullable(u.TSOPoolID, &a.TSOPoolID)
	assignNullable(u.IOAMiddle, &a.IOAMiddle)
	assignNullable(u.Latitude, &a.Latitude)
	assignNullable(u.Longitude, &a.Longitude)
	assign(v, "disable_pq_capacity_check", u.DisablePQCapacityCheck, &a.DisablePQCapacityCheck)
	assign(v, "strict_validation", u.StrictValidation, &a.StrictValidation)
	assign(v, "tso_connected", u.TSOConnected, &a.TSOConnected)
	assign(v, "fcr_enabled", u.FCREnabled, &a.FCREnabled)
	assign(v, "afrr_enabled", u.AFRREnabled, &a.AFRREnabled)
	assign(v, "wholesale_enabled", u.WholesaleEnabled, &a.WholesaleEnabled)
	assign(v, "control_enabled", u.ControlEnabled, &a.ControlEnabled)
	assign(v, "pv_active", u.PVActive, &a.PVActive)
	assignNullable(u.GridConnectionPowerMW, &a.GridConnectionPowerMW)
	assignNullable(u.BESSPriority, &a.BESSPriority)
	// poc_export_limit_mw is not active yet: it is checked so that a client
	// learns of a bad value now, and then dropped.
	if p := u.POCExportLimitMW; p.Present && !p.Null {
		quantity(v, "poc_export_limit_mw", &p.Value, MaxPowerMW)
	}
	u.mergeGridImport(a, v)
	assignNullable(u.BESSControlEnabled, &a.BESSControlEnabled)
	assignNullable(u.PVControlEnabled, &a.PVControlEnabled)
	assignNullable(u.IntegrationType, &a.IntegrationType)
	assign(v, "asset_operational_status", u.OperationalStatus, &a.OperationalStatus)
	assignNullable(u.OperationalStatusReason, &a.OperationalStatusReason)
	assignNullable(u.MaintenanceUntil, &a.MaintenanceUntil)
	assign(v, "adapter", u.Adapter, &a.Adapter)
	assign(v, "adapter_topic_prefix", u.AdapterTopicPrefix, &a.AdapterTopicPrefix)
}

// mergeGridImport applies grid_import_allowed or its deprecated inverse
// grid_import_zero; both may be sent when they agree (a GET body sent back).
func (u Update) mergeGridImport(a *Asset, v *errs.Validation) {
	allowed, zero := u.GridImportAllowed, u.GridImportZero
	if zero.Present && !zero.Null {
		zero = Set(!zero.Value) // now in the sense of grid_import_allowed
	}
	if allowed.Present && zero.Present && (allowed.Null != zero.Null || allowed.Value != zero.Value) {
		v.Add("grid_import_zero", "contradicts grid_import_allowed, whose inverse it is", u.GridImportZero.sent())
		return
	}
	if allowed.Present {
		assignNullable(allowed, &a.GridImportAllowed)
	} else {
		assignNullable(zero, &a.GridImportAllowed)
	}
}

func assign[T any](v *errs.Validation, loc string, o Optional[T], dst *T) {
	switch {
	case !o.Present:
	case o.Null:
		v.Add(loc, "must not be null", nil)
	default:
		*dst = o.Value
	}
}

func assignNullable[T any](n Nullable[T], dst **T) {
	if n.Present {
		*dst = n.value()
	}
}

// sameContent reports whether two assets hold the same values, ignoring
// timestamps and the looked-up optimizer name.
func sameContent(a, b Asset) bool {
	if (a.MaintenanceUntil == nil) != (b.MaintenanceUntil == nil) ||
		a.MaintenanceUntil != nil && !a.MaintenanceUntil.Equal(*b.MaintenanceUntil) {
		return false
	}
	for _, x := range []*Asset{&a, &b} {
		x.CreatedAt, x.UpdatedAt, x.OptimizerOrgName, x.MaintenanceUntil = time.Time{}, time.Time{}, nil, nil
	}
	return reflect.DeepEqual(a, b)
}
