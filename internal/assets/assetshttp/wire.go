package assetshttp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets"
)

// Optional is the wire form of assets.Optional: it records whether the
// field was in the body and whether it was null. Its schema is the
// value's, not nullable.
type Optional[T any] assets.Optional[T]

// UnmarshalJSON records presence; encoding/json calls it for a null too.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	*o = Optional[T]{Present: true, Null: bytes.Equal(b, []byte("null"))}
	if o.Null {
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// Schema is the schema of T: the field's own tags (ranges, lengths) are
// applied on top by huma.
func (o Optional[T]) Schema(r huma.Registry) *huma.Schema {
	return r.Schema(reflect.TypeFor[T](), true, "")
}

// Nullable is the wire form of assets.Nullable: a field that may be left
// out, set, or cleared with an explicit null.
type Nullable[T any] assets.Nullable[T]

// UnmarshalJSON records presence and null; encoding/json calls it for a
// null too.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	*n = Nullable[T]{Present: true, Null: bytes.Equal(b, []byte("null"))}
	if n.Null {
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

// Schema is the schema of T that also admits null.
func (n Nullable[T]) Schema(r huma.Registry) *huma.Schema {
	return nullableSchema(r.Schema(reflect.TypeFor[T](), true, ""))
}

// nullableSchema makes s admit null. An enumeration lists null among its
// values as well, so that strict JSON Schema validators accept it.
func nullableSchema(s *huma.Schema) *huma.Schema {
	s.Nullable = true
	if len(s.Enum) > 0 && s.Enum[len(s.Enum)-1] != nil {
		s.Enum = append(s.Enum, nil)
	}
	return s
}

// Update is the wire form of assets.Update: every writable field of
// document 1 with its presence. The struct tags name the wire fields and
// document the ranges in the OpenAPI schema; assets.Asset.Validate is the
// authority on them.
type Update struct {
	AssetID        Optional[string] `json:"asset_id,omitzero" doc:"Not updatable: ignored when equal to the path id, 422 otherwise."`
	OrganisationID Optional[string] `json:"organisation_id,omitzero" doc:"Not updatable: must equal the stored value."`
	// OrganizationID is the alias in the spelling of every other resource.
	OrganizationID Optional[string] `json:"organization_id,omitzero" doc:"Alias of organisation_id (the spelling of every other resource); sending both with different values is 422."`

	AssetName   Optional[string]           `json:"asset_name,omitzero" minLength:"1" maxLength:"200"`
	AssetType   Optional[assets.AssetType] `json:"asset_type,omitzero"`
	Description Nullable[string]           `json:"description,omitzero" maxLength:"2000"`
	Location    Optional[string]           `json:"location,omitzero" minLength:"1" maxLength:"200"`

	OptimizerOrgID Nullable[string] `json:"optimizer_org_id,omitzero" doc:"A registered organisation; null clears it."`

	ChargeEfficiency    Nullable[float64]    `json:"charge_efficiency,omitzero" exclusiveMinimum:"0" maximum:"1"`
	DischargeEfficiency Nullable[float64]    `json:"discharge_efficiency,omitzero" exclusiveMinimum:"0" maximum:"1"`
	Country             Nullable[string]     `json:"country,omitzero" pattern:"^[A-Z]{2}$" doc:"ISO 3166-1 alpha-2 code, upper case."`
	TSO                 Nullable[assets.TSO] `json:"tso,omitzero" doc:"Transmission system operator (control zone)."`

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

	IntegrationType         Nullable[assets.IntegrationType]   `json:"asset_integration_type,omitzero"`
	OperationalStatus       Optional[assets.OperationalStatus] `json:"asset_operational_status,omitzero" doc:"Default onboarding."`
	OperationalStatusReason Nullable[string]                   `json:"operational_status_reason,omitzero" maxLength:"500"`
	MaintenanceUntil        Nullable[time.Time]                `json:"maintenance_until,omitzero" doc:"Expected end of maintenance."`

	Adapter            Optional[adapterName] `json:"adapter,omitzero" doc:"How the platform steers the asset: simulator (the built-in battery simulator, default) or mqtt (an edge gateway on the operator's MQTT broker, see docs/adapters.md)." example:"mqtt"`
	AdapterTopicPrefix Optional[string]      `json:"adapter_topic_prefix,omitzero" minLength:"1" maxLength:"200" doc:"MQTT topic prefix of the asset's gateway: it uses <prefix>/command, <prefix>/measurements and <prefix>/status. Default atcp/<asset_id>. 1-200 bytes, no wildcards (+, #), no leading $ or /, no trailing /, no empty levels." example:"site-7/bess-1"`
}

// update is the domain value of the body.
func (w Update) update() assets.Update {
	return assets.Update{
		AssetID: assets.Optional[string](w.AssetID), OrganisationID: assets.Optional[string](w.OrganisationID),
		OrganizationID: assets.Optional[string](w.OrganizationID),
		AssetName:      assets.Optional[string](w.AssetName), AssetType: assets.Optional[assets.AssetType](w.AssetType),
		Description: assets.Nullable[string](w.Description), Location: assets.Optional[string](w.Location),
		OptimizerOrgID:   assets.Nullable[string](w.OptimizerOrgID),
		ChargeEfficiency: assets.Nullable[float64](w.ChargeEfficiency), DischargeEfficiency: assets.Nullable[float64](w.DischargeEfficiency),
		Country: assets.Nullable[string](w.Country), TSO: assets.Nullable[assets.TSO](w.TSO),
		MaxPosRampRateMWPerSec:  assets.Nullable[float64](w.MaxPosRampRateMWPerSec),
		MinNegRampRateMWPerSec:  assets.Nullable[float64](w.MinNegRampRateMWPerSec),
		UsableEnergyCapacityMWh: assets.Nullable[float64](w.UsableEnergyCapacityMWh),
		UsablePowerCapacityMW:   assets.Nullable[float64](w.UsablePowerCapacityMW),
		AFRRPrequalifiedPosMW:   assets.Optional[float64](w.AFRRPrequalifiedPosMW),
		AFRRPrequalifiedNegMW:   assets.Optional[float64](w.AFRRPrequalifiedNegMW),
		FCRPrequalifiedMW:       assets.Optional[float64](w.FCRPrequalifiedMW),
		TSOPoolID:               assets.Nullable[int64](w.TSOPoolID), IOAMiddle: assets.Nullable[int](w.IOAMiddle),
		Latitude: assets.Nullable[float64](w.Latitude), Longitude: assets.Nullable[float64](w.Longitude),
		DisablePQCapacityCheck: assets.Optional[bool](w.DisablePQCapacityCheck),
		StrictValidation:       assets.Optional[bool](w.StrictValidation), TSOConnected: assets.Optional[bool](w.TSOConnected),
		FCREnabled: assets.Optional[bool](w.FCREnabled), AFRREnabled: assets.Optional[bool](w.AFRREnabled),
		WholesaleEnabled: assets.Optional[bool](w.WholesaleEnabled), ControlEnabled: assets.Optional[bool](w.ControlEnabled),
		PVActive:              assets.Optional[bool](w.PVActive),
		GridConnectionPowerMW: assets.Nullable[float64](w.GridConnectionPowerMW), BESSPriority: assets.Nullable[bool](w.BESSPriority),
		POCExportLimitMW: assets.Nullable[float64](w.POCExportLimitMW), GridImportZero: assets.Nullable[bool](w.GridImportZero),
		GridImportAllowed: assets.Nullable[bool](w.GridImportAllowed), BESSControlEnabled: assets.Nullable[bool](w.BESSControlEnabled),
		PVControlEnabled:        assets.Nullable[bool](w.PVControlEnabled),
		IntegrationType:         assets.Nullable[assets.IntegrationType](w.IntegrationType),
		OperationalStatus:       assets.Optional[assets.OperationalStatus](w.OperationalStatus),
		OperationalStatusReason: assets.Nullable[string](w.OperationalStatusReason),
		MaintenanceUntil:        assets.Nullable[time.Time](w.MaintenanceUntil),
		Adapter: assets.Optional[assets.AdapterName]{
			Present: w.Adapter.Present, Null: w.Adapter.Null, Value: assets.AdapterName(w.Adapter.Value),
		},
		AdapterTopicPrefix: assets.Optional[string](w.AdapterTopicPrefix),
	}
}

// adapterName documents the adapter names (assets.Adapters) on the wire;
// assets.AdapterName is a plain string, which the registry cannot tell
// from any other.
type adapterName string

// Schema lists the adapter names.
func (adapterName) Schema(huma.Registry) *huma.Schema { return enumSchema(assets.Adapters) }

// The enumerations of package assets are plain Go; these local types
// document their values in the OpenAPI document (see registerEnums).
type (
	assetTypeEnum         string
	integrationTypeEnum   string
	operationalStatusEnum string
	tsoEnum               string
)

func (assetTypeEnum) Schema(huma.Registry) *huma.Schema { return enumSchema(assets.AssetTypes) }

func (integrationTypeEnum) Schema(huma.Registry) *huma.Schema {
	return enumSchema(assets.IntegrationTypes)
}

func (operationalStatusEnum) Schema(huma.Registry) *huma.Schema {
	return enumSchema(assets.OperationalStatuses)
}

func (tsoEnum) Schema(huma.Registry) *huma.Schema { return enumSchema(assets.TSOs) }

// registerEnums makes r describe each enumeration of package assets by the
// local type listing its values; it runs before any schema of this
// package is built.
func registerEnums(r huma.Registry) {
	r.RegisterTypeAlias(reflect.TypeFor[assets.AssetType](), reflect.TypeFor[assetTypeEnum]())
	r.RegisterTypeAlias(reflect.TypeFor[assets.IntegrationType](), reflect.TypeFor[integrationTypeEnum]())
	r.RegisterTypeAlias(reflect.TypeFor[assets.OperationalStatus](), reflect.TypeFor[operationalStatusEnum]())
	r.RegisterTypeAlias(reflect.TypeFor[assets.TSO](), reflect.TypeFor[tsoEnum]())
}

func enumSchema[E ~string](values []E) *huma.Schema {
	s := &huma.Schema{Type: huma.TypeString}
	for _, v := range values {
		s.Enum = append(s.Enum, string(v))
	}
	return s
}
