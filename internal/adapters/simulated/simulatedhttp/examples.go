package simulatedhttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleCreate = `{"kind":"communication_loss","duration_seconds":600}`

	exampleFault = `{"fault_id":"0b8f8a53-3c1e-4f5e-9d0a-6c2b7e4d1f90","asset_id":"demo-bess","kind":"communication_loss",
		"start_time":"2026-02-01T08:30:00Z","end_time":"2026-02-01T08:40:00Z","created_by":"platform-admin"}`

	exampleList = `{"faults":[{"fault_id":"0b8f8a53-3c1e-4f5e-9d0a-6c2b7e4d1f90","asset_id":"demo-bess","kind":"communication_loss",
		"start_time":"2026-02-01T08:30:00Z","end_time":"2026-02-01T08:40:00Z","created_by":"platform-admin"},
		{"fault_id":"5d2e61a4-8b7f-4c39-a1e6-0f3d9b8c2a17","asset_id":"demo-bess","kind":"afrr_underdelivery",
		"start_time":"2026-02-01T08:32:10Z","end_time":"2026-02-01T09:32:10Z","created_by":"platform-admin"}]}`
)
