package sqlutil

import "atcp/internal/assets"

// AssetMutable lists the asset columns an update rewrites, in the order of
// AssetValues. Both backends build their SQL from it.
var AssetMutable = []string{
	"asset_name", "asset_type", "description", "location", "optimizer_org_id",
	"charge_efficiency", "discharge_efficiency", "country", "tso",
	"max_pos_ramp_rate_mw_per_sec", "min_neg_ramp_rate_mw_per_sec", "usable_energy_capacity_mwh", "usable_power_capacity_mw",
	"afrr_prequalified_capacity_pos_mw", "afrr_prequalified_capacity_neg_mw", "fcr_prequalified_capacity_mw",
	"tso_pool_id", "ioa_middle", "latitude", "longitude",
	"disable_pq_capacity_check", "strict_validation", "tso_connected", "fcr_enabled", "afrr_enabled",
	"wholesale_enabled", "control_enabled", "pv_active",
	"grid_connection_power_mw", "bess_priority", "grid_import_allowed", "bess_control_enabled", "pv_control_enabled",
	"asset_integration_type", "asset_operational_status", "operational_status_reason", "maintenance_until",
	"adapter", "adapter_topic_prefix", "updated_at",
}

// AssetValues returns the values of the AssetMutable columns; the backend
// passes its own encoding of the two instants.
func AssetValues(a assets.Asset, maintenanceUntil, updatedAt any) []any {
	return []any{
		a.Name, string(a.Type), a.Description, a.Location, a.OptimizerOrgID,
		a.ChargeEfficiency, a.DischargeEfficiency, a.Country, (*string)(a.TSO),
		a.MaxPosRampRateMWPerSec, a.MinNegRampRateMWPerSec, a.UsableEnergyCapacityMWh, a.UsablePowerCapacityMW,
		a.AFRRPrequalifiedPosMW, a.AFRRPrequalifiedNegMW, a.FCRPrequalifiedMW,
		a.TSOPoolID, a.IOAMiddle, a.Latitude, a.Longitude,
		a.DisablePQCapacityCheck, a.StrictValidation, a.TSOConnected, a.FCREnabled, a.AFRREnabled,
		a.WholesaleEnabled, a.ControlEnabled, a.PVActive,
		a.GridConnectionPowerMW, a.BESSPriority, a.GridImportAllowed, a.BESSControlEnabled, a.PVControlEnabled,
		(*string)(a.IntegrationType), string(a.OperationalStatus), a.OperationalStatusReason,
		maintenanceUntil, a.Adapter, a.AdapterTopicPrefix, updatedAt,
	}
}

// AssetRow receives the columns of an asset row that need parsing after
// the scan: the enumerations.
type AssetRow struct {
	typ, status      string
	tso, integration *string
}

// Targets returns the scan destinations of a row selected as
// asset_id, organization_id, created_at, the AssetMutable columns and the
// optimizer organisation's name; the backend passes its own destinations
// for the three instants.
func (r *AssetRow) Targets(a *assets.Asset, createdAt, maintenanceUntil, updatedAt any) []any {
	return []any{&a.ID, &a.OrganizationID, createdAt,
		&a.Name, &r.typ, &a.Description, &a.Location, &a.OptimizerOrgID,
		&a.ChargeEfficiency, &a.DischargeEfficiency, &a.Country, &r.tso,
		&a.MaxPosRampRateMWPerSec, &a.MinNegRampRateMWPerSec, &a.UsableEnergyCapacityMWh, &a.UsablePowerCapacityMW,
		&a.AFRRPrequalifiedPosMW, &a.AFRRPrequalifiedNegMW, &a.FCRPrequalifiedMW,
		&a.TSOPoolID, &a.IOAMiddle, &a.Latitude, &a.Longitude,
		&a.DisablePQCapacityCheck, &a.StrictValidation, &a.TSOConnected, &a.FCREnabled, &a.AFRREnabled,
		&a.WholesaleEnabled, &a.ControlEnabled, &a.PVActive,
		&a.GridConnectionPowerMW, &a.BESSPriority, &a.GridImportAllowed, &a.BESSControlEnabled, &a.PVControlEnabled,
		&r.integration, &r.status, &a.OperationalStatusReason, maintenanceUntil,
		&a.Adapter, &a.AdapterTopicPrefix, updatedAt,
		&a.OptimizerOrgName}
}

// Finish parses the scanned enumerations into a.
func (r *AssetRow) Finish(a *assets.Asset) error {
	var err error
	if a.Type, err = assets.ParseAssetType(r.typ); err != nil {
		return err
	}
	if a.OperationalStatus, err = assets.ParseOperationalStatus(r.status); err != nil {
		return err
	}
	if r.tso != nil {
		t, err := assets.ParseTSO(*r.tso)
		if err != nil {
			return err
		}
		a.TSO = &t
	}
	if r.integration != nil {
		t, err := assets.ParseIntegrationType(*r.integration)
		if err != nil {
			return err
		}
		a.IntegrationType = &t
	}
	return nil
}
