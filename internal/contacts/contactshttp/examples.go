package contactshttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleCreate = `{"name":"Leitwarte Cottbus","role":"control room","company":"Lausitz Speicher GmbH",
		"email":"leitwarte@lausitz-speicher.example","phone":"+49 355 123456",
		"chat_webhook_url":"https://hooks.slack.com/services/T000/B000/XXXX","is_emergency":true}`

	exampleContact = `{"contact_id":17,"asset_id":"bess-cottbus-2","name":"Leitwarte Cottbus","role":"control room",
		"company":"Lausitz Speicher GmbH","email":"leitwarte@lausitz-speicher.example","phone":"+49 355 123456",
		"chat_webhook_url":"https://hooks.slack.com/services/T000/B000/XXXX","is_emergency":true,"notifiable":true,
		"channels":["email","chat"],"created_at":"2026-02-01T06:00:00Z","updated_at":"2026-02-01T06:00:00Z"}`

	exampleReplace = `{"name":"Leitwarte Cottbus","role":"control room","company":"Lausitz Speicher GmbH",
		"email":"leitwarte@lausitz-speicher.example","phone":"+49 355 123456","is_emergency":true,"notifiable":true}`

	exampleReplaced = `{"contact_id":17,"asset_id":"bess-cottbus-2","name":"Leitwarte Cottbus","role":"control room",
		"company":"Lausitz Speicher GmbH","email":"leitwarte@lausitz-speicher.example","phone":"+49 355 123456",
		"chat_webhook_url":null,"is_emergency":true,"notifiable":true,"channels":["email"],
		"created_at":"2026-02-01T06:00:00Z","updated_at":"2026-02-01T06:30:00Z"}`

	exampleList = `{"contacts":[` + exampleContact + `,{"contact_id":18,"asset_id":"bess-cottbus-2","name":"Pförtner",
		"role":"gate","company":null,"email":null,"phone":"+49 355 654321","chat_webhook_url":null,"is_emergency":false,
		"notifiable":false,"channels":[],"created_at":"2026-02-01T06:05:00Z","updated_at":"2026-02-01T06:05:00Z"}]}`
)
