package sqlite

import "atcp/internal/identity"

// Clients returns the store of integrations, secrets and OAuth grants.
func (db *DB) Clients() identity.ClientStore { return clientStore{db} }

type clientStore struct{ db *DB }
