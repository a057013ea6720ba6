package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"atcp/internal/errs"
)

func init() { errs.RegisterUnavailable(isUnavailable) }

// isUnavailable recognises the errors that mean the database cannot be
// used now, whatever the statement: retrying later may succeed, and the
// HTTP layer answers 503 store_unavailable. What the server refuses for a
// reason of the statement (a constraint, a serialisation failure, bad
// input) is not among them.
func isUnavailable(err error) bool {
	var connectErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	var netErr *net.OpError
	switch {
	case errors.As(err, &connectErr):
		// Refused, reset, timed out, or the server refused the session
		// (starting up, shutting down, too many connections).
		return true
	case errors.As(err, &pgErr):
		// Class 08 is connection exceptions; 57P01..57P03 are the server
		// shutting down (admin, crash) or not accepting connections yet.
		return strings.HasPrefix(pgErr.Code, "08") ||
			pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	case errors.Is(err, errAcquireTimeout):
		return true
	case errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &netErr):
		// The connection was closed, reset or cut under a statement.
		return true
	case pgconn.Timeout(err):
		// A deadline passed inside the driver; a cancelled caller is not
		// an outage.
		return !errors.Is(err, context.Canceled)
	}
	return false
}

// errAcquireTimeout is the error of a wait for a pooled connection that
// outlasted the bound. It is also a deadline error, as context errors are.
var errAcquireTimeout error = acquireTimeoutError{}

type acquireTimeoutError struct{}

func (acquireTimeoutError) Error() string {
	return "timed out waiting for a database connection"
}

func (acquireTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// acquireBound bounds every wait for a pooled connection, which otherwise
// lasts as long as the caller's context, and no request carries a
// deadline: with the server gone, requests would queue behind connection
// attempts without end. pgxpool gives a tracer the only hook on
// acquisition, hence the tracer's shape.
type acquireBound struct{ timeout time.Duration }

type acquireCancelKey struct{}

// TraceAcquireStart returns the context the acquisition (and nothing
// after it) runs under.
func (b acquireBound) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	ctx, cancel := context.WithTimeoutCause(ctx, b.timeout, errAcquireTimeout)
	return boundedContext{context.WithValue(ctx, acquireCancelKey{}, cancel)}
}

// TraceAcquireEnd releases the bound's timer.
func (acquireBound) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireEndData) {
	if cancel, ok := ctx.Value(acquireCancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
}

// TraceQueryStart is required of a pgx tracer; queries are not traced.
func (acquireBound) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

// TraceQueryEnd is required of a pgx tracer; queries are not traced.
func (acquireBound) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// boundedContext reports the bound's expiry as errAcquireTimeout (the pool
// returns ctx.Err() as is), so that it is told apart from a deadline of
// the caller's own.
type boundedContext struct{ context.Context }

func (c boundedContext) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == errAcquireTimeout {
		return errAcquireTimeout
	}
	return err
}
