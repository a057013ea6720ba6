package assets

import (
	"reflect"
	"time"

	"atcp/internal/errs"
)

// Update is the body of a create or partial update: every writable field
// of document 1 with its presence. Optional fields cannot be null (422);
// Nullable fields are cleared by null. The struct tags name the wire
// fields and document the ranges in the OpenAPI schema; Validate is the
// authority on them.
type Update struct {
	AssetID        Optional[string] `json:"asset_id,omitzero" doc:"Not updatable: ignored when equal to the path id, 422 otherwise."`
	OrganisationID Optional[string] `json:"organisation_id,omitzero" doc:"Not updatable: must equal the stored value."`
	// OrganizationID is the alias in the spelling of every other resource.
	OrganizationID Optional[string] `json:"organization_id,omitzero" doc:"Alias of organisation_id (the spelling of every other resource); sending both with different values is 422."`

	AssetName   Optional[string]    `json:"asset_name,omitzero" minLength:"1" maxLength:"200"`
	AssetType   Optional[AssetType] `json:"asset_type,omitzero"`
	Description Nullable[string]    `json:"description,omitzero" maxLength:"2000"`
	Location    Optional[string]    `json:"location,omitzero" minLength:"1" maxLength:"200"`

	OptimizerOrgID Nullable[string] `json:"optimizer_org_id,omitzero" doc:"A registered organisation; null clears it."`

	ChargeEfficiency    Nullable[float64] `json:"charge_efficiency,omitzero" exclusiveMinimum:"0" maximum:"1"`
	DischargeEfficiency Nullable[float64] `json:"discharge_efficiency,omitzero" exclusiveMinimum:"0" maximum:"1"`
	Country             Nullable[string]  `json:"country,omitzero" pattern:"^[A-Z]{2}$" doc:"ISO 3166-1 alpha-2 code, upper case."`
	TSO                 Nullable[TSO]     `json:"tso,omitzero" doc:"Transmission system operator (control zone)."`

	MaxPosRampRateMWPerSec  Nullable[float64] `json:"max_pos_ramp_rate_mw_per_sec,omitzero" minimum:"0" maximum:"10000" doc:"MW/s."`
	MinNegRampRateMWPerSec  Nullable[float64] `json:"min_neg_ramp_rate_mw_per_sec,omitzero" minimum:"0" maximum:"10000" doc:"MW/s, positive magnitude."`
	UsableEnergyCapacityMWh Nullable[float64] `json:"usable_energy_capacity_mwh,omitzero" minimum:"0" maximum:"100000"`
	UsablePowerCapacityMW   Nullable[float64] `json:"usable_power_capacity_mw,omitzero" minimum:"0" maximum:"10000"`

	AFRRPrequalifiedPosMW Optional[float64] `json:"afrr_prequalified_capacity_pos_mw,omitzero" minimum:"0" maximum:"10000" doc:"Magnitude; default 0; at most usable_power_capacity_mw."`
	AFRRPrequalifiedNegMW Optional[float64] `json:"afrr_prequalified_capacity_neg_mw,omitzero" minimum:"0" maximum:"10000" doc:"Magnitude; default 0; at most usable_power_capacity_mw."`
	FCRPrequalifiedMW     Optional[float64] `json:"fcr_prequalified_capacity_mw,omitzero" minimum:"0" maximum:"10000" doc:"Symmetric; default 0; at most usable_power_capacity_mw."`

	TSOPoolID Nullable[int64] `json:"tso_pool_id,omitzero" minimum:"0" maximum:"2147483647"`
	IOAMiddle Nullable[int]   `json:"ioa_middle,omitzero" minimum:"0" maximum:"255" doc:"IEC-104 IOA middle octet."`

	Latitude  Nullable[float64] `json:"latitude,omitzero" minimum:"-90" maximum:"90" doc:"Set together with longitude."`
	Longitude Nullable[float64] `json:"longitude,omitzero" minimum:"-180" maximum:"180" doc:"Set together with latitude."`

	DisablePQCapacityCheck Optional[bool] `json:"disable_pq_capacity_check,omitzero" doc:"Default false."`
	StrictValidation       Optional[bool] `json:"strict_validation,omitzero" doc:"Default false."`
	TSOConnected           Optional[bool] `json:"tso_connected,omitzero" doc:"Default true."`
	FCREnabled             Optional[bool] `json:"fcr_enabled,omitzero" doc:"Default false."`
	AFRREnabled            Optional[bool] `json:"afrr_enabled,omitzero" doc:"Default false."`
	WholesaleEnabled       Optional[bool] `json:"wholesale_enabled,omitzero" doc:"Default false."`
	ControlEnabled         Optional[bool] `json:"control_enabled,omitzero" doc:"Default false."`
	PVActive               Optional[bool] `json:"pv_active,omitzero" doc:"Default false."`

	GridConnectionPowerMW Nullable[float64] `json:"grid_connection_power_mw,omitzero" minimum:"0" maximum:"10000"`
	BESSPriority          Nullable[bool]    `json:"bess_priority,omitzero"`
	POCExportLimitMW      Nullable[float64] `json:"poc_export_limit_mw,omitzero" minimum:"0" maximum:"10000" doc:"Accepted and validated but not persisted (not yet active); always returned as null."`
	GridImportZero        Nullable[bool]    `json:"grid_import_zero,omitzero" deprecated:"true" doc:"Deprecated inverse of grid_import_allowed."`
	GridImportAllowed     Nullable[bool]    `json:"grid_import_allowed,omitzero" doc:"Null = unset, treated as permitted; always false for green co-location."`
	BESSControlEnabled    Nullable[bool]    `json:"bess_control_enabled,omitzero" doc:"Null falls back to control_enabled."`
	PVControlEnabled      Nullable[bool]    `json:"pv_control_enabled,omitzero" doc:"Null is treated as not permitted."`

	IntegrationType         Nullable[IntegrationType]   `json:"asset_integration_type,omitzero"`
	OperationalStatus       Optional[OperationalStatus] `json:"asset_operational_status,omitzero" doc:"Default onboarding."`
	OperationalStatusReason Nullable[string]            `json:"operational_status_reason,omitzero" maxLength:"500"`
	MaintenanceUntil        Nullable[time.Time]         `json:"maintenance_until,omitzero" doc:"Expected end of maintenance."`

	Adapter            Optional[AdapterName] `json:"adapter,omitzero" enum:"simulator,mqtt" doc:"How the platform steers the asset: simulator (the built-in battery simulator, default) or mqtt (an edge gateway on the operator's MQTT broker, see docs/adapters.md)." example:"mqtt"`
	AdapterTopicPrefix Optional[string]      `json:"adapter_topic_prefix,omitzero" minLength:"1" maxLength:"200" doc:"MQTT topic prefix of the asset's gateway: it uses <prefix>/command, <prefix>/measurements and <prefix>/status. Default atcp/<asset_id>. 1-200 bytes, no wildcards (+, #), no leading $ or /, no trailing /, no empty levels." example:"site-7/bess-1"`
}

// Organisation is the organisation u names: organisation_id (document 1's
// spelling) or its alias organization_id (every other resource's). Both
// may be sent when they agree; different values (a null against a value
// included) are 422 at body.organization_id.
func (u Update) Organisation() (Optional[string], error) {
	a, b := u.OrganisationID, u.OrganizationID
	switch {
	case !b.Present:
		return a, nil
	case !a.Present:
		return b, nil
	case a.Null != b.Null || a.Value != b.Value:
		return a, errs.Invalidf("body.organization_id", b.sent(), "alias of organisation_id: both given with different values")
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
		{"body.asset_id", u.AssetID.given()}, {"body.asset_name", u.AssetName.given()},
		{"body.asset_type", u.AssetType.given()}, {"body.location", u.Location.given()},
		{"body.organisation_id", org.given()},
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
		v.Add("body.asset_id", "asset ids cannot be changed; it must equal the id in the path", u.AssetID.sent())
	}
	if org.Present && (org.Null || org.Value != cur.OrganizationID) {
		loc := "body.organisation_id"
		if !u.OrganisationID.Present {
			loc = "body.organization_id"
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
	assign(v, "body.asset_name", u.AssetName, &a.Name)
	assign(v, "body.asset_type", u.AssetType, &a.Type)
	assignNullable(u.Description, &a.Description)
	assign(v, "body.location", u.Location, &a.Location)
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
	assign(v, "body.afrr_prequalified_capacity_pos_mw", u.AFRRPrequalifiedPosMW, &a.AFRRPrequalifiedPosMW)
	assign(v, "body.afrr_prequalified_capacity_neg_mw", u.AFRRPrequalifiedNegMW, &a.AFRRPrequalifiedNegMW)
	assign(v, "body.fcr_prequalified_capacity_mw", u.FCRPrequalifiedMW, &a.FCRPrequalifiedMW)
	assignNullable(u.TSOPoolID, &a.TSOPoolID)
	assignNullable(u.IOAMiddle, &a.IOAMiddle)
	assignNullable(u.Latitude, &a.Latitude)
	assignNullable(u.Longitude, &a.Longitude)
	assign(v, "body.disable_pq_capacity_check", u.DisablePQCapacityCheck, &a.DisablePQCapacityCheck)
	assign(v, "body.strict_validation", u.StrictValidation, &a.StrictValidation)
	assign(v, "body.tso_connected", u.TSOConnected, &a.TSOConnected)
	assign(v, "body.fcr_enabled", u.FCREnabled, &a.FCREnabled)
	assign(v, "body.afrr_enabled", u.AFRREnabled, &a.AFRREnabled)
	assign(v, "body.wholesale_enabled", u.WholesaleEnabled, &a.WholesaleEnabled)
	assign(v, "body.control_enabled", u.ControlEnabled, &a.ControlEnabled)
	assign(v, "body.pv_active", u.PVActive, &a.PVActive)
	assignNullable(u.GridConnectionPowerMW, &a.GridConnectionPowerMW)
	assignNullable(u.BESSPriority, &a.BESSPriority)
	// poc_export_limit_mw is not active yet: it is checked so that a client
	// learns of a bad value now, and then dropped.
	if p := u.POCExportLimitMW; p.Present && !p.Null {
		quantity(v, "body.poc_export_limit_mw", &p.Value, MaxPowerMW)
	}
	u.mergeGridImport(a, v)
	assignNullable(u.BESSControlEnabled, &a.BESSControlEnabled)
	assignNullable(u.PVControlEnabled, &a.PVControlEnabled)
	assignNullable(u.IntegrationType, &a.IntegrationType)
	assign(v, "body.asset_operational_status", u.OperationalStatus, &a.OperationalStatus)
	assignNullable(u.OperationalStatusReason, &a.OperationalStatusReason)
	assignNullable(u.MaintenanceUntil, &a.MaintenanceUntil)
	assign(v, "body.adapter", u.Adapter, &a.Adapter)
	assign(v, "body.adapter_topic_prefix", u.AdapterTopicPrefix, &a.AdapterTopicPrefix)
}

// mergeGridImport applies grid_import_allowed or its deprecated inverse
// grid_import_zero; both may be sent when they agree (a GET body sent back).
func (u Update) mergeGridImport(a *Asset, v *errs.Validation) {
	allowed, zero := u.GridImportAllowed, u.GridImportZero
	if zero.Present && !zero.Null {
		zero = Set(!zero.Value) // now in the sense of grid_import_allowed
	}
	if allowed.Present && zero.Present && (allowed.Null != zero.Null || allowed.Value != zero.Value) {
		v.Add("body.grid_import_zero", "contradicts grid_import_allowed, whose inverse it is", u.GridImportZero.sent())
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
