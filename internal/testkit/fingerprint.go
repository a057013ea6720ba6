package testkit

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"atcp/internal/store"
)

// untracked are the tables a Fingerprint leaves out, because their rows
// change without any write request or never through the API at all.
// Whatever else changes on its own (the simulated market moves bids
// through their statuses as the clock passes gates; retention jobs delete
// old rows) is a table that requests write too, so a test that compares
// fingerprints across requests must not run the background workers.
var untracked = map[string]bool{
	"goose_db_version":  true, // migration bookkeeping, written only when the schema is migrated
	"worker_leases":     true, // background jobs take and renew their leases on their own schedule
	"telemetry_latest":  true, // the control loop records measurements every platform second
	"telemetry_chunks":  true, // and flushes their history
	"dispatch_outcomes": true, // and records what became of each dispatch target
}

// Fingerprint is a digest of each tracked table's rows, by table name.
type Fingerprint map[string]string

// Changed lists, sorted, the tables whose rows differ between fp and
// other.
func (fp Fingerprint) Changed(other Fingerprint) []string {
	var out []string
	for t, d := range fp {
		if other[t] != d {
			out = append(out, t)
		}
	}
	for t := range other {
		if _, ok := fp[t]; !ok {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// rawSQLBackend is a backend that lends its database to whole-store
// harnesses; both backends are.
type rawSQLBackend interface {
	store.Backend
	RawSQL(ctx context.Context, fn func(*sql.Conn) error) error
}

// Fingerprinter digests, snapshots and restores every table of a backend
// except the untracked ones, listing them from the backend's catalogue
// (sqlite_master; information_schema in the current search_path), so that
// a table added by a migration is covered without changing a test.
type Fingerprinter struct {
	b rawSQLBackend
	// tables come after every table they reference: the order to insert
	// in, and reversed, to delete in.
	tables  []string
	columns map[string]int      // per table, for ORDER BY every column
	refs    map[string][]string // per table, the tables it references
}

// NewFingerprinter lists b's tables; b must be migrated.
func NewFingerprinter(ctx context.Context, b store.Backend) (*Fingerprinter, error) {
	rb, ok := b.(rawSQLBackend)
	if !ok {
		return nil, fmt.Errorf("the %s backend does not lend its database (RawSQL)", b.Name())
	}
	f := &Fingerprinter{b: rb, columns: map[string]int{}, refs: map[string][]string{}}
	err := rb.RawSQL(ctx, func(conn *sql.Conn) error {
		var names []string
		var err error
		if f.postgres() {
			names, err = queryStrings(ctx, conn, `SELECT table_name FROM information_schema.tables
				WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
		} else {
			// sqlite_sequence and sqlite_stat* are SQLite's own: the
			// statistics change when the planner analyses, without writes.
			names, err = queryStrings(ctx, conn, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
		}
		if err != nil {
			return err
		}
		for _, n := range names {
			if !untracked[n] {
				f.tables = append(f.tables, n)
			}
		}
		for _, t := range f.tables {
			var cols int
			var parents []string
			if f.postgres() {
				err = conn.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
					WHERE table_schema = current_schema() AND table_name = $1`, t).Scan(&cols)
				if err == nil {
					parents, err = queryStrings(ctx, conn, `SELECT p.relname FROM pg_constraint c
						JOIN pg_class ch ON ch.oid = c.conrelid JOIN pg_class p ON p.oid = c.confrelid
						WHERE c.contype = 'f' AND ch.relname = $1 AND ch.relnamespace = current_schema()::regnamespace`, t)
				}
			} else {
				err = conn.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?)`, t).Scan(&cols)
				if err == nil {
					parents, err = queryStrings(ctx, conn, `SELECT "table" FROM pragma_foreign_key_list(?)`, t)
				}
			}
			if err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
			f.columns[t] = cols
			f.refs[t] = parents
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	f.tables, err = referencedFirst(f.tables, f.refs)
	return f, err
}

// referencedFirst orders tables so that each comes after the tables it
// references (other than itself).
func referencedFirst(tables []string, refs map[string][]string) ([]string, error) {
	slices.Sort(tables)
	var out []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(t string) error
	visit = func(t string) error {
		switch state[t] {
		case 1:
			return fmt.Errorf("foreign keys form a cycle through %s", t)
		case 2:
			return nil
		}
		state[t] = 1
		for _, p := range refs[t] {
			if p != t && slices.Contains(tables, p) {
				if err := visit(p); err != nil {
					return err
				}
			}
		}
		state[t] = 2
		out = append(out, t)
		return nil
	}
	for _, t := range tables {
		if err := visit(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (f *Fingerprinter) postgres() bool { return f.b.Name() == "postgres" }

// Tables lists the tracked tables.
func (f *Fingerprinter) Tables() []string { return slices.Clone(f.tables) }

// Fingerprint digests every tracked table's rows, ordered by all their
// columns, so that equal contents give equal digests whatever the
// physical order.
func (f *Fingerprinter) Fingerprint(ctx context.Context) (Fingerprint, error) {
	fp := Fingerprint{}
	err := f.b.RawSQL(ctx, func(conn *sql.Conn) error {
		if f.postgres() {
			// One round trip: each table's rows as text, in byte order.
			parts := make([]string, len(f.tables))
			for i, t := range f.tables {
				parts[i] = fmt.Sprintf(`SELECT %s, md5(coalesce(string_agg(x::text, E'\n' ORDER BY x::text COLLATE "C"), '')) FROM %s x`,
					quoteLiteral(t), quoteIdent(t))
			}
			rows, err := conn.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var t, d string
				if err := rows.Scan(&t, &d); err != nil {
					return err
				}
				fp[t] = d
			}
			return rows.Err()
		}
		for _, t := range f.tables {
			order := make([]string, f.columns[t])
			for i := range order {
				order[i] = fmt.Sprint(i + 1)
			}
			h := sha256.New()
			err := eachRow(ctx, conn, `SELECT * FROM `+quoteIdent(t)+` ORDER BY `+strings.Join(order, ", "), func(row []any) {
				for _, v := range row {
					writeValue(h, v)
				}
				h.Write([]byte{'\n'})
			})
			if err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
			fp[t] = hex.EncodeToString(h.Sum(nil))
		}
		return nil
	})
	return fp, err
}

// writeValue writes v to h with its type, so that 1, 1.0, "1" and x'31'
// digest differently.
func writeValue(h interface{ Write([]byte) (int, error) }, v any) {
	var b []byte
	switch x := v.(type) {
	case nil:
		b = []byte{'N'}
	case int64:
		b = binary.BigEndian.AppendUint64([]byte{'I'}, uint64(x))
	case float64:
		b = binary.BigEndian.AppendUint64([]byte{'F'}, math.Float64bits(x))
	case bool:
		b = []byte{'b'}
		if x {
			b = []byte{'B'}
		}
	case string:
		b = append(binary.BigEndian.AppendUint64([]byte{'S'}, uint64(len(x))), x...)
	case []byte:
		b = append(binary.BigEndian.AppendUint64([]byte{'X'}, uint64(len(x))), x...)
	case time.Time:
		b = append([]byte{'T'}, x.UTC().Format(time.RFC3339Nano)...)
	default:
		b = fmt.Appendf([]byte{'?'}, "%T %v", x, x)
	}
	h.Write(b)
}

// Snapshot is the rows of every tracked table at one moment.
type Snapshot struct {
	fp Fingerprint
	// sqlite: each table's rows as scanned; postgres: each table's rows
	// as a JSON array, restored by the database's own conversions.
	rows map[string][][]any
	json map[string]string
}

// Snapshot reads every tracked table.
func (f *Fingerprinter) Snapshot(ctx context.Context) (*Snapshot, error) {
	s := &Snapshot{rows: map[string][][]any{}, json: map[string]string{}}
	var err error
	if s.fp, err = f.Fingerprint(ctx); err != nil {
		return nil, err
	}
	err = f.b.RawSQL(ctx, func(conn *sql.Conn) error {
		for _, t := range f.tables {
			var err error
			if f.postgres() {
				var j string
				err = conn.QueryRowContext(ctx, `SELECT coalesce(json_agg(x), '[]')::text FROM `+quoteIdent(t)+` x`).Scan(&j)
				s.json[t] = j
			} else {
				err = eachRow(ctx, conn, `SELECT * FROM `+quoteIdent(t), func(row []any) { s.rows[t] = append(s.rows[t], row) })
			}
			if err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
		}
		return nil
	})
	return s, err
}

// Restore puts the tracked tables back as they were at snapshot s, taken
// on the same database (also through another Fingerprinter, for a store
// opened again), in one transaction, and reports which tables differed.
// It rewrites those tables and the tables that reference them, whose rows
// a cascade could take. It bypasses the stores, so a service that caches
// what it read (the asset cache on SQLite) must be rebuilt after it. Rows
// of untracked tables that reference a deleted row make it fail.
func (f *Fingerprinter) Restore(ctx context.Context, s *Snapshot) ([]string, error) {
	now, err := f.Fingerprint(ctx)
	if err != nil {
		return nil, err
	}
	changed := s.fp.Changed(now)
	if len(changed) == 0 {
		return nil, nil
	}
	rewrite := map[string]bool{}
	for _, t := range changed {
		rewrite[t] = true
	}
	for grown := true; grown; {
		grown = false
		for _, t := range f.tables {
			for _, p := range f.refs[t] {
				if rewrite[p] && !rewrite[t] {
					rewrite[t], grown = true, true
				}
			}
		}
	}
	tables := slices.DeleteFunc(slices.Clone(f.tables), func(t string) bool { return !rewrite[t] })
	return changed, f.b.RawSQL(ctx, func(conn *sql.Conn) error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }() // a no-op after Commit
		if !f.postgres() {
			// Checked at commit, so that cascades and order cannot fail
			// half-way.
			if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
				return err
			}
		}
		for _, t := range slices.Backward(tables) {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+quoteIdent(t)); err != nil {
				return fmt.Errorf("empty %s: %w", t, err)
			}
		}
		for _, t := range tables {
			if f.postgres() {
				_, err = tx.ExecContext(ctx, `INSERT INTO `+quoteIdent(t)+` SELECT * FROM json_populate_recordset(NULL::`+quoteIdent(t)+`, $1::json)`, s.json[t])
			} else {
				marks := strings.TrimSuffix(strings.Repeat("?, ", f.columns[t]), ", ")
				for _, row := range s.rows[t] {
					if _, err = tx.ExecContext(ctx, `INSERT INTO `+quoteIdent(t)+` VALUES (`+marks+`)`, row...); err != nil {
						break
					}
				}
			}
			if err != nil {
				return fmt.Errorf("restore %s: %w", t, err)
			}
		}
		return tx.Commit()
	})
}

func eachRow(ctx context.Context, conn *sql.Conn, query string, fn func(row []any)) error {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for rows.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		fn(row)
	}
	return rows.Err()
}

func queryStrings(ctx context.Context, conn *sql.Conn, query string, args ...any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func quoteIdent(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
