package documentshttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleTaskPresign = `{"document_type":"installation_photo_mdevice","filename":"zaehler-schrank-1.jpg","content_type":"image/jpeg",
		"size_bytes":2483117}`

	examplePresign = `{"document_type":"test_results_signed","filename":"Testprotokoll IBN Cottbus.pdf","content_type":"application/pdf",
		"size_bytes":812544,"gate_definition_id":"fc_comm_test"}`

	exampleDocument = `{"id":"0193b3c1-4d5e-7a8b-9c0d-1e2f3a4b5c6e","onboarding_id":"0193b3a0-1111-7222-8333-444455556666",
		"gate_definition_id":"fc_comm_test","document_type":"test_results_signed","filename":"Testprotokoll IBN Cottbus.pdf",
		"size_bytes":812544,"content_type":"application/pdf","uploaded_at":"2026-02-20T15:02:40Z",
		"uploaded_by_user_name":"petra@platform.example","version":2,"status":"available",
		"sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"replaces_document_id":"0193b3c1-4d5e-7a8b-9c0d-1e2f3a4b5c60","superseded_by":null,"deleted_at":null,"deleted_by_name":null}`

	exampleTaskUpload = `{"document":{"id":"0193b3c1-4d5e-7a8b-9c0d-1e2f3a4b5c6d","onboarding_id":"0193b3a0-1111-7222-8333-444455556666",
		"gate_definition_id":"fc_installation","document_type":"installation_photo_mdevice","filename":"zaehler-schrank-1.jpg",
		"size_bytes":2483117,"content_type":"image/jpeg","uploaded_at":null,"uploaded_by_user_name":"Jonas Keller","version":1,
		"status":"pending"},
		"upload_url":"https://atcp.example/objects/org/lausitz/onboarding/0193b3a0-1111-7222-8333-444455556666/doc/0193b3c1-4d5e-7a8b-9c0d-1e2f3a4b5c6d?exp=1770109800&sig=3q2-7w&size=2483117",
		"upload_method":"PUT","upload_headers":{"Content-Type":"image/jpeg"},"expires_at":"2026-02-03T09:10:00Z"}`

	exampleUpload = `{"document":{"id":"0193b3c1-4d5e-7a8b-9c0d-1e2f3a4b5c6e","onboarding_id":"0193b3a0-1111-7222-8333-444455556666",
		"gate_definition_id":"fc_comm_test","document_type":"test_results_signed","filename":"Testprotokoll IBN Cottbus.pdf",
		"size_bytes":812544,"content_type":"application/pdf","uploaded_at":null,"uploaded_by_user_name":"petra@platform.example",
		"version":1,"status":"pending","sha256":null,"replaces_document_id":null,"superseded_by":null,"deleted_at":null,
		"deleted_by_name":null},
		"upload_url":"https://atcp.example/objects/org/lausitz/onboarding/0193b3a0-1111-7222-8333-444455556666/doc/0193b3c1-4d5e-7a8b-9c0d-1e2f3a4b5c6e?exp=1771599600&sig=3q2-7w&size=812544",
		"upload_method":"PUT","upload_headers":{"Content-Type":"application/pdf"},"expires_at":"2026-02-20T15:00:00Z"}`

	exampleDownload = `{"download_url":"https://atcp.example/objects/org/lausitz/onboarding/0193b3a0-1111-7222-8333-444455556666/doc/0193b3c1-4d5e-7a8b-9c0d-1e2f3a4b5c6d?exp=1770110400&filename=zaehler-schrank-1.jpg&sig=3q2-7w",
		"expires_at":"2026-02-03T09:20:00Z"}`

	exampleList = `{"documents":[` + exampleDocument + `],"total":1,"limit":100,"offset":0}`
)
