package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"atcp/internal/errs"
	"atcp/internal/store/sqlutil"
	"atcp/internal/worker"
)

// Leases returns the worker lease store.
func (db *DB) Leases() worker.LeaseStore { return leaseStore{db} }

// leaseStore writes through the single write connection, which serialises
// racing acquirers; the read-back happens in the same transaction.
type leaseStore struct{ db *DB }

func (s leaseStore) Acquire(ctx context.Context, job, holder string, now time.Time, ttl time.Duration) (_ worker.Lease, err error) {
	defer sqlutil.Wrap(&err, "leases: acquire")
	if err := worker.CheckLeaseArgs(job, holder, ttl); err != nil {
		return worker.Lease{}, err
	}
	var l worker.Lease
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO worker_leases AS l (job, holder, acquired_at, expires_at) VALUES (?1, ?2, ?3, ?4)
			ON CONFLICT (job) DO UPDATE SET
				acquired_at = CASE WHEN l.holder = excluded.holder THEN l.acquired_at ELSE excluded.acquired_at END,
				holder = excluded.holder, expires_at = excluded.expires_at
			WHERE l.holder = excluded.holder OR l.expires_at <= ?3`,
			job, holder, sqlutil.Micros(now), sqlutil.Micros(now.Add(ttl))); err != nil {
			return err
		}
		var err error
		l, err = scanLease(tx.QueryRowContext(ctx, leaseSelect, job))
		return err
	})
	return l, err
}

func (s leaseStore) Renew(ctx context.Context, job, holder string, now time.Time, ttl time.Duration) (_ bool, err error) {
	defer sqlutil.Wrap(&err, "leases: renew")
	if err := worker.CheckLeaseArgs(job, holder, ttl); err != nil {
		return false, err
	}
	var n int64
	err = s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE worker_leases SET expires_at = ? WHERE job = ? AND holder = ? AND expires_at > ?`,
			sqlutil.Micros(now.Add(ttl)), job, holder, sqlutil.Micros(now))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

func (s leaseStore) Release(ctx context.Context, job, holder string) (err error) {
	defer sqlutil.Wrap(&err, "leases: release")
	return s.db.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM worker_leases WHERE job = ? AND holder = ?`, job, holder)
		return err
	})
}

func (s leaseStore) Lease(ctx context.Context, job string) (_ worker.Lease, err error) {
	defer sqlutil.Wrap(&err, "leases: lease")
	l, err := scanLease(s.db.read(ctx).QueryRowContext(ctx, leaseSelect, job))
	if errors.Is(err, sql.ErrNoRows) {
		return worker.Lease{}, errs.NotFoundf("no lease on job %q", job)
	}
	return l, err
}

const leaseSelect = `SELECT job, holder, acquired_at, expires_at FROM worker_leases WHERE job = ?`

func scanLease(row interface{ Scan(dest ...any) error }) (worker.Lease, error) {
	var l worker.Lease
	var acquired, expires int64
	if err := row.Scan(&l.Job, &l.Holder, &acquired, &expires); err != nil {
		return worker.Lease{}, err
	}
	l.AcquiredAt, l.ExpiresAt = sqlutil.FromMicros(acquired), sqlutil.FromMicros(expires)
	return l, nil
}
