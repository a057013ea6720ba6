package contactshttp

const (
	exampleContact = `{"contact_id": "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b", "onboarding_id": "0190a3c4-0000-7000-8000-000000000001",
		"name": "Erika Muster", "email": "erika@epc.example", "company": "EPC GmbH", "phone": "+4930123456", "roles": ["epc"],
		"language": "de", "user_id": null, "created_at": "2026-03-02T09:00:00Z", "updated_at": "2026-03-02T09:00:00Z"}`
	exampleContacts = `{"contacts": [` + exampleContact + `]}`
	exampleCreate   = `{"name": "Erika Muster", "email": "erika@epc.example", "roles": ["epc"], "company": "EPC GmbH", "phone": "+4930123456", "language": "de"}`
	examplePatch    = `{"roles": ["epc", "ems_provider"], "phone": null}`
	exampleTask     = `{"contacts": [{"name": "Max Beispiel", "company": "Owner AG", "roles": ["asset_owner"]}], "support_email": "onboarding@example.com"}`
	exampleLink     = `{"link_id": "0190a3c4-1111-7000-8000-000000000002", "onboarding_id": "0190a3c4-0000-7000-8000-000000000001",
		"contact_id": "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b", "contact_name": "Erika Muster", "contact_email": "erika@epc.example",
		"role": "epc", "language": null, "status": "active", "created_at": "2026-03-02T09:05:00Z", "created_by_name": "manager@example.com",
		"expires_at": "2026-04-01T09:05:00Z", "revoked_at": null, "last_used_at": null, "use_count": 0, "open_session_count": 0,
		"last_sent_at": "2026-03-02T09:05:00Z", "send_count": 1, "delivery_status": "queued"}`
	exampleLinks  = `{"access_links": [` + exampleLink + `], "total": 1, "limit": 100, "offset": 0}`
	exampleIssue  = `{"contact_id": "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b", "role": "epc", "expires_in_days": 30, "message": "Bitte bis Freitag."}`
	exampleRevoke = `{"reason": "Contact left the company."}`
	exampleResend = `{"rotate": true}`
)
