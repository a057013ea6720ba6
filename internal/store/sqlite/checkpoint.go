package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"time"
)

// A checkpoint copies the pages the write-ahead log holds into the
// database file and syncs both: tens of milliseconds on a disk. Left to
// SQLite, the commit that grows the log past 1,000 pages runs it before it
// returns, so one write request in a few waited for it (a REPLACE of a
// delivery day: p99 44 ms against p50 13 ms, docs/performance.md). The
// write connection therefore never checkpoints (wal_autocheckpoint(0));
// this goroutine runs PASSIVE checkpoints on a connection of its own
// instead, which wait for no writer or reader and hold none up.
const (
	checkpointEvery = time.Second
	// walRestartFrames is how long the log may grow while readers keep
	// a PASSIVE checkpoint from finishing before one RESTART waits for
	// them (at most busy_timeout) and lets the next writer start it over.
	walRestartFrames = 16384 // 64 MiB of 4 KiB pages
)

// checkpointer runs checkpoints until closed.
type checkpointer struct {
	db      *sql.DB
	stop    chan struct{}
	stopped sync.Once
	done    sync.WaitGroup
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, stop: make(chan struct{})}
	c.done.Go(c.run)
	return c
}

func (c *checkpointer) run() {
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if err := c.checkpoint(context.Background()); err != nil {
			slog.Warn("sqlite: checkpoint", "error", err)
		}
	}
}

// checkpoint runs one PASSIVE checkpoint and, when the log has grown past
// walRestartFrames without being copied in full, a RESTART.
func (c *checkpointer) checkpoint(ctx context.Context) error {
	busy, frames, copied, err := c.run1(ctx, "PASSIVE")
	if err != nil || busy != 0 || frames < walRestartFrames || copied == frames {
		return err
	}
	_, _, _, err = c.run1(ctx, "RESTART")
	return err
}

func (c *checkpointer) run1(ctx context.Context, mode string) (busy, frames, copied int, err error) {
	err = c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &copied)
	return busy, frames, copied, err
}

// close stops the goroutine and waits for a checkpoint under way; the
// store may be closed twice.
func (c *checkpointer) close() error {
	c.halt()
	return c.db.Close()
}

// halt stops the goroutine and waits for a checkpoint under way.
func (c *checkpointer) halt() {
	c.stopped.Do(func() { close(c.stop) })
	c.done.Wait()
}
