package assetshttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleCreate = `{"asset_id":"bess-cottbus-2","asset_name":"Cottbus 2","asset_type":"standalone","location":"Cottbus",
		"organisation_id":"demo","usable_power_capacity_mw":20,"usable_energy_capacity_mwh":40,"tso":"50HZ",
		"adapter":"mqtt","adapter_topic_prefix":"site-7/bess-cottbus-2"}`

	exampleCreated = `{"asset_id":"bess-cottbus-2","asset_name":"Cottbus 2","asset_type":"standalone","description":null,
		"location":"Cottbus","organisation_id":"demo","optimizer_org_id":null,"optimizer_org_name":null,
		"charge_efficiency":null,"discharge_efficiency":null,"country":null,"tso":"50HZ",
		"max_pos_ramp_rate_mw_per_sec":null,"min_neg_ramp_rate_mw_per_sec":null,"usable_energy_capacity_mwh":40,
		"usable_power_capacity_mw":20,"afrr_prequalified_capacity_pos_mw":0,"afrr_prequalified_capacity_neg_mw":0,
		"fcr_prequalified_capacity_mw":0,"tso_pool_id":null,"ioa_middle":null,"latitude":null,"longitude":null,
		"disable_pq_capacity_check":false,"strict_validation":false,"tso_connected":true,"fcr_enabled":false,
		"afrr_enabled":false,"wholesale_enabled":false,"control_enabled":false,"pv_active":false,
		"grid_connection_power_mw":null,"bess_priority":null,"poc_export_limit_mw":null,"grid_import_zero":null,
		"grid_import_allowed":null,"bess_control_enabled":null,"pv_control_enabled":null,
		"asset_integration_type":null,"asset_operational_status":"onboarding","operational_status_reason":null,
		"maintenance_until":null,"production_critical":false,"is_virtual":false,"parent_asset_id":null,
		"adapter":"mqtt","adapter_topic_prefix":"site-7/bess-cottbus-2",
		"created_at":"2026-02-01T06:00:17Z","updated_at":"2026-02-01T06:00:17Z"}`

	exampleUpdate = `{"afrr_prequalified_capacity_neg_mw":15,"description":null}`

	exampleUpdated = `{"asset_id":"bess-cottbus-2","asset_name":"Cottbus 2","asset_type":"standalone","description":null,
		"location":"Cottbus","organisation_id":"demo","optimizer_org_id":null,"optimizer_org_name":null,
		"charge_efficiency":null,"discharge_efficiency":null,"country":null,"tso":"50HZ",
		"max_pos_ramp_rate_mw_per_sec":null,"min_neg_ramp_rate_mw_per_sec":null,"usable_energy_capacity_mwh":40,
		"usable_power_capacity_mw":20,"afrr_prequalified_capacity_pos_mw":0,"afrr_prequalified_capacity_neg_mw":15,
		"fcr_prequalified_capacity_mw":0,"tso_pool_id":null,"ioa_middle":null,"latitude":null,"longitude":null,
		"disable_pq_capacity_check":false,"strict_validation":false,"tso_connected":true,"fcr_enabled":false,
		"afrr_enabled":false,"wholesale_enabled":false,"control_enabled":false,"pv_active":false,
		"grid_connection_power_mw":null,"bess_priority":null,"poc_export_limit_mw":null,"grid_import_zero":null,
		"grid_import_allowed":null,"bess_control_enabled":null,"pv_control_enabled":null,
		"asset_integration_type":null,"asset_operational_status":"onboarding","operational_status_reason":null,
		"maintenance_until":null,"production_critical":false,"is_virtual":false,"parent_asset_id":null,
		"adapter":"mqtt","adapter_topic_prefix":"site-7/bess-cottbus-2",
		"created_at":"2026-02-01T06:00:17Z","updated_at":"2026-02-01T06:05:40Z"}`

	exampleAsset = `{"asset_id":"demo-bess","asset_name":"Demo BESS","asset_type":"standalone",
		"description":"Simulated battery of the demonstration environment: it replays the market days 2026-02-01 and 2026-02-02.",
		"location":"Brandenburg, Germany","organisation_id":"demo","optimizer_org_id":null,"optimizer_org_name":null,
		"charge_efficiency":0.95,"discharge_efficiency":0.95,"country":"DE","tso":"50HZ",
		"max_pos_ramp_rate_mw_per_sec":2,"min_neg_ramp_rate_mw_per_sec":2,"usable_energy_capacity_mwh":20,
		"usable_power_capacity_mw":10,"afrr_prequalified_capacity_pos_mw":0,"afrr_prequalified_capacity_neg_mw":10,
		"fcr_prequalified_capacity_mw":0,"tso_pool_id":null,"ioa_middle":null,"latitude":52.41,"longitude":13.07,
		"disable_pq_capacity_check":false,"strict_validation":false,"tso_connected":true,"fcr_enabled":false,
		"afrr_enabled":true,"wholesale_enabled":false,"control_enabled":true,"pv_active":false,
		"grid_connection_power_mw":10,"bess_priority":null,"poc_export_limit_mw":null,"grid_import_zero":null,
		"grid_import_allowed":null,"bess_control_enabled":null,"pv_control_enabled":null,
		"asset_integration_type":"full_control","asset_operational_status":"live","operational_status_reason":null,
		"maintenance_until":null,"production_critical":true,"is_virtual":false,"parent_asset_id":null,
		"adapter":"simulator","adapter_topic_prefix":"atcp/demo-bess",
		"created_at":"2026-02-01T06:00:00Z","updated_at":"2026-02-01T06:00:00Z"}`

	exampleList = `{"assets":[` + exampleAsset + `]}`
)
