package alarms

import (
	"context"
	"slices"
	"time"

	"atcp/internal/auth"
	"atcp/internal/detrand"
)

// Shard is one of Count rule shards: the assets whose shard hash modulo
// Count is Index. Each shard is one engine job under its own lease.
type Shard struct{ Index, Count int }

// ShardHash is the stable hash a key's rows are sharded by: FNV-1a of the
// asset id, shifted to a non-negative int64 so that both stores can take
// it modulo a shard count in SQL.
func ShardHash(assetID string) int64 { return int64(detrand.Hash(assetID) >> 1) }

// Has reports whether assetID belongs to the shard.
func (s Shard) Has(assetID string) bool { return ShardHash(assetID)%int64(s.Count) == int64(s.Index) }

// Update is a change of one key decided on its current row. The store
// reads the row with Visibility (a row the caller may not see is nil).
type Update struct {
	Key        Key
	Visibility auth.Visibility
	Decide     Decide
}

// Batch is what one engine run writes, in one transaction.
type Batch struct {
	Tracks     []Track // upserted
	DropTracks []Key   // deleted
	Updates    []Update
}

// Empty reports whether the batch writes nothing.
func (b Batch) Empty() bool { return len(b.Tracks)+len(b.DropTracks)+len(b.Updates) == 0 }

// Sorted returns the batch with its tracks and keys ordered by key and
// its updates stably so, so that every writer locks rows in one order
// (two engines of one shard never deadlock).
func (b Batch) Sorted() Batch {
	byKey := func(a, b Key) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	}
	out := Batch{Tracks: slices.Clone(b.Tracks), DropTracks: slices.Clone(b.DropTracks), Updates: slices.Clone(b.Updates)}
	slices.SortStableFunc(out.Tracks, func(x, y Track) int { return byKey(x.Key, y.Key) })
	slices.SortStableFunc(out.DropTracks, byKey)
	slices.SortStableFunc(out.Updates, func(x, y Update) int { return byKey(x.Key, y.Key) })
	return out
}

// EngineState is what an engine run reads of its shard: every track and
// every lifecycle that is open or muted.
type EngineState struct {
	Tracks     []Track
	Lifecycles []Lifecycle
}

// EventFilter selects alarm events; zero values do not filter.
type EventFilter struct {
	OrganizationID string
	AssetID        string
	// From and To bound the event timestamp: [From, To).
	From, To   time.Time
	Severities []Severity
	Types      []EventType
	Limit      int
	Offset     int
}

// ActiveFilter selects open lifecycles; zero values do not filter.
type ActiveFilter struct {
	OrganizationID string
	AssetID        string
	Severities     []Severity
	Limit          int
	Offset         int
}

// Store persists lifecycles, their events and the condition tracks. Every
// write of a lifecycle locks its row, decides on it (Decide) and inserts
// the event in the same transaction; the events of one transaction get
// event ids greater than those of every transaction committed before it,
// so that a reader resuming after an event id misses nothing. Reads
// filter by the caller's visibility in the query.
type Store interface {
	// EngineState returns the shard's tracks and its open or muted
	// lifecycles.
	EngineState(ctx context.Context, shard Shard) (EngineState, error)
	// Apply writes a batch in one transaction, the updates in key order,
	// and returns the events recorded, with their ids. An update whose
	// Decide changes nothing records nothing.
	Apply(ctx context.Context, b Batch) ([]Event, error)
	// Act writes one update and returns the key's lifecycle afterwards
	// (as it was when nothing changed) and the event recorded, nil when
	// none. Decide's error is returned unchanged, nothing written. An
	// acknowledgement's lifecycle gets AckEventID set to its event's id.
	Act(ctx context.Context, u Update) (Lifecycle, *Event, error)
	// Lifecycle returns the visible key's lifecycle, errs.NotFound when
	// it never had one.
	Lifecycle(ctx context.Context, v auth.Visibility, key Key) (Lifecycle, error)
	// Events returns a page of the visible events matching f, newest
	// first (timestamp, then event id), and how many match in all.
	Events(ctx context.Context, v auth.Visibility, f EventFilter) ([]Event, int, error)
	// Active returns a page of the visible open lifecycles matching f,
	// most recently opened first, and how many match in all.
	Active(ctx context.Context, v auth.Visibility, f ActiveFilter) ([]Lifecycle, int, error)

	// The live stream (alarmstream) reads events in id order, which is
	// commit order: after an id, nothing earlier can still appear.

	// LatestEventID returns the largest event id, 0 when there is none.
	LatestEventID(ctx context.Context) (int64, error)
	// EventsAfter returns up to limit events with an id greater than
	// afterID, of every organisation, in id order: the instance's one
	// poller, which filters per subscriber itself.
	EventsAfter(ctx context.Context, afterID int64, limit int) ([]Event, error)
	// VisibleEventsAfter returns up to limit visible events with an id in
	// (afterID, throughID], of organizationID when not empty, in id
	// order: a resuming subscriber's replay.
	VisibleEventsAfter(ctx context.Context, v auth.Visibility, organizationID string, afterID, throughID int64, limit int) ([]Event, error)
}
