// Package sqlite is the embedded, zero-setup store: pure-Go SQLite
// (modernc.org/sqlite), one file under the data directory or a throw-away
// in-memory database. Every area's store interface is implemented here with
// SQLite's own SQL.
//
// Writes go through a pool of one connection whose transactions start with
// BEGIN IMMEDIATE, so writers queue instead of failing with SQLITE_BUSY and
// a transaction that reads, checks and writes (a capacity ceiling, the
// number of active secrets) is serialised as a whole. Reads use a separate
// pool and, in WAL mode, never wait for writers.
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

	"github.com/google/uuid"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/store/sqlutil"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the SQLite store.
type DB struct {
	w, r *sql.DB
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
	if !memory {
		pragmas += "&_pragma=journal_mode(WAL)"
	}
	w, err := sql.Open("sqlite", base+"&_txlock=immediate"+pragmas)
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
	db := &DB{w: w, r: r}
	// The first connection creates the file and switches it to WAL before
	// readers open it.
	if err := w.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
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

// Close closes both pools.
func (db *DB) Close() error {
	return errors.Join(db.r.Close(), db.w.Close())
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.r.QueryRowContext(ctx, "SELECT 1").Scan(&one)
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
	_, err = p.Up(ctx)
	return err
}

// tx runs fn in a write transaction, committing when it returns nil.
func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// EnsureSigningKey implements auth.KeyStore.
func (db *DB) EnsureSigningKey(ctx context.Context, c auth.SigningKey) (auth.SigningKey, error) {
	var k auth.SigningKey
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (slot, key_id, algorithm, private_pem, created_at)
			VALUES ('primary', ?, ?, ?, ?) ON CONFLICT (slot) DO NOTHING`,
			c.KeyID, c.Algorithm, c.PrivatePEM, sqlutil.Micros(c.CreatedAt)); err != nil {
			return err
		}
		var created int64
		err := tx.QueryRowContext(ctx, `SELECT key_id, algorithm, private_pem, created_at FROM signing_keys WHERE slot = 'primary'`).
			Scan(&k.KeyID, &k.Algorithm, &k.PrivatePEM, &created)
		k.CreatedAt = sqlutil.FromMicros(created)
		return err
	})
	return k, err
}

// ClockAnchor implements clock persistence: the stored anchor is kept while
// the configuration that made it is unchanged, and replaced otherwise.
func (db *DB) ClockAnchor(ctx context.Context, config string, desired clock.Anchor) (clock.Anchor, error) {
	var a clock.Anchor
	err := db.tx(ctx, func(tx *sql.Tx) error {
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
