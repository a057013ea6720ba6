package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"atcp/internal/errs"
)

// codeErr stands in for a driver error that a test cannot provoke, such
// as a failing disk.
type codeErr int

func (c codeErr) Error() string { return fmt.Sprintf("sqlite error %d", int(c)) }
func (c codeErr) Code() int     { return int(c) }

// TestIsUnavailableClassifies provokes each error the classifier decides
// on from the driver itself where a test can, and checks the decision.
func TestIsUnavailableClassifies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(t *testing.T, dsn string) *sql.DB {
		t.Helper()
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	file := filepath.Join(dir, "busy.db")
	holder := open(t, "file:"+file+"?_pragma=busy_timeout(50)")
	if _, err := holder.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)"); err != nil {
		t.Fatal(err)
	}
	notADB := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notADB, []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		err  func(t *testing.T) error
		want bool
	}{
		{"locked by another process past the busy timeout", func(t *testing.T) error {
			conn, err := holder.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, "ROLLBACK")
			_, err = open(t, "file:"+file+"?_pragma=busy_timeout(50)").ExecContext(ctx, "INSERT INTO t (v) VALUES (1)")
			return err
		}, true},
		{"disk full", func(t *testing.T) error {
			db := open(t, "file:"+filepath.Join(dir, "full.db")+"?_pragma=max_page_count(8)")
			if _, err := db.ExecContext(ctx, "CREATE TABLE t (v BLOB)"); err != nil {
				t.Fatal(err)
			}
			_, err := db.ExecContext(ctx, "INSERT INTO t VALUES (zeroblob(1000000))")
			return err
		}, true},
		{"cannot open the file", func(t *testing.T) error {
			return open(t, "file:"+filepath.Join(dir, "gone", "atcp.db")+"?mode=rw").PingContext(ctx)
		}, true},
		{"disk I/O error", func(*testing.T) error { return codeErr(10) }, true},
		{"short read (extended I/O error)", func(*testing.T) error { return fmt.Errorf("read: %w", codeErr(522)) }, true},
		{"unique violation", func(t *testing.T) error {
			if _, err := holder.ExecContext(ctx, "INSERT INTO t (id) VALUES (7)"); err != nil {
				t.Fatal(err)
			}
			_, err := holder.ExecContext(ctx, "INSERT INTO t (id) VALUES (7)")
			return err
		}, false},
		{"SQL error", func(t *testing.T) error { _, err := holder.ExecContext(ctx, "SELEKT 1"); return err }, false},
		{"not a database", func(t *testing.T) error {
			_, err := open(t, "file:"+notADB).ExecContext(ctx, "SELECT * FROM sqlite_master")
			return err
		}, false},
		{"corrupt", func(*testing.T) error { return codeErr(11) }, false},
		{"no rows", func(*testing.T) error { return sql.ErrNoRows }, false},
		{"plain error", func(*testing.T) error { return errors.New("boom") }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err(t)
			if err == nil {
				t.Fatal("no error provoked")
			}
			if got := errs.IsUnavailable(err); got != c.want {
				t.Fatalf("errs.IsUnavailable(%v) = %v, want %v", err, got, c.want)
			}
		})
	}
}
