package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/store/workload"
	"atcp/internal/telemetry"
)

// Telemetry returns the telemetry store.
func (db *DB) Telemetry() telemetry.Store { return telemetryStore{db} }

// telemetryStore writes each batch as one multi-row statement over
// unnested arrays: one round trip for a thousand assets.
type telemetryStore struct{ db *DB }

func (s telemetryStore) SaveLatest(ctx context.Context, snapshots []telemetry.Snapshot) (err error) {
	defer sqlutil.Wrap(&err, "telemetry: save latest")
	if len(snapshots) == 0 {
		return nil
	}
	snapshots = sqlutil.NewestPerAsset(snapshots)
	ids := make([]string, len(snapshots))
	ts := make([]time.Time, len(snapshots))
	payloads := make([][]byte, len(snapshots))
	tails := make([][]byte, len(snapshots))
	for i, sn := range snapshots {
		ids[i], ts[i], payloads[i], tails[i] = sn.AssetID, sn.Measurements.Timestamp, sqlutil.LatestPayload(sn.Measurements), sn.Tail
	}
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO telemetry_latest (asset_id, ts, payload, tail)
		SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bytea[], $4::bytea[])
		ON CONFLICT (asset_id) DO UPDATE SET ts = excluded.ts, payload = excluded.payload, tail = excluded.tail
		WHERE excluded.ts >= telemetry_latest.ts`, ids, ts, payloads, tails)
	return err
}

func (s telemetryStore) Latest(ctx context.Context, assetID string) (_ telemetry.Snapshot, err error) {
	defer sqlutil.Wrap(&err, "telemetry: latest")
	var ts time.Time
	var payload, tail []byte
	err = s.db.conn(ctx).QueryRow(ctx, `SELECT ts, payload, tail FROM telemetry_latest WHERE asset_id = $1`, assetID).Scan(&ts, &payload, &tail)
	if errors.Is(err, pgx.ErrNoRows) {
		return telemetry.Snapshot{}, errs.NotFoundf("asset %s has not reported any measurement", assetID)
	}
	if err != nil {
		return telemetry.Snapshot{}, err
	}
	sn, err := sqlutil.SnapshotFromLatest(assetID, ts.UTC(), payload)
	sn.Tail = tail
	return sn, err
}

func (s telemetryStore) LatestMany(ctx context.Context, assetIDs []string) (_ []telemetry.Snapshot, err error) {
	defer sqlutil.Wrap(&err, "telemetry: latest of many")
	if len(assetIDs) == 0 {
		return nil, nil
	}
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT asset_id, ts, payload FROM telemetry_latest WHERE asset_id = ANY($1)`, assetIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]telemetry.Snapshot, 0, len(assetIDs))
	for rows.Next() {
		workload.Yield(ctx, len(out))
		var id string
		var ts time.Time
		var payload []byte
		if err := rows.Scan(&id, &ts, &payload); err != nil {
			return nil, err
		}
		sn, err := sqlutil.SnapshotFromLatest(id, ts.UTC(), payload)
		if err != nil {
			return nil, err
		}
		out = append(out, sn)
	}
	return out, rows.Err()
}

func (s telemetryStore) PutChunks(ctx context.Context, chunks []telemetry.Chunk) (err error) {
	defer sqlutil.Wrap(&err, "telemetry: put chunks")
	chunks, err = sqlutil.UniqueChunks(chunks)
	if err != nil || len(chunks) == 0 {
		return err
	}
	ids := make([]string, len(chunks))
	starts := make([]time.Time, len(chunks))
	ends := make([]time.Time, len(chunks))
	points := make([]int32, len(chunks))
	data := make([][]byte, len(chunks))
	for i, c := range chunks {
		ids[i], starts[i], ends[i], points[i], data[i] = c.AssetID, c.Start, c.End, int32(c.Points), c.Data
	}
	_, err = s.db.conn(ctx).Exec(ctx, `INSERT INTO telemetry_chunks (asset_id, chunk_start, chunk_end, points, data)
		SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::int[], $5::bytea[])
		ON CONFLICT (asset_id, chunk_start) DO UPDATE SET chunk_end = excluded.chunk_end,
		points = excluded.points, data = excluded.data`, ids, starts, ends, points, data)
	return err
}

func (s telemetryStore) Chunks(ctx context.Context, assetID string, from, to time.Time) (_ []telemetry.Chunk, err error) {
	defer sqlutil.Wrap(&err, "telemetry: chunks")
	// The lower bound on chunk_start keeps the primary-key range short:
	// no chunk spans more than MaxChunkSpan.
	rows, err := s.db.conn(ctx).Query(ctx, `SELECT chunk_start, chunk_end, points, data FROM telemetry_chunks
		WHERE asset_id = $1 AND chunk_start > $2 AND chunk_start < $3 AND chunk_end > $4 ORDER BY chunk_start`,
		assetID, from.Add(-telemetry.MaxChunkSpan), to, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []telemetry.Chunk{}
	for rows.Next() {
		c := telemetry.Chunk{AssetID: assetID}
		var points int32
		if err := rows.Scan(&c.Start, &c.End, &points, &c.Data); err != nil {
			return nil, err
		}
		c.Start, c.End, c.Points = c.Start.UTC(), c.End.UTC(), int(points)
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s telemetryStore) PruneChunks(ctx context.Context, before time.Time) (_ int, err error) {
	defer sqlutil.Wrap(&err, "telemetry: prune chunks")
	tag, err := s.db.conn(ctx).Exec(ctx, `DELETE FROM telemetry_chunks WHERE chunk_end <= $1`, before)
	return int(tag.RowsAffected()), err
}
