package postgres

import (
	"context"
	"database/sql"
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

	"atcp/internal/assets"
	"atcp/internal/auth"
)

// TestSigningKeyMigrationKeepsTheKey: the key of a database made before
// key rotation keeps signing after migration 00014, and the statements of
// the previous version still work, so that a rolling upgrade neither
// invalidates tokens nor stops an old instance from starting. It runs when
// ATCP_TEST_DATABASE_URL names a PostgreSQL server, like the shared store
// tests.
func TestSigningKeyMigrationKeepsTheKey(t *testing.T) {
	db, p := unmigrated(t)
	if db == nil {
		return
	}
	ctx := context.Background()
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

// unmigrated opens a fresh schema of the server ATCP_TEST_DATABASE_URL
// names, dropped after the test, and a migration provider on it; nil when
// the variable is unset.
func unmigrated(t *testing.T) (*DB, *goose.Provider) {
	t.Helper()
	base := os.Getenv("ATCP_TEST_DATABASE_URL")
	if base == "" {
		return nil, nil
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	schema := "atcp_test_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sqlDB := stdlib.OpenDBFromPool(db.pool)
	t.Cleanup(func() { sqlDB.Close() })
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub)
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}

// TestBidSourceMigration: bids cleared before migration 00015 said
// "published" for every delivery day; after it, those of days other than
// the replayed days say "replayed", and every cleared bid names its
// source day (2026-02-01 for that delivery day, 2026-02-02 otherwise).
func TestBidSourceMigration(t *testing.T) {
	db, p := unmigrated(t)
	if db == nil {
		return
	}
	ctx := context.Background()
	if _, err := p.UpTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', now())`); err != nil {
		t.Fatal(err)
	}
	// Delivery day 2026-02-01 starts 2026-01-31T23:00Z, 2026-02-02 at
	// 2026-02-01T23:00Z, 2026-02-03 at 2026-02-02T23:00Z.
	rows := []struct {
		id, start        string
		source           *string
		wantSrc, wantDay sql.NullString
	}{
		{"before", "2026-01-31T19:00:00Z", ptr("published"), valid("replayed"), valid("2026-02-02")},
		{"feb1", "2026-01-31T23:00:00Z", ptr("published"), valid("published"), valid("2026-02-01")},
		{"feb2", "2026-02-02T19:00:00Z", ptr("published"), valid("published"), valid("2026-02-02")},
		{"feb3", "2026-02-02T23:00:00Z", ptr("published"), valid("replayed"), valid("2026-02-02")},
		{"modelled", "2026-02-01T10:00:00Z", ptr("modelled"), valid("modelled"), valid("2026-02-01")},
		{"pending", "2026-02-05T23:00:00Z", nil, sql.NullString{}, sql.NullString{}},
	}
	ids := map[string]string{}
	for _, r := range rows {
		start, _ := time.Parse(time.RFC3339, r.start)
		ids[r.id] = uuid.NewString()
		if _, err := db.pool.Exec(ctx, `INSERT INTO bids (bid_id, organization_id, asset_id, market, product, start_time, end_time,
			offered_power_mw, status, price_source, created_at, updated_at) VALUES ($1, 'acme', 'a1', 'fcr', 'sym', $2, $3, 1, 'SUBMITTED', $4, now(), now())`,
			ids[r.id], start, start.Add(4*time.Hour), r.source); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, 15); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		var src, day sql.NullString
		if err := db.pool.QueryRow(ctx, `SELECT price_source, source_day FROM bids WHERE bid_id = $1`, ids[r.id]).Scan(&src, &day); err != nil {
			t.Fatal(err)
		}
		if src != r.wantSrc || day != r.wantDay {
			t.Errorf("%s: %v %v, want %v %v", r.id, src, day, r.wantSrc, r.wantDay)
		}
	}
	if _, err := p.DownTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	var src string
	if err := db.pool.QueryRow(ctx, `SELECT price_source FROM bids WHERE bid_id = $1`, ids["feb3"]).Scan(&src); err != nil || src != "published" {
		t.Fatalf("after down: %q %v", src, err)
	}
}

// TestAssetAdapterMigration: assets registered before migration 00017
// keep the simulator and get the default topic prefix atcp/<asset_id>;
// neither column keeps a default, and the migration goes down and up again
// with the assets kept.
func TestAssetAdapterMigration(t *testing.T) {
	db, p := unmigrated(t)
	if db == nil {
		return
	}
	ctx := context.Background()
	if _, err := p.UpTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', now())`); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"bess-1", "old.bess_2"} {
		if _, err := db.pool.Exec(ctx, `INSERT INTO assets (asset_id, organization_id, asset_name, asset_type, location,
			afrr_prequalified_capacity_pos_mw, afrr_prequalified_capacity_neg_mw, fcr_prequalified_capacity_mw,
			disable_pq_capacity_check, strict_validation, tso_connected, fcr_enabled, afrr_enabled, wholesale_enabled,
			control_enabled, pv_active, asset_operational_status, created_at, updated_at)
			VALUES ($1, 'acme', 'Battery', 'standalone', 'Kiel', 0, 0, 0, false, false, true, false, false, false, false, false,
			'onboarding', now(), now())`, id); err != nil {
			t.Fatal(err)
		}
	}
	check := func() {
		t.Helper()
		for _, id := range []string{"bess-1", "old.bess_2"} {
			a, err := db.Assets().Get(ctx, auth.Visibility{All: true}, id)
			if err != nil {
				t.Fatal(err)
			}
			if a.Adapter != assets.AdapterSimulator || a.AdapterTopicPrefix != "atcp/"+id {
				t.Fatalf("%s: adapter %q, prefix %q", id, a.Adapter, a.AdapterTopicPrefix)
			}
		}
	}
	if _, err := p.UpTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	check()
	var defaults int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()
		AND table_name = 'assets' AND column_name IN ('adapter', 'adapter_topic_prefix') AND column_default IS NULL AND is_nullable = 'NO'`).
		Scan(&defaults); err != nil || defaults != 2 {
		t.Fatalf("columns without default and NOT NULL: %d, %v", defaults, err)
	}
	if _, err := p.DownTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM assets`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after down: %d assets, %v", n, err)
	}
	if _, err := p.UpTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	check()
	if _, err := db.pool.Exec(ctx, `UPDATE assets SET adapter = 'iec104'`); err == nil {
		t.Fatal("an unknown adapter was stored")
	}
}

func ptr(s string) *string { return &s }

func valid(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }

// TestBidOriginMigration: bids stored before migration 00024 were placed
// through the API and read so; a source outside api and capacity_bid is
// refused; the migration goes down and up again with the bids kept.
func TestBidOriginMigration(t *testing.T) {
	db, p := unmigrated(t)
	if db == nil {
		return
	}
	ctx := context.Background()
	if _, err := p.UpTo(ctx, 23); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', now())`); err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	if _, err := db.pool.Exec(ctx, `INSERT INTO bids (bid_id, organization_id, asset_id, market, product, start_time, end_time,
		offered_power_mw, status, created_at, updated_at) VALUES ($1, 'acme', 'a1', 'afrr_energy', 'neg', now(), now() + interval '15 minutes', 1, 'PENDING', now(), now())`,
		id); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 24); err != nil {
		t.Fatal(err)
	}
	var source string
	if err := db.pool.QueryRow(ctx, `SELECT source FROM bids WHERE bid_id = $1`, id).Scan(&source); err != nil || source != "api" {
		t.Fatalf("source of an old bid: %q %v", source, err)
	}
	if _, err := db.pool.Exec(ctx, `UPDATE bids SET source = 'backup' WHERE bid_id = $1`, id); err == nil {
		t.Fatal("an unknown source was stored")
	}
	if _, err := p.DownTo(ctx, 23); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.pool.QueryRow(ctx, `SELECT source FROM bids WHERE bid_id = $1`, id).Scan(&source); err != nil || source != "api" {
		t.Fatalf("after down and up: %q %v", source, err)
	}
}
