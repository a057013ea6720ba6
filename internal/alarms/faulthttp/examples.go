package faulthttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleEvidence = `{"alarm_key":"bess-cottbus-2:COMMS-001","alarm_id":"0195f0a2-7c4e-7a10-9b2e-3f1c5d6e7a8b",
		"asset_id":"bess-cottbus-2","asset_name":"BESS Cottbus 2","tso":"50HZ","rule_id":"COMMS-001",
		"rule_name":"Communications lost","severity":"CRITICAL","facts":["asset_status is 0 (offline)"],
		"deep_link":"https://atcp.example/v1/alarms/bess-cottbus-2:COMMS-001/fault-evidence","sustained_seconds":312,
		"concurrent_alarm_rule_ids":["TELEMETRY-001"],"unavailability_hours":8,"active_fault_hold":null,
		"recipients":[{"contact_id":17,"name":"Leitwarte Cottbus","role":"control room","company":"Lausitz Speicher GmbH",
		"email":"leitwarte@lausitz-speicher.example","phone":"+49 355 123456","has_slack":true,"is_emergency":true,"notifiable":true}]}`

	exampleDraftRequest = `{"language":"de","assessment":"Vermutlich Ausfall des Routers am Standort."}`

	exampleDraft = `{"language":"de","subject":"Störung BESS Cottbus 2 (bess-cottbus-2): Kommunikation unterbrochen",
		"body":"Sehr geehrte Damen und Herren,\n\nseit 312 Sekunden ...\n\nMit freundlichen Grüßen\n\nleitwarte@atcp.example\n\nReferenz: bess-cottbus-2:COMMS-001",
		"unavailability_end":"2026-03-15T16:30:00Z","unverified_numbers":[]}`

	exampleIncident = `{"found":true,"incident_id":"Q1R2S3T4","status":"acknowledged","acknowledged":true,
		"acknowledged_by":"Jana Schulz","acknowledged_by_agent":false,"acknowledged_at":"2026-03-15T08:35:00Z",
		"started_at":"2026-03-15T08:31:00Z","url":"https://incidents.example/incidents/Q1R2S3T4"}`

	exampleDeclare = `{"alarm_id":"0195f0a2-7c4e-7a10-9b2e-3f1c5d6e7a8b","notes":"Router am Standort ausgefallen",
		"notification":{"language":"de","subject":"Störung BESS Cottbus 2 (bess-cottbus-2): Kommunikation unterbrochen",
		"body":"Sehr geehrte Damen und Herren,\n\n...","recipient_contact_ids":[17],"unavailability_end":"2026-03-15T16:30:00Z"}}`

	exampleDeclared = `{"alarm_key":"bess-cottbus-2:COMMS-001","asset_id":"bess-cottbus-2","declared_by":"leitwarte@atcp.example",
		"unavailability_start":"2026-03-15T08:31:12Z","unavailability_end":"2026-03-15T16:30:00Z","already_declared":false,
		"notification_status":"requested","notified":[{"contact_id":17,"name":"Leitwarte Cottbus","channels":["email","chat"]}]}`
)
