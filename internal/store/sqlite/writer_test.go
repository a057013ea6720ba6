package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"atcp/internal/markets/bids"
	"atcp/internal/store/sqlutil"
	"atcp/internal/telemetry"
)

func openFile(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "atcp.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, path
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestCheckpointsLeaveCommitsAlone: the write connection never copies the
// log into the database file itself (a commit that did waited for the
// copy and its fsync); the checkpointer does.
func TestCheckpointsLeaveCommitsAlone(t *testing.T) {
	ctx := context.Background()
	db, path := openFile(t)
	var every int
	if err := db.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&every); err != nil {
		t.Fatal(err)
	}
	if every != 0 {
		t.Fatalf("the write connection checkpoints every %d pages", every)
	}
	// With the checkpointer's goroutine stopped, only a commit could
	// write the database file: write far more than SQLite's default
	// 1,000-page threshold.
	db.checkpoints.halt()
	if err := db.checkpoints.checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, path)
	writeChunks(t, db, 2000)
	if got := fileSize(t, path); got != before {
		t.Fatalf("a commit wrote the database file (%d -> %d bytes): it checkpointed", before, got)
	}
	if err := db.checkpoints.checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got < before+2000*3000 {
		t.Fatalf("the checkpoint left the database file at %d bytes (%d before)", got, before)
	}
}

// TestCheckpointerRuns: the checkpointer's goroutine copies what commits
// wrote within about checkpointEvery.
func TestCheckpointerRuns(t *testing.T) {
	db, path := openFile(t)
	before := fileSize(t, path)
	writeChunks(t, db, 2000)
	deadline := time.Now().Add(5 * checkpointEvery)
	for fileSize(t, path) < before+2000*3000 {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint within %s: database file %d bytes", 5*checkpointEvery, fileSize(t, path))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeChunks stores n history chunks of 3,000 bytes.
func writeChunks(t *testing.T, db *DB, n int) {
	t.Helper()
	chunks := make([]telemetry.Chunk, n)
	start := time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC)
	for i := range chunks {
		chunks[i] = telemetry.Chunk{AssetID: fmt.Sprintf("a%04d", i), Start: start, End: start.Add(10 * time.Minute), Points: 1, Data: make([]byte, 3000)}
	}
	if err := db.Telemetry().PutChunks(context.Background(), chunks); err != nil {
		t.Fatal(err)
	}
}

// TestLatestStatesCommitInSlices: while the control loop saves thousands
// of latest states, another write does not wait for all of them (SQLite
// has one writer, and one transaction held it for 60-100 ms at 10,000
// assets).
func TestLatestStatesCommitInSlices(t *testing.T) {
	ctx := context.Background()
	db, _ := openFile(t)
	const n = 8000 // 40 slices
	at := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)
	many := make([]telemetry.Snapshot, n)
	for i := range many {
		many[i] = telemetry.Snapshot{AssetID: fmt.Sprintf("a%05d", i), Measurements: telemetry.Measurements{Timestamp: at}}
	}
	done := make(chan error, 1)
	go func() { done <- db.Telemetry().SaveLatest(ctx, many) }()
	// Wait until the first slice is visible, then write beside the rest.
	for {
		var stored int
		if err := db.r.QueryRowContext(ctx, "SELECT count(*) FROM telemetry_latest").Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the save finished (%v) before any of it was visible: one transaction", err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
	one := []telemetry.Snapshot{{AssetID: "other", Measurements: telemetry.Measurements{Timestamp: at}}}
	if err := db.Telemetry().SaveLatest(ctx, one); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the other write waited for the whole save (%v)", err)
	default:
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var stored int
	if err := db.r.QueryRowContext(ctx, "SELECT count(*) FROM telemetry_latest").Scan(&stored); err != nil || stored != n+1 {
		t.Fatalf("%d latest states stored (%v), want %d", stored, err, n+1)
	}
}

func TestInSlices(t *testing.T) {
	var got [][]int
	err := inSlices([]int{1, 2, 3, 4, 5}, 2, func(p []int) error {
		got = append(got, p)
		return nil
	})
	if err != nil || fmt.Sprint(got) != "[[1 2] [3 4] [5]]" {
		t.Fatalf("slices %v, %v", got, err)
	}
	calls := 0
	stop := fmt.Errorf("stop")
	if err := inSlices([]int{1, 2, 3}, 1, func([]int) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("after an error: %d calls, %v", calls, err)
	}
	if err := inSlices(nil, 3, func([]int) error { t.Fatal("called for nothing"); return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestRecyclePairsSameSlotAndKey(t *testing.T) {
	at := time.Date(2026, 2, 3, 0, 0, 0, 0, time.UTC)
	key := func(s string) *string { return &s }
	bid := func(id string, p bids.Product, qh int, k *string) bids.Bid {
		start := at.Add(time.Duration(qh) * 15 * time.Minute)
		return bids.Bid{ID: id, Product: p, Start: start, End: start.Add(15 * time.Minute), Status: bids.Pending, IdempotencyKey: k}
	}
	existing := []bids.Bid{
		bid("o1", bids.Neg, 0, nil), bid("o2", bids.Neg, 1, nil), bid("o3", bids.Pos, 1, nil),
		bid("o4", bids.Neg, 2, key("k")), bid("o5", bids.Neg, 3, nil),
	}
	ch := bids.Changes{
		Delete: []string{"o1", "o2", "o3", "o4", "o5"},
		Insert: []bids.Bid{
			bid("n1", bids.Neg, 0, nil),      // same slot: reuses o1
			bid("n2", bids.Pos, 2, nil),      // no deleted bid of its slot
			bid("n3", bids.Neg, 2, key("j")), // another key than o4's
			bid("n4", bids.Neg, 1, nil),      // reuses o2, not o3 (pos)
			bid("n5", bids.Neg, 2, key("k")), // o4's key: reuses it
		},
	}
	reuse, deletes, inserts := recycle(existing, ch)
	var pairs []string
	for _, r := range reuse {
		pairs = append(pairs, r.old+"->"+r.bid.ID)
	}
	var added []string
	for _, b := range inserts {
		added = append(added, b.ID)
	}
	if got, want := fmt.Sprint(pairs, deletes, added), "[o1->n1 o2->n4 o4->n5] [o3 o5] [n2 n3]"; got != want {
		t.Fatalf("reused, deleted, inserted = %s, want %s", got, want)
	}
	if reuse, deletes, inserts := recycle(existing, bids.Changes{Delete: []string{"o1"}}); reuse != nil || len(deletes) != 1 || inserts != nil {
		t.Fatalf("nothing to insert: %v %v %v", reuse, deletes, inserts)
	}
	submitted := at
	touched := bid("o6", bids.Neg, 4, nil)
	touched.SubmittedAt = &submitted
	reuse, deletes, inserts = recycle([]bids.Bid{touched}, bids.Changes{Delete: []string{"o6"}, Insert: []bids.Bid{bid("n6", bids.Neg, 4, nil)}})
	if len(reuse) != 0 || fmt.Sprint(deletes) != "[o6]" || len(inserts) != 1 {
		t.Fatalf("a submitted bid's row was reused: %v %v %v", reuse, deletes, inserts)
	}
	// The source is set once: a holder's bid never takes the row of one an
	// award created (nor the reverse), whatever else they share.
	generated := bid("o7", bids.Neg, 4, nil)
	generated.Source = bids.SourceCapacityBid
	own := bid("n7", bids.Neg, 4, nil)
	own.Source = bids.SourceAPI
	reuse, deletes, inserts = recycle([]bids.Bid{generated}, bids.Changes{Delete: []string{"o7"}, Insert: []bids.Bid{own}})
	if len(reuse) != 0 || fmt.Sprint(deletes) != "[o7]" || len(inserts) != 1 {
		t.Fatalf("a bid of another source reused the row: %v %v %v", reuse, deletes, inserts)
	}
}

// TestRecycleCoversEveryColumn: a reused row takes each mutable column
// from its new bid or keeps it because recycle pairs only rows that agree
// on it; a column added to the bids table must join one of the lists.
func TestRecycleCoversEveryColumn(t *testing.T) {
	got := append(slices.Clone(recycleSet), recycleKeep...)
	want := append([]string{"bid_id", "created_at"}, sqlutil.BidMutable...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("recycleSet and recycleKeep = %v\nwant the mutable columns %v", got, want)
	}
}

func TestCloseTwice(t *testing.T) {
	db, _ := openFile(t)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
