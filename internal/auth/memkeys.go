package auth

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// MemoryKeyStore keeps signing keys in memory, for the tests of packages
// that issue tokens without a database. The zero value is ready to use.
type MemoryKeyStore struct {
	mu   sync.Mutex
	keys []SigningKey
}

// EnsureSigningKey implements KeyStore.
func (m *MemoryKeyStore) EnsureSigningKey(_ context.Context, candidate SigningKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.keys) == 0 {
		m.keys = append(m.keys, candidate)
	}
	return nil
}

// SigningKeys implements KeyStore.
func (m *MemoryKeyStore) SigningKeys(context.Context) ([]SigningKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := slices.Clone(m.keys)
	slices.SortFunc(keys, func(a, b SigningKey) int {
		return cmp.Or(a.ActivatesAt.Compare(b.ActivatesAt), strings.Compare(a.KeyID, b.KeyID))
	})
	return keys, nil
}

// AddSigningKey implements KeyStore.
func (m *MemoryKeyStore) AddSigningKey(_ context.Context, k SigningKey, deleteOthers bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if deleteOthers {
		m.keys = nil
	}
	for i := range m.keys {
		if m.keys[i].RetiredAt.IsZero() || m.keys[i].RetiredAt.After(k.ActivatesAt) {
			m.keys[i].RetiredAt = k.ActivatesAt
		}
	}
	m.keys = append(m.keys, k)
	return nil
}

// ReplacePrivateKey implements KeyStore.
func (m *MemoryKeyStore) ReplacePrivateKey(_ context.Context, keyID, old, private string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.keys {
		if m.keys[i].KeyID == keyID && m.keys[i].PrivateKey == old {
			m.keys[i].PrivateKey = private
			return true, nil
		}
	}
	return false, nil
}

// DeleteRetiredSigningKeys implements KeyStore.
func (m *MemoryKeyStore) DeleteRetiredSigningKeys(_ context.Context, cutoff time.Time) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	m.keys = slices.DeleteFunc(m.keys, func(k SigningKey) bool {
		gone := !k.RetiredAt.IsZero() && k.RetiredAt.Before(cutoff)
		if gone {
			ids = append(ids, k.KeyID)
		}
		return gone
	})
	return ids, nil
}
