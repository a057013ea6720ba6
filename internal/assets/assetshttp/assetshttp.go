// Package assetshttp serves the asset registry: list, create, read,
// partially update and delete assets under /v1/assets.
package assetshttp

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/httpapi"
)

// Asset is the asset record of every response: all fields of document 1,
// always present, null when unset.
type Asset struct {
	AssetID                 string                   `json:"asset_id"`
	AssetName               string                   `json:"asset_name"`
	AssetType               assets.AssetType         `json:"asset_type"`
	Description             *string                  `json:"description"`
	Location                string                   `json:"location"`
	OrganisationID          string                   `json:"organisation_id"`
	OptimizerOrgID          *string                  `json:"optimizer_org_id"`
	OptimizerOrgName        *string                  `json:"optimizer_org_name" readOnly:"true" doc:"Name of the optimizer organisation (response only)."`
	ChargeEfficiency        *float64                 `json:"charge_efficiency"`
	DischargeEfficiency     *float64                 `json:"discharge_efficiency"`
	Country                 *string                  `json:"country"`
	TSO                     *assets.TSO              `json:"tso" nullable:"true"`
	MaxPosRampRateMWPerSec  *float64                 `json:"max_pos_ramp_rate_mw_per_sec"`
	MinNegRampRateMWPerSec  *float64                 `json:"min_neg_ramp_rate_mw_per_sec"`
	UsableEnergyCapacityMWh *float64                 `json:"usable_energy_capacity_mwh"`
	UsablePowerCapacityMW   *float64                 `json:"usable_power_capacity_mw"`
	AFRRPrequalifiedPosMW   float64                  `json:"afrr_prequalified_capacity_pos_mw"`
	AFRRPrequalifiedNegMW   float64                  `json:"afrr_prequalified_capacity_neg_mw"`
	FCRPrequalifiedMW       float64                  `json:"fcr_prequalified_capacity_mw"`
	TSOPoolID               *int64                   `json:"tso_pool_id"`
	IOAMiddle               *int                     `json:"ioa_middle"`
	Latitude                *float64                 `json:"latitude"`
	Longitude               *float64                 `json:"longitude"`
	DisablePQCapacityCheck  bool                     `json:"disable_pq_capacity_check"`
	StrictValidation        bool                     `json:"strict_validation"`
	TSOConnected            bool                     `json:"tso_connected"`
	FCREnabled              bool                     `json:"fcr_enabled"`
	AFRREnabled             bool                     `json:"afrr_enabled"`
	WholesaleEnabled        bool                     `json:"wholesale_enabled"`
	ControlEnabled          bool                     `json:"control_enabled"`
	PVActive                bool                     `json:"pv_active"`
	GridConnectionPowerMW   *float64                 `json:"grid_connection_power_mw"`
	BESSPriority            *bool                    `json:"bess_priority"`
	POCExportLimitMW        *float64                 `json:"poc_export_limit_mw" doc:"Not persisted yet: always null."`
	GridImportZero          *bool                    `json:"grid_import_zero" deprecated:"true" doc:"Deprecated inverse of grid_import_allowed."`
	GridImportAllowed       *bool                    `json:"grid_import_allowed"`
	BESSControlEnabled      *bool                    `json:"bess_control_enabled"`
	PVControlEnabled        *bool                    `json:"pv_control_enabled"`
	IntegrationType         *assets.IntegrationType  `json:"asset_integration_type" nullable:"true"`
	OperationalStatus       assets.OperationalStatus `json:"asset_operational_status"`
	OperationalStatusReason *string                  `json:"operational_status_reason"`
	MaintenanceUntil        *time.Time               `json:"maintenance_until"`
	ProductionCritical      bool                     `json:"production_critical" readOnly:"true" doc:"Live and enabled for at least one market (response only)."`
	IsVirtual               bool                     `json:"is_virtual" readOnly:"true" doc:"True for virtual assets of a segmentation (response only)."`
	ParentAssetID           *string                  `json:"parent_asset_id" readOnly:"true" doc:"Physical asset of a virtual asset (response only)."`
	Adapter                 adapterName              `json:"adapter" doc:"How the platform steers the asset: simulator (the built-in battery simulator) or mqtt (an edge gateway on the operator's MQTT broker). A virtual asset has its parent's." example:"simulator"`
	AdapterTopicPrefix      string                   `json:"adapter_topic_prefix" doc:"MQTT topic prefix of the asset's gateway (<prefix>/command, <prefix>/measurements, <prefix>/status); atcp/<asset_id> unless set. A virtual asset has its parent's." example:"atcp/demo-bess"`
	CreatedAt               time.Time                `json:"created_at" readOnly:"true"`
	UpdatedAt               time.Time                `json:"updated_at" readOnly:"true"`
}

// TransformSchema lists null among the values of the nullable enumerations.
func (Asset) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	for _, p := range s.Properties {
		if p.Nullable && len(p.Enum) > 0 {
			nullableSchema(p)
		}
	}
	return s
}

func toAsset(a assets.Asset) Asset {
	return Asset{
		AssetID: a.ID, AssetName: a.Name, AssetType: a.Type, Description: a.Description, Location: a.Location,
		OrganisationID: a.OrganizationID, OptimizerOrgID: a.OptimizerOrgID, OptimizerOrgName: a.OptimizerOrgName,
		ChargeEfficiency: a.ChargeEfficiency, DischargeEfficiency: a.DischargeEfficiency, Country: a.Country, TSO: a.TSO,
		MaxPosRampRateMWPerSec: a.MaxPosRampRateMWPerSec, MinNegRampRateMWPerSec: a.MinNegRampRateMWPerSec,
		UsableEnergyCapacityMWh: a.UsableEnergyCapacityMWh, UsablePowerCapacityMW: a.UsablePowerCapacityMW,
		AFRRPrequalifiedPosMW: a.AFRRPrequalifiedPosMW, AFRRPrequalifiedNegMW: a.AFRRPrequalifiedNegMW,
		FCRPrequalifiedMW: a.FCRPrequalifiedMW, TSOPoolID: a.TSOPoolID, IOAMiddle: a.IOAMiddle,
		Latitude: a.Latitude, Longitude: a.Longitude,
		DisablePQCapacityCheck: a.DisablePQCapacityCheck, StrictValidation: a.StrictValidation,
		TSOConnected: a.TSOConnected, FCREnabled: a.FCREnabled, AFRREnabled: a.AFRREnabled,
		WholesaleEnabled: a.WholesaleEnabled, ControlEnabled: a.ControlEnabled, PVActive: a.PVActive,
		GridConnectionPowerMW: a.GridConnectionPowerMW, BESSPriority: a.BESSPriority,
		GridImportZero: a.GridImportZero(), GridImportAllowed: a.GridImportAllowed,
		BESSControlEnabled: a.BESSControlEnabled, PVControlEnabled: a.PVControlEnabled,
		IntegrationType: a.IntegrationType, OperationalStatus: a.OperationalStatus,
		OperationalStatusReason: a.OperationalStatusReason, MaintenanceUntil: a.MaintenanceUntil,
		ProductionCritical: a.ProductionCritical(), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		IsVirtual: a.IsVirtual(), ParentAssetID: a.ParentAssetID,
		Adapter: adapterName(a.Adapter), AdapterTopicPrefix: a.AdapterTopicPrefix,
	}
}

// ResponseOnly accepts the response-only fields on input and ignores them,
// so that a client can send back the record it read.
type ResponseOnly struct {
	OptimizerOrgName   any `json:"optimizer_org_name,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	ProductionCritical any `json:"production_critical,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	IsVirtual          any `json:"is_virtual,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	ParentAssetID      any `json:"parent_asset_id,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	CreatedAt          any `json:"created_at,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
	UpdatedAt          any `json:"updated_at,omitempty" readOnly:"true" doc:"Response only; ignored on input."`
}

// AssetCreateRequest is the body of POST /v1/assets: the required fields,
// and every other writable field optional with its default.
type AssetCreateRequest struct {
	AssetID   string           `json:"asset_id" pattern:"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" doc:"Unique; never reused, not even after deletion."`
	AssetName string           `json:"asset_name" minLength:"1" maxLength:"200"`
	AssetType assets.AssetType `json:"asset_type"`
	Location  string           `json:"location" minLength:"1" maxLength:"200"`
	// The owning organisation is required under one of its two spellings,
	// so neither is required by the schema; assets.Update.Create reports
	// it missing at body.organisation_id.
	OrganisationID Optional[string] `json:"organisation_id,omitzero" minLength:"1" maxLength:"64" doc:"The owning organisation (required, or its alias organization_id); callers other than platform administrators may name only their own."`
	OrganizationID Optional[string] `json:"organization_id,omitzero" minLength:"1" maxLength:"64" doc:"Alias of organisation_id (the spelling of every other resource): send either; both with different values is 422."`
	Update
	ResponseOnly
}

// AssetUpdateRequest is the body of PUT /v1/assets/{asset_id}: only the
// fields present change.
type AssetUpdateRequest struct {
	Update
	ResponseOnly
}

// AssetList is the body of GET /v1/assets.
type AssetList struct {
	Assets []Asset `json:"assets" nullable:"false"`
}

type assetPath struct {
	AssetID string `path:"asset_id" doc:"The asset id."`
}

type listOutput struct{ Body AssetList }

type assetOutput struct{ Body Asset }

type createInput struct{ Body AssetCreateRequest }

type createOutput struct {
	Location string `header:"Location" doc:"Path of the new asset."`
	Body     Asset
}

type updateInput struct {
	AssetID string `path:"asset_id" doc:"The asset id."`
	Body    AssetUpdateRequest
}

// Register adds the asset endpoints to s.
func Register(s *httpapi.Server, svc *assets.Service) {
	registerEnums(s.API.OpenAPI().Components.Schemas)
	tags := []string{s.Tag("Assets", "Battery storage assets: registration, technical parameters, market participation and deletion.")}

	httpapi.Register(s, huma.Operation{
		OperationID: "list-assets", Method: http.MethodGet, Path: "/v1/assets", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleList),
		Summary:   "List assets",
		Description: "Assets of the caller's organisation ordered by asset_id; platform administrators get the assets of all organisations. " +
			"Each asset with an active segmentation is followed by its virtual assets (is_virtual true, parent_asset_id set).",
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, _ *struct{}) (*listOutput, error) {
		list, err := svc.List(ctx, httpapi.Principal(ctx).Visibility())
		if err != nil {
			return nil, err
		}
		out := &listOutput{Body: AssetList{Assets: make([]Asset, len(list))}}
		for i, a := range list {
			out.Body.Assets[i] = toAsset(a)
		}
		return out, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "create-asset", Method: http.MethodPost, Path: "/v1/assets", Tags: tags, DefaultStatus: http.StatusCreated,
		RequestBody: httpapi.RequestExample(exampleCreate), Responses: httpapi.ResponseExample(http.StatusCreated, exampleCreated),
		Summary: "Register an asset",
		Description: "Registers an asset of organisation_id (or its alias organization_id; both with different values is 422) with the defaults of every field not sent. " +
			"409 asset_exists when the id is or was in use (ids of deleted assets are never reused); " +
			"403 organisation_not_permitted when naming another organisation; 422 when organisation_id or optimizer_org_id is not registered.",
		Errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *createInput) (*createOutput, error) {
		u := in.Body.Update.update()
		u.AssetID = assets.Some(in.Body.AssetID)
		u.OrganisationID, u.OrganizationID = assets.Optional[string](in.Body.OrganisationID), assets.Optional[string](in.Body.OrganizationID)
		u.AssetName, u.AssetType, u.Location = assets.Some(in.Body.AssetName), assets.Some(in.Body.AssetType), assets.Some(in.Body.Location)
		a, err := svc.Create(ctx, httpapi.Principal(ctx).Visibility(), u)
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &createOutput{Location: "/v1/assets/" + url.PathEscape(a.ID), Body: toAsset(a)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "get-asset", Method: http.MethodGet, Path: "/v1/assets/{asset_id}", Tags: tags,
		Responses: httpapi.ResponseExample(http.StatusOK, exampleAsset),
		Summary:   "Read an asset",
		Description: "404 when the asset is unknown, deleted or of another organisation. " +
			"A virtual asset id (<parent_asset_id>.<segment_id>) resolves against the parent's active segmentation.",
		Errors: []int{http.StatusNotFound},
	}, httpapi.Scopes(auth.AssetRead), func(ctx context.Context, in *assetPath) (*assetOutput, error) {
		a, err := svc.Get(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID)
		if err != nil {
			return nil, err
		}
		return &assetOutput{Body: toAsset(a)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "update-asset", Method: http.MethodPut, Path: "/v1/assets/{asset_id}", Tags: tags,
		RequestBody: httpapi.RequestExample(exampleUpdate), Responses: httpapi.ResponseExample(http.StatusOK, exampleUpdated),
		Summary: "Update an asset partially",
		Description: "Only the fields present in the body change; an explicit null clears a nullable field and is refused (422) for any other. " +
			"asset_id and organisation_id (or its alias organization_id) may be sent only with their current values; response-only fields are ignored, " +
			"so a record read with GET can be sent back. The merged asset is validated as a whole. " +
			"409 virtual_asset for a virtual asset id: change the parent's segmentation instead. " +
			"409 onboarding_in_progress when the update changes asset_operational_status while an onboarding workflow of the asset is in progress (the workflow moves it).",
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *updateInput) (*assetOutput, error) {
		a, err := svc.Update(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID, in.Body.Update.update())
		if err != nil {
			return nil, errs.Within("body.", err)
		}
		return &assetOutput{Body: toAsset(a)}, nil
	})

	httpapi.Register(s, huma.Operation{
		OperationID: "delete-asset", Method: http.MethodDelete, Path: "/v1/assets/{asset_id}", Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary: "Decommission an asset",
		Description: "The asset disappears from every read and its id stays reserved. " +
			"409 asset_live while asset_operational_status is live (set maintenance or offboarded first); " +
			"409 asset_in_use while it has commitments (committed future bids, an active or future dispatch, an active segmentation); " +
			"409 virtual_asset for a virtual asset id (delete the parent's segmentation instead).",
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, httpapi.Scopes(auth.AssetWrite), func(ctx context.Context, in *assetPath) (*struct{}, error) {
		return nil, svc.Delete(ctx, httpapi.Principal(ctx).Visibility(), in.AssetID)
	})
}
