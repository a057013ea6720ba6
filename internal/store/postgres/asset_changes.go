package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// assetChannel is the notification channel on which every committed asset
// change is announced, so that each instance can drop its cached copy.
const assetChannel = "atcp_asset_changed"

// notifyAssetChanged announces the change of an asset; PostgreSQL delivers
// the notification when (and only if) the transaction commits.
func notifyAssetChanged(ctx context.Context, tx pgx.Tx, assetID string) error {
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", assetChannel, assetID)
	return err
}

// WatchAssetChanges implements assets.ChangeFeed: it listens on a
// dedicated connection until ctx ends, reconnecting after failures.
// onConnected runs each time listening (re)starts, onChange for each
// changed asset, onLost when the connection is lost: changes made while it
// was down are not delivered, so the cache is bypassed until onConnected.
func (s assetStore) WatchAssetChanges(ctx context.Context, onConnected func(), onChange func(assetID string), onLost func()) {
	for ctx.Err() == nil {
		s.db.listen(ctx, assetChannel, onConnected, onChange)
		onLost()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// listen delivers the notifications of channel on a dedicated connection
// until ctx ends or the connection fails.
func (db *DB) listen(ctx context.Context, channel string, onConnected func(), onChange func(string)) {
	pooled, err := db.pool.Acquire(ctx)
	if err != nil {
		return
	}
	// The connection will carry a LISTEN: it must not go back to the pool.
	conn := pooled.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return
	}
	onConnected()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		onChange(n.Payload)
	}
}
