package identity

// ClientStore persists integrations, their secrets, authorization codes
// and refresh tokens.
type ClientStore interface{}
