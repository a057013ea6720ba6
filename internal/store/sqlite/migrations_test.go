package sqlite

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"atcp/internal/assets"
	"atcp/internal/auth"
	"atcp/internal/store/sqlutil"
)

// TestSigningKeyMigrationKeepsTheKey: the key of a database made before
// key rotation keeps signing after migration 00014, so that an upgrade
// invalidates no token.
func TestSigningKeyMigrationKeepsTheKey(t *testing.T) {
	ctx := context.Background()
	db, p := migratedUpTo(t, 13)
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

// TestBidSourceMigration: bids cleared before migration 00015 said
// "published" for every delivery day; after it, those of days other than
// the replayed days say "replayed", and every cleared bid names its
// source day (2026-02-01 for that delivery day, 2026-02-02 otherwise).
func TestBidSourceMigration(t *testing.T) {
	ctx := context.Background()
	db, p := migratedUpTo(t, 14)
	if _, err := db.w.ExecContext(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', 0)`); err != nil {
		t.Fatal(err)
	}
	// Delivery day 2026-02-01 starts 2026-01-31T23:00Z, 2026-02-02 at
	// 2026-02-01T23:00Z, 2026-02-03 at 2026-02-02T23:00Z.
	rows := []struct {
		id, start        string
		source           any
		wantSrc, wantDay any
	}{
		{"before", "2026-01-31T19:00:00Z", "published", "replayed", "2026-02-02"},
		{"feb1", "2026-01-31T23:00:00Z", "published", "published", "2026-02-01"},
		{"feb2", "2026-02-02T19:00:00Z", "published", "published", "2026-02-02"},
		{"feb3", "2026-02-02T23:00:00Z", "published", "replayed", "2026-02-02"},
		{"modelled", "2026-02-01T10:00:00Z", "modelled", "modelled", "2026-02-01"},
		{"pending", "2026-02-05T23:00:00Z", nil, nil, nil},
	}
	for _, r := range rows {
		start, _ := time.Parse(time.RFC3339, r.start)
		if _, err := db.w.ExecContext(ctx, `INSERT INTO bids (bid_id, organization_id, asset_id, market, product, start_time, end_time,
			offered_power_mw, status, price_source, created_at, updated_at) VALUES (?, 'acme', 'a1', 'fcr', 'sym', ?, ?, 1, 'SUBMITTED', ?, 0, 0)`,
			r.id, sqlutil.Micros(start), sqlutil.Micros(start.Add(4*time.Hour)), r.source); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, 15); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		var src, day any
		if err := db.w.QueryRowContext(ctx, `SELECT price_source, source_day FROM bids WHERE bid_id = ?`, r.id).Scan(&src, &day); err != nil {
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
	if err := db.w.QueryRowContext(ctx, `SELECT price_source FROM bids WHERE bid_id = 'feb3'`).Scan(&src); err != nil || src != "published" {
		t.Fatalf("after down: %q %v", src, err)
	}
}

// TestAssetAdapterMigration: assets registered before migration 00017
// keep the simulator and get the default topic prefix atcp/<asset_id>; the
// migration goes down and up again with the assets kept.
func TestAssetAdapterMigration(t *testing.T) {
	ctx := context.Background()
	db, p := migratedUpTo(t, 16)
	if _, err := db.w.ExecContext(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', 0)`); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"bess-1", "old.bess_2"} {
		if _, err := db.w.ExecContext(ctx, `INSERT INTO assets (asset_id, organization_id, asset_name, asset_type, location,
			afrr_prequalified_capacity_pos_mw, afrr_prequalified_capacity_neg_mw, fcr_prequalified_capacity_mw,
			disable_pq_capacity_check, strict_validation, tso_connected, fcr_enabled, afrr_enabled, wholesale_enabled,
			control_enabled, pv_active, asset_operational_status, created_at, updated_at)
			VALUES (?, 'acme', 'Battery', 'standalone', 'Kiel', 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 'onboarding', 0, 0)`, id); err != nil {
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
	if _, err := p.DownTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM assets`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after down: %d assets, %v", n, err)
	}
	if _, err := p.UpTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	check()
	// The enumeration is enforced by the schema as well.
	if _, err := db.w.ExecContext(ctx, `UPDATE assets SET adapter = 'iec104'`); err == nil {
		t.Fatal("an unknown adapter was stored")
	}
}

// migratedUpTo opens a new database file migrated up to version, with the
// provider to migrate it further; the database is closed at cleanup.
func migratedUpTo(t *testing.T, version int64) (*DB, *goose.Provider) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "atcp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectSQLite3, db.w, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	return db, p
}

// TestBidOriginMigration: bids stored before migration 00024 were placed
// through the API and read so; a source outside api and capacity_bid is
// refused; the migration goes down and up again with the bids kept.
func TestBidOriginMigration(t *testing.T) {
	ctx := context.Background()
	db, p := migratedUpTo(t, 23)
	if _, err := db.w.ExecContext(ctx, `INSERT INTO organizations (organization_id, name, created_at) VALUES ('acme', 'Acme', 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.ExecContext(ctx, `INSERT INTO bids (bid_id, organization_id, asset_id, market, product, start_time, end_time,
		offered_power_mw, status, created_at, updated_at) VALUES ('old', 'acme', 'a1', 'afrr_energy', 'neg', 0, 900000000, 1, 'PENDING', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 24); err != nil {
		t.Fatal(err)
	}
	var source string
	if err := db.w.QueryRowContext(ctx, `SELECT source FROM bids WHERE bid_id = 'old'`).Scan(&source); err != nil || source != "api" {
		t.Fatalf("source of an old bid: %q %v", source, err)
	}
	if _, err := db.w.ExecContext(ctx, `UPDATE bids SET source = 'backup' WHERE bid_id = 'old'`); err == nil {
		t.Fatal("an unknown source was stored")
	}
	if _, err := p.DownTo(ctx, 23); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.w.QueryRowContext(ctx, `SELECT source FROM bids WHERE bid_id = 'old'`).Scan(&source); err != nil || source != "api" {
		t.Fatalf("after down and up: %q %v", source, err)
	}
}
