package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"atcp/internal/store/workload"
)

// Parsing a statement costs modernc's SQLite more than running the short
// ones run most: one asset or latest state per request, the control
// loop's rows every second, a day of bids' rows. Those are prepared once
// per connection and kept (docs/performance.md).
type statements struct {
	// read and jobs hold statements of the read pools, each prepared on
	// a connection the first time it runs there.
	read, jobs sync.Map // query → *sql.Stmt
	// write holds the statements of hotWrites, prepared on the write
	// connection by Migrate: preparing one inside a write transaction
	// would wait for the connection the transaction holds.
	write atomic.Pointer[map[string]*sql.Stmt]
}

// hotWrites lists the statements run inside write transactions that are
// prepared once; see hotWrite.
var hotWrites []string

// hotWrite registers q, a statement run inside write transactions, to be
// prepared once on the write connection, and returns it.
func hotWrite(q string) string {
	hotWrites = append(hotWrites, q)
	return q
}

// prepareWrites prepares hotWrites on the write connection.
func (db *DB) prepareWrites(ctx context.Context) error {
	m := make(map[string]*sql.Stmt, len(hotWrites))
	for _, q := range hotWrites {
		s, err := db.w.PrepareContext(ctx, q)
		if err != nil {
			for _, s := range m {
				s.Close()
			}
			return err
		}
		m[q] = s
	}
	if old := db.stmts.write.Swap(&m); old != nil {
		for _, s := range *old {
			s.Close()
		}
	}
	return nil
}

// txStmt returns q as a statement of tx: the one prepared for it, else
// prepared now (closed with the transaction).
func (db *DB) txStmt(ctx context.Context, tx *sql.Tx, q string) (*sql.Stmt, error) {
	if m := db.stmts.write.Load(); m != nil {
		if s := (*m)[q]; s != nil {
			return tx.StmtContext(ctx, s), nil
		}
	}
	return tx.PrepareContext(ctx, q)
}

// stmt returns q prepared for what a statement with ctx runs on (see
// read): the write transaction ctx runs inside, or a read pool.
func (db *DB) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if tx := db.inTx(ctx); tx != nil {
		return db.txStmt(ctx, tx, q)
	}
	pool, kept := db.r, &db.stmts.read
	if workload.IsBackground(ctx) {
		pool, kept = db.jobs, &db.stmts.jobs
	}
	if s, ok := kept.Load(q); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := pool.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := kept.LoadOrStore(q, s); loaded {
		s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

// closeStatements closes every kept statement.
func (db *DB) closeStatements() {
	for _, kept := range []*sync.Map{&db.stmts.read, &db.stmts.jobs} {
		kept.Range(func(_, s any) bool {
			s.(*sql.Stmt).Close()
			return true
		})
	}
	if m := db.stmts.write.Swap(nil); m != nil {
		for _, s := range *m {
			s.Close()
		}
	}
}
