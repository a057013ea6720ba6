// Package sqlite is the embedded, zero-setup store: pure-Go SQLite
// (modernc.org/sqlite), one file under the data directory or a throw-away
// in-memory database. Every area's store interface is implemented here with
// SQLite's own SQL.
//
// Writes go through a pool of one connection whose transactions start with
// BEGIN IMMEDIATE, so writers queue instead of failing with SQLITE_BUSY and
// a transaction that reads, checks and writes (a capacity ceiling, the
// number of active secrets) is serialised as a whole; a goroutine of its
// own, not a writer, checkpoints the write-ahead log (checkpoint.go). Reads use a separate
// pool and, in a file (WAL mode), never wait for writers; in the in-memory
// database they wait for the write transaction to end. A transaction's
// context carries it, and every statement with that context runs inside
// it (see read), so nothing a transaction calls waits for it.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/uuid"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the SQLite store.
type DB struct {
	w, r *sql.DB
	// jobs is the read pool of background work (workload.Background), so
	// that a request never waits for a read connection behind it.
	jobs *sql.DB
	// checkpoints copies the write-ahead log into a file database; nil
	// in memory.
	checkpoints *checkpointer
	stmts       statements
	// credentialWatchers hear of changes that can end access tokens; the
	// database has no other users, so announcing in process is enough.
	credentialWatchers sqlutil.Watchers
}

// Open opens (creating if needed) the database at path, or a private
// in-memory database when path is ":memory:".
func Open(ctx context.Context, path string) (*DB, error) {
	var base string
	memory := path == ":memory:"
	if memory {
		// The memdb VFS lets both pools see one in-memory database.
		base = "file:/atcp-" + uuid.NewString() + "?vfs=memdb"
	} else {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create database directory: %w", err)
		}
		if err := restrictFiles(path); err != nil {
			return nil, fmt.Errorf("database file permissions: %w", err)
		}
		base = "file:" + (&url.URL{Path: filepath.Clean(path)}).EscapedPath() + "?"
	}
	pragmas := "&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	writer := "&_txlock=immediate"
	if !memory {
		pragmas += "&_pragma=journal_mode(WAL)"
		writer += "&_pragma=wal_autocheckpoint(0)" // see checkpoint.go
	}
	w, err := sql.Open("sqlite", base+writer+pragmas)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", base+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)*2))
	r.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)*2))
	jobs, err := sql.Open("sqlite", base+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	jobs.SetMaxOpenConns(jobReaders)
	jobs.SetMaxIdleConns(jobReaders)
	db := &DB{w: w, r: r, jobs: jobs}
	// The first connection creates the file and switches it to WAL before
	// readers open it.
	if err := w.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	if !memory {
		c, err := sql.Open("sqlite", base+pragmas)
		if err != nil {
			db.Close()
			return nil, err
		}
		c.SetMaxOpenConns(1)
		db.checkpoints = startCheckpointer(c)
	}
	return db, nil
}

// restrictFiles makes the database file and its -wal and -shm files
// readable by the owner only: they hold password hashes and the signing
// keys. The file is created here, before SQLite would create it with 0644;
// SQLite gives the -wal and -shm files it creates the database file's mode.
// Files left looser by an earlier version are tightened.
func restrictFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err := f.Close(); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^0o077); err != nil {
				return err
			}
			slog.Warn("database file was readable by others; removed the group and other permissions",
				"file", p, "was", perm.String(), "now", (perm &^ 0o077).String())
		}
	}
	return nil
}

// Name identifies the backend.
func (db *DB) Name() string { return "sqlite" }

// Close stops the checkpoints and closes the pools; the last connection
// closed copies what the log still holds into the file.
func (db *DB) Close() error {
	db.closeStatements()
	var err error
	if db.checkpoints != nil {
		err = db.checkpoints.close()
	}
	return errors.Join(err, db.jobs.Close(), db.r.Close(), db.w.Close())
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.read(ctx).QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Migrate applies the embedded schema migrations.
func (db *DB) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db.w, sub)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return err
	}
	return db.prepareWrites(ctx)
}

// querier runs statements: a pool or a transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// txKey marks a context running inside a write transaction of db.
type txKey struct{ db *DB }

// inTx returns the write transaction ctx runs inside, or nil.
func (db *DB) inTx(ctx context.Context) *sql.Tx {
	tx, _ := ctx.Value(txKey{db}).(*sql.Tx)
	return tx
}

// jobReaders is the size of the background read pool. The four alarm
// shards each read a quarter of the latest states at the same second: on
// the requests' pool they took every connection for 20-100 ms at 10,000
// assets, and state reads queued behind them (docs/performance.md).
const jobReaders = 2

// read returns what a read with ctx runs on: the write transaction ctx
// runs inside, otherwise the background read pool for background work
// and the read pool for the rest. A callback of a transaction (a
// deletion check reading bids through another area's store) so reads
// inside it, never beside it: in an in-memory database (no WAL) a reader
// waits for the write lock, which its own transaction holds.
func (db *DB) read(ctx context.Context) querier {
	if tx := db.inTx(ctx); tx != nil {
		return tx
	}
	if workload.IsBackground(ctx) {
		return db.jobs
	}
	return db.r
}

// write returns what a single-statement write with ctx runs on: the
// write transaction ctx runs inside, otherwise the write pool.
func (db *DB) write(ctx context.Context) querier {
	if tx := db.inTx(ctx); tx != nil {
		return tx
	}
	return db.w
}

// errNestedTx refuses a write transaction begun inside another: with one
// write connection it would wait for itself for ever.
var errNestedTx = errors.New("sqlite: write transaction inside a write transaction")

// tx runs fn in a write transaction, committing when it returns nil. fn's
// context carries the transaction, so that every store read with it, also
// in callbacks, runs inside the transaction (see read).
func (db *DB) tx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if db.inTx(ctx) != nil {
		return errNestedTx
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(context.WithValue(ctx, txKey{db}, tx), tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// join runs fn in the write transaction ctx carries, or in a new one: a
// store method another area calls inside its own transaction (onboarding
// moving an asset's operational status inside Mutate) joins it, so that
// both commit or roll back together.
func (db *DB) join(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if tx := db.inTx(ctx); tx != nil {
		return fn(ctx, tx)
	}
	return db.tx(ctx, fn)
}

// EnsureSigningKey implements auth.KeyStore. The single write connection
// serialises starters: the check and the insert are one transaction.
func (db *DB) EnsureSigningKey(ctx context.Context, c auth.SigningKey) (err error) {
	defer sqlutil.Wrap(&err, "store: ensure signing key")
	return db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (key_id, algorithm, private_pem, created_at, activates_at)
			SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM signing_keys)`,
			c.KeyID, c.Algorithm, c.PrivateKey, sqlutil.Micros(c.CreatedAt), sqlutil.Micros(c.ActivatesAt))
		return err
	})
}

// SigningKeys implements auth.KeyStore.
func (db *DB) SigningKeys(ctx context.Context) (_ []auth.SigningKey, err error) {
	defer sqlutil.Wrap(&err, "store: signing keys")
	rows, err := db.read(ctx).QueryContext(ctx, `SELECT key_id, algorithm, private_pem, created_at, activates_at, retired_at
		FROM signing_keys ORDER BY activates_at, key_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []auth.SigningKey
	for rows.Next() {
		var k auth.SigningKey
		var created, activates int64
		var retired *int64
		if err := rows.Scan(&k.KeyID, &k.Algorithm, &k.PrivateKey, &created, &activates, &retired); err != nil {
			return nil, err
		}
		k.CreatedAt, k.ActivatesAt = sqlutil.FromMicros(created), sqlutil.FromMicros(activates)
		if retired != nil {
			k.RetiredAt = sqlutil.FromMicros(*retired)
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// AddSigningKey implements auth.KeyStore.
func (db *DB) AddSigningKey(ctx context.Context, k auth.SigningKey, deleteOthers bool) (err error) {
	defer sqlutil.Wrap(&err, "store: add signing key")
	activates := sqlutil.Micros(k.ActivatesAt)
	return db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if deleteOthers {
			_, err = tx.ExecContext(ctx, `DELETE FROM signing_keys`)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL OR retired_at > ?`, activates, activates)
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO signing_keys (key_id, algorithm, private_pem, created_at, activates_at) VALUES (?, ?, ?, ?, ?)`,
			k.KeyID, k.Algorithm, k.PrivateKey, sqlutil.Micros(k.CreatedAt), activates)
		return err
	})
}

// ReplacePrivateKey implements auth.KeyStore.
func (db *DB) ReplacePrivateKey(ctx context.Context, keyID, old, private string) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "store: replace private key")
	res, err := db.write(ctx).ExecContext(ctx, `UPDATE signing_keys SET private_pem = ? WHERE key_id = ? AND private_pem = ?`, private, keyID, old)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// DeleteRetiredSigningKeys implements auth.KeyStore.
func (db *DB) DeleteRetiredSigningKeys(ctx context.Context, cutoff time.Time) (_ []string, err error) {
	defer sqlutil.Wrap(&err, "store: delete retired signing keys")
	rows, err := db.write(ctx).QueryContext(ctx, `DELETE FROM signing_keys WHERE retired_at < ? RETURNING key_id`, sqlutil.Micros(cutoff))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// ClockAnchor implements clock persistence: the stored anchor is kept while
// the configuration that made it is unchanged, and replaced otherwise.
func (db *DB) ClockAnchor(ctx context.Context, config string, desired clock.Anchor) (_ clock.Anchor, err error) {
	defer sqlutil.Wrap(&err, "store: clock anchor")
	var a clock.Anchor
	err = db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var stored string
		var vs, rs int64
		err := tx.QueryRowContext(ctx, `SELECT config, virtual_start, real_start, speed FROM clock_anchor WHERE id = 1`).
			Scan(&stored, &vs, &rs, &a.Speed)
		if err == nil && stored == config {
			a.VirtualStart, a.RealStart = sqlutil.FromMicros(vs), sqlutil.FromMicros(rs)
			return nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		a = desired
		_, err = tx.ExecContext(ctx, `INSERT INTO clock_anchor (id, config, virtual_start, real_start, speed) VALUES (1, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET config = excluded.config, virtual_start = excluded.virtual_start,
			real_start = excluded.real_start, speed = excluded.speed`,
			config, sqlutil.Micros(a.VirtualStart), sqlutil.Micros(a.RealStart), a.Speed)
		return err
	})
	return a, err
}

// isUniqueViolation reports a UNIQUE or PRIMARY KEY constraint failure.
func isUniqueViolation(err error) bool {
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return false
	}
	// SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY
	return se.Code() == 2067 || se.Code() == 1555
}
