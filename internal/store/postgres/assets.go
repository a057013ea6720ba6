package postgres

import "atcp/internal/assets"

// Assets returns the asset registry store.
func (db *DB) Assets() assets.Store { return assetStore{db} }

type assetStore struct{ db *DB }
