package worker

import (
	"context"
	"errors"
	"time"
)

// Lease is the right of one holder (an instance) to run a job until
// ExpiresAt. Instants are on the platform clock's timeline, which every
// instance sharing a database reads alike (its anchor is stored there).
type Lease struct {
	Job        string
	Holder     string
	AcquiredAt time.Time
	ExpiresAt  time.Time
}

// HeldBy reports whether holder holds the lease at now.
func (l Lease) HeldBy(holder string, now time.Time) bool {
	return l.Holder == holder && now.Before(l.ExpiresAt)
}

// LeaseStore persists job leases shared by every instance. Each method is
// atomic in the database, so that two holders never both hold one job's
// lease at the same instant.
type LeaseStore interface {
	// Acquire takes the lease on job for holder until now+ttl when it is
	// free, expired or already held by holder (then it is extended and
	// AcquiredAt kept). It returns the lease as it stands afterwards:
	// HeldBy(holder, now) tells whether holder got it; otherwise it names
	// the current holder.
	Acquire(ctx context.Context, job, holder string, now time.Time, ttl time.Duration) (Lease, error)
	// Renew extends holder's unexpired lease on job to now+ttl. It reports
	// false, changing nothing, when holder does not hold it at now (it
	// expired or another holder took it): the holder must stop the job.
	Renew(ctx context.Context, job, holder string, now time.Time, ttl time.Duration) (bool, error)
	// Release gives up holder's lease on job so that another instance can
	// take it at once; releasing a lease not held is a no-op.
	Release(ctx context.Context, job, holder string) error
	// Lease reads the lease row of job, expired or not; errs.NotFound when
	// none was ever taken (or it was released).
	Lease(ctx context.Context, job string) (Lease, error)
}

// CheckLeaseArgs validates the arguments of Acquire and Renew; the stores
// call it so that a zero TTL or an empty name never reaches the database.
func CheckLeaseArgs(job, holder string, ttl time.Duration) error {
	switch {
	case job == "":
		return errors.New("lease: empty job name")
	case holder == "":
		return errors.New("lease: empty holder")
	case ttl <= 0:
		return errors.New("lease: ttl must be positive")
	}
	return nil
}
