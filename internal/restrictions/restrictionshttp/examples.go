package restrictionshttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleShorten = `{"new_end_time":"2026-02-01T11:00:00Z"}`

	examplePowerLimitCreate = `{"start_time":"2026-02-01T10:00:00Z","end_time":"2026-02-01T12:00:00Z",
		"upper_limit_mw":5,"lower_limit_mw":-5,"reason":"grid_event","reason_description":"DSO request for the substation"}`
	examplePowerLimits = `{"limits":[{"start_time":"2026-02-01T10:00:00Z","end_time":"2026-02-01T12:00:00Z",
		"upper_limit_mw":5,"lower_limit_mw":-5,"reason":"grid_event","reason_description":"DSO request for the substation"}]}`
	examplePowerLimitsShortened = `{"limits":[{"start_time":"2026-02-01T10:00:00Z","end_time":"2026-02-01T11:00:00Z",
		"upper_limit_mw":5,"lower_limit_mw":-5,"reason":"grid_event","reason_description":"DSO request for the substation"}]}`

	exampleEnergyLimitCreate = `{"start_time":"2026-02-01T10:00:00Z","end_time":"2026-02-01T12:00:00Z",
		"upper_limit_mwh":18,"lower_limit_mwh":2,"reason":"maintenance"}`
	exampleEnergyLimits = `{"limits":[{"start_time":"2026-02-01T10:00:00Z","end_time":"2026-02-01T12:00:00Z",
		"upper_limit_mwh":18,"lower_limit_mwh":2,"reason":"maintenance","reason_description":null}]}`
	exampleEnergyLimitsShortened = `{"limits":[{"start_time":"2026-02-01T10:00:00Z","end_time":"2026-02-01T11:00:00Z",
		"upper_limit_mwh":18,"lower_limit_mwh":2,"reason":"maintenance","reason_description":null}]}`

	exampleUnavailabilityCreate = `{"start_time":"2026-02-03T08:00:00Z","end_time":"2026-02-03T16:00:00Z",
		"reason":"maintenance","reason_description":"Inverter firmware update"}`
	exampleUnavailabilities = `{"unavailabilities":[{"start_time":"2026-02-03T08:00:00Z","end_time":"2026-02-03T16:00:00Z",
		"availability_status":"unavailable","reason":"maintenance","reason_description":"Inverter firmware update"}]}`
	exampleUnavailabilitiesShortened = `{"unavailabilities":[{"start_time":"2026-02-03T08:00:00Z","end_time":"2026-02-03T11:00:00Z",
		"availability_status":"unavailable","reason":"maintenance","reason_description":"Inverter firmware update"}]}`

	exampleCurtailments = `{"curtailments":[
		{"start_time":"2026-02-01T11:00:00Z","end_time":"2026-02-01T11:45:00Z","max_curtailment":4,"min_curtailment":-10},
		{"start_time":"2026-02-01T13:30:00Z","end_time":null,"max_curtailment":0,"min_curtailment":-10}]}`

	exampleRequestCreate = `{"kind":"power_limit","start_time":"2026-02-04T08:00:00Z","end_time":"2026-02-04T12:00:00Z",
		"upper_limit_mw":8,"lower_limit_mw":-8,"reason":"grid_event","reason_description":"Planned line works"}`

	exampleDecision = `{"note":"Agreed with the DSO"}`
)

// exampleRequest is a power-limit request in status, decided with note
// unless pending.
func exampleRequest(status, note string) string {
	decided := `"decided_by":null,"decided_at":null,"decision_note":null`
	if status != "pending" {
		decided = `"decided_by":"ops-lead@platform.example","decided_at":"2026-02-01T09:12:00Z","decision_note":"` + note + `"`
	}
	return `{"id":"3d08a04a-5f3a-42e3-9b8e-496e9f88e0cc","asset_id":"demo-bess","organization_id":"demo",
		"kind":"power_limit","action":"create","status":"` + status + `","start_time":"2026-02-04T08:00:00Z",
		"end_time":"2026-02-04T12:00:00Z","upper_limit_mw":8,"lower_limit_mw":-8,"upper_limit_mwh":null,"lower_limit_mwh":null,
		"reason":"grid_event","reason_description":"Planned line works","target_start_time":null,"target_end_time":null,
		"requested_by":"53aa1f7f-442f-46ab-badc-e05932c115e5","requested_at":"2026-02-01T06:00:50Z",` + decided + `}`
}
