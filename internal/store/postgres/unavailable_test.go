package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"atcp/internal/errs"
	"atcp/internal/testkit/tcpproxy"
)

func TestIsUnavailableClassifies(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"cannot establish a connection", &pgconn.PgError{Code: "08001"}, true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true},
		{"cannot connect now", fmt.Errorf("read: %w", &pgconn.PgError{Code: "57P03"}), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"serialisation failure", &pgconn.PgError{Code: "40001"}, false},
		{"statement cancelled", &pgconn.PgError{Code: "57014"}, false},
		{"invalid byte sequence", &pgconn.PgError{Code: "22021"}, false},
		{"acquire bound", fmt.Errorf("begin: %w", errAcquireTimeout), true},
		{"closed under a query", fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"no rows", pgx.ErrNoRows, false},
		{"caller cancelled", context.Canceled, false},
		{"caller's deadline", context.DeadlineExceeded, false},
		{"plain error", errors.New("boom"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := isUnavailable(c.err); got != c.want {
				t.Fatalf("isUnavailable(%v) = %v, want %v", c.err, got, c.want)
			}
			if got := errs.IsUnavailable(c.err); got != c.want {
				t.Fatalf("errs.IsUnavailable(%v) = %v, want %v (not registered?)", c.err, got, c.want)
			}
		})
	}
}

func TestPoolConfigBoundsConnecting(t *testing.T) {
	for _, c := range []struct {
		url  string
		want time.Duration
	}{
		{"postgres://u@db.example/atcp", defaultConnectTimeout},
		{"postgres://u@db.example/atcp?connect_timeout=2", 2 * time.Second},
	} {
		cfg, err := poolConfig(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.ConnConfig.ConnectTimeout; got != c.want {
			t.Fatalf("%s: connect timeout %v, want %v", c.url, got, c.want)
		}
		if b, ok := cfg.ConnConfig.Tracer.(acquireBound); !ok || b.timeout != c.want {
			t.Fatalf("%s: acquire bound %#v, want %v", c.url, cfg.ConnConfig.Tracer, c.want)
		}
	}
}

// TestOutageErrorsAreUnavailable takes the server away from a store
// through a TCP proxy in each way it can go and checks that every error is
// classified as an outage and comes quickly. Like testkit.ForEachBackend,
// it runs when ATCP_TEST_DATABASE_URL names a server.
func TestOutageErrorsAreUnavailable(t *testing.T) {
	base := os.Getenv("ATCP_TEST_DATABASE_URL")
	if base == "" {
		return
	}
	ctx := context.Background()
	open := func(t *testing.T, params string) (*DB, *tcpproxy.Proxy) {
		t.Helper()
		p := tcpproxy.New(t, hostPort(t, base))
		url := p.URL(base)
		if strings.Contains(url, "?") {
			url += "&" + params
		} else {
			url += "?" + params
		}
		db, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, p
	}
	outage := func(t *testing.T, err error, within time.Duration, took time.Duration) {
		t.Helper()
		if err == nil || !errs.IsUnavailable(err) {
			t.Fatalf("error %v (%T) not classified as an outage", err, err)
		}
		if took > within {
			t.Fatalf("the error took %v, want within %v", took, within)
		}
	}

	t.Run("refused", func(t *testing.T) {
		db, p := open(t, "connect_timeout=1")
		p.Cut()
		start := time.Now()
		outage(t, db.Ping(ctx), time.Second, time.Since(start))
		p.Restore()
		if err := db.Ping(ctx); err != nil {
			t.Fatalf("no recovery: %v", err)
		}
	})

	t.Run("closed under a query and a transaction", func(t *testing.T) {
		db, p := open(t, "connect_timeout=1")
		var wg sync.WaitGroup
		errc := make(chan error, 2)
		wg.Go(func() {
			_, err := db.pool.Exec(ctx, "SELECT pg_sleep(5)")
			errc <- err
		})
		wg.Go(func() {
			errc <- db.tx(ctx, func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, "SELECT pg_sleep(5)")
				return err
			})
		})
		time.Sleep(300 * time.Millisecond)
		start := time.Now()
		p.Cut()
		wg.Wait()
		close(errc)
		for err := range errc {
			outage(t, err, time.Second, time.Since(start))
		}
	})

	t.Run("no answer", func(t *testing.T) {
		db, p := open(t, "connect_timeout=1")
		p.Blackhole()
		// The pooled connection was closed with the others, the next one
		// never gets an answer: the connect timeout ends the wait.
		for range 2 {
			start := time.Now()
			outage(t, db.Ping(ctx), 2*time.Second, time.Since(start))
		}
		p.Restore()
		if err := db.Ping(ctx); err != nil {
			t.Fatalf("no recovery: %v", err)
		}
	})

	t.Run("every connection busy", func(t *testing.T) {
		db, _ := open(t, "connect_timeout=1&pool_max_conns=1")
		busy := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- db.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
				close(busy)
				_, err := c.Exec(ctx, "SELECT pg_sleep(3)")
				return err
			})
		}()
		<-busy
		// A deadline of the caller's own is the caller's, not an outage.
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		err := db.Ping(short)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || errs.IsUnavailable(err) {
			t.Fatalf("caller's deadline: %v (outage %v)", err, errs.IsUnavailable(err))
		}
		start := time.Now()
		err = db.Ping(ctx)
		outage(t, err, 2*time.Second, time.Since(start))
		if !errors.Is(err, errAcquireTimeout) {
			t.Fatalf("error %v, want the acquire bound's", err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})

	t.Run("terminated by the server", func(t *testing.T) {
		db, _ := open(t, "connect_timeout=1")
		err := db.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
			pid := c.Conn().PgConn().PID()
			go func() {
				time.Sleep(200 * time.Millisecond)
				_, _ = db.pool.Exec(ctx, "SELECT pg_terminate_backend($1)", pid)
			}()
			_, err := c.Exec(ctx, "SELECT pg_sleep(5)")
			return err
		})
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "57P01" {
			t.Fatalf("error %v, want SQLSTATE 57P01", err)
		}
		outage(t, err, 5*time.Second, 0)
	})
}

func hostPort(t *testing.T, url string) string {
	t.Helper()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
}
