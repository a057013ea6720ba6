package assets

// Store persists assets. Every read and write is filtered by the caller's
// auth.Visibility in the query itself.
type Store interface{}
