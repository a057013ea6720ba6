package poolshttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleCreate = `{"pool_id":"lausitz-nord","list_asset_ids":["bess-cottbus-1","bess-cottbus-2"],
		"allow_internal_collateralisation":true}`

	examplePool = `{"organization_id":"lausitz-speicher","pool_id":"lausitz-nord",
		"list_asset_ids":["bess-cottbus-1","bess-cottbus-2"],"allow_internal_collateralisation":true,
		"created_at":"2026-02-01T06:00:00Z","updated_at":"2026-02-01T06:00:00Z"}`

	exampleReplace = `{"list_asset_ids":["bess-cottbus-2","bess-spremberg"],"allow_internal_collateralisation":false}`

	exampleReplaced = `{"organization_id":"lausitz-speicher","pool_id":"lausitz-nord",
		"list_asset_ids":["bess-cottbus-2","bess-spremberg"],"allow_internal_collateralisation":false,
		"created_at":"2026-02-01T06:00:00Z","updated_at":"2026-02-01T06:30:00Z"}`

	exampleList = `{"pools":[` + examplePool + `,{"organization_id":"lausitz-speicher","pool_id":"reserve",
		"list_asset_ids":[],"allow_internal_collateralisation":false,
		"created_at":"2026-02-01T06:05:00Z","updated_at":"2026-02-01T06:05:00Z"}]}`

	exampleState = `{"pool_id":"lausitz-nord","pool_status":false,"fcr_pool_status":true,"afrr_pool_status":false,
		"power_actual_ac":3.2,"operating_point":3,"fcr_power_actual":0.2,
		"fcr_current_reservation_pos":4,"fcr_current_reservation_neg":4,
		"afrr_setpoint":0,"afrr_power_actual":0,"afrr_current_reservation_pos":0,"afrr_current_reservation_neg":5,
		"as_of":"2026-02-01T06:00:00Z","members":[
		{"asset_id":"bess-cottbus-1","measured_at":"2026-02-01T06:00:00Z","fresh":true,"available":true,
		"power_actual_ac":3.2,"operating_point":3,"fcr_power_actual":0.2,"afrr_setpoint":0,"afrr_power_actual":0,
		"fcr_current_reservation":4,"afrr_current_reservation_pos":0,"afrr_current_reservation_neg":0},
		{"asset_id":"bess-cottbus-2","measured_at":"2026-02-01T05:58:12Z","fresh":false,"available":false,
		"power_actual_ac":0,"operating_point":0,"fcr_power_actual":0,"afrr_setpoint":0,"afrr_power_actual":0,
		"fcr_current_reservation":0,"afrr_current_reservation_pos":0,"afrr_current_reservation_neg":5}]}`
)
