package postgres

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

// TestSigningKeyMigrationKeepsTheKey: the key of a database made before
// key rotation keeps signing after migration 00014, and the statements of
// the previous version still work, so that a rolling upgrade neither
// invalidates tokens nor stops an old instance from starting. It runs when
// ATCP_TEST_DATABASE_URL names a PostgreSQL server, like the shared store
// tests.
func TestSigningKeyMigrationKeepsTheKey(t *testing.T) {
	base := os.Getenv("ATCP_TEST_DATABASE_URL")
	if base == "" {
		return
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	schema := "atcp_test_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	sqlDB := stdlib.OpenDBFromPool(db.pool)
	defer sqlDB.Close()
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	// The previous version's EnsureSigningKey.
	oldEnsure := func(kid string) {
		t.Helper()
		if _, err := db.pool.Exec(ctx, `INSERT INTO signing_keys (slot, key_id, algorithm, private_pem, created_at)
			VALUES ('primary', $1, 'ES256', 'pem', $2) ON CONFLICT (slot) DO NOTHING`, kid, created); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := db.pool.QueryRow(ctx, `SELECT key_id FROM signing_keys WHERE slot = 'primary'`).Scan(&got); err != nil || got != "kid-1" {
			t.Fatalf("the previous version reads key %q, %v", got, err)
		}
	}
	oldEnsure("kid-1")
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	keys, err := db.SigningKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].KeyID != "kid-1" || keys[0].PrivateKey != "pem" || !keys[0].CreatedAt.Equal(created) ||
		!keys[0].ActivatesAt.Equal(created) || !keys[0].RetiredAt.IsZero() {
		t.Fatalf("migrated keys %+v", keys)
	}
	oldEnsure("kid-2")
	if keys, _ := db.SigningKeys(ctx); len(keys) != 1 {
		t.Fatalf("an instance of the previous version added a key: %+v", keys)
	}
	// Down keeps the key in the previous schema, and up again.
	if _, err := p.DownTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if keys, err := db.SigningKeys(ctx); err != nil || len(keys) != 1 || keys[0].KeyID != "kid-1" {
		t.Fatalf("after down and up: %+v, %v", keys, err)
	}
}
