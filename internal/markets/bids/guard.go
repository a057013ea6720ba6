package bids

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// DeletionGuard refuses the deletion of an asset that still has committed
// bids ending after now (assets.DeletionGuard).
type DeletionGuard struct{ Store Store }

// AssetDeletionBlockers names the markets with committed future bids.
func (g DeletionGuard) AssetDeletionBlockers(ctx context.Context, assetID string, now time.Time) ([]string, error) {
	counts, err := g.Store.CommittedAfter(ctx, assetID, now)
	if err != nil {
		return nil, err
	}
	var out []string
	for m, n := range counts {
		if n > 0 {
			out = append(out, fmt.Sprintf("%d committed %s bid(s) for delivery after now", n, m))
		}
	}
	sort.Strings(out)
	return out, nil
}
