package magichttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleExchange = `{"access_token":"eyJhbGciOiJFUzI1NiIsImtpZCI6IjFhMmIzYzRkIn0.eyJzdWIiOiJvbmJjOi4uLiJ9.c2ln",
		"id_token":"eyJhbGciOiJFUzI1NiIsImtpZCI6IjFhMmIzYzRkIn0.eyJzdWIiOiJvbmJjOi4uLiJ9.c2ln",
		"refresh_token":"amr_5mJx2Qy0xQ8Vn7cPq3WkZ1LbT9sHfR4uYd6eGaNiKoM","token_type":"Bearer","expires_at":1769929200,
		"session_id":"4f7d3a2e-9b1c-4e8f-a6d5-2c3b1a0f9e8d","onboarding_id":"0b9e6c1a-3d4f-4a2b-8c7d-6e5f4a3b2c1d","role":"epc",
		"contact_name":"Erik Weber","contact_email":"e.weber@solarbau.example",
		"branding":{"display_name":"Lausitz Speicher","primary_color":"#0a7d4f","support_email":"onboarding@lausitz-speicher.example",
		"logo_url":null,"email_banner_url":null,"magic_link_default_language":"de","magic_link_email_templates":null}}`

	exampleRefreshRequest = `{"session_id":"4f7d3a2e-9b1c-4e8f-a6d5-2c3b1a0f9e8d","refresh_token":"amr_5mJx2Qy0xQ8Vn7cPq3WkZ1LbT9sHfR4uYd6eGaNiKoM"}`

	exampleRefresh = `{"access_token":"eyJhbGciOiJFUzI1NiIsImtpZCI6IjFhMmIzYzRkIn0.eyJzdWIiOiJvbmJjOi4uLiJ9.c2ln",
		"id_token":"eyJhbGciOiJFUzI1NiIsImtpZCI6IjFhMmIzYzRkIn0.eyJzdWIiOiJvbmJjOi4uLiJ9.c2ln",
		"refresh_token":"amr_Qw8eR7tY6uI5oP4aS3dF2gH1jK0lZ9xC8vB7nM6qW5e","token_type":"Bearer","expires_at":1769932800}`
)
