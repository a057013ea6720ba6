// Package auth owns what every request needs to know about its caller:
// scopes, the Principal and its organisation visibility, signed access
// tokens (issuing, verifying, JWKS) and the hashing of secrets. Who may get
// a token is decided by package identity.
package auth
