package fcrhttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleSubmit = `{"bids":[
		{"idempotency_key":"0202-fcr-b1","start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
		 "capacity_price_eur_per_mw":"12.50","offered_power_mw":5},
		{"idempotency_key":"0202-fcr-b2","start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z",
		 "capacity_price_eur_per_mw":14.2,"offered_power_mw":5}]}`

	exampleBid1 = `{"id":"7c1f0d52-2a9e-4d47-9a55-0f3cf1b8e2a1","idempotency_key":"0202-fcr-b1",
		"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":12.5,
		"offered_power_mw":5,"awarded_power_mw":null,"status":"PENDING","last_edit_attempt":null,
		"created_at":"2026-02-01T06:10:00Z","updated_at":"2026-02-01T06:10:00Z"}`
	exampleBid2 = `{"id":"0e9b3c7a-61d4-4c8e-b0f2-5a7d2e9c4b13","idempotency_key":"0202-fcr-b2",
		"start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z","capacity_price_eur_per_mw":14.2,
		"offered_power_mw":5,"awarded_power_mw":null,"status":"PENDING","last_edit_attempt":null,
		"created_at":"2026-02-01T06:10:00Z","updated_at":"2026-02-01T06:10:00Z"}`

	exampleSubmitted = `{"bids":[` + exampleBid1 + `,` + exampleBid2 + `],"created_count":2,"deleted_count":0,
		"deleted_bid_ids":[],"warnings":[],"updated_count":0}`

	exampleBids = `{"bids":[` + exampleBid1 + `,` + exampleBid2 + `]}`

	exampleUpdate = `{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
		"capacity_price_eur_per_mw":"11.80","offered_power_mw":6}`

	// A SUBMITTED bid keeps the market's values; the change waits in
	// last_edit_attempt.
	exampleUpdated = `{"bids":[{"id":"7c1f0d52-2a9e-4d47-9a55-0f3cf1b8e2a1","idempotency_key":"0202-fcr-b1",
		"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":12.5,
		"offered_power_mw":5,"awarded_power_mw":null,"status":"SUBMITTED",
		"last_edit_attempt":{"edit_type":"MODIFY","status":"PENDING_RESYNC","attempted_at":"2026-02-01T06:40:00Z",
		 "requested_values":{"offered_power_mw":6,"capacity_price_eur_per_mw":11.8},"failure_reason":null,"failure_detail":null},
		"created_at":"2026-02-01T06:10:00Z","updated_at":"2026-02-01T06:40:00Z"}],
		"warnings":["the interval 2026-02-01T23:00:00Z/2026-02-02T03:00:00Z is past the recommended deadline 2026-02-01T06:30:00Z; it is accepted but may not reach the market before the gate at 2026-02-01T07:00:00Z"]}`

	exampleDeleted = `{"deleted_count":1,"deleted_bid_ids":["7c1f0d52-2a9e-4d47-9a55-0f3cf1b8e2a1"]}`

	exampleIntervals = `{"intervals":[
		{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","delivery_day":"2026-02-02",
		 "opens_at":"2026-01-26T10:00:00Z","recommended_deadline":"2026-02-01T06:30:00Z","gate_closure":"2026-02-01T07:00:00Z",
		 "bidding_open":true},
		{"start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z","delivery_day":"2026-02-02",
		 "opens_at":"2026-01-26T10:00:00Z","recommended_deadline":"2026-02-01T06:30:00Z","gate_closure":"2026-02-01T07:00:00Z",
		 "bidding_open":true}]}`

	exampleResults = `{"results":[
		{"bid_id":"7c1f0d52-2a9e-4d47-9a55-0f3cf1b8e2a1","start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
		 "offered_power_mw":5,"awarded_power_mw":5,"capacity_price_eur_per_mw":12.5,"settlement_price_eur_per_mw":13.92,
		 "status":"SUCCESSFUL","price_source":"published","source_day":"2026-02-02",
		 "clearing_note":"cleared with the published German FCR settlement price of 2026-02-02 00:00-04:00",
		 "capacity_payment_eur":69.6},
		{"bid_id":"0e9b3c7a-61d4-4c8e-b0f2-5a7d2e9c4b13","start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z",
		 "offered_power_mw":5,"awarded_power_mw":null,"capacity_price_eur_per_mw":14.2,"settlement_price_eur_per_mw":null,
		 "status":"SUBMITTED","price_source":null,"source_day":null,"clearing_note":null,"capacity_payment_eur":null}]}`
)
