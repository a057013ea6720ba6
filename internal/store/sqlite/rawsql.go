package sqlite

import (
	"context"
	"database/sql"
)

// RawSQL lends fn the write connection, for test harnesses that digest or
// restore every table named in the catalogue (testkit.Fingerprinter); the
// application itself only ever goes through the area stores.
func (db *DB) RawSQL(ctx context.Context, fn func(*sql.Conn) error) error {
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn)
}
