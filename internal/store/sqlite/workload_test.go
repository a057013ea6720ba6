package sqlite

import (
	"context"
	"sync"
	"testing"
	"time"

	"atcp/internal/store/workload"
)

// TestRequestsDoNotQueueBehindBackgroundReads: background reads holding
// as many connections as the request pool has leave a request's read
// free to run; they queue on their own pool.
func TestRequestsDoNotQueueBehindBackgroundReads(t *testing.T) {
	db, _ := openFile(t)
	bg, stop := context.WithCancel(workload.Background(context.Background()))
	defer stop()
	var held sync.WaitGroup
	got := make(chan struct{}, 64)
	for range db.r.Stats().MaxOpenConnections {
		held.Go(func() {
			rows, err := db.read(bg).QueryContext(bg, "SELECT 1")
			if err != nil {
				return // cancelled while waiting for its pool
			}
			got <- struct{}{}
			<-bg.Done() // holds its connection until the end
			rows.Close()
		})
	}
	for range jobReaders {
		<-got
	}
	time.Sleep(50 * time.Millisecond) // the others are waiting for a connection now
	if n := len(got); n != 0 {
		t.Fatalf("%d background reads beyond the background pool's %d got a connection", n, jobReaders)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var one int
	if err := db.read(ctx).QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("a request's read behind background reads: %v", err)
	}
	stmt, err := db.stmt(ctx, "SELECT 2")
	if err != nil {
		t.Fatal(err)
	}
	if err := stmt.QueryRowContext(ctx).Scan(&one); err != nil || one != 2 {
		t.Fatalf("a request's prepared read behind background reads: %v", err)
	}
	stop()
	held.Wait()
}
