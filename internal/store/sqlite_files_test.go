package store_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"atcp/internal/store"
)

func fileMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestSQLiteFilesAreOwnerOnly(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	b, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Migrating writes, so the write-ahead log and its index exist.
	if err := b.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fileMode(t, dir); got != 0o700 {
		t.Errorf("data directory %v, want 0700", got)
	}
	for _, name := range []string{"atcp.db", "atcp.db-wal", "atcp.db-shm"} {
		if got := fileMode(t, filepath.Join(dir, name)); got != 0o600 {
			t.Errorf("%s %v, want 0600", name, got)
		}
	}
}

func TestSQLiteLooseFilesAreTightenedAtOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "loose.db")
	// An earlier version left the database and its log readable by all.
	for _, p := range []string{path, path + "-wal"} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := store.Open(ctx, "sqlite://"+path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if got := fileMode(t, p); got != 0o600 {
			t.Errorf("%s %v, want 0600", filepath.Base(p), got)
		}
	}
}
