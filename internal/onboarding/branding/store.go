package branding

import (
	"context"

	"atcp/internal/auth"
)

// Store persists one branding per organisation. Every query is filtered by
// the caller's auth.Visibility in SQL.
type Store interface {
	// Get returns the branding of the visible organisation orgID;
	// errs.NotFound when it has none or is not visible.
	Get(ctx context.Context, v auth.Visibility, orgID string) (Branding, error)
	// Stored returns, in one read, the brandings stored for those of
	// orgIDs that have one, by organisation, unfiltered: Resolve's fallback
	// from an organisation to the platform costs one query, not two.
	Stored(ctx context.Context, orgIDs ...string) (map[string]Branding, error)
	// Update locks the visible organisation orgID until the transaction
	// ends (errs.NotFound when it is unknown or not visible), reads its
	// branding (exists false: none yet) and stores what change returns,
	// with its ETag computed; unless change fails, which leaves the store
	// unchanged. The lock makes concurrent updates of one organisation
	// (settings and banner, or two clients with If-Match) take turns.
	Update(ctx context.Context, v auth.Visibility, orgID string,
		change func(current Branding, exists bool) (Branding, error)) (Branding, error)
}
