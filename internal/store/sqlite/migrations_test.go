package sqlite

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"atcp/internal/store/sqlutil"
)

// TestSigningKeyMigrationKeepsTheKey: the key of a database made before
// key rotation keeps signing after migration 00014, so that an upgrade
// invalidates no token.
func TestSigningKeyMigrationKeepsTheKey(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "atcp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectSQLite3, db.w, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	if _, err := db.w.ExecContext(ctx, `INSERT INTO signing_keys (slot, key_id, algorithm, private_pem, created_at)
		VALUES ('primary', 'kid-1', 'ES256', 'pem', ?)`, sqlutil.Micros(created)); err != nil {
		t.Fatal(err)
	}
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
