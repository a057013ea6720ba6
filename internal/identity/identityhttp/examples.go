package identityhttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

import (
	"github.com/danielgtaylor/huma/v2"

	"atcp/internal/httpapi"
)

const (
	exampleOrganization = `{"organization_id":"acme-energy","name":"ACME Energy","created_at":"2026-02-01T06:00:16Z"}`

	exampleCreateOrganization = `{"organization_id":"acme-energy","name":"ACME Energy"}`

	exampleOrganizations = `{"organizations":[` + exampleOrganization + `,
		{"organization_id":"demo","name":"Demonstration organisation","created_at":"2026-02-01T06:00:00Z"},
		{"organization_id":"platform","name":"Platform operator","created_at":"2026-02-01T06:00:00Z"}]}`

	exampleCreateUser = `{"email":"Dana.Trader@acme.example","organization_id":"acme-energy","scopes":["asset.read","market.read"]}`

	exampleCreatedUser = `{"user_id":"ee06dae2-2316-4e22-8863-d095783c4ced","email":"dana.trader@acme.example",
		"organization_id":"acme-energy","scopes":["asset.read","market.read"],"status":"invited",
		"set_password_url":"https://atcp.example.com/set-password?token=cZ2bDFXUYstln3bEMqPuF6Do4sEJVWVtTduPFfACr3M",
		"set_password_expires_at":"2026-02-04T06:00:16Z"}`

	exampleUsers = `{"users":[{"user_id":"ee06dae2-2316-4e22-8863-d095783c4ced","email":"dana.trader@acme.example",
		"organization_id":"acme-energy","scopes":["asset.read","market.read"],"status":"active","enabled":true,
		"created_at":"2026-02-01T06:00:16Z"}]}`

	exampleCurrentIdentity = `{"user_id":"ee06dae2-2316-4e22-8863-d095783c4ced","email":"dana.trader@acme.example",
		"organization_id":"acme-energy","scopes":["asset.read","market.read"],"is_m2m":false}`

	exampleReplaceScopes = `{"scopes":["asset.read","market.read","market.write"]}`

	exampleScopesReplaced = `{"email":"dana.trader@acme.example","scopes":["asset.read","market.read","market.write"],
		"added":["market.write"],"removed":[]}`

	examplePasswordLink = `{"email":"dana.trader@acme.example",
		"set_password_url":"https://atcp.example.com/set-password?token=gBS8d54w_Gc62tUyhR2_i2CuvtQ_Sz2eJjA7wswuAOs",
		"set_password_expires_at":"2026-02-04T06:00:17Z"}`

	examplePutPreferences = `{"locale":"de","theme":"dark"}`

	examplePreferences = `{"user_id":"ee06dae2-2316-4e22-8863-d095783c4ced","locale":"de","theme":"dark",
		"updated_at":"2026-02-01T08:12:00Z"}`

	exampleCreateIntegration = `{"name":"trading-desk","organization_id":"demo","scopes":["asset.read","market.read","market.write"]}`

	exampleCreatedIntegration = `{"integration_id":"53aa1f7f-442f-46ab-badc-e05932c115e5",
		"client_secret":"atcp_9a11ed8f-e58c-41c0-b094-eee27aedaed2_GLkj-PXjUrkscrVFI_U6RVircQWh9P3Maml83Sahqcc",
		"name":"trading-desk","organization_id":"demo","scopes":["asset.read","market.read","market.write"]}`

	exampleIntegrations = `[{"integration_id":"53aa1f7f-442f-46ab-badc-e05932c115e5","name":"trading-desk",
		"organization_id":"demo","created_at":"2026-02-01T06:00:15Z","scopes":["asset.read","market.read","market.write"]}]`

	exampleSecrets = `[{"secret_id":"9a11ed8f-e58c-41c0-b094-eee27aedaed2","creation_date":"2026-02-01T06:00:15Z"},
		{"secret_id":"266f984c-4f9c-4137-a5b2-42b7a8fc129c","creation_date":"2026-03-01T09:30:00Z"}]`

	exampleCreatedSecret = `{"integration_id":"53aa1f7f-442f-46ab-badc-e05932c115e5",
		"secret_id":"266f984c-4f9c-4137-a5b2-42b7a8fc129c",
		"secret_value":"atcp_266f984c-4f9c-4137-a5b2-42b7a8fc129c_3H08EJ2HI2DDf2QNItZSKP4MDV2yJ7fGsVxZ5IjwcGU"}`
)

const (
	exampleAccessToken = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImMwNjY3ZGQ2NTVjYjkwODYiLCJ0eXAiOiJKV1QifQ." +
		"eyJhdWQiOiJhdGNwLWFwaSIsImNsaWVudF9pZCI6InRyYWRpbmctZGVzayIsImV4cCI6MTc2OTkyOTIxNX0." +
		"c22_pHxT13gOwAQ2-Lp2GMARd0485U4-0keOtsEAY3MiCtSflzgIUReoPhumE_o8PjecQdibUpkjou8oibaECA"

	exampleSignIn = `{"response_type":"code","client_id":"atcp-console","redirect_uri":"http://127.0.0.1:53682/callback",
		"code_challenge":"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM","code_challenge_method":"S256",
		"state":"af0ifjsldkj","scope":"openid asset.read market.read","nonce":"n-0S6_WzA2Mj",
		"email":"dana.trader@acme.example","password":"correct horse battery staple"}`

	exampleOpenIDConfiguration = `{"issuer":"https://atcp.example.com",
		"authorization_endpoint":"https://atcp.example.com/oauth2/authorize","token_endpoint":"https://atcp.example.com/oauth2/token",
		"jwks_uri":"https://atcp.example.com/.well-known/jwks.json","response_types_supported":["code"],
		"response_modes_supported":["query"],"grant_types_supported":["authorization_code","refresh_token","client_credentials"],
		"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"],
		"token_endpoint_auth_methods_supported":["client_secret_basic","client_secret_post","none"],
		"code_challenge_methods_supported":["S256"],"scopes_supported":["openid","asset.read","asset.write","market.read","market.write"],
		"claims_supported":["iss","sub","aud","exp","iat","nbf","jti","auth_time","nonce","email","organization_id","scope","is_m2m","client_id","sid"],
		"authorization_response_iss_parameter_supported":true}`

	exampleJWKS = `{"keys":[{"kty":"EC","crv":"P-256","x":"XFwi2A0jENtLuiWCSUdRyBwKUDPVyZe6we1Ro4nsPz0",
		"y":"mV3ZyTpMyWGeoc566TsaSm2b5uw1kJ6gqbTIUO7kkAU","kid":"c0667dd655cb9086","alg":"ES256","use":"sig"}]}`
)

// The token endpoint's examples, one per grant.
var (
	tokenRequestExamples = map[string]*huma.Example{
		"client_credentials": {Summary: "An integration (client_secret_post; or send the id and secret in HTTP Basic)",
			Value: httpapi.ParseExample(`{"grant_type":"client_credentials","client_id":"53aa1f7f-442f-46ab-badc-e05932c115e5",
				"client_secret":"atcp_9a11ed8f-e58c-41c0-b094-eee27aedaed2_GLkj-PXjUrkscrVFI_U6RVircQWh9P3Maml83Sahqcc",
				"scope":"asset.read market.read"}`)},
		"authorization_code": {Summary: "The console exchanges the code from the sign-in redirect",
			Value: httpapi.ParseExample(`{"grant_type":"authorization_code","client_id":"atcp-console",
				"code":"SplxlOBeZQQYbYS6WxSbIA","redirect_uri":"http://127.0.0.1:53682/callback",
				"code_verifier":"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}`)},
		"refresh_token": {Summary: "The console renews its tokens",
			Value: httpapi.ParseExample(`{"grant_type":"refresh_token","client_id":"atcp-console",
				"refresh_token":"atcp_rt_8xLOxBtZp8q3W0r2CbdQhWqRzBq7kpNcGZfEo4zXyWk"}`)},
	}
	tokenResponseExamples = map[string]*huma.Example{
		"client_credentials": {Summary: "An integration's access token",
			Value: httpapi.ParseExample(`{"access_token":"` + exampleAccessToken + `","token_type":"Bearer","expires_in":3600,
				"scope":"asset.read market.read"}`)},
		"authorization_code": {Summary: "A person's tokens",
			Value: httpapi.ParseExample(`{"access_token":"` + exampleAccessToken + `","token_type":"Bearer","expires_in":3600,
				"scope":"openid asset.read market.read","id_token":"` + exampleAccessToken + `",
				"refresh_token":"atcp_rt_8xLOxBtZp8q3W0r2CbdQhWqRzBq7kpNcGZfEo4zXyWk"}`)},
	}
)
