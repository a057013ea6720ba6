package postgres

import (
	"atcp/internal/store/sqlutil"
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"atcp/internal/errs"
	"atcp/internal/worker"
)

// Leases returns the worker lease store.
func (db *DB) Leases() worker.LeaseStore { return leaseStore{db} }

// leaseStore decides every take-over in one statement: INSERT ... ON
// CONFLICT DO UPDATE locks the conflicting row, so two instances racing
// for a free or expired lease are serialised and only one wins.
type leaseStore struct{ db *DB }

func (s leaseStore) Acquire(ctx context.Context, job, holder string, now time.Time, ttl time.Duration) (_ worker.Lease, err error) {
	defer sqlutil.Wrap(&err, "leases: acquire")
	if err := worker.CheckLeaseArgs(job, holder, ttl); err != nil {
		return worker.Lease{}, err
	}
	var l worker.Lease
	err = s.db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO worker_leases AS l (job, holder, acquired_at, expires_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (job) DO UPDATE SET
				acquired_at = CASE WHEN l.holder = excluded.holder THEN l.acquired_at ELSE excluded.acquired_at END,
				holder = excluded.holder, expires_at = excluded.expires_at
			WHERE l.holder = excluded.holder OR l.expires_at <= $3`,
			job, holder, now, now.Add(ttl)); err != nil {
			return err
		}
		var err error
		l, err = scanLease(tx.QueryRow(ctx, leaseSelect, job))
		return err
	})
	return l, err
}

func (s leaseStore) Renew(ctx context.Context, job, holder string, now time.Time, ttl time.Duration) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "leases: renew")
	if err := worker.CheckLeaseArgs(job, holder, ttl); err != nil {
		return false, err
	}
	tag, err := s.db.conn(ctx).Exec(ctx, `UPDATE worker_leases SET expires_at = $4 WHERE job = $1 AND holder = $2 AND expires_at > $3`,
		job, holder, now, now.Add(ttl))
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (s leaseStore) Release(ctx context.Context, job, holder string) (err error) {
	defer sqlutil.Wrap(&err, "leases: release")
	_, err = s.db.conn(ctx).Exec(ctx, `DELETE FROM worker_leases WHERE job = $1 AND holder = $2`, job, holder)
	return err
}

func (s leaseStore) Lease(ctx context.Context, job string) (_ worker.Lease, err error) {
	defer sqlutil.Wrap(&err, "leases: lease")
	l, err := scanLease(s.db.conn(ctx).QueryRow(ctx, leaseSelect, job))
	if errors.Is(err, pgx.ErrNoRows) {
		return worker.Lease{}, errs.NotFoundf("no lease on job %q", job)
	}
	return l, err
}

const leaseSelect = `SELECT job, holder, acquired_at, expires_at FROM worker_leases WHERE job = $1`

func scanLease(row pgx.Row) (worker.Lease, error) {
	var l worker.Lease
	if err := row.Scan(&l.Job, &l.Holder, &l.AcquiredAt, &l.ExpiresAt); err != nil {
		return worker.Lease{}, err
	}
	l.AcquiredAt, l.ExpiresAt = l.AcquiredAt.UTC(), l.ExpiresAt.UTC()
	return l, nil
}
