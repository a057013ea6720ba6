package portfoliohttp

// Examples of response bodies for the OpenAPI document; internal/app's
// tests check each against its schema.

const exampleList = `{"covers":[
	{"step_id":"1c0ad9a4-5d0e-4a53-9a52-2a8f7c1f7e01","organization_id":"acme","pool_id":"north",
	"quarter_hour":"2026-02-02T09:00:00Z","product":"neg","failing_asset_id":"bess-1","covering_asset_id":"bess-2",
	"mw":8,"obligation_mw":10,"price":"45.50","price_source":"default",
	"start_time":"2026-02-02T09:07:00Z","end_time":"2026-02-02T09:15:00Z"},
	{"step_id":"6f1f3b7e-0c2d-4d8e-8a51-5a3c1e9b2f10","organization_id":"acme","pool_id":"north",
	"quarter_hour":"2026-02-02T09:00:00Z","product":"neg","failing_asset_id":"bess-1","covering_asset_id":null,
	"mw":2,"obligation_mw":10,"price":null,"price_source":null,
	"start_time":"2026-02-02T09:07:00Z","end_time":"2026-02-02T09:15:00Z"}]}`
