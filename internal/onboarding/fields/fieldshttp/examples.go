package fieldshttp

import (
	"encoding/json"
	"time"

	"atcp/internal/onboarding"
	"atcp/internal/onboarding/fields"
	"atcp/internal/onboarding/rfi"
)

// The examples of the OpenAPI document, rendered by the code of the
// responses from the fc_rfi catalogue.
var (
	exampleSave = `{"fields": {"usable_power_capacity_mw": 10, "tso": "50hertz", "site_coordinates": {"latitude": 51.76, "longitude": 14.33},
		"commissioning_date": null}}`
	exampleBody = sampleBody()
)

func sampleBody() string {
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	v := fields.View{
		Gate:        onboarding.Gate{DefinitionID: rfi.FullControlGate},
		Definitions: rfi.GateFields(rfi.FullControlGate)[:3],
		Values: fields.Values{Fields: map[string]json.RawMessage{
			"usable_power_capacity_mw": json.RawMessage(`10`), "tso": json.RawMessage(`"50hertz"`),
			"site_coordinates": json.RawMessage(`{"latitude":51.76,"longitude":14.33}`),
		}, UpdatedAt: &at, UpdatedBy: "anna@acme.example"},
	}
	b, err := json.Marshal(toBody(v).Body)
	if err != nil {
		panic(err)
	}
	return string(b)
}
