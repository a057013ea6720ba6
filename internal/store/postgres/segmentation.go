package postgres

import (
	"atcp/internal/store/sqlutil"
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"atcp/internal/auth"
	"atcp/internal/errs"
	"atcp/internal/segmentation"
)

// Segmentations returns the segmentation store.
func (db *DB) Segmentations() segmentation.Store { return segmentationStore{db} }

// segmentationStore serialises changes of one asset's design by locking
// the asset row (FOR UPDATE) for the transaction.
type segmentationStore struct{ db *DB }

// segmentationSelect reads designs of visible, not deleted assets ($1 all,
// $2 organisation).
const segmentationSelect = `SELECT s.asset_id, s.organization_id, s.mode, s.status, s.version, s.updated_at, s.segments
	FROM segmentations s JOIN assets a ON a.asset_id = s.asset_id
	WHERE a.deleted_at IS NULL AND ($1 OR s.organization_id = $2)`

func scanSegmentation(row pgx.Row) (segmentation.Segmentation, error) {
	var (
		s        segmentation.Segmentation
		segments []byte
	)
	if err := row.Scan(&s.AssetID, &s.OrganizationID, &s.Mode, &s.Status, &s.Version, &s.UpdatedAt, &segments); err != nil {
		return s, err
	}
	s.UpdatedAt = s.UpdatedAt.UTC()
	var err error
	s.Segments, err = segmentation.DecodeSegments(segments)
	return s, err
}

func segmentationNotFound(assetID string) error {
	return errs.NotFoundf("asset %q has no segmentation", assetID)
}

func (s segmentationStore) Get(ctx context.Context, v auth.Visibility, assetID string) (_ segmentation.Segmentation, err error) {
	defer sqlutil.Wrap(&err, "segmentation: get")
	seg, err := scanSegmentation(s.db.conn(ctx).QueryRow(ctx, segmentationSelect+" AND s.asset_id = $3", v.All, v.OrganizationID, assetID))
	if errors.Is(err, pgx.ErrNoRows) {
		return seg, segmentationNotFound(assetID)
	}
	return seg, err
}

func (s segmentationStore) ListActive(ctx context.Context, v auth.Visibility) (_ []segmentation.Segmentation, err error) {
	defer sqlutil.Wrap(&err, "segmentation: list active")
	rows, err := s.db.conn(ctx).Query(ctx, segmentationSelect+` AND s.status = 'active' ORDER BY s.asset_id COLLATE "C"`, v.All, v.OrganizationID)
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

// lockForSegmentation locks the visible asset and reads its design (nil
// when none).
func lockForSegmentation(ctx context.Context, tx pgx.Tx, v auth.Visibility, assetID string) (string, *segmentation.Segmentation, error) {
	a, err := lockAsset(ctx, tx, v, assetID)
	if err != nil {
		return "", nil, err
	}
	seg, err := scanSegmentation(tx.QueryRow(ctx, segmentationSelect+" AND s.asset_id = $3", true, "", assetID))
	if errors.Is(err, pgx.ErrNoRows) {
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
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		org, cur, err := lockForSegmentation(ctx, tx, v, assetID)
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
		_, err = tx.Exec(ctx, `INSERT INTO segmentations (asset_id, organization_id, mode, status, version, updated_at, segments)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (asset_id) DO UPDATE SET mode = excluded.mode, status = excluded.status,
				version = excluded.version, updated_at = excluded.updated_at, segments = excluded.segments`,
			assetID, org, next.Mode, next.Status, next.Version, next.UpdatedAt, segments)
		out = next
		return err
	})
	return out, err
}

func (s segmentationStore) Delete(ctx context.Context, v auth.Visibility, assetID string, check func(context.Context, segmentation.Segmentation) error) (err error) {
	defer sqlutil.Wrap(&err, "segmentation: delete")
	return s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, cur, err := lockForSegmentation(ctx, tx, v, assetID)
		if err != nil {
			return err
		}
		if cur == nil {
			return segmentationNotFound(assetID)
		}
		if err := check(ctx, *cur); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM segmentations WHERE asset_id = $1`, assetID)
		return err
	})
}
