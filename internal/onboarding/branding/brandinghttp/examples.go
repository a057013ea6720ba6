package brandinghttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	examplePut = `{"display_name":"Lausitz Speicher Onboarding","primary_color":"#0a7cff",
		"support_email":"onboarding@lausitz-speicher.example","logo_url":"https://lausitz-speicher.example/logo.png",
		"magic_link_default_language":"de",
		"magic_link_email_templates":{"de":{"subject":"Ihr Zugang zur Inbetriebnahme von {asset_name}",
		"intro":"Guten Tag {contact_name},\n\nbitte übernehmen Sie Ihre Aufgaben als {role} bis {deadline}."}}}`

	exampleBranding = `{"display_name":"Lausitz Speicher Onboarding","primary_color":"#0a7cff",
		"support_email":"onboarding@lausitz-speicher.example","logo_url":"https://lausitz-speicher.example/logo.png",
		"email_banner_url":"https://atcp.example/objects/org/lausitz/branding/banner/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08?exp=1769925900&filename=email-banner.png&sig=3q2-7w",
		"magic_link_default_language":"de",
		"magic_link_email_templates":{"de":{"subject":"Ihr Zugang zur Inbetriebnahme von {asset_name}",
		"intro":"Guten Tag {contact_name},\n\nbitte übernehmen Sie Ihre Aufgaben als {role} bis {deadline}."}}}`

	examplePNG  = "\u0089PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x02X\x00\x00\x00P\x08\x06\x00\x00\x00"
	exampleJPEG = "\u00ff\u00d8\u00ff\u00e0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
	exampleSVG  = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="80"><rect width="600" height="80" fill="#0a7cff"/>` +
		`<text x="24" y="50" fill="#ffffff" font-family="sans-serif" font-size="28">Lausitz Speicher</text></svg>`

	exampleRead = `{"organization_id":"lausitz","organization_name":"Lausitz Speicher GmbH","branding":` + exampleBranding + `}`
)
