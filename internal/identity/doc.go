// Package identity owns who may call atcp: organisations, people (users,
// their scopes, preferences and set-password links), machine integrations
// and their secrets, and the OAuth 2.0 / OpenID Connect flows that turn
// those credentials into access tokens (client credentials, authorization
// code with PKCE, refresh tokens). Token signing and verification live in
// package auth; the HTTP endpoints in identityhttp.
package identity
