package dispatchhttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleImmediateCreate = `{"end_time":"2026-02-01T06:15:00Z","set_power_mw":5}`

	exampleImmediateCreated = `{"start_time":"2026-02-01T06:00:20Z","end_time":"2026-02-01T06:15:00Z","set_power_mw":5,
		"warnings":[]}`

	exampleImmediateList = `{"dispatches":[{"start_time":"2026-02-01T06:00:20Z","end_time":"2026-02-01T06:15:00Z",
		"set_power_mw":5}]}`

	exampleImmediateDisabled = `{"start_time":"2026-02-01T06:00:20Z","end_time":"2026-02-01T06:04:41Z","set_power_mw":5}`

	// Charge 4 MW from 08:00, discharge 6 MW from 08:30:30, stop at 09:00.
	exampleScheduledPut = `{"schedules":[{"delivery_time":"2026-02-01T08:00:00Z","bess_power_mw":-4},
		{"delivery_time":"2026-02-01T08:30:30Z","bess_power_mw":6},
		{"delivery_time":"2026-02-01T09:00:00Z","bess_power_mw":0}]}`

	// The targets as stored: each block of the schedule starts with the
	// target in force.
	exampleScheduled = `{"schedules":[
		{"control_mode":"bess_only","set_power_mw":-4,"bess_power_mw":-4,"poc_power_mw":null,
		 "delivery_time":"2026-02-01T08:00:00Z","set_time":"2026-02-01T08:00:00Z"},
		{"control_mode":"bess_only","set_power_mw":-4,"bess_power_mw":-4,"poc_power_mw":null,
		 "delivery_time":"2026-02-01T08:15:00Z","set_time":"2026-02-01T08:15:00Z"},
		{"control_mode":"bess_only","set_power_mw":-4,"bess_power_mw":-4,"poc_power_mw":null,
		 "delivery_time":"2026-02-01T08:30:00Z","set_time":"2026-02-01T08:30:00Z"},
		{"control_mode":"bess_only","set_power_mw":6,"bess_power_mw":6,"poc_power_mw":null,
		 "delivery_time":"2026-02-01T08:30:00Z","set_time":"2026-02-01T08:30:30Z"},
		{"control_mode":"bess_only","set_power_mw":6,"bess_power_mw":6,"poc_power_mw":null,
		 "delivery_time":"2026-02-01T08:45:00Z","set_time":"2026-02-01T08:45:00Z"},
		{"control_mode":"bess_only","set_power_mw":0,"bess_power_mw":0,"poc_power_mw":null,
		 "delivery_time":"2026-02-01T09:00:00Z","set_time":"2026-02-01T09:00:00Z"}],"warnings":[]}`

	exampleAnticipated = `{"set_time":"2026-02-01T08:30:30Z","set_power_mw":6}`

	exampleReport = `{"dispatches":[
		{"event_id":"0b7f3c2e-5d1a-5f8b-9c4e-2a6d8e1f3b57","request_id":"4bfa503813371714bb4ccb9c",
		 "source_id":"53aa1f7f-442f-46ab-badc-e05932c115e5","asset_id":"demo-bess","created_at_utc":"2026-02-01T08:00:01Z",
		 "set_time_utc":"2026-02-01T08:00:00Z","status":"full","set_power_mw":-4,"effective_set_power_mw":-4,
		 "outcome":"success","message":null,"control_mode":"bess_only","delivery_time":"2026-02-01T08:00:00Z"},
		{"event_id":"9e2d4a61-3c7b-5e0f-8a1d-6b4c2f9e7d35","request_id":"4bfa503813371714bb4ccb9c",
		 "source_id":"53aa1f7f-442f-46ab-badc-e05932c115e5","asset_id":"demo-bess","created_at_utc":"2026-02-01T08:30:31Z",
		 "set_time_utc":"2026-02-01T08:30:30Z","status":"clipped","set_power_mw":6,"effective_set_power_mw":5,
		 "outcome":"success","message":"capped by an active power limit","control_mode":"bess_only",
		 "delivery_time":"2026-02-01T08:30:00Z"}]}`
)
