package fcrreporthttp

// Examples of response bodies for the OpenAPI document; internal/app's
// tests check each against its schema.

const exampleReservations = `{"asset_id":"bess-1","reservations":[
	{"bid_id":"0190a4c2-7b1e-7d2a-9c3e-1f2a3b4c5d6e","block_start":"2026-02-02T07:00:00Z","block_end":"2026-02-02T11:00:00Z",
	"awarded_mw":8,"settlement_price_eur_per_mw":"12.34","capacity_payment_eur":"98.72","covered_by_pool_mw":0.5,
	"uncovered_mw":0,"covered_for_others_mw":0,"status":"delivered"}],"total":1,"limit":100,"offset":0}`

const exampleActivations = `{"asset_id":"bess-1","measured_asset_id":"bess-1","start_time":"2026-02-02T00:00:00Z",
	"end_time":"2026-02-03T00:00:00Z","granularity":null,"periods":[{"period_start":"2026-02-02T00:00:00Z",
	"period_end":"2026-02-03T00:00:00Z","seconds":86400,"frequency_seconds":86400,"bands":[
	{"band":"below_10_50","min_deviation_mhz":-50,"max_deviation_mhz":-10,"seconds":12000,"reserved_seconds":12000,
	"mean_required_mw":1.2,"mean_delivered_mw":1.19,"required_mwh":4,"delivered_mwh":3.966667},
	{"band":"above_200","min_deviation_mhz":200,"max_deviation_mhz":null,"seconds":0,"reserved_seconds":0,
	"mean_required_mw":null,"mean_delivered_mw":null,"required_mwh":0,"delivered_mwh":0}]}]}`

const exampleDelivery = `{"asset_id":"bess-1","measured_asset_id":"bess-1","start_time":"2026-02-02T10:00:00Z",
	"end_time":"2026-02-02T11:00:00Z","granularity":"hourly","periods":[{"period_start":"2026-02-02T10:00:00Z",
	"period_end":"2026-02-02T11:00:00Z","seconds":3600,"reserved_seconds":3600,"reserved_mean_mw":8,"required_pos_mwh":0.21,
	"required_neg_mwh":0.18,"delivered_pos_mwh":0.205,"delivered_neg_mwh":0.18,"fill_rate_pct":98.72,
	"seconds_outside_tolerance":12,"seconds_outside_soc_band":0,"seconds_without_telemetry":0}]}`

const exampleAvailability = `{"asset_id":"bess-1","measured_asset_id":"bess-1","start_time":"2026-02-02T10:00:00Z",
	"end_time":"2026-02-02T11:00:00Z","granularity":"hourly","periods":[{"period_start":"2026-02-02T10:00:00Z",
	"period_end":"2026-02-02T11:00:00Z","seconds":3600,"seconds_available":3000,"seconds_limited":300,"seconds_unavailable":0,
	"seconds_status_zero":0,"seconds_no_telemetry":300,"availability_pct":91.67}]}`
