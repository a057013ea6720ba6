package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/segmentation"
	"atcp/internal/store/sqlutil"
)

// Segmentations returns the segmentation store.
func (db *DB) Segmentations() segmentation.Store { return segmentationStore{db} }

// segmentationStore writes through the single write connection, which
// serialises changes; a change reads the current design in its own
// transaction.
type segmentationStore struct{ db *DB }

// segmentationSelect reads designs of visible, not deleted assets (all,
// organisation).
const segmentationSelect = `SELECT s.asset_id, s.organization_id, s.mode, s.status, s.version, s.updated_at, s.segments
	FROM segmentations s JOIN assets a ON a.asset_id = s.asset_id
	WHERE a.deleted_at IS NULL AND (? OR s.organization_id = ?)`

type segmentationRow interface{ Scan(dest ...any) error }

func scanSegmentation(row segmentationRow) (segmentation.Segmentation, error) {
	var (
		s         segmentation.Segmentation
		updatedAt int64
		segments  string
	)
	if err := row.Scan(&s.AssetID, &s.OrganizationID, &s.Mode, &s.Status, &s.Version, &updatedAt, &segments); err != nil {
		return s, err
	}
	s.UpdatedAt = sqlutil.FromMicros(updatedAt)
	var err error
	s.Segments, err = segmentation.DecodeSegments([]byte(segments))
	return s, err
}

func segmentationNotFound(assetID string) error {
	return errs.NotFoundf("asset %q has no segmentation", assetID)
}

func (s segmentationStore) Get(ctx context.Context, v auth.Visibility, assetID string) (_ segmentation.Segmentation, err error) {
	defer sqlutil.Wrap(&err, "segmentation: get")
	// Every bid write asks for its asset's design: the statement is kept
	// prepared.
	get, err := s.db.stmt(ctx, segmentationSelect+" AND s.asset_id = ?")
	if err != nil {
		return segmentation.Segmentation{}, err
	}
	seg, err := scanSegmentation(get.QueryRowContext(ctx, v.All, v.OrganizationID, assetID))
	if errors.Is(err, sql.ErrNoRows) {
		return seg, segmentationNotFound(assetID)
	}
	return seg, err
}

func (s segmentationStore) ListActive(ctx context.Context, v auth.Visibility) (_ []segmentation.Segmentation, err error) {
	defer sqlutil.Wrap(&err, "segmentation: list active")
	rows, err := s.db.read(ctx).QueryContext(ctx, segmentationSelect+" AND s.status = 'active' ORDER BY s.asset_id", v.All, v.OrganizationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []segmentation.Segmentation
	for rows.Next() {
		seg, err := scanSegmentation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, seg)
	}
	return out, rows.Err()
}

// currentSegmentation reads the visible asset and its design (nil when
// none) inside a write transaction.
func currentSegmentation(ctx context.Context, tx *sql.Tx, v auth.Visibility, assetID string) (string, *segmentation.Segmentation, error) {
	a, err := currentAsset(ctx, tx, v, assetID)
	if err != nil {
		return "", nil, err
	}
	seg, err := scanSegmentation(tx.QueryRowContext(ctx, segmentationSelect+" AND s.asset_id = ?", true, "", assetID))
	if errors.Is(err, sql.ErrNoRows) {
		return a.OrganizationID, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return a.OrganizationID, &seg, nil
}

func (s segmentationStore) Change(ctx context.Context, v auth.Visibility, assetID string,
	change func(context.Context, string, *segmentation.Segmentation) (segmentation.Segmentation, error)) (_ segmentation.Segmentation, err error) {
	defer sqlutil.Wrap(&err, "segmentation: change")
	var out segmentation.Segmentation
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		org, cur, err := currentSegmentation(ctx, tx, v, assetID)
		if err != nil {
			return err
		}
		next, err := change(ctx, org, cur)
		if err != nil {
			return err
		}
		segments, err := segmentation.EncodeSegments(next.Segments)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO segmentations (asset_id, organization_id, mode, status, version, updated_at, segments)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (asset_id) DO UPDATE SET mode = excluded.mode, status = excluded.status,
				version = excluded.version, updated_at = excluded.updated_at, segments = excluded.segments`,
			assetID, org, string(next.Mode), string(next.Status), next.Version, sqlutil.Micros(next.UpdatedAt), string(segments))
		out = next
		return err
	})
	return out, err
}

func (s segmentationStore) Delete(ctx context.Context, v auth.Visibility, assetID string, check func(context.Context, segmentation.Segmentation) error) (err error) {
	defer sqlutil.Wrap(&err, "segmentation: delete")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, cur, err := currentSegmentation(ctx, tx, v, assetID)
		if err != nil {
			return err
		}
		if cur == nil {
			return segmentationNotFound(assetID)
		}
		if err := check(ctx, *cur); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM segmentations WHERE asset_id = ?`, assetID)
		return err
	})
}
