package telemetryhttp

// Examples of response bodies for the OpenAPI document; internal/app's
// tests check each against its schema.

const (
	// A few of the measurements; the response has every one.
	exampleState = `{
		"asset_status":[{"timestamp":"2026-02-01T08:31:10Z","value":1}],
		"battery_power_actual_ac":[{"timestamp":"2026-02-01T08:31:10Z","value":5.6}],
		"poc_power_actual_ac":[{"timestamp":"2026-02-01T08:31:10Z","value":5.59}],
		"dispatch_setpoint":[{"timestamp":"2026-02-01T08:31:10Z","value":6}],
		"available_discharge_energy":[{"timestamp":"2026-02-01T08:31:10Z","value":9.21}],
		"available_charge_energy":[{"timestamp":"2026-02-01T08:31:10Z","value":10.84}],
		"afrr_setpoint":[{"timestamp":"2026-02-01T08:31:10Z","value":0}],
		"frequency":[{"timestamp":"2026-02-01T08:31:10Z","value":50.012}]}`

	// point_names=battery_power_actual_ac,dispatch_setpoint over 3 seconds.
	exampleHistory = `{
		"battery_power_actual_ac":[{"timestamp":"2026-02-01T08:30:30Z","value":-4},
			{"timestamp":"2026-02-01T08:30:31Z","value":-2},{"timestamp":"2026-02-01T08:30:32Z","value":0}],
		"dispatch_setpoint":[{"timestamp":"2026-02-01T08:30:30Z","value":6},
			{"timestamp":"2026-02-01T08:30:31Z","value":6},{"timestamp":"2026-02-01T08:30:32Z","value":6}]}`

	examplePlanned = `{"asset_id":"demo-bess","organization_id":"demo","start_time":"2026-02-01T23:00:00Z",
		"end_time":"2026-02-02T03:00:00Z",
		"scheduled_dispatch":[{"set_power":-4,"set_time":"2026-02-02T01:00:00Z"},{"set_power":-4,"set_time":"2026-02-02T01:15:00Z"},
			{"set_power":0,"set_time":"2026-02-02T01:30:00Z"}],
		"fcr_reservations":[],
		"afrr_capacity_reservations":[{"id":"4b3777cd-32f1-40df-8d2b-f17dbe98a9a1","idempotency_key":"0202-neg-b1",
			"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","product":"neg","offered_power":10,
			"awarded_power":10,"capacity_price":"3.1","energy_price":"45","status":"SUCCESSFUL"}],
		"afrr_energy_reservations":[{"id":"b6a0e0f4-1d0b-4e7d-9c3c-2f5e8a1d7c90","idempotency_key":"0202-neg-0000",
			"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-01T23:15:00Z","product":"neg","offered_power":10,
			"awarded_power":6,"energy_price":"-20.5","status":"SUCCESSFUL"}],
		"power_limits":[{"start_time":"2026-02-02T02:00:00Z","end_time":"2026-02-02T04:00:00Z","upper_limit":5,"lower_limit":-5,
			"reason":"grid_event","reason_description":"DSO request for the substation"}],
		"energy_limits":[],"unavailabilities":[],"curtailments":[],
		"feasibility":[{"rule":"energy","direction":"both","start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
			"block_start":"2026-02-01T23:00:00Z","block_end":"2026-02-02T03:00:00Z","fcr_mw":0,"fcr_reserve_mwh":0,"afrr_pos_mwh":0,
			"afrr_neg_mwh":40,"committed":40,"limit":20,"overshoot":20,"unit":"MWh"},
			{"rule":"power","direction":"charge","start_time":"2026-02-02T01:00:00Z","end_time":"2026-02-02T01:30:00Z",
			"block_start":"2026-02-01T23:00:00Z","block_end":"2026-02-02T03:00:00Z","fcr_mw":0,"afrr_mw":10,"schedule_mw":4,
			"committed":14,"limit":10,"overshoot":4,"unit":"MW"}]}`
)
