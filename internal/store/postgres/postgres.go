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
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the PostgreSQL store.
type DB struct {
	pool *pgxpool.Pool
	// jobs is the pool of background work (workload.Background), so that
	// a request never waits for a connection behind it.
	jobs *pgxpool.Pool
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
	jobsCfg := cfg.Copy()
	jobsCfg.MaxConns = jobConns(cfg.MaxConns)
	jobsCfg.MinConns = min(jobsCfg.MinConns, jobsCfg.MaxConns)
	jobs, err := pgxpool.NewWithConfig(ctx, jobsCfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &DB{pool: pool, jobs: jobs}, nil
}

// jobConns sizes the background pool beside a request pool of n
// connections (pool_max_conns in the URL, by default the larger of 4 and
// the number of CPUs): half as many, at least 2. The alarm engine's four
// shards read every asset's latest state in the same second; on the
// request pool they held its connections while requests queued
// (docs/performance.md, issue 10).
func jobConns(n int32) int32 { return max(2, n/2) }

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

// Close closes the pools.
func (db *DB) Close() error {
	db.jobs.Close()
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

// querier runs statements: the pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// txKey marks a context running inside a transaction of db.
type txKey struct{ db *DB }

// inTx returns the transaction ctx runs inside, or nil.
func (db *DB) inTx(ctx context.Context) pgx.Tx {
	tx, _ := ctx.Value(txKey{db}).(pgx.Tx)
	return tx
}

// conn returns what a statement with ctx runs on: the transaction ctx runs
// inside, otherwise the pool of its work (poolFor). A callback of a
// transaction (a deletion check reading bids through another area's
// store) so reads inside it instead of taking a second connection while
// holding one, which can exhaust the pool with every holder waiting for
// another.
func (db *DB) conn(ctx context.Context) querier {
	if tx := db.inTx(ctx); tx != nil {
		return tx
	}
	return db.poolFor(ctx)
}

// poolFor is the pool of ctx's work: the background pool for background
// work, the request pool for the rest.
func (db *DB) poolFor(ctx context.Context) *pgxpool.Pool {
	if workload.IsBackground(ctx) {
		return db.jobs
	}
	return db.pool
}

// errNestedTx refuses a transaction begun inside another: on a second
// connection it would wait for the row locks the first one holds.
var errNestedTx = errors.New("postgres: transaction inside a transaction")

// tx runs fn in a transaction, committing when it returns nil. fn's context
// carries the transaction, so that every store statement with it, also in
// callbacks, runs inside the transaction (see conn).
func (db *DB) tx(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx) error) error {
	if db.inTx(ctx) != nil {
		return errNestedTx
	}
	return pgx.BeginTxFunc(ctx, db.poolFor(ctx), pgx.TxOptions{}, func(tx pgx.Tx) error {
		return fn(context.WithValue(ctx, txKey{db}, tx), tx)
	})
}

// join runs fn in the transaction ctx carries, or in a new one: a store
// method another area calls inside its own transaction (onboarding moving
// an asset's operational status inside Mutate) joins it, so that both
// commit or roll back together.
func (db *DB) join(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx) error) error {
	if tx := db.inTx(ctx); tx != nil {
		return fn(ctx, tx)
	}
	return db.tx(ctx, fn)
}

// EnsureSigningKey implements auth.KeyStore. Starters that find the table
// empty together all insert into slot 'primary': its unique constraint
// keeps one key.
func (db *DB) EnsureSigningKey(ctx context.Context, c auth.SigningKey) (err error) {
	defer sqlutil.Wrap(&err, "store: ensure signing key")
	_, err = db.conn(ctx).Exec(ctx, `INSERT INTO signing_keys (slot, key_id, algorithm, private_pem, created_at, activates_at)
		SELECT 'primary', $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM signing_keys)
		ON CONFLICT (slot) DO NOTHING`,
		c.KeyID, c.Algorithm, c.PrivateKey, c.CreatedAt, c.ActivatesAt)
	return err
}

// SigningKeys implements auth.KeyStore.
func (db *DB) SigningKeys(ctx context.Context) (_ []auth.SigningKey, err error) {
	defer sqlutil.Wrap(&err, "store: signing keys")
	rows, err := db.conn(ctx).Query(ctx, `SELECT key_id, algorithm, private_pem, created_at, activates_at, retired_at
		FROM signing_keys ORDER BY activates_at, key_id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (auth.SigningKey, error) {
		var k auth.SigningKey
		var retired *time.Time
		err := row.Scan(&k.KeyID, &k.Algorithm, &k.PrivateKey, &k.CreatedAt, &k.ActivatesAt, &retired)
		k.CreatedAt, k.ActivatesAt = k.CreatedAt.UTC(), k.ActivatesAt.UTC()
		if retired != nil {
			k.RetiredAt = retired.UTC()
		}
		return k, err
	})
}

// AddSigningKey implements auth.KeyStore. The table lock serialises
// rotations, so that each one sees the key the previous one added.
func (db *DB) AddSigningKey(ctx context.Context, k auth.SigningKey, deleteOthers bool) (err error) {
	defer sqlutil.Wrap(&err, "store: add signing key")
	return db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE signing_keys IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		var err error
		if deleteOthers {
			_, err = tx.Exec(ctx, `DELETE FROM signing_keys`)
		} else {
			_, err = tx.Exec(ctx, `UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL OR retired_at > $1`, k.ActivatesAt)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO signing_keys (key_id, algorithm, private_pem, created_at, activates_at) VALUES ($1, $2, $3, $4, $5)`,
			k.KeyID, k.Algorithm, k.PrivateKey, k.CreatedAt, k.ActivatesAt)
		return err
	})
}

// ReplacePrivateKey implements auth.KeyStore.
func (db *DB) ReplacePrivateKey(ctx context.Context, keyID, old, private string) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "store: replace private key")
	tag, err := db.conn(ctx).Exec(ctx, `UPDATE signing_keys SET private_pem = $1 WHERE key_id = $2 AND private_pem = $3`, private, keyID, old)
	return tag.RowsAffected() == 1, err
}

// DeleteRetiredSigningKeys implements auth.KeyStore.
func (db *DB) DeleteRetiredSigningKeys(ctx context.Context, cutoff time.Time) (_ []string, err error) {
	defer sqlutil.Wrap(&err, "store: delete retired signing keys")
	rows, err := db.conn(ctx).Query(ctx, `DELETE FROM signing_keys WHERE retired_at < $1 RETURNING key_id`, cutoff)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ClockAnchor keeps the stored anchor while the configuration that made it
// is unchanged, and replaces it otherwise. The row lock makes instances
// starting together settle on one anchor.
func (db *DB) ClockAnchor(ctx context.Context, config string, desired clock.Anchor) (_ clock.Anchor, err error) {
	defer sqlutil.Wrap(&err, "store: clock anchor")
	var a clock.Anchor
	err = db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
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
