package afrrhttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleCapacitySubmit = `{"bids":[{"idempotency_key":"0202-neg-b1","start_time":"2026-02-01T23:00:00Z",
		"end_time":"2026-02-02T03:00:00Z","product":"neg","capacity_price_eur_per_mw":3.10,
		"energy_price_eur_per_mwh":45,"offered_power_mw":10}]}`

	exampleCapacityBid = `{"id":"4b3777cd-32f1-40df-8d2b-f17dbe98a9a1","idempotency_key":"0202-neg-b1","product":"neg",
		"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","capacity_price_eur_per_mw":3.1,
		"energy_price_eur_per_mwh":45,"offered_power_mw":10,"awarded_power_mw":null,"status":"PENDING",
		"last_edit_attempt":null,"created_at":"2026-02-01T06:00:19Z","updated_at":"2026-02-01T06:00:19Z"}`

	exampleCapacitySubmitted = `{"bids":[` + exampleCapacityBid + `],"created_count":1,"deleted_count":0,
		"deleted_bid_ids":[],"warnings":[],"updated_count":0}`

	exampleCapacityBids = `{"bids":[` + exampleCapacityBid + `],"market":"capacity"}`

	exampleCapacityUpdate = `{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
		"capacity_price_eur_per_mw":"2.95","energy_price_eur_per_mwh":"40.00","offered_power_mw":10}`

	exampleCapacityUpdated = `{"bids":[{"id":"4b3777cd-32f1-40df-8d2b-f17dbe98a9a1","idempotency_key":"0202-neg-b1",
		"product":"neg","start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z",
		"capacity_price_eur_per_mw":2.95,"energy_price_eur_per_mwh":40,"offered_power_mw":10,"awarded_power_mw":null,
		"status":"PENDING","last_edit_attempt":null,"created_at":"2026-02-01T06:00:19Z","updated_at":"2026-02-01T06:20:00Z"}],
		"warnings":[]}`

	exampleCapacityIntervals = `{"intervals":[
		{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","delivery_day":"2026-02-02",
		 "opens_at":"2026-01-26T09:00:00Z","recommended_deadline":"2026-02-01T07:30:00Z","gate_closure":"2026-02-01T08:00:00Z",
		 "bidding_open":true},
		{"start_time":"2026-02-02T03:00:00Z","end_time":"2026-02-02T07:00:00Z","delivery_day":"2026-02-02",
		 "opens_at":"2026-01-26T09:00:00Z","recommended_deadline":"2026-02-01T07:30:00Z","gate_closure":"2026-02-01T08:00:00Z",
		 "bidding_open":true}]}`

	// Cleared pay-as-bid: 10 MW x 3.10 EUR/MW/h x 4 h.
	exampleCapacityResults = `{"results":[{"bid_id":"4b3777cd-32f1-40df-8d2b-f17dbe98a9a1","product":"neg",
		"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-02T03:00:00Z","offered_power_mw":10,"awarded_power_mw":10,
		"capacity_price_eur_per_mw":3.1,"energy_price_eur_per_mwh":45,"status":"SUCCESSFUL","price_source":"published",
		"source_day":"2026-02-02",
		"clearing_note":"cleared with the published German aFRR marginal price (neg) of 2026-02-02 00:00-04:00",
		"capacity_payment_eur":124}]}`

	exampleDeleted = `{"deleted_count":1,"deleted_bid_ids":["4b3777cd-32f1-40df-8d2b-f17dbe98a9a1"]}`

	exampleEnergySubmit = `{"bids":[
		{"idempotency_key":"0202-neg-0000","product":"neg","start_time":"2026-02-01T23:00:00Z",
		 "end_time":"2026-02-01T23:15:00Z","energy_price_eur_per_mwh":-20.5,"offered_power_mw":10},
		{"idempotency_key":"0202-neg-0015","product":"neg","start_time":"2026-02-01T23:15:00Z",
		 "end_time":"2026-02-01T23:30:00Z","energy_price_eur_per_mwh":"-18.00","offered_power_mw":10}]}`

	exampleEnergyBid1 = `{"id":"b6a0e0f4-1d0b-4e7d-9c3c-2f5e8a1d7c90","idempotency_key":"0202-neg-0000","product":"neg",
		"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-01T23:15:00Z","energy_price_eur_per_mwh":-20.5,
		"offered_power_mw":10,"status":"PENDING","source":"api","created_at":"2026-02-01T09:05:00Z","updated_at":"2026-02-01T09:05:00Z"}`
	exampleEnergyBid2 = `{"id":"5f2d8c1e-7a3b-4b6e-8d9f-0c1a2b3c4d5e","idempotency_key":"0202-neg-0015","product":"neg",
		"start_time":"2026-02-01T23:15:00Z","end_time":"2026-02-01T23:30:00Z","energy_price_eur_per_mwh":-18,
		"offered_power_mw":10,"status":"PENDING","source":"api","created_at":"2026-02-01T09:05:00Z","updated_at":"2026-02-01T09:05:00Z"}`

	exampleEnergySubmitted = `{"bids":[` + exampleEnergyBid1 + `,` + exampleEnergyBid2 + `],"created_count":2,
		"deleted_count":0,"deleted_bid_ids":[],"warnings":[],"updated_count":0}`

	// The energy bid a capacity award created: the capacity bid's energy
	// price for its awarded power.
	exampleEnergyBidOfAward = `{"id":"0196f1a2-3b4c-7d5e-8f60-718293a4b5c6",
		"idempotency_key":"capacity-bid:4b3777cd-32f1-40df-8d2b-f17dbe98a9a1","product":"neg",
		"start_time":"2026-02-01T23:30:00Z","end_time":"2026-02-01T23:45:00Z","energy_price_eur_per_mwh":45,
		"offered_power_mw":10,"status":"PENDING","source":"capacity_bid","created_at":"2026-02-01T08:15:00Z",
		"updated_at":"2026-02-01T08:15:00Z"}`

	exampleEnergyBids = `{"bids":[` + exampleEnergyBid1 + `,` + exampleEnergyBid2 + `,` + exampleEnergyBidOfAward + `],"market":"energy"}`

	exampleEnergyUpdate = `{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-01T23:15:00Z",
		"energy_price_eur_per_mwh":"-25.00","offered_power_mw":8}`

	exampleEnergyUpdated = `{"bids":[{"id":"b6a0e0f4-1d0b-4e7d-9c3c-2f5e8a1d7c90","idempotency_key":"0202-neg-0000",
		"product":"neg","start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-01T23:15:00Z","energy_price_eur_per_mwh":-25,
		"offered_power_mw":8,"status":"PENDING","source":"api","created_at":"2026-02-01T09:05:00Z","updated_at":"2026-02-01T09:40:00Z"}],
		"warnings":[]}`

	exampleEnergyIntervals = `{"intervals":[
		{"start_time":"2026-02-01T23:00:00Z","end_time":"2026-02-01T23:15:00Z","delivery_day":"2026-02-02",
		 "opens_at":"2026-02-01T09:00:00Z","recommended_deadline":"2026-02-01T22:35:00Z","gate_closure":"2026-02-01T22:35:00Z",
		 "bidding_open":true},
		{"start_time":"2026-02-01T23:15:00Z","end_time":"2026-02-01T23:30:00Z","delivery_day":"2026-02-02",
		 "opens_at":"2026-02-01T09:00:00Z","recommended_deadline":"2026-02-01T22:50:00Z","gate_closure":"2026-02-01T22:50:00Z",
		 "bidding_open":true}]}`

	// A bid at the margin, 6 of its 10 MW activated on average: 1.5 MWh
	// at the marginal price.
	exampleEnergyResults = `{"results":[
		{"bid_id":"b6a0e0f4-1d0b-4e7d-9c3c-2f5e8a1d7c90","product":"neg","start_time":"2026-02-01T23:00:00Z",
		 "end_time":"2026-02-01T23:15:00Z","offered_power_mw":10,"energy_price_eur_per_mwh":-53.54,"activated_power_mw":6,
		 "activated_energy_mwh":1.5,"marginal_price_eur_per_mwh":-53.54,"settlement_amount_eur":-80.31,"status":"SUCCESSFUL",
		 "source":"api","price_source":"modelled","source_day":"2026-02-02",
		 "clearing_note":"modelled from the replayed quarter-hour 2026-02-02 00:00 (local time): activated 6 of 10 MW at the margin of the merit order; German neg activation 105.454 MW modelled from the grid frequency, marginal price -53.54 EUR/MWh modelled from reBAP; paid the marginal price"},
		{"bid_id":"5f2d8c1e-7a3b-4b6e-8d9f-0c1a2b3c4d5e","product":"neg","start_time":"2026-02-01T23:15:00Z",
		 "end_time":"2026-02-01T23:30:00Z","offered_power_mw":10,"energy_price_eur_per_mwh":-18,"activated_power_mw":null,
		 "activated_energy_mwh":null,"marginal_price_eur_per_mwh":null,"settlement_amount_eur":null,"status":"SUBMITTED",
		 "source":"api","price_source":null,"source_day":null,"clearing_note":null}]}`

	exampleOverrideCreate = `{"product":"neg","start_time":"2026-02-02T04:00:00Z","end_time":"2026-02-02T08:00:00Z",
		"price":"92.00","max_capacity_mw":5,"note":"Morning ramp"}`

	exampleOverride = `{"id":"ec913b0a-fc5a-4ce1-960c-244954115a5d","asset_id":"demo-bess","product":"neg",
		"start_time":"2026-02-02T04:00:00Z","end_time":"2026-02-02T08:00:00Z","price":"92.00","max_capacity_mw":5,
		"note":"Morning ramp","created_at":"2026-02-01T06:00:22Z"}`

	exampleOverrides = `{"bids":[` + exampleOverride + `]}`

	exampleDefaultPut = `{"product":"neg","default_price":"85.50","default_max_capacity_mw":10}`

	exampleDefault = `{"asset_id":"demo-bess","product":"neg","default_price":"85.50","default_max_capacity_mw":10,
		"effective_from":"2026-02-01T06:15:00Z","updated_at":"2026-02-01T06:00:22Z"}`
)
