package postgres

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/store/workload"
)

func TestJobConnsBesideTheRequestPool(t *testing.T) {
	for _, c := range []struct{ requests, want int32 }{{1, 2}, {4, 2}, {5, 2}, {8, 4}, {20, 10}} {
		if got := jobConns(c.requests); got != c.want {
			t.Errorf("jobConns(%d) = %d, want %d", c.requests, got, c.want)
		}
	}
}

// TestRequestsDoNotQueueBehindBackgroundWork: background statements
// holding as many connections as the request pool has leave a request's
// statement free to run; they queue on their own pool. It runs when
// ATCP_TEST_DATABASE_URL names a PostgreSQL server.
func TestRequestsDoNotQueueBehindBackgroundWork(t *testing.T) {
	db, _ := unmigrated(t)
	if db == nil {
		return
	}
	bg, stop := context.WithCancel(workload.Background(context.Background()))
	defer stop()
	var held sync.WaitGroup
	got := make(chan struct{}, 64)
	for range db.pool.Config().MaxConns {
		held.Go(func() {
			err := db.tx(bg, func(ctx context.Context, _ pgx.Tx) error {
				got <- struct{}{}
				<-bg.Done() // holds its connection until the end
				return nil
			})
			_ = err // cancelled, either while waiting for its pool or holding it
		})
	}
	for range db.jobs.Config().MaxConns {
		<-got
	}
	time.Sleep(50 * time.Millisecond) // the others are waiting for a connection now
	if n := len(got); n != 0 {
		t.Fatalf("%d background transactions beyond the background pool's %d got a connection", n, db.jobs.Config().MaxConns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var one int
	if err := db.conn(ctx).QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("a request's statement behind background work: %v", err)
	}
	if err := db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error { return tx.QueryRow(ctx, "SELECT 1").Scan(&one) }); err != nil {
		t.Fatalf("a request's transaction behind background work: %v", err)
	}
	stop()
	held.Wait()
}
