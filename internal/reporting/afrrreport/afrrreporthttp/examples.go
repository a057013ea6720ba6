package afrrreporthttp

// Examples of response bodies for the OpenAPI document; internal/app's
// tests check each against its schema.

const exampleDispatches = `{"dispatches":[
	{"event_id":"019cc1a2-6a40-7d1e-9a3b-2f0c5e8d7b11","activation_id":"5b7e0f5e-3c1a-5d2b-8e4f-6a9b0c1d2e3f",
	"request_id":"8c2d4e6f-1a3b-5c7d-9e0f-2a4b6c8d0e1f","asset_id":"demo-bess","created_at_utc":"2026-02-02T09:15:00Z",
	"direction":"neg","planned_set_power":-6.5,"set_power":-5,"accepted":-4.98,"outcome":null,"filter_reason":"power_limited",
	"filter_details":"capped by the power limit's lower bound -5 MW; from 2026-02-02T09:00:00Z, 900 of 900 seconds",
	"dispatch_category":"capacity_obligation","dispatch_slot_utc":"2026-02-02T09:00:00Z","energy_price":"-12.40","capacity_price":"3.1250"}],
	"total":1,"limit":100,"offset":0}`

const examplePerformance = `{"asset_id":"demo-bess","granularity":"hourly","periods":[
	{"period_start":"2026-02-02T09:00:00Z","granularity":"hourly","dispatch_count":4,"dispatched_count":3,"filtered_count":1,
	"total_set_power":15,"total_accepted":14.9,"fill_rate_pct":99.33},
	{"period_start":"2026-02-02T10:00:00Z","granularity":"hourly","dispatch_count":0,"dispatched_count":0,"filtered_count":0,
	"total_set_power":0,"total_accepted":0,"fill_rate_pct":null}]}`

const exampleObligations = `{"obligations":[
	{"quarter_hour":"2026-02-02T09:00:00Z","direction":"neg","awarded_mw":10,"capacity_price":"3.1250","offered_mw":10,
	"shortfall_mw":0,"activated_mw":6.5,"marginal_price":"-12.40","delivered_mw":6.49,"status":"fulfilled"},
	{"quarter_hour":"2026-02-02T09:15:00Z","direction":"neg","awarded_mw":10,"capacity_price":"3.1250","offered_mw":6,
	"shortfall_mw":4,"activated_mw":0,"marginal_price":null,"delivered_mw":null,"status":"offer_shortfall"}],
	"total":2,"limit":100,"offset":0}`
