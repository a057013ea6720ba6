package postgres

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5/stdlib"
)

// RawSQL lends fn a pooled connection (with the URL's search_path), for
// test harnesses that digest or restore every table named in the catalogue
// (testkit.Fingerprinter); the application itself only ever goes through
// the area stores.
func (db *DB) RawSQL(ctx context.Context, fn func(*sql.Conn) error) error {
	sqlDB := stdlib.OpenDBFromPool(db.pool)
	defer sqlDB.Close()
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn)
}
