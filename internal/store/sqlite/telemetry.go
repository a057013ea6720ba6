package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/telemetry"
)

// Telemetry returns the telemetry store.
func (db *DB) Telemetry() telemetry.Store { return telemetryStore{db} }

type telemetryStore struct{ db *DB }

// pruneBatch bounds the rows one pruning transaction deletes, so the
// recorder's writes queue behind it for a moment only.
const pruneBatch = 2000

func (s telemetryStore) SaveLatest(ctx context.Context, snapshots []telemetry.Snapshot) error {
	if len(snapshots) == 0 {
		return nil
	}
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO telemetry_latest (asset_id, ts, payload, tail) VALUES (?, ?, ?, ?)
			ON CONFLICT (asset_id) DO UPDATE SET ts = excluded.ts, payload = excluded.payload, tail = excluded.tail
			WHERE excluded.ts >= telemetry_latest.ts`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, sn := range snapshots {
			if _, err := stmt.ExecContext(ctx, sn.AssetID, sqlutil.Micros(sn.Measurements.Timestamp),
				sqlutil.LatestPayload(sn.Measurements), sn.Tail); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s telemetryStore) Latest(ctx context.Context, assetID string) (telemetry.Snapshot, error) {
	var ts int64
	var payload, tail []byte
	err := s.db.read(ctx).QueryRowContext(ctx, `SELECT ts, payload, tail FROM telemetry_latest WHERE asset_id = ?`, assetID).Scan(&ts, &payload, &tail)
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

func (s telemetryStore) PutChunks(ctx context.Context, chunks []telemetry.Chunk) error {
	for _, c := range chunks {
		if err := sqlutil.CheckChunk(c); err != nil {
			return err
		}
	}
	if len(chunks) == 0 {
		return nil
	}
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO telemetry_chunks (asset_id, chunk_start, chunk_end, points, data)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (asset_id, chunk_start) DO UPDATE SET chunk_end = excluded.chunk_end,
			points = excluded.points, data = excluded.data`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, c := range chunks {
			if _, err := stmt.ExecContext(ctx, c.AssetID, sqlutil.Micros(c.Start), sqlutil.Micros(c.End), c.Points, c.Data); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s telemetryStore) Chunks(ctx context.Context, assetID string, from, to time.Time) ([]telemetry.Chunk, error) {
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

func (s telemetryStore) PruneChunks(ctx context.Context, before time.Time) (int, error) {
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
