package assets

import (
	"context"
	"sync"
	"sync/atomic"
)

// ChangeFeed tells an instance about asset changes committed by any
// instance sharing its database (PostgreSQL LISTEN/NOTIFY). WatchAssetChanges
// blocks until ctx ends; see the PostgreSQL store for the callbacks.
type ChangeFeed interface {
	WatchAssetChanges(ctx context.Context, onConnected func(), onChange func(assetID string), onLost func())
}

// readCache keeps assets read by id, because every asset-scoped request of
// every area resolves its asset first and the read would otherwise cost
// more than the rest of a typical request. The database stays the source
// of truth: an entry is dropped on every change this instance makes and,
// with a ChangeFeed, on every change another instance commits; while the
// feed is not connected the cache is not used at all.
type readCache struct {
	mu      sync.RWMutex
	entries map[string]Asset
	// generation increases on every invalidation; a read started before an
	// invalidation must not put its (possibly old) result into the cache.
	generation atomic.Uint64
	enabled    atomic.Bool
}

const readCacheMax = 100_000

func newReadCache(enabled bool) *readCache {
	c := &readCache{entries: map[string]Asset{}}
	c.enabled.Store(enabled)
	return c
}

func (c *readCache) get(id string) (Asset, bool) {
	if !c.enabled.Load() {
		return Asset{}, false
	}
	c.mu.RLock()
	a, ok := c.entries[id]
	c.mu.RUnlock()
	return a, ok
}

// put caches a read that started at generation gen, unless an invalidation
// happened since.
func (c *readCache) put(a Asset, gen uint64) {
	c.mu.Lock()
	if c.enabled.Load() && c.generation.Load() == gen {
		if len(c.entries) >= readCacheMax {
			clear(c.entries)
		}
		c.entries[a.ID] = a
	}
	c.mu.Unlock()
}

func (c *readCache) invalidate(id string) {
	c.mu.Lock()
	c.generation.Add(1)
	delete(c.entries, id)
	c.mu.Unlock()
}

// setEnabled switches the cache on (the feed is connected) or off (it is
// not, and changes of other instances could be missed); either way it
// starts empty.
func (c *readCache) setEnabled(on bool) {
	c.mu.Lock()
	c.generation.Add(1)
	clear(c.entries)
	c.enabled.Store(on)
	c.mu.Unlock()
}
