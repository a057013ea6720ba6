// Package objstoretest is the test suite every objstore backend passes,
// through its real protocol: presigned URLs are called with a plain
// http.Client.
package objstoretest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"atcp/internal/errs"
	"atcp/internal/objstore"
)

// Options say what the backend under test can show.
type Options struct {
	// Signatures: the backend checks presigned signatures (gofakes3,
	// standing in for S3, accepts any).
	Signatures bool
}

// Run tests s; client reaches its presigned URLs.
func Run(t *testing.T, s objstore.Store, client *http.Client, o Options) {
	ctx := context.Background()
	body := []byte("%PDF-1.7\n" + strings.Repeat("x", 1000))
	key := "org/acme/onboarding/o1/doc/d1"

	t.Run("missing", func(t *testing.T) {
		if _, err := s.Stat(ctx, "org/acme/none"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("stat of a missing object: %v", err)
		}
		if _, err := s.Open(ctx, "org/acme/none", 5); !errs.Is(err, errs.NotFound) {
			t.Fatalf("open of a missing object: %v", err)
		}
		if err := s.Delete(ctx, "org/acme/none"); err != nil {
			t.Fatalf("delete of a missing object: %v", err)
		}
	})

	t.Run("presigned put and get", func(t *testing.T) {
		up, err := s.PresignPut(ctx, key, "application/pdf", int64(len(body)), 15*time.Minute)
		if err != nil || up.Method != http.MethodPut || up.Headers.Get("Content-Type") != "application/pdf" || up.Expires.IsZero() {
			t.Fatalf("presign put: %+v, %v", up, err)
		}
		if res := do(t, client, up, body); res.StatusCode != http.StatusOK {
			t.Fatalf("upload: %d %s", res.StatusCode, read(t, res))
		}
		if info, err := s.Stat(ctx, key); err != nil || info.Size != int64(len(body)) {
			t.Fatalf("stat: %+v, %v", info, err)
		}
		if got := openAll(t, s, key, 5); string(got) != "%PDF-" {
			t.Fatalf("the first 5 bytes: %q", got)
		}
		if got := openAll(t, s, key, -1); !bytes.Equal(got, body) {
			t.Fatalf("all bytes: %d of %d", len(got), len(body))
		}
		if got := openAll(t, s, key, 1<<20); !bytes.Equal(got, body) {
			t.Fatalf("more than the object: %d of %d", len(got), len(body))
		}
		if got := openAll(t, s, key, 0); len(got) != 0 {
			t.Fatalf("no bytes: %q", got)
		}
		down, err := s.PresignGet(ctx, key, "Prüfbericht 1.pdf", 5*time.Minute)
		if err != nil || down.Method != http.MethodGet {
			t.Fatalf("presign get: %+v, %v", down, err)
		}
		res := do(t, client, down, nil)
		if got := read(t, res); res.StatusCode != http.StatusOK || !bytes.Equal(got, body) {
			t.Fatalf("download: %d, %d bytes", res.StatusCode, len(got))
		}
		if cd := res.Header.Get("Content-Disposition"); cd != `attachment; filename*=UTF-8''Pr%C3%BCfbericht%201.pdf` {
			t.Errorf("Content-Disposition %q", cd)
		}
	})

	if o.Signatures {
		t.Run("a URL names one object and one method", func(t *testing.T) { signatures(t, s, client, key, body) })
	}
	t.Run("server-side put replaces", func(t *testing.T) {
		k := "org/acme/branding/banner/abc"
		if err := s.Put(ctx, k, bytes.NewReader([]byte("one")), 3, "image/png"); err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, k, bytes.NewReader([]byte("second")), 6, "image/png"); err != nil {
			t.Fatal(err)
		}
		if got := openAll(t, s, k, -1); string(got) != "second" {
			t.Fatalf("after replace: %q", got)
		}
		if err := s.Put(ctx, k+"x", bytes.NewReader([]byte("longer")), 3, "image/png"); !errors.Is(err, objstore.ErrSizeMismatch) {
			t.Fatalf("more bytes than stated: %v", err)
		}
		if _, err := s.Stat(ctx, k+"x"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a mismatched put left an object: %v", err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if err := s.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stat(ctx, key); !errs.Is(err, errs.NotFound) {
			t.Fatalf("stat after delete: %v", err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("second delete: %v", err)
		}
	})

	t.Run("invalid keys", func(t *testing.T) {
		for _, k := range []string{"", "../etc/passwd", "a/../../b", "/abs", "a//b", "a/./b", "a\\b", "a b", "ä"} {
			if _, err := s.Stat(ctx, k); err == nil || errs.Is(err, errs.NotFound) {
				t.Errorf("stat %q: %v", k, err)
			}
			if _, err := s.PresignPut(ctx, k, "image/png", 1, time.Minute); err == nil {
				t.Errorf("presign put %q accepted", k)
			}
			if err := s.Put(ctx, k, strings.NewReader("x"), 1, "image/png"); err == nil {
				t.Errorf("put %q accepted", k)
			}
		}
	})
}

func do(t *testing.T, client *http.Client, p objstore.Presigned, body []byte) *http.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(p.Method, p.URL, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range p.Headers {
		req.Header[k] = v
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func read(t *testing.T, res *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openAll(t *testing.T, s objstore.Store, key string, n int64) []byte {
	t.Helper()
	rc, err := s.Open(context.Background(), key, n)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signatures checks that a URL is bound to its key and its method.
func signatures(t *testing.T, s objstore.Store, client *http.Client, key string, body []byte) {
	ctx := context.Background()
	down, err := s.PresignGet(ctx, key, "a.pdf", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	other := down
	other.URL = strings.Replace(down.URL, "/d1?", "/d2?", 1)
	if res := do(t, client, other, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("GET of another key: %d", res.StatusCode)
	}
	put := down
	put.Method = http.MethodPut
	if res := do(t, client, put, []byte("overwrite")); res.StatusCode != http.StatusForbidden {
		t.Errorf("PUT with a GET URL: %d", res.StatusCode)
	}
	if got := openAll(t, s, key, -1); !bytes.Equal(got, body) {
		t.Error("a refused PUT changed the object")
	}
}
