// Package postgres is the production store: PostgreSQL through pgx. Several
// atcp instances may share one database; every invariant that spans
// requests is enforced here with transactions and row locks, and schema
// migrations take an advisory lock so that instances starting together
// apply them once.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/store/sqlutil"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the PostgreSQL store.
type DB struct {
	pool *pgxpool.Pool
	// credentialWatchers hear at once of this instance's changes that can
	// end access tokens; other instances hear of them by NOTIFY.
	credentialWatchers sqlutil.Watchers
}

// defaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout: without one, a server that does not answer (a dropped
// network, a host that is down) holds every request until the client
// gives up.
const defaultConnectTimeout = 5 * time.Second

// Open connects to the database at url (postgres://...). Runtime
// parameters in the URL, such as search_path, apply to every connection.
// The URL's connect_timeout (default 5 s) bounds both a connection attempt
// and the wait for a pooled connection, so that requests fail fast with an
// outage error while the server is away (see unavailable.go).
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := poolConfig(url)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	return &DB{pool: pool}, nil
}

func poolConfig(url string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	cfg.ConnConfig.Tracer = acquireBound{timeout: cfg.ConnConfig.ConnectTimeout}
	return cfg, nil
}

// Name identifies the backend.
func (db *DB) Name() string { return "postgres" }

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// Migrate applies the embedded schema migrations under an advisory lock.
func (db *DB) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return err
	}
	sqlDB := stdlib.OpenDBFromPool(db.pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub, goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// tx runs fn in a transaction, committing when it returns nil.
func (db *DB) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{}, fn)
}

// EnsureSigningKey implements auth.KeyStore.
func (db *DB) EnsureSigningKey(ctx context.Context, c auth.SigningKey) (auth.SigningKey, error) {
	if _, err := db.pool.Exec(ctx, `INSERT INTO signing_keys (slot, key_id, algorithm, private_pem, created_at)
		VALUES ('primary', $1, $2, $3, $4) ON CONFLICT (slot) DO NOTHING`,
		c.KeyID, c.Algorithm, c.PrivatePEM, c.CreatedAt); err != nil {
		return auth.SigningKey{}, err
	}
	var k auth.SigningKey
	err := db.pool.QueryRow(ctx, `SELECT key_id, algorithm, private_pem, created_at FROM signing_keys WHERE slot = 'primary'`).
		Scan(&k.KeyID, &k.Algorithm, &k.PrivatePEM, &k.CreatedAt)
	k.CreatedAt = k.CreatedAt.UTC()
	return k, err
}

// ClockAnchor keeps the stored anchor while the configuration that made it
// is unchanged, and replaces it otherwise. The row lock makes instances
// starting together settle on one anchor.
func (db *DB) ClockAnchor(ctx context.Context, config string, desired clock.Anchor) (clock.Anchor, error) {
	var a clock.Anchor
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO clock_anchor (id, config, virtual_start, real_start, speed)
			VALUES (1, $1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
			config, desired.VirtualStart, desired.RealStart, desired.Speed); err != nil {
			return err
		}
		var stored string
		err := tx.QueryRow(ctx, `SELECT config, virtual_start, real_start, speed FROM clock_anchor WHERE id = 1 FOR UPDATE`).
			Scan(&stored, &a.VirtualStart, &a.RealStart, &a.Speed)
		if err != nil {
			return err
		}
		if stored == config {
			a.VirtualStart, a.RealStart = a.VirtualStart.UTC(), a.RealStart.UTC()
			return nil
		}
		a = desired
		_, err = tx.Exec(ctx, `UPDATE clock_anchor SET config = $1, virtual_start = $2, real_start = $3, speed = $4 WHERE id = 1`,
			config, a.VirtualStart, a.RealStart, a.Speed)
		return err
	})
	return a, err
}

// isUniqueViolation reports a unique-constraint failure (SQLSTATE 23505).
func isUniqueViolation(err error) bool {
	var pgErr interface{ SQLState() string }
	return errors.As(err, &pgErr) && pgErr.SQLState() == "23505"
}
