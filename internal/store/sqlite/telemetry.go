package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
	"atcp/internal/telemetry"
)

// Telemetry returns the telemetry store.
func (db *DB) Telemetry() telemetry.Store { return telemetryStore{db} }

type telemetryStore struct{ db *DB }

// pruneBatch bounds the rows one pruning transaction deletes, so the
// recorder's writes queue behind it for a moment only.
const pruneBatch = 2000

// The control loop writes every asset's latest state each second and a
// fifteenth of the history chunks. SQLite has one writer: in one
// transaction, 10,000 assets' states held every other write (a bid, a
// dispatch) for 60-100 ms each second. They commit in slices instead,
// short enough that a request waits at most about a millisecond behind one
// (docs/performance.md). Each row stands alone: a failure leaves the
// slices before it written, which the recorder's next write overwrites.
const (
	latestPerTx = 200
	chunksPerTx = 50
)

var (
	latestUpsert = hotWrite(`INSERT INTO telemetry_latest (asset_id, ts, payload, tail) VALUES (?, ?, ?, ?)
		ON CONFLICT (asset_id) DO UPDATE SET ts = excluded.ts, payload = excluded.payload, tail = excluded.tail
		WHERE excluded.ts >= telemetry_latest.ts`)
	chunkUpsert = hotWrite(`INSERT INTO telemetry_chunks (asset_id, chunk_start, chunk_end, points, data)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (asset_id, chunk_start) DO UPDATE SET chunk_end = excluded.chunk_end,
		points = excluded.points, data = excluded.data`)
)

func (s telemetryStore) SaveLatest(ctx context.Context, snapshots []telemetry.Snapshot) (err error) {
	defer sqlutil.Wrap(&err, "telemetry: save latest")
	return inSlices(snapshots, latestPerTx, func(part []telemetry.Snapshot) error {
		// Between transactions, never inside one: the write lock is held
		// there.
		workload.YieldNow(ctx)
		return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			stmt, err := s.db.txStmt(ctx, tx, latestUpsert)
			if err != nil {
				return err
			}
			for _, sn := range part {
				if _, err := stmt.ExecContext(ctx, sn.AssetID, sqlutil.Micros(sn.Measurements.Timestamp),
					sqlutil.LatestPayload(sn.Measurements), sn.Tail); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// inSlices calls fn with consecutive slices of at most n items, stopping
// at the first error.
func inSlices[T any](items []T, n int, fn func([]T) error) error {
	for len(items) > 0 {
		part := items[:min(n, len(items))]
		if err := fn(part); err != nil {
			return err
		}
		items = items[len(part):]
	}
	return nil
}

func (s telemetryStore) Latest(ctx context.Context, assetID string) (_ telemetry.Snapshot, err error) {
	defer sqlutil.Wrap(&err, "telemetry: latest")
	var ts int64
	var payload, tail []byte
	stmt, err := s.db.stmt(ctx, `SELECT ts, payload, tail FROM telemetry_latest WHERE asset_id = ?`)
	if err != nil {
		return telemetry.Snapshot{}, err
	}
	err = stmt.QueryRowContext(ctx, assetID).Scan(&ts, &payload, &tail)
	if errors.Is(err, sql.ErrNoRows) {
		return telemetry.Snapshot{}, errs.NotFoundf("asset %s has not reported any measurement", assetID)
	}
	if err != nil {
		return telemetry.Snapshot{}, err
	}
	sn, err := sqlutil.SnapshotFromLatest(assetID, sqlutil.FromMicros(ts), payload)
	sn.Tail = tail
	return sn, err
}

// LatestMany passes the ids as one JSON array: one statement whatever
// their number.
func (s telemetryStore) LatestMany(ctx context.Context, assetIDs []string) (_ []telemetry.Snapshot, err error) {
	defer sqlutil.Wrap(&err, "telemetry: latest of many")
	if len(assetIDs) == 0 {
		return nil, nil
	}
	ids, err := json.Marshal(assetIDs)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT asset_id, ts, payload FROM telemetry_latest
		WHERE asset_id IN (SELECT value FROM json_each(?))`, string(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]telemetry.Snapshot, 0, len(assetIDs))
	for rows.Next() {
		workload.Yield(ctx, len(out))
		var id string
		var ts int64
		var payload []byte
		if err := rows.Scan(&id, &ts, &payload); err != nil {
			return nil, err
		}
		sn, err := sqlutil.SnapshotFromLatest(id, sqlutil.FromMicros(ts), payload)
		if err != nil {
			return nil, err
		}
		out = append(out, sn)
	}
	return out, rows.Err()
}

func (s telemetryStore) PutChunks(ctx context.Context, chunks []telemetry.Chunk) (err error) {
	defer sqlutil.Wrap(&err, "telemetry: put chunks")
	for _, c := range chunks {
		if err := sqlutil.CheckChunk(c); err != nil {
			return err
		}
	}
	return inSlices(chunks, chunksPerTx, func(part []telemetry.Chunk) error {
		// Between transactions, never inside one: the write lock is held
		// there.
		workload.YieldNow(ctx)
		return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			stmt, err := s.db.txStmt(ctx, tx, chunkUpsert)
			if err != nil {
				return err
			}
			for _, c := range part {
				if _, err := stmt.ExecContext(ctx, c.AssetID, sqlutil.Micros(c.Start), sqlutil.Micros(c.End), c.Points, c.Data); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func (s telemetryStore) Chunks(ctx context.Context, assetID string, from, to time.Time) (_ []telemetry.Chunk, err error) {
	defer sqlutil.Wrap(&err, "telemetry: chunks")
	// The lower bound on chunk_start keeps the primary-key range short:
	// no chunk spans more than MaxChunkSpan.
	rows, err := s.db.read(ctx).QueryContext(ctx, `SELECT chunk_start, chunk_end, points, data FROM telemetry_chunks
		WHERE asset_id = ? AND chunk_start > ? AND chunk_start < ? AND chunk_end > ? ORDER BY chunk_start`,
		assetID, sqlutil.Micros(from.Add(-telemetry.MaxChunkSpan)), sqlutil.Micros(to), sqlutil.Micros(from))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []telemetry.Chunk{}
	for rows.Next() {
		c := telemetry.Chunk{AssetID: assetID}
		var start, end int64
		if err := rows.Scan(&start, &end, &c.Points, &c.Data); err != nil {
			return nil, err
		}
		c.Start, c.End = sqlutil.FromMicros(start), sqlutil.FromMicros(end)
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s telemetryStore) PruneChunks(ctx context.Context, before time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "telemetry: prune chunks")
	total := 0
	for {
		var n int64
		err := s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM telemetry_chunks WHERE rowid IN
				(SELECT rowid FROM telemetry_chunks WHERE chunk_end <= ? LIMIT ?)`, sqlutil.Micros(before), pruneBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += int(n)
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}
