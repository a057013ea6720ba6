package auth

import (
	"context"
	"runtime"
	"time"

	"golang.org/x/sync/semaphore"

	"atcp/internal/errs"
)

// ErrBusy is returned by a Hasher that could not get a slot in time. Its
// kind is errs.Unavailable: the answer is 503 with Retry-After.
var ErrBusy = errs.E(errs.Unavailable, CodeBusy, "too many password and secret checks at once; retry shortly")

// HashWait is how long a hash or verification waits for a slot before it
// gives up with ErrBusy: long enough to ride out a short burst, short
// enough that a flood is answered quickly instead of queueing for minutes.
const HashWait = 2 * time.Second

// Hasher runs the argon2id hashing and verification of passwords and
// client secrets, each holding one slot of a semaphore for its duration.
// One argon2id call needs 19 MiB and a core for tens of milliseconds, so
// unbounded concurrent checks let anyone without credentials exhaust the
// server's memory; the semaphore bounds it to slots x 19 MiB. Share one
// Hasher (or one semaphore) among everything that hashes in the process.
type Hasher struct {
	slots *semaphore.Weighted
	wait  time.Duration
}

// NewHasher returns a Hasher taking its slots from slots and waiting at
// most wait (and never past the request's context) for one.
func NewHasher(slots *semaphore.Weighted, wait time.Duration) *Hasher {
	return &Hasher{slots: slots, wait: wait}
}

// NewCoreHasher returns a Hasher with one slot per core the Go scheduler
// uses (GOMAXPROCS): more concurrent checks would not finish sooner, they
// would only hold more memory. It waits HashWait for a slot.
func NewCoreHasher() *Hasher {
	return NewHasher(semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0))), HashWait)
}

// run runs f in a slot, or returns ErrBusy when none frees up within the
// wait or before ctx ends. The slot is acquired in arrival order, so a
// flood delays a legitimate check by at most the wait.
func (h *Hasher) run(ctx context.Context, f func()) error {
	if !h.slots.TryAcquire(1) {
		waitCtx, cancel := context.WithTimeout(ctx, h.wait)
		err := h.slots.Acquire(waitCtx, 1)
		cancel()
		if err != nil {
			return ErrBusy
		}
	}
	defer h.slots.Release(1)
	f()
	return nil
}

// Hash returns the argon2id hash of secret (see HashSecret).
func (h *Hasher) Hash(ctx context.Context, secret string) (string, error) {
	var hash string
	var hashErr error
	if err := h.run(ctx, func() { hash, hashErr = HashSecret(secret) }); err != nil {
		return "", err
	}
	return hash, hashErr
}

// Verify reports whether secret matches the encoded hash (see
// VerifySecret).
func (h *Hasher) Verify(ctx context.Context, secret, encoded string) (bool, error) {
	var ok bool
	err := h.run(ctx, func() { ok = VerifySecret(secret, encoded) })
	return ok, err
}

// Burn spends the time and memory of one verification, for a claimed
// account that does not exist, so that unknown and known accounts take the
// same time to reject.
func (h *Hasher) Burn(ctx context.Context, secret string) error {
	return h.run(ctx, func() { VerifySecret(secret, dummyHash) })
}
