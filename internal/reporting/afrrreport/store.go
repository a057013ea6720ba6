package afrrreport

import (
	"context"
	"time"

	"atcp/internal/auth"
	"atcp/internal/markets/bids"
	"atcp/internal/reporting"
)

// Store keeps the aFRR dispatch events, keyed by organisation and asset;
// one event per asset, quarter-hour and direction.
type Store interface {
	// Insert stores the events; an event of an asset, quarter-hour and
	// direction already stored (another instance's, or a retry) is left as
	// it is. It returns how many were new.
	Insert(ctx context.Context, events []Event) (int, error)
	// List returns the asset's events visible to v whose quarter-hour
	// overlaps w, ordered by quarter-hour and direction, one page of them,
	// and how many there are in all.
	List(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, p reporting.Page) ([]Event, int, error)
	// Totals returns the asset's events visible to v whose quarter-hour
	// overlaps w, summed per bucket (the quarter-hour, or its UTC hour) and
	// direction, in that order.
	Totals(ctx context.Context, v auth.Visibility, assetID string, w reporting.Window, per Bucket) ([]SlotTotal, error)
}

// Bucket is what Totals sums over.
type Bucket int

const (
	// PerQuarterHour sums each quarter-hour.
	PerQuarterHour Bucket = iota
	// PerHour sums each UTC hour, which is a Berlin hour (whole-hour
	// offsets): a quarter of the rows for the hourly and daily periods.
	PerHour
)

// SlotTotal sums the events of one asset, bucket and direction: how many,
// how many were sent power, how many filtered, and the magnitudes set and
// accepted in the direction (Magnitudes). Slot is the bucket's start.
type SlotTotal struct {
	Slot       time.Time
	Direction  bids.Product
	Count      int
	Dispatched int
	Filtered   int
	SetMW      float64
	AcceptedMW float64
}

// Magnitudes are the set and accepted power of e in its direction, never
// negative: what the performance report sums. Power delivered against
// the direction counts as none.
func (e Event) Magnitudes() (set, accepted float64) {
	sign := 1.0
	if e.Direction == bids.Neg {
		sign = -1
	}
	return max(0, sign*e.SetMW), max(0, sign*e.AcceptedMW)
}
